import type { ColumnType, Generated } from 'kysely';
import type { NullableNumeric, NullableTimestamp, Timestamp } from './columns.ts';
import type { RetryColumns } from './items.ts';

export type PurchaseDecision = 'accepted' | 'rejected';
export type PurchaseFilingState = 'not_sent' | 'sending' | 'accepted' | 'failed';
/** `pulled` from the authority (selectTrnsPurchaseSales); `manual`: captured by the merchant (POST /api/v1/purchases). */
export type PurchaseSource = 'pulled' | 'manual';

/** A supplier's document addressed to the merchant, as received, with the merchant's answer. */
export interface PurchasesTable extends RetryColumns {
  id: Generated<number>;
  tenant_id: number;
  /** The branch it was first pulled through (or captured at); the answer is filed through it. */
  device_id: number;
  source: Generated<PurchaseSource>;
  /** Supplier TPIN, branch, invoice number and receipt type (or a hash of the raw document when those are missing). */
  dedupe_key: string;
  supplier_tpin: string | null;
  supplier_name: string | null;
  supplier_branch: string | null;
  supplier_invoice_no: string | null;
  supplier_sdc_id: string | null;
  receipt_type_code: string | null;
  payment_type_code: string | null;
  /** cfmDt, salesDt, stockRlsDt as the authority sent them (their format is not always the protocol's). */
  confirmed_dt: string | null;
  sales_date: string | null;
  stock_release_dt: string | null;
  total_item_count: NullableNumeric;
  total_taxable_amount: NullableNumeric;
  total_tax_amount: NullableNumeric;
  total_amount: NullableNumeric;
  remark: string | null;
  /** The whole document as received. */
  sale: ColumnType<unknown, string, string>;
  /** What does not add up in the document (texts); stored, never refused. */
  inconsistencies: ColumnType<string[], string | undefined, string>;
  decision: PurchaseDecision | null;
  decided_at: NullableTimestamp;
  /** The merchant's remark (accept) or reason (reject), sent with the answer. */
  answer_remark: string | null;
  /** The branch's own purchase number (savePurchase invcNo), given with the decision. */
  purchase_invoice_no: number | null;
  filing_state: Generated<PurchaseFilingState>;
  filing_code: string | null;
  filing_message: string | null;
  filed_at: NullableTimestamp;
  received_at: Timestamp;
  updated_at: Timestamp;
}

export interface PurchaseLinesTable {
  purchase_id: number;
  /** 1-based position in the document's itemList. */
  line_no: number;
  item_seq: NullableNumeric;
  item_code: string | null;
  item_class_code: string | null;
  item_name: string | null;
  barcode: string | null;
  packaging_unit_code: string | null;
  packages: NullableNumeric;
  quantity_unit_code: string | null;
  quantity: NullableNumeric;
  unit_price: NullableNumeric;
  supply_amount: NullableNumeric;
  discount_rate: NullableNumeric;
  discount_amount: NullableNumeric;
  vat_category: string | null;
  taxable_amount: NullableNumeric;
  vat_amount: NullableNumeric;
  total_amount: NullableNumeric;
  line: ColumnType<unknown, string, string>;
  /** The merchant's item the line was accepted as. */
  mapped_item_code: string | null;
}

interface PurchaseInvoiceCountersTable {
  device_id: number;
  last_invoice_no: number;
}

export interface PurchaseTables {
  purchases: PurchasesTable;
  purchase_lines: PurchaseLinesTable;
  purchase_invoice_counters: PurchaseInvoiceCountersTable;
}
