import type { ColumnType, Generated } from 'kysely';
import type { NullableNumeric, NullableTimestamp, Numeric, Timestamp } from './columns.ts';

export type VerificationState = 'not_applicable' | 'pending' | 'verified' | 'unknown' | 'failed';
export type CustomerRegistrationState = 'not_applicable' | 'pending' | 'registered' | 'failed';
export type ItemRegistrationState = 'draft' | 'pending' | 'registered' | 'failed' | 'amendment_pending' | 'amendment_failed';
export type ItemSource = 'api' | 'sale';
export type ImportDecision = 'approved' | 'rejected';
export type ImportFilingState = 'not_sent' | 'sending' | 'accepted' | 'failed';

/** The VSDC retry bookkeeping every waiting row carries. */
export interface RetryColumns {
  /** Unreachable attempts since the last answer; sets the backoff. */
  retry_attempts: Generated<number>;
  /** When the background worker may try again; null when nothing waits. */
  next_attempt_at: NullableTimestamp;
  /** Held by whoever is talking to the VSDC about this row right now. */
  lease_until: NullableTimestamp;
  last_unreachable: string | null;
}

export interface CustomersTable extends RetryColumns {
  id: Generated<number>;
  tenant_id: number;
  /** The branch whose customer list it is registered on; null for a local record (no TPIN). */
  device_id: number | null;
  name: string;
  tpin: string | null;
  address: string | null;
  phone: string | null;
  email: string | null;
  verification_state: VerificationState;
  /** What the authority's register says about the TPIN, once verified. */
  verified_name: string | null;
  verified_address: string | null;
  verification_code: string | null;
  verification_message: string | null;
  verification_checked_at: NullableTimestamp;
  registration_state: CustomerRegistrationState;
  registration_code: string | null;
  registration_message: string | null;
  registered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ItemsTable extends RetryColumns {
  id: Generated<number>;
  tenant_id: number;
  /** The branch it is registered through; null for a draft never released. */
  device_id: number | null;
  item_code: string;
  name: string;
  /** Trimmed, single-spaced, lower-cased: how a sale line's name is matched to an item. */
  normalized_name: string;
  item_class_code: string;
  item_type_code: string;
  origin_country_code: string;
  packaging_unit_code: string;
  quantity_unit_code: string;
  vat_category: string;
  default_price: Numeric;
  barcode: string | null;
  active: Generated<boolean>;
  source: ItemSource;
  registration_state: ItemRegistrationState;
  result_code: string | null;
  result_message: string | null;
  /** Bumped by every amendment, so an answer about older data never settles newer data. */
  revision: Generated<number>;
  registered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

type CompositionComponentState = 'pending' | 'registered' | 'failed';

/** One component of a composite item (saveItemComposition), filed on its own through the item's branch. */
export interface ItemCompositionsTable extends RetryColumns {
  id: Generated<number>;
  tenant_id: number;
  /** The composite item. */
  item_id: number;
  /** The item it is made of (one of the same merchant's items, registered through the same branch). */
  component_item_id: number;
  /** Where it stands in the request's list (0-based), so the composition reads back in order. */
  position: number;
  quantity: Numeric;
  state: CompositionComponentState;
  result_code: string | null;
  result_message: string | null;
  /** Bumped when a new composition changes the quantity, so an answer about the older quantity settles nothing. */
  revision: Generated<number>;
  registered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface ItemCodeCountersTable {
  tenant_id: number;
  last_seq: number;
}

export interface ImportItemsTable extends RetryColumns {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  task_cd: string;
  /** As the authority sent it (its format is not settled; it is sent back unchanged). */
  dcl_de: string;
  item_seq: number;
  dcl_no: string | null;
  hs_cd: string | null;
  item_name: string | null;
  origin_country_code: string | null;
  export_country_code: string | null;
  packages: NullableNumeric;
  packaging_unit_code: string | null;
  quantity: NullableNumeric;
  quantity_unit_code: string | null;
  total_weight: NullableNumeric;
  net_weight: NullableNumeric;
  supplier_name: string | null;
  agent_name: string | null;
  invoice_foreign_amount: NullableNumeric;
  invoice_currency: string | null;
  exchange_rate: NullableNumeric;
  /** The whole line as received. */
  line: ColumnType<unknown, string, string>;
  decision: ImportDecision | null;
  decided_at: NullableTimestamp;
  item_code: string | null;
  item_class_code: string | null;
  remark: string | null;
  filing_state: Generated<ImportFilingState>;
  filing_code: string | null;
  filing_message: string | null;
  filed_at: NullableTimestamp;
  received_at: Timestamp;
  updated_at: Timestamp;
}

/** Customers, items and customs import lines. */
interface ItemDraftScanTable {
  id: number;
  last_sale_id: number;
  scanned_at: Date | null;
}

export interface ItemTables {
  item_draft_scan: ItemDraftScanTable;
  customers: CustomersTable;
  items: ItemsTable;
  item_code_counters: ItemCodeCountersTable;
  item_compositions: ItemCompositionsTable;
  import_items: ImportItemsTable;
}
