import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

type ReconciliationStatus = 'queued' | 'running' | 'completed';
export type ReconciliationRequester = 'merchant' | 'partner' | 'admin' | 'cli';
/** What checking one document found (null: not checked yet). */
export type ReconciliationOutcome = 'match' | 'mismatch' | 'unknown' | 'adopted' | 'not_filed';

/** One reconciliation of a branch's documents over a date range, run as a leased job. */
export interface ReconciliationRunsTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  branch: string;
  /** `YYYY-MM-DD` (UTC days of the documents' `occurred_at`), inclusive. */
  date_from: string;
  date_to: string;
  /** Pending documents stored at least this long before the run started are re-verified. */
  pending_after_sec: number;
  status: Generated<ReconciliationStatus>;
  requested_by: ReconciliationRequester;
  total: Generated<number>;
  checked: Generated<number>;
  matches: Generated<number>;
  mismatches: Generated<number>;
  unknown: Generated<number>;
  adopted: Generated<number>;
  not_filed: Generated<number>;
  lease_owner: string | null;
  lease_until: NullableTimestamp;
  next_attempt_at: Timestamp;
  /** The current backoff while the VSDC does not answer; null while it does. */
  retry_delay_ms: number | null;
  last_error: string | null;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  /** When its documents were listed (the total set); null until the first claim lists them. */
  listed_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  updated_at: Timestamp;
}

/** A document a run checks; listed when the run starts, checked once. */
export interface ReconciliationResultsTable {
  run_id: number;
  sale_id: number;
  invoice_no: number;
  outcome: ReconciliationOutcome | null;
  /** JSON `[{field, ours, theirs}]` for a mismatch; null otherwise. */
  differences: string | null;
  checked_at: NullableTimestamp;
}

export interface ReconciliationTables {
  reconciliation_runs: ReconciliationRunsTable;
  reconciliation_results: ReconciliationResultsTable;
}
