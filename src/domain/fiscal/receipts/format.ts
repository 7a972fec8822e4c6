// Number and date formats, and the fiscal block's lines, shared by the HTML and PDF receipts.
import type { FiscalBlockField } from '../../../authorities/port/index.ts';
import type { Receipt } from './receipt.ts';

export const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const quantity = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 4 });

/** An amount with its currency code: `USD 1,234.50`. */
export const priced = (n: number, currency: string) => `${currency} ${money(n)}`;

/** `10%`, `12.5%`: a discount's rate. */
export const percent = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;

/** `Exchange rate: 1 USD = 27.1500 ZMW`. */
export const exchangeLine = (currency: string, rate: string, home: string) => `1 ${currency} = ${rate} ${home}`;

export function rateLabel(rate: number): string {
  return `${rate}%`;
}

/** What a receipt printed again says, above its items and at its foot. */
export const COPY_MARK = 'COPY';

/** What a preview says, above its items and at its foot: it is no print, and no receipt. */
export const PREVIEW_MARK = 'PREVIEW — NOT A RECEIPT';

/** Under a preview's mark: what printing it would give. */
export function previewNote(printedBefore: number): string {
  if (printedBefore === 0) return 'Not printed yet: the next print is the original.';
  return `Printed ${printedBefore} ${printedBefore === 1 ? 'time' : 'times'}: the next print says COPY.`;
}

interface NamedDocument {
  type: 'sale' | 'credit_note' | 'debit_note';
  salesType: 'normal' | 'training' | 'proforma';
  authorityInvoiceNo: string | null;
  receiptNo: number | null;
  mark: 'original' | 'copy' | 'preview';
}

const FILE_KINDS: Record<NamedDocument['type'], string> = { sale: 'receipt', credit_note: 'credit-note', debit_note: 'debit-note' };

/**
 * The file a receipt is saved as: what it is and its number, `receipt-INV0000001-12.pdf`,
 * `credit-note-INV0000001-13-copy.pdf`, `training-receipt-…-preview.html`.
 */
export function receiptFileName(doc: NamedDocument, extension: 'pdf' | 'html'): string {
  const number = (doc.authorityInvoiceNo ?? String(doc.receiptNo ?? '')).replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  const parts = [
    doc.salesType === 'normal' ? null : doc.salesType,
    FILE_KINDS[doc.type],
    number || null,
    doc.mark === 'original' ? null : doc.mark,
  ];
  return `${parts.filter((p) => p !== null).join('-')}.${extension}`;
}

/** A line of the receipt: its label, its value (null: the document has none), and `time` for a time (kept on one line). */
type PrintedLine = [label: string, value: string | null, kind?: 'time'];

/** The fiscal block's lines, as the authority's layout lists them. */
export function fiscalBlockLines(receipt: Receipt): PrintedLine[] {
  const { labels } = receipt;
  const lines: Record<FiscalBlockField, PrintedLine> = {
    fiscalisedAt: [labels.fiscalisedAt, receipt.printed.publishedAt, 'time'],
    unitId: [labels.unitId, receipt.sdcId],
    unitNumber: [labels.unitNumber, receipt.mrcNo],
    invoiceNo: [labels.invoiceNo, receipt.authorityInvoiceNo],
    receiptNo: [labels.receiptNo, String(receipt.receiptNo)],
    totalReceiptNo: [labels.totalReceiptNo, receipt.totalReceiptNo === null ? null : String(receipt.totalReceiptNo)],
    itemCount: [labels.itemCount, String(receipt.itemCount)],
  };
  return receipt.layout.fiscalBlock.map((field) => lines[field]);
}

/** A note's line for its original's receipt number: `Original receipt No`. */
export const originalReceiptNoLabel = (receipt: Receipt) =>
  `Original ${receipt.labels.receiptNo.charAt(0).toLowerCase()}${receipt.labels.receiptNo.slice(1)}`;

/** Whether the head of the receipt prints the authority's number (else its fiscal block does). */
export const invoiceNoInHead = (receipt: Receipt) => !receipt.layout.fiscalBlock.includes('invoiceNo');
