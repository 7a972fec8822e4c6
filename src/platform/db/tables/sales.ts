import type { Generated } from 'kysely';
import type { DefaultedNumeric, NullableNumeric, NullableTimestamp, Numeric, RequiredTimestamp, Timestamp } from './columns.ts';

export type DocumentType = 'sale' | 'credit_note' | 'debit_note';
/**
 * As stored. `resolved` is a refused document since reissued or marked resolved: the resources show
 * it as `failed` with its `resolution` (the spec's three statuses), the kept counts of failed
 * documents (0035) leave it out.
 */
export type DocumentStatus = 'pending' | 'uploaded' | 'failed' | 'resolved';
/** A document's `status` as the API shows it (spec 2.2). */
export type SaleStatus = Exclude<DocumentStatus, 'resolved'>;
export type ResolutionKind = 'reissued' | 'marked';
/** The credentials that issue documents: a merchant user (the console), a tenant token, a till login, a fiscalisation key, a partner key. */
export type IssuerType = 'user' | 'tenant_token' | 'till_login' | 'fiscalisation_key' | 'partner_key';
/** The VSDC's salesTyCd N/T/P: only `normal` documents are fiscal sales. */
export type SalesType = 'normal' | 'training' | 'proforma';

/** Sales, credit notes and debit notes: a branch's documents share one invoice sequence. */
export interface SalesTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  /** The merchant's TPIN when the document was stored (what the VSDC is sent). */
  tpin: string;
  branch: string;
  type: DocumentType;
  /** Which of the branch's sequences numbers it (invoice_no is unique per branch and kind). */
  sales_type: Generated<SalesType>;
  invoice_no: number;
  status: Generated<DocumentStatus>;
  /** The Idempotency-Key the document was created with (unique per tenant). */
  reference: string | null;
  /** SHA-256 of the request that created it, to tell a replay from a reused key. */
  request_hash: string | null;
  client_invoice_no: string | null;
  customer_name: string;
  customer_tpin: string | null;
  payment_method: string;
  tax_inclusive: boolean;
  destination_country_code: string | null;
  occurred_at: RequiredTimestamp;
  currency: Generated<string>;
  /** ZMW per unit of `currency` (1 for ZMW); amounts are in `currency`. */
  exchange_rate: DefaultedNumeric;
  /** The buyer's Local Purchase Order (zero-rated LPO sales, category C2). */
  lpo_number: string | null;
  /** An RVAT agent's sale: the principal it sells for (selectPrincipals' id). */
  principal_id: string | null;
  customer_address: string | null;
  net: Numeric;
  vat: Numeric;
  total: Numeric;
  original_sale_id: number | null;
  original_receipt_no: number | null;
  /** A note's original's invoice number (KRA's credit note points at it). */
  original_invoice_no: number | null;
  original_sdc_id: string | null;
  reason_code: string | null;
  result_code: string | null;
  last_error: string | null;
  receipt_no: number | null;
  /** The authority's count of every receipt the unit issued (KRA's totRcptNo); null when it gives none. */
  total_receipt_no: number | null;
  internal_data: string | null;
  receipt_signature: string | null;
  sdc_id: string | null;
  mrc_no: string | null;
  qr_code_url: string | null;
  published_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * JSON of `FilingDetails` (src/vsdc/sales-body.ts): what the saveSales body carries beyond the
   * document's own fields when its source supplied it (a till's registrant, line units); null:
   * the gateway's defaults.
   */
  filing_details: string | null;
  /** A reissue: the failed document this one replaces. */
  replaces_sale_id: number | null;
  /** Set when a failed document became `resolved` (with resolved_at, resolved_by, resolution_note). */
  resolution_kind: ResolutionKind | null;
  resolved_at: NullableTimestamp;
  /** Who resolved it: the credential as `type:id` (`tenant_token:12`). */
  resolved_by: string | null;
  resolution_note: string | null;
  /** A reissue: the new document that replaced this one. */
  replaced_by_sale_id: number | null;
  /** How many times the receipt was printed; every print after the first is a COPY. */
  receipt_print_count: Generated<number>;
  /** When the receipt was first printed (the original). */
  receipt_printed_at: NullableTimestamp;
  /** Which kind of credential issued the document; null for documents stored before it was recorded (migration 0036). */
  issued_by_type: IssuerType | null;
  /** That credential's id (users, tenant_tokens, till_logins, api_keys or partner_keys). */
  issued_by_id: number | null;
}

export interface SaleLinesTable {
  sale_id: number;
  line: number;
  name: string;
  classification_code: string;
  item_code: string | null;
  quantity: Numeric;
  price: Numeric;
  vat_category: string;
  vat_rate: Numeric;
  /** MTV (B) lines: the recommended retail price per unit; null on other lines. */
  rrp: NullableNumeric;
  /** quantity × price, rounded, before the discount (the VSDC's splyAmt unless `supply` says otherwise). */
  amount: Numeric;
  /** The line's discount (dcAmt); its totAmt is amount − discount. */
  discount: DefaultedNumeric;
  /** MTV (B) lines: the filed splyAmt, quantity × the higher of RRP and price; null: amount. */
  supply: NullableNumeric;
  /** The taxable amount (vatTaxblAmt). */
  net: Numeric;
  vat: Numeric;
  /** What the customer pays for the line: amount − discount, plus vat when prices exclude it. */
  total: Numeric;
  /** Credit notes: the line of the original sale this one takes back. */
  original_line: number | null;
}

/** One row per branch with documents to file: who holds its lease and when to retry it. */
interface FilingQueuesTable {
  device_id: number;
  lease_owner: string | null;
  lease_until: NullableTimestamp;
  next_attempt_at: Timestamp;
  /** The current backoff while the VSDC is unreachable; null when it answers. */
  retry_delay_ms: number | null;
  last_error: string | null;
  /** When the VSDC of this backed-off branch was last probed (see filing/probe.ts). */
  probed_at: NullableTimestamp;
  updated_at: Timestamp;
}

/** The authority's item classification catalogue, as last synced from a VSDC. */
export interface ItemClassesTable {
  /** The tax authority whose catalogue it is (`tenants.authority`). */
  authority: Generated<string>;
  code: string;
  name: string;
  level: number | null;
  tax_type: string | null;
  major_target: boolean | null;
  in_use: Generated<boolean>;
  synced_at: Timestamp;
}

/** One row per authority: its catalogue's and code tables' sync cursors and lease. */
interface CatalogueSyncTable {
  id: number;
  authority: string;
  /** The VSDC's `resultDt` of the last successful sync: the next `lastReqDt`. */
  last_req_dt: string | null;
  synced_at: NullableTimestamp;
  attempted_at: NullableTimestamp;
  last_error: string | null;
  claimed_until: NullableTimestamp;
  /** The VSDC's `resultDt` of the last selectCodes: where the code tables' next sync asks from. */
  codes_last_req_dt: string | null;
}

/** One code of one of the authority's code tables (selectCodes). */
interface AuthorityCodesTable {
  authority: Generated<string>;
  class_code: string;
  class_name: string;
  code: string;
  name: string;
  description: string | null;
  in_use: boolean;
  sort_order: number | null;
  /** A tax type's rate in percent, where the table publishes one (KRA: class 04). */
  rate: NullableNumeric;
  synced_at: RequiredTimestamp;
}

export interface SalesTables {
  sales: SalesTable;
  sale_lines: SaleLinesTable;
  filing_queues: FilingQueuesTable;
  item_classes: ItemClassesTable;
  catalogue_sync: CatalogueSyncTable;
  authority_codes: AuthorityCodesTable;
}
