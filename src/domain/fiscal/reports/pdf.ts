// A daily report on one A4 page, in DejaVu Sans with the CJK fallback (lib/pdf-text.ts).
import PDFDocument from 'pdfkit';
import { DEJAVU_SANS, PdfText } from '../../../platform/lib/pdf-text.ts';
import { localDateTime } from '../../../platform/lib/time-zones.ts';
import type { AuthorityProfile } from '../../../authorities/port/profile.ts';
import type { ByTypeResource, DailyReportResource, FiguresResource } from './schemas.ts';

const MARGIN = 40;
const WIDTH = 595.28 - 2 * MARGIN;
const TYPE_NAMES = { sale: 'Sales', credit_note: 'Credit notes', debit_note: 'Debit notes' } as const;

type Doc = PDFKit.PDFDocument;

const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A row of cells: the first left-aligned and wide, the rest right-aligned. */
function tableRow(doc: Doc, text: PdfText, cells: readonly string[], options: { bold?: boolean } = {}): void {
  const y = doc.y;
  const first = WIDTH * 0.28;
  const rest = (WIDTH - first) / Math.max(1, cells.length - 1);
  doc.fontSize(8);
  cells.forEach((cell, i) => {
    const x = i === 0 ? MARGIN : MARGIN + first + (i - 1) * rest;
    text.write(cell, x, y, {
      width: i === 0 ? first : rest,
      align: i === 0 ? 'left' : 'right',
      lineBreak: false,
      bold: options.bold ?? false,
    });
  });
  doc.y = y + 11;
}

function heading(doc: Doc, text: PdfText, title: string): void {
  doc.moveDown(0.6).fontSize(10);
  text.write(title, MARGIN, doc.y, { width: WIDTH, bold: true });
  doc.moveDown(0.2);
}

const figureCells = (f: FiguresResource) => [String(f.count), money(f.taxable), money(f.vat), money(f.total), money(f.discount)];
const FIGURE_HEADER = ['Documents', 'Taxable', 'VAT', 'Total', 'Discount'];

function byTypeRows(doc: Doc, text: PdfText, label: string, f: ByTypeResource): void {
  tableRow(doc, text, [label, ...figureCells(f.net)], { bold: true });
  for (const [name, part] of [
    ['  sales', f.sales],
    ['  credit notes', f.creditNotes],
    ['  debit notes', f.debitNotes],
  ] as const) {
    if (part.count > 0) tableRow(doc, text, [name, ...figureCells(part)]);
  }
}

/** `profile`: the merchant's authority's (its taxpayer id's name, the labels of its payment types). */
export async function renderReportPdf(report: DailyReportResource, profile: AuthorityProfile): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `${report.type} report ${report.date} branch ${report.branch}`, Author: report.merchant.name },
  });
  const text = new PdfText(doc, DEJAVU_SANS);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  text.font(true).fontSize(16).text(`${report.type} REPORT - ${report.date}`, MARGIN, MARGIN, { width: WIDTH });
  doc.fontSize(9);
  text.write(
    `${report.merchant.name} · ${profile.receiptLabels.taxpayerId} ${report.merchant.tpin} · Branch ${report.branch}${report.branchName ? ` ${report.branchName}` : ''}`,
    MARGIN,
    doc.y,
    { width: WIDTH },
  );
  text.font();
  // Every time in the merchant's zone, with the zone (`2026-11-27 17:29:47 CAT`).
  const local = (iso: string) => localDateTime(new Date(iso), report.timezone);
  doc.text(`Day in ${report.timezone}: ${local(report.from)} to ${local(report.to)} · figures of ${local(report.generatedAt)}`);
  doc.text(
    report.type === 'Z' && report.closedAt
      ? `Closed ${local(report.closedAt)} by ${report.closedByName ?? report.closedBy}: this report never changes.`
      : 'The day is open: these figures change until it is closed.',
  );
  const after = report.storedAfterClose?.net;
  if (after && after.count > 0) {
    doc.text(
      `${after.count} document${after.count === 1 ? '' : 's'} of this day stored after the close (net total ${money(after.total)} ${report.currency}) ${after.count === 1 ? 'is' : 'are'} in no figure of this report: see the documents list and the exports.`,
    );
  }
  doc.text(
    `Documents: ${report.counts.documents} · uploaded ${report.counts.uploaded} · pending ${report.counts.pending} · failed ${report.counts.failed} · resolved ${report.counts.resolved}`,
  );
  const n = report.numbers;
  doc.text(
    `Invoice numbers ${n.firstInvoiceNo ?? '-'} to ${n.lastInvoiceNo ?? '-'} · receipt numbers ${n.firstReceiptNo ?? '-'} to ${n.lastReceiptNo ?? '-'}`,
  );

  heading(doc, text, `Fiscalised (uploaded) documents, ${report.currency}`);
  tableRow(doc, text, ['', ...FIGURE_HEADER], { bold: true });
  byTypeRows(doc, text, 'Net (sales + debit - credit)', report.fiscal);

  heading(doc, text, 'Per VAT category (uploaded)');
  tableRow(doc, text, ['Category', ...FIGURE_HEADER], { bold: true });
  for (const c of report.vatCategories) byTypeRows(doc, text, `${c.category} ${c.rate}%`, c);

  heading(doc, text, 'Per payment method (uploaded)');
  tableRow(doc, text, ['Method', ...FIGURE_HEADER], { bold: true });
  for (const p of report.paymentMethods)
    byTypeRows(doc, text, profile.paymentMethods.find((m) => m.code === p.method)?.label ?? p.method, p);

  heading(doc, text, 'Every document by type and status');
  tableRow(doc, text, ['Type / status', ...FIGURE_HEADER], { bold: true });
  for (const d of report.documents) tableRow(doc, text, [`${TYPE_NAMES[d.type]} ${d.status}`, ...figureCells(d)]);
  doc.end();
  return done;
}
