import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/**
 * A till's login for `POST /api/ApiKey/getactive`: provisioned by the merchant's partner, bound
 * to one branch. Each successful login mints a new branch key (`api_key_id` points at the
 * current one) and revokes the previous. Deleted logins are kept (soft delete) for the audit
 * trail; their username is free again.
 */
interface TillLoginsTable {
  id: Generated<number>;
  tenant_id: number;
  /** Null only for a deleted login whose device was removed since (it stays for the audit trail). */
  device_id: number | null;
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

/**
 * What a till sent for an invoice it filed through `/zm/api`: the body exactly as received and
 * which family of field names it used (`gateway`: ours, `product`: those of the product
 * `/zm/api` imitates). Written once, by the request that created the sale.
 */
interface TillInvoicesTable {
  sale_id: number;
  family: 'gateway' | 'product';
  /** The request body, byte for byte (JSON text). */
  body: string;
  created_at: Timestamp;
}

export interface CompatTables {
  till_logins: TillLoginsTable;
  till_invoices: TillInvoicesTable;
}
