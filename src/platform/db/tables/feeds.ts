import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/** The feeds pulled per initialised branch. */
export type BranchFeed = 'imports' | 'purchases' | 'principals' | 'stock-ledger';
/** The feeds pulled per tenant, through one of its initialised devices. */
export type TenantFeed = 'notices' | 'branches';
export type FeedName = BranchFeed | TenantFeed;

/**
 * Where a pulled feed stands: one row per branch (`device_id` set) for a branch feed, per tenant
 * (`device_id` null) for a tenant feed; and who pulls it now (a lease).
 */
interface FeedPullsTable {
  id: Generated<number>;
  feed: FeedName;
  tenant_id: number;
  device_id: number | null;
  /** The previous answer's cursor (ZRA: its `resultDt`). */
  last_req_dt: string | null;
  next_pull_at: Timestamp;
  lease_until: NullableTimestamp;
  failures: Generated<number>;
  /** When an answer was last stored. */
  last_pulled_at: NullableTimestamp;
  last_error: string | null;
  /** The stock ledger's: at its last read, the branch's movements up to this number had all been answered; null: never read. */
  answered_sar_no: number | null;
  updated_at: Timestamp;
}

export interface FeedTables {
  feed_pulls: FeedPullsTable;
}
