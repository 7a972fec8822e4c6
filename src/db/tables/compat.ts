import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/**
 * A till's login for `POST /api/ApiKey/getactive`: provisioned by the merchant's partner, bound
 * to one branch. Each successful login mints a new branch key (`api_key_id` points at the
 * current one) and revokes the previous. Deleted logins are kept (soft delete) for the audit
 * trail; their username is free again.
 */
export interface TillLoginsTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number;
  username: string;
  /** `scrypt$N$r$p$<salt base64url>$<hash base64url>`. */
  password_hash: string;
  /** The dialect of the keys this login is given. */
  dialect: Generated<'bare' | 'wrapped'>;
  api_key_id: number | null;
  created_at: Timestamp;
  last_login_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
}

export interface CompatTables {
  till_logins: TillLoginsTable;
}
