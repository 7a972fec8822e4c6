import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/** A principal an RVAT agent (the tenant) sells for, as `selectPrincipals` last reported it. */
export interface PrincipalsTable {
  tenant_id: number;
  /** The authority's `id`, as text. */
  principal_id: string;
  tpin: string | null;
  /** `principalNm`. */
  name: string | null;
  /** `principalAddress`. */
  address: string | null;
  /** `principalEmail`. */
  email: string | null;
  /** `principalTelNo`. */
  tel: string | null;
  /** `accountNo`. */
  account_no: string | null;
  /** The principal as received. */
  principal: ColumnType<unknown, string, string>;
  /** When the gateway first pulled it. */
  received_at: Timestamp;
  /** When the gateway last stored a changed report of it. */
  updated_at: Timestamp;
}

/** One row per initialised branch: where its principals pull stands (as ImportPullsTable). */
interface PrincipalPullsTable {
  device_id: number;
  /** The previous answer's `resultDt`: the next `lastReqDt`. */
  last_req_dt: string | null;
  next_pull_at: Timestamp;
  lease_until: NullableTimestamp;
  failures: Generated<number>;
  last_pulled_at: NullableTimestamp;
  last_error: string | null;
  updated_at: Timestamp;
}

/** The principals of RVAT agents and their pulls. */
export interface PrincipalTables {
  principals: PrincipalsTable;
  principal_pulls: PrincipalPullsTable;
}
