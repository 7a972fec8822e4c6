// KRA's codes the gateway sends and shows: payment types (code class 07), refund reasons (32),
// the receipt types (37: S sale, R credit note; KRA has no debit note) and the sales types
// (14: N normal, T training, P proforma).
import type { CodeLabel } from '../port/profile.ts';
import type { DocumentType, SalesType } from '../port/filing.ts';

/** Class 07 (no ZRA-style 08 bank transfer). */
export const KRA_PAYMENT_METHODS: readonly CodeLabel[] = [
  { code: '01', label: 'Cash' },
  { code: '02', label: 'Credit' },
  { code: '03', label: 'Cash/credit' },
  { code: '04', label: 'Bank cheque' },
  { code: '05', label: 'Debit & credit card' },
  { code: '06', label: 'Mobile money' },
  { code: '07', label: 'Other' },
];

/** Class 32: 01–06 in every source, 07–13 in Odoo's table. */
export const KRA_REFUND_REASONS: readonly CodeLabel[] = [
  { code: '01', label: 'Missing quantity' },
  { code: '02', label: 'Missing data' },
  { code: '03', label: 'Damaged' },
  { code: '04', label: 'Wasted' },
  { code: '05', label: 'Raw material shortage' },
  { code: '06', label: 'Refund' },
  { code: '07', label: 'Wrong customer PIN' },
  { code: '08', label: 'Wrong customer name' },
  { code: '09', label: 'Wrong amount/price' },
  { code: '10', label: 'Wrong quantity' },
  { code: '11', label: 'Wrong item(s)' },
  { code: '12', label: 'Wrong tax type' },
  { code: '13', label: 'Other' },
];

/** `rcptTyCd` of a document; a debit note has none (KRA has no debit notes). */
export const RECEIPT_TYPE: Readonly<Partial<Record<DocumentType, 'S' | 'R'>>> = { sale: 'S', credit_note: 'R' };

/** `salesTyCd` of each kind (sent on VSCU only: no OSCU client sends it). */
export const SALES_TYPE_CODE: Readonly<Record<SalesType, 'N' | 'T' | 'P'>> = { normal: 'N', training: 'T', proforma: 'P' };

export const KRA_RECEIPT_TITLES = {
  sale: 'TAX INVOICE',
  credit_note: 'CREDIT NOTE',
  debit_note: 'DEBIT NOTE',
  training: 'TRAINING — NOT A TAX INVOICE',
  proforma: 'PROFORMA — NOT A TAX INVOICE',
} as const;

/** Class 12: stock coming in from a purchase. */
export const STOCK_IN_PURCHASE = '02';
/** Class 26: import item status of an answer. */
export const IMPORT_STATUS = { approved: '3', rejected: '4' } as const;
/** Class 34: purchase status of an answer (02 approved, 04 rejected). */
export const PURCHASE_STATUS = { accepted: '02', rejected: '04' } as const;
