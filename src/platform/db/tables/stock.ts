import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Numeric, Timestamp } from './columns.ts';

type StockSourceKind = 'sale' | 'credit_note' | 'debit_note' | 'adjustment' | 'purchase';
/** pending (nothing sent yet), items_sent (saveStockItems accepted, saveStockMaster not yet), sent, failed (refused). */
export type StockChainState = 'pending' | 'items_sent' | 'sent' | 'failed';

/** One row per branch: its sarNo counter, how far its documents are booked, its chain queue's lease and backoff. */
interface StockBranchesTable {
  device_id: number;
  tenant_id: number;
  /** The last sarNo given to a movement of this branch. */
  last_sar_no: Generated<number>;
  /** Documents up to this invoice number have been booked (or passed over). */
  booked_invoice_no: Generated<number>;
  lease_owner: string | null;
  lease_until: NullableTimestamp;
  next_attempt_at: Timestamp;
  /** The current backoff while the VSDC does not answer; null when it answers. */
  retry_delay_ms: number | null;
  last_error: string | null;
  updated_at: Timestamp;
}

export interface StockMovementsTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  sar_no: number;
  /** Code class 12. */
  sar_type_code: string;
  source_kind: StockSourceKind;
  /** The document (sale, note, purchase) it follows; 0 for an adjustment. */
  source_id: number;
  counterparty_tpin: string | null;
  counterparty_name: string | null;
  counterparty_branch: string | null;
  remark: string | null;
  total_taxable: Numeric;
  total_tax: Numeric;
  total_amount: Numeric;
  state: Generated<StockChainState>;
  result_code: string | null;
  result_message: string | null;
  sent_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface StockMovementLinesTable {
  movement_id: number;
  seq: number;
  item_code: string;
  /** Always positive: the movement's type says the direction. */
  quantity: Numeric;
  unit_price: Numeric;
  taxable: Numeric;
  tax: Numeric;
  total: Numeric;
  /** The branch's quantity of the item after this line. */
  remaining: Numeric;
}

interface StockLevelsTable {
  device_id: number;
  tenant_id: number;
  item_code: string;
  quantity: Numeric;
  updated_at: Timestamp;
}

/** A movement of the VSDC's ledger (`selectStockItems`), as last received; keyed by branch and sarNo. */
interface StockLedgerMovementsTable {
  device_id: number;
  sar_no: number;
  /** `sarTyCd` as received; null when it was missing. */
  sar_type_code: string | null;
  /** The movement as received. */
  movement: ColumnType<unknown, string, string>;
  received_at: Timestamp;
  updated_at: Timestamp;
}

/** A line of a ledger movement: its quantity signed by the movement's type (+ in, − out, 0 neither). */
interface StockLedgerLinesTable {
  device_id: number;
  sar_no: number;
  /** The line's place in `itemList`, from 1. */
  seq: number;
  item_code: string;
  quantity: Numeric;
}

/** The VSDC's level of an item at a branch: the sum of its ledger lines. */
interface StockLedgerLevelsTable {
  device_id: number;
  item_code: string;
  quantity: Numeric;
  updated_at: Timestamp;
}

export interface StockTables {
  stock_branches: StockBranchesTable;
  stock_movements: StockMovementsTable;
  stock_movement_lines: StockMovementLinesTable;
  stock_levels: StockLevelsTable;
  stock_ledger_movements: StockLedgerMovementsTable;
  stock_ledger_lines: StockLedgerLinesTable;
  stock_ledger_levels: StockLedgerLevelsTable;
}
