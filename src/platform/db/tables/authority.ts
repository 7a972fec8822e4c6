import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

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
  authority_notices: AuthorityNoticesTable;
  authority_branches: AuthorityBranchesTable;
}
