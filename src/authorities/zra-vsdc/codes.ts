// The authority's codes the gateway sends and shows: payment types (code class 07), credit-note
// reasons (32) and debit-note reasons (67), each with its meaning in the authority's words (the
// names its `selectCodes` publishes, written in sentence case). The receipt prints these labels
// and the console shows them (served from the profile: GET /api/v1/account/authority).
// test/authorities/zra/codes.test.ts checks them against the simulator's published tables.

/** Code class 07. */
export const PAYMENT_TYPE_CODES = ['01', '02', '03', '04', '05', '06', '07', '08'] as const;
export type PaymentTypeCode = (typeof PAYMENT_TYPE_CODES)[number];
export const PAYMENT_TYPE_LABELS: Readonly<Record<PaymentTypeCode, string>> = {
  '01': 'Cash',
  '02': 'Credit',
  '03': 'Cash/credit',
  '04': 'Bank check',
  '05': 'Debit & credit card',
  '06': 'Mobile money',
  '07': 'Other',
  '08': 'Bank transfer',
};

/** Code class 32. */
export const CREDIT_NOTE_REASON_CODES = ['01', '02', '03', '04', '05', '06', '07'] as const;
type CreditNoteReasonCode = (typeof CREDIT_NOTE_REASON_CODES)[number];
export const CREDIT_NOTE_REASON_LABELS: Readonly<Record<CreditNoteReasonCode, string>> = {
  '01': 'Wrong product(s)',
  '02': 'Wrong price',
  '03': 'Damaged goods',
  '04': 'Wrong customer invoiced',
  '05': 'Duplicated invoice',
  '06': 'Excess supplies',
  '07': 'Other',
};

/** Code class 67. */
export const DEBIT_NOTE_REASON_CODES = ['01', '02', '03', '04'] as const;
type DebitNoteReasonCode = (typeof DEBIT_NOTE_REASON_CODES)[number];
export const DEBIT_NOTE_REASON_LABELS: Readonly<Record<DebitNoteReasonCode, string>> = {
  '01': 'Wrong quantity invoiced',
  '02': 'Wrong invoice amount',
  '03': 'Omitted item',
  '04': 'Other',
};

/** What `code` means in `labels`; a code the table does not hold stands for itself. */
function codeLabel(labels: Readonly<Record<string, string>>, code: string): string {
  return Object.hasOwn(labels, code) ? labels[code]! : code;
}

/** A payment type as shown: `Mobile money` for `06`. */
export function paymentTypeLabel(code: string): string {
  return codeLabel(PAYMENT_TYPE_LABELS, code);
}

/** A note's reason as shown, the code the authority holds and what it means: `03 Damaged goods`. */
export function noteReasonLabel(note: 'credit_note' | 'debit_note', code: string): string {
  const labels: Readonly<Record<string, string>> = note === 'credit_note' ? CREDIT_NOTE_REASON_LABELS : DEBIT_NOTE_REASON_LABELS;
  return Object.hasOwn(labels, code) ? `${code} ${labels[code]}` : code;
}

/** Code class 14, as the gateway names the kinds it issues: normal, training and proforma. */
export const SALES_TYPES = ['normal', 'training', 'proforma'] as const;
export type SalesTypeName = (typeof SALES_TYPES)[number];
/** salesTyCd of each kind (class 14; `C` copy is never filed: a reprint is not a document). */
export const SALES_TYPE_CODES: Readonly<Record<SalesTypeName, 'N' | 'T' | 'P'>> = { normal: 'N', training: 'T', proforma: 'P' };

/**
 * The `cisInvcNo` of a document: a normal document's number as is (`12`), a training or proforma
 * one's with its kind's letter (`T-12`, `P-12`), so the kinds' sequences never collide at the VSDC
 * (a `cisInvcNo` is unique across them).
 */
export function cisInvoiceNo(salesType: SalesTypeName, invoiceNo: number): string {
  return salesType === 'normal' ? String(invoiceNo) : `${SALES_TYPE_CODES[salesType]}-${invoiceNo}`;
}

export const HOME_CURRENCY = 'ZMW';

/** A normal document's title; training and proforma documents carry a banner instead (`BANNERS`). */
export const TITLES = { sale: 'TAX INVOICE', credit_note: 'CREDIT NOTE', debit_note: 'DEBIT NOTE' } as const;
/** What a training or proforma document prints instead of its title, whatever its type. */
export const BANNERS = { training: 'TRAINING — NOT A TAX INVOICE', proforma: 'PROFORMA — NOT A TAX INVOICE' } as const;
