import type { ColumnType } from 'kysely';
import type { Timestamp } from './columns.ts';

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

/** The principals of RVAT agents. */
export interface PrincipalTables {
  principals: PrincipalsTable;
}
