// A new document (NewDocument, with its NewLines) and the columns of `sales` and `sale_lines` it
// fills: the one list each from which both insert statements (document-insert.ts) are built.
import { sql, type RawBuilder } from 'kysely';
import type { DocumentType, SalesTable, SalesType } from '../../../platform/db/tables/sales.ts';
import type { FilingDetails } from '../../../authorities/port/index.ts';
import type { Issuer } from '../../kernel/audit/store.ts';

export interface NewLine {
  line: number;
  name: string;
  classification_code: string;
  item_code: string | null;
  quantity: number;
  price: number;
  vat_category: string;
  vat_rate: number;
  /** MTV (B) lines: the RRP per unit. */
  rrp: number | null;
  amount: number;
  discount: number;
  /** MTV (B) lines: the filed splyAmt (quantity × the higher of RRP and price); null: amount. */
  supply: number | null;
  net: number;
  vat: number;
  total: number;
  original_line: number | null;
}

/** Which device a document goes to: a known one (notes), or the branch rule of design.md. */
export type DocumentTarget = { deviceId: number } | { branchHeader: string | undefined };

export interface NewDocument {
  tenantId: number;
  /**
   * The merchant's authority (`tenants.authority`): with the target device's protocol, its unit's
   * profile, which says whether the unit files the document's kind and from which sequence.
   */
  authority: string;
  target: DocumentTarget;
  tpin: string;
  type: DocumentType;
  /** Which of the branch's sequences numbers it; only `normal` documents count against the quota. */
  salesType: SalesType;
  reference: string | null;
  requestHash: string | null;
  clientInvoiceNo: string | null;
  customerName: string;
  customerTpin: string | null;
  customerAddress: string | null;
  paymentMethod: string;
  taxInclusive: boolean;
  destinationCountryCode: string | null;
  occurredAt: Date;
  /** ISO 4217; the amounts are in it. */
  currency: string;
  /** ZMW per unit of currency (1 for ZMW). */
  exchangeRate: number;
  lpoNumber: string | null;
  principalId: string | null;
  net: number;
  vat: number;
  total: number;
  originalSaleId: number | null;
  originalReceiptNo: number | null;
  originalInvoiceNo: number | null;
  originalSdcId: string | null;
  reasonCode: string | null;
  /** The credential of the request that issues it. */
  issuedBy: Issuer;
  /** Filing details beyond the document's own fields (a till's registrant, line units); absent: none. */
  filingDetails?: FilingDetails | null;
  lines: NewLine[];
}

/**
 * The columns of `sales` a new document brings (the statement picks the others it writes:
 * device_id, branch and invoice_no), each with its SQL type and its value. Both insert
 * statements are built from this one list, once: insertOneDocument binds each value as a
 * parameter, insertDocuments reads each from its json input as that type. A new column a
 * document brings is one line here (with its migration and its table interface).
 */
const DOCUMENT_COLUMNS = {
  tenant_id: { type: 'integer', value: (d) => d.tenantId },
  tpin: { type: 'text', value: (d) => d.tpin },
  type: { type: 'text', value: (d) => d.type },
  sales_type: { type: 'text', value: (d) => d.salesType },
  reference: { type: 'text', value: (d) => d.reference },
  request_hash: { type: 'text', value: (d) => d.requestHash },
  client_invoice_no: { type: 'text', value: (d) => d.clientInvoiceNo },
  customer_name: { type: 'text', value: (d) => d.customerName },
  customer_tpin: { type: 'text', value: (d) => d.customerTpin },
  customer_address: { type: 'text', value: (d) => d.customerAddress },
  payment_method: { type: 'text', value: (d) => d.paymentMethod },
  tax_inclusive: { type: 'boolean', value: (d) => d.taxInclusive },
  destination_country_code: { type: 'text', value: (d) => d.destinationCountryCode },
  // A Date: bound as such, and in the json input as its ISO text (toJSON).
  occurred_at: { type: 'timestamptz', value: (d) => d.occurredAt },
  currency: { type: 'text', value: (d) => d.currency },
  exchange_rate: { type: 'numeric', value: (d) => d.exchangeRate },
  lpo_number: { type: 'text', value: (d) => d.lpoNumber },
  principal_id: { type: 'text', value: (d) => d.principalId },
  net: { type: 'numeric', value: (d) => d.net },
  vat: { type: 'numeric', value: (d) => d.vat },
  total: { type: 'numeric', value: (d) => d.total },
  original_sale_id: { type: 'bigint', value: (d) => d.originalSaleId },
  original_receipt_no: { type: 'bigint', value: (d) => d.originalReceiptNo },
  original_invoice_no: { type: 'bigint', value: (d) => d.originalInvoiceNo },
  original_sdc_id: { type: 'text', value: (d) => d.originalSdcId },
  reason_code: { type: 'text', value: (d) => d.reasonCode },
  filing_details: { type: 'text', value: (d) => (d.filingDetails ? JSON.stringify(d.filingDetails) : null) },
  issued_by_type: { type: 'text', value: (d) => d.issuedBy.type },
  issued_by_id: { type: 'bigint', value: (d) => d.issuedBy.id },
} as const satisfies { [C in keyof SalesTable]?: { type: string; value: (doc: NewDocument) => unknown } };

const DOCUMENT_COLUMN_NAMES = Object.keys(DOCUMENT_COLUMNS) as Array<keyof typeof DOCUMENT_COLUMNS>;
type DocumentColumn = (typeof DOCUMENT_COLUMN_NAMES)[number];

/**
 * Columns stored as an expression of the document's values rather than as the value itself (both
 * statements): `ref` names a column's value. The customer's address falls back to the registered
 * customer's when the sale names its TPIN (in the statement: no round trip for it).
 */
const STORED_AS: { [C in DocumentColumn]?: (ref: (column: DocumentColumn) => RawBuilder<unknown>) => RawBuilder<unknown> } = {
  customer_address: (ref) =>
    sql`coalesce(${ref('customer_address')}, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = ${ref('tenant_id')} and c.tpin = ${ref('customer_tpin')}))`,
};

/** `tenant_id, tpin, …` */
export const DOCUMENT_COLUMN_LIST = sql.raw(DOCUMENT_COLUMN_NAMES.join(', '));
/** `tenant_id integer, tpin text, …` (a record definition for jsonb_to_recordset) */
export const DOCUMENT_COLUMN_TYPES = sql.raw(DOCUMENT_COLUMN_NAMES.map((c) => `${c} ${DOCUMENT_COLUMNS[c].type}`).join(', '));
/** `i.tenant_id, i.tpin, …` */
export const DOCUMENT_INPUT_VALUES = sql.join(
  DOCUMENT_COLUMN_NAMES.map((c) => STORED_AS[c]?.((other) => sql.raw(`i.${other}`)) ?? sql.raw(`i.${c}`)),
);

/** The document's values, in DOCUMENT_COLUMN_NAMES order (insertOneDocument's parameters). */
export function documentValues(doc: NewDocument) {
  const param = (c: DocumentColumn) => sql`${DOCUMENT_COLUMNS[c].value(doc)}::${sql.raw(DOCUMENT_COLUMNS[c].type)}`;
  return sql.join(DOCUMENT_COLUMN_NAMES.map((c) => STORED_AS[c]?.(param) ?? sql`${DOCUMENT_COLUMNS[c].value(doc)}`));
}

/** The document's values by column name (an element of insertDocuments' json input). */
export function documentFields(doc: NewDocument): Record<string, unknown> {
  return Object.fromEntries(DOCUMENT_COLUMN_NAMES.map((c) => [c, DOCUMENT_COLUMNS[c].value(doc)]));
}

/** The columns of `sale_lines` a line brings (all but sale_id), with their SQL types: every field of NewLine. */
const LINE_COLUMNS = {
  line: 'integer',
  name: 'text',
  classification_code: 'text',
  item_code: 'text',
  quantity: 'numeric',
  price: 'numeric',
  vat_category: 'text',
  vat_rate: 'numeric',
  rrp: 'numeric',
  amount: 'numeric',
  discount: 'numeric',
  supply: 'numeric',
  net: 'numeric',
  vat: 'numeric',
  total: 'numeric',
  original_line: 'integer',
} as const satisfies { [C in keyof NewLine]: string };

const LINE_COLUMN_NAMES = Object.keys(LINE_COLUMNS) as Array<keyof typeof LINE_COLUMNS>;
/** `sale_lines (sale_id, line, …)` */
export const LINE_INSERT_TARGET = sql.raw(`sale_lines (sale_id, ${LINE_COLUMN_NAMES.join(', ')})`);
/** `l.line, l.name, …` */
export const LINE_INPUT_VALUES = sql.raw(LINE_COLUMN_NAMES.map((c) => `l.${c}`).join(', '));
/** `l(line integer, …)`: the record of jsonb_to_recordset over a document's lines. */
export const LINE_RECORD = sql.raw(`l(${LINE_COLUMN_NAMES.map((c) => `${c} ${LINE_COLUMNS[c]}`).join(', ')})`);
