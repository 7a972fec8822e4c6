import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export type AuthorityFeed = 'notices' | 'branches';

/** Per tenant and feed: where the next pull starts and when it is due (leased like import_pulls). */
interface AuthorityPullsTable {
  id: Generated<number>;
  tenant_id: number;
  feed: AuthorityFeed;
  /** The previous answer's `resultDt`: the next `lastReqDt`. */
  last_req_dt: string | null;
  next_pull_at: Timestamp;
  lease_until: NullableTimestamp;
  failures: Generated<number>;
  last_pulled_at: NullableTimestamp;
  last_error: string | null;
  updated_at: Timestamp;
}

/** A notice the authority published to the taxpayer, once per `notice_no`. */
export interface AuthorityNoticesTable {
  id: Generated<number>;
  tenant_id: number;
  notice_no: number;
  title: string | null;
  /** The notice's text (`cont`). */
  content: string | null;
  detail_url: string | null;
  registered_by: string | null;
  /** `regDt`; null when the VSDC sent no readable date. */
  registered_at: NullableTimestamp;
  /** The notice as received. */
  notice: ColumnType<unknown, string, string>;
  received_at: Timestamp;
}

/** One of the taxpayer's branches as `selectBranches` last reported it. */
export interface AuthorityBranchesTable {
  tenant_id: number;
  /** `bhfId`. */
  branch: string;
  name: string | null;
  /** `bhfSttsCd` (`01` active). */
  status_code: string | null;
  /** `bhfOpenDt`, `YYYYMMDD` as received. */
  opened_on: string | null;
  province: string | null;
  district: string | null;
  sector: string | null;
  location: string | null;
  headquarters: boolean;
  manager_name: string | null;
  manager_phone: string | null;
  manager_email: string | null;
  /** The branch as received. */
  branch_record: ColumnType<unknown, string, string>;
  received_at: Timestamp;
}

/** Notices and branches as the authority knows them. */
export interface AuthorityTables {
  authority_pulls: AuthorityPullsTable;
  authority_notices: AuthorityNoticesTable;
  authority_branches: AuthorityBranchesTable;
}
