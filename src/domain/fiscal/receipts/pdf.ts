// The 80 mm receipt as a PDF: one page as long as the receipt, vector QR code.
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { DEJAVU_SANS_MONO, PdfText } from '../../../platform/lib/pdf-text.ts';
import {
  COPY_MARK,
  exchangeLine,
  fiscalBlockLines,
  invoiceNoInHead,
  money,
  originalReceiptNoLabel,
  percent,
  PREVIEW_MARK,
  previewNote,
  priced,
  quantity,
  rateLabel,
} from './format.ts';
import type { Receipt } from './receipt.ts';

const MM = 72 / 25.4;
const PAGE_WIDTH = 80 * MM;
const MARGIN = 4 * MM;
const WIDTH = PAGE_WIDTH - 2 * MARGIN;
const QR_SIZE = 32 * MM;
const SIZE = 7.5;

type Doc = PDFKit.PDFDocument;

/** Draws a receipt: its text goes through PdfText (DejaVu Sans Mono, then the CJK fallback; lib/pdf-text.ts). */
interface Canvas {
  doc: Doc;
  text: PdfText;
}

function row({ doc, text }: Canvas, left: string, right: string, options: { bold?: boolean } = {}): void {
  const y = doc.y;
  const bold = options.bold ?? false;
  const rightWidth = Math.min(WIDTH * 0.6, text.width(right, { bold }) + 1);
  text.write(left, MARGIN, y, { width: WIDTH - rightWidth - 2, bold });
  const leftBottom = doc.y;
  text.write(right, MARGIN + WIDTH - rightWidth, y, { width: rightWidth, align: 'right', bold });
  doc.y = Math.max(leftBottom, doc.y);
}

function rule(doc: Doc): void {
  const y = doc.y + 2;
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + WIDTH, y)
    .dash(2, { space: 2 })
    .lineWidth(0.5)
    .stroke()
    .undash();
  doc.y = y + 4;
}

function centered({ doc, text: pdfText }: Canvas, text: string, options: { bold?: boolean; size?: number } = {}): void {
  doc.fontSize(options.size ?? SIZE);
  pdfText.write(text, MARGIN, doc.y, { width: WIDTH, align: 'center', bold: options.bold ?? false });
  doc.fontSize(SIZE);
}

function qrCode(doc: Doc, url: string): void {
  const { modules } = QRCode.create(url, { errorCorrectionLevel: 'M' });
  const cell = QR_SIZE / modules.size;
  const left = MARGIN + (WIDTH - QR_SIZE) / 2;
  const top = doc.y + 4;
  for (let r = 0; r < modules.size; r++) {
    for (let c = 0; c < modules.size; c++) if (modules.get(r, c)) doc.rect(left + c * cell, top + r * cell, cell, cell);
  }
  doc.fill('#000');
  doc.y = top + QR_SIZE + 4;
}

/** Lays the receipt out from the top of the page; returns where it ends. */
function draw(c: Canvas, receipt: Receipt): number {
  const { doc } = c;
  doc.y = MARGIN;
  doc.fontSize(SIZE);
  centered(c, receipt.merchantName, { bold: true, size: 9 });
  centered(c, `${receipt.labels.taxpayerId}: ${receipt.tpin}`);
  centered(c, `Branch: ${receipt.branch}${receipt.branchName ? ` ${receipt.branchName}` : ''}`);
  if (receipt.address) centered(c, receipt.address);
  doc.moveDown(0.5);
  centered(c, receipt.fiscal ? receipt.title : `*** ${receipt.title} ***`, { bold: true, size: 9 });
  if (receipt.mark === 'copy') centered(c, `*** ${COPY_MARK} ***`, { bold: true, size: 11 });
  if (receipt.mark === 'preview') {
    centered(c, `*** ${PREVIEW_MARK} ***`, { bold: true, size: 10 });
    centered(c, previewNote(receipt.printedBefore));
  }
  doc.moveDown(0.5);
  if (receipt.authorityInvoiceNo && invoiceNoInHead(receipt)) row(c, receipt.labels.invoiceNo, receipt.authorityInvoiceNo);
  row(c, receipt.labels.receiptNo, String(receipt.receiptNo));
  row(c, 'Invoice seq.', String(receipt.invoiceNo));
  if (receipt.clientInvoiceNo) row(c, 'Your ref.', receipt.clientInvoiceNo);
  row(c, 'Invoice type', receipt.invoiceType);
  row(c, 'Date', receipt.printed.occurredAt);
  row(c, 'Customer', receipt.customer.name);
  if (receipt.customer.tpin) row(c, `Customer ${receipt.labels.taxpayerId}`, receipt.customer.tpin);
  if (receipt.customer.address) row(c, 'Customer address', receipt.customer.address);
  if (receipt.lpoNumber) row(c, 'LPO No', receipt.lpoNumber);
  if (receipt.principalId) row(c, 'Principal', receipt.principalId);
  row(c, 'Payment', receipt.paymentMethod);
  row(c, 'Currency', receipt.totals.currency);
  if (receipt.original) {
    if (receipt.original.authorityInvoiceNo) row(c, receipt.labels.originalInvoiceNo, receipt.original.authorityInvoiceNo);
    if (receipt.original.receiptNo !== null) row(c, originalReceiptNoLabel(receipt), String(receipt.original.receiptNo));
  }
  if (receipt.reason) row(c, 'Reason', receipt.reason);
  rule(doc);
  for (const line of receipt.items) {
    c.text.write(line.name, MARGIN, doc.y, { width: WIDTH });
    row(c, `  ${quantity(line.quantity)} x ${money(line.price)}  ${line.vatCategory}`, money(line.amount));
    if (line.discount !== 0) row(c, `  Discount ${percent(line.discountRate)}`, `-${money(line.discount)}`);
    row(c, '  Excl. VAT', money(line.net));
    if (line.rrp !== null) row(c, `  MTV: RRP ${money(line.rrp)} per unit`, '');
  }
  rule(doc);
  row(c, 'Cat.   Taxable      VAT', 'Total', { bold: true });
  for (const category of receipt.categories) {
    row(
      c,
      `${`${category.code} ${rateLabel(category.rate)}`.padEnd(7)}${money(category.taxable).padStart(8)} ${money(category.vat).padStart(8)}`,
      money(category.total),
    );
  }
  rule(doc);
  const cur = receipt.totals.currency;
  row(c, receipt.netLabel, priced(receipt.totals.net, cur));
  row(
    c,
    `Total discount ${percent(receipt.discountRate)}`,
    `${receipt.totals.discount !== 0 ? '-' : ''}${priced(receipt.totals.discount, cur)}`,
  );
  row(c, 'Total VAT', priced(receipt.totals.vat, cur));
  row(c, 'TOTAL incl. VAT', priced(receipt.totals.total, cur), { bold: true });
  if (receipt.exchange) {
    row(c, `Exchange rate: ${exchangeLine(receipt.exchange.currency, receipt.exchange.rate, receipt.exchange.home)}`, '');
    row(c, `Total in ${receipt.exchange.home}`, priced(receipt.exchange.totalInHome, receipt.exchange.home));
  }
  rule(doc);
  centered(c, receipt.labels.fiscalBlock, { bold: true });
  for (const [label, value] of fiscalBlockLines(receipt)) if (value) row(c, label, value);
  if (receipt.mark !== 'original') {
    doc.moveDown(0.5);
    centered(c, receipt.mark === 'copy' ? `*** ${COPY_MARK} ***` : `*** ${PREVIEW_MARK} ***`, {
      bold: true,
      size: receipt.mark === 'copy' ? 11 : 10,
    });
  }
  c.text.font(true).text(`${receipt.labels.internalData}:`, MARGIN, doc.y, { width: WIDTH });
  c.text.font().text(receipt.printed.internalData, { width: WIDTH });
  c.text.font(true).text(`${receipt.labels.signature}:`, MARGIN, doc.y, { width: WIDTH });
  c.text.font().text(receipt.printed.receiptSignature, { width: WIDTH });
  if (receipt.qrCodeUrl) qrCode(doc, receipt.qrCodeUrl);
  centered(c, receipt.fiscal ? receipt.labels.fiscalFooter : receipt.title, { bold: !receipt.fiscal });
  return doc.y + MARGIN;
}

/** A preview's watermark: PREVIEW across the page every few centimetres, light grey, under the text. */
function watermark(c: Canvas, height: number): void {
  const { doc } = c;
  c.text.font(true);
  doc.fontSize(26).fillColor('#c8c8c8');
  for (let y = 40 * MM; y < height - 20 * MM; y += 60 * MM) {
    doc.save().rotate(-35, { origin: [PAGE_WIDTH / 2, y] });
    doc.text('PREVIEW', 0, y - 13, { width: PAGE_WIDTH, align: 'center', lineBreak: false });
    doc.restore();
  }
  doc.fillColor('#000').fontSize(SIZE);
  c.text.font();
}

function canvas(doc: Doc): Canvas {
  const text = new PdfText(doc, DEJAVU_SANS_MONO);
  text.font();
  return { doc, text };
}

function collect(doc: Doc): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

export async function renderReceiptPdf(receipt: Receipt): Promise<Buffer> {
  // pdfkit fixes the page size up front: lay out once on a long scratch page to measure.
  // The scratch document is never ended: ending it would embed its font subsets for nothing.
  const scratch = new PDFDocument({ size: [PAGE_WIDTH, 100_000], margin: 0, autoFirstPage: true });
  const height = Math.ceil(draw(canvas(scratch), receipt));

  const prefix = { original: '', copy: `${COPY_MARK} `, preview: `${PREVIEW_MARK}: ` }[receipt.mark];
  const title = `${prefix}${receipt.title} ${receipt.authorityInvoiceNo ?? receipt.receiptNo}`;
  const doc = new PDFDocument({
    size: [PAGE_WIDTH, height],
    margin: 0,
    info: { Title: title, Author: receipt.merchantName, CreationDate: new Date(receipt.publishedAt) },
  });
  const bytes = collect(doc);
  const page = canvas(doc);
  if (receipt.mark === 'preview') watermark(page, height);
  draw(page, receipt);
  doc.end();
  return bytes;
}
