// The 80 mm receipt as a PDF: one page as long as the receipt, vector QR code.
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { money, printedDate, quantity, rateLabel } from './format.ts';
import type { Receipt } from './receipt.ts';

const MM = 72 / 25.4;
const PAGE_WIDTH = 80 * MM;
const MARGIN = 4 * MM;
const WIDTH = PAGE_WIDTH - 2 * MARGIN;
const QR_SIZE = 32 * MM;
const FONT = 'Courier';
const BOLD = 'Courier-Bold';
const SIZE = 7.5;

type Doc = PDFKit.PDFDocument;

/**
 * The PDF uses the standard Courier fonts (nothing to ship or find), which cover Latin-1 only:
 * accents are folded and anything else becomes "?". The HTML receipt prints every character.
 */
export function printable(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

function row(doc: Doc, left: string, right: string, options: { bold?: boolean } = {}): void {
  const y = doc.y;
  doc.font(options.bold ? BOLD : FONT);
  const rightText = printable(right);
  const rightWidth = Math.min(WIDTH * 0.6, doc.widthOfString(rightText) + 1);
  doc.text(printable(left), MARGIN, y, { width: WIDTH - rightWidth - 2 });
  const leftBottom = doc.y;
  doc.text(rightText, MARGIN + WIDTH - rightWidth, y, { width: rightWidth, align: 'right' });
  doc.y = Math.max(leftBottom, doc.y);
}

function rule(doc: Doc): void {
  const y = doc.y + 2;
  doc.moveTo(MARGIN, y).lineTo(MARGIN + WIDTH, y).dash(2, { space: 2 }).lineWidth(0.5).stroke().undash();
  doc.y = y + 4;
}

function centered(doc: Doc, text: string, options: { bold?: boolean; size?: number } = {}): void {
  doc.font(options.bold ? BOLD : FONT).fontSize(options.size ?? SIZE).text(printable(text), MARGIN, doc.y, { width: WIDTH, align: 'center' });
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
function draw(doc: Doc, receipt: Receipt): number {
  doc.y = MARGIN;
  doc.fontSize(SIZE);
  centered(doc, receipt.taxpayerName, { bold: true, size: 9 });
  centered(doc, `TPIN: ${receipt.tpin}`);
  centered(doc, `Branch: ${receipt.branch}${receipt.branchName ? ` ${receipt.branchName}` : ''}`);
  doc.moveDown(0.5);
  centered(doc, receipt.title, { bold: true, size: 9 });
  doc.moveDown(0.5);
  if (receipt.authorityInvoiceNo) row(doc, 'Invoice No', receipt.authorityInvoiceNo);
  row(doc, 'Receipt No', String(receipt.receiptNo));
  row(doc, 'Invoice seq.', String(receipt.invoiceNo));
  if (receipt.clientInvoiceNo) row(doc, 'Your ref.', receipt.clientInvoiceNo);
  row(doc, 'Date', printedDate(receipt.occurredAt));
  row(doc, 'Customer', receipt.customer.name);
  if (receipt.customer.tpin) row(doc, 'Customer TPIN', receipt.customer.tpin);
  row(doc, 'Payment', receipt.paymentMethod);
  rule(doc);
  for (const line of receipt.items) {
    doc.font(FONT).text(printable(line.name), MARGIN, doc.y, { width: WIDTH });
    row(doc, `  ${quantity(line.quantity)} x ${money(line.price)}  ${line.vatCategory}`, money(line.amount));
    if (line.discount !== 0) row(doc, '  Discount', `-${money(line.discount)}`);
    if (line.rrp !== null) row(doc, `  MTV: RRP ${money(line.rrp)} per unit`, '');
  }
  rule(doc);
  row(doc, 'Cat.   Taxable      VAT', 'Total', { bold: true });
  for (const c of receipt.categories) {
    row(doc, `${`${c.code} ${rateLabel(c.rate)}`.padEnd(7)}${money(c.taxable).padStart(8)} ${money(c.vat).padStart(8)}`, money(c.total));
  }
  rule(doc);
  if (receipt.totals.discount !== 0) row(doc, 'Total discount', `-${money(receipt.totals.discount)}`);
  row(doc, receipt.netLabel, money(receipt.totals.net));
  row(doc, 'Total VAT', money(receipt.totals.vat));
  row(doc, `TOTAL ${receipt.totals.currency}`, money(receipt.totals.total), { bold: true });
  rule(doc);
  centered(doc, 'SDC INFORMATION', { bold: true });
  row(doc, 'Date published', printedDate(receipt.publishedAt));
  row(doc, 'SDC ID', receipt.sdcId);
  if (receipt.mrcNo) row(doc, 'MRC No', receipt.mrcNo);
  row(doc, 'Receipt No', String(receipt.receiptNo));
  doc.font(BOLD).text('Internal data:', MARGIN, doc.y, { width: WIDTH });
  doc.font(FONT).text(receipt.internalData, { width: WIDTH });
  doc.font(BOLD).text('Receipt signature:', MARGIN, doc.y, { width: WIDTH });
  doc.font(FONT).text(receipt.receiptSignature, { width: WIDTH });
  if (receipt.qrCodeUrl) qrCode(doc, receipt.qrCodeUrl);
  centered(doc, "Fiscal receipt issued through the authority's VSDC.");
  return doc.y + MARGIN;
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
  const scratch = new PDFDocument({ size: [PAGE_WIDTH, 100_000], margin: 0, autoFirstPage: true });
  const measured = collect(scratch);
  const height = Math.ceil(draw(scratch, receipt));
  scratch.end();
  await measured;

  const title = `${receipt.title} ${receipt.authorityInvoiceNo ?? receipt.receiptNo}`;
  const doc = new PDFDocument({ size: [PAGE_WIDTH, height], margin: 0, info: { Title: title, Author: receipt.taxpayerName, CreationDate: new Date(receipt.publishedAt) } });
  const bytes = collect(doc);
  draw(doc, receipt);
  doc.end();
  return bytes;
}
