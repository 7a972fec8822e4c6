// The partner-key and fiscalisation-key lookups (credentials/lookup.ts: what every lookup
// shares), and the branches a fiscalisation key may file through on /zm/api.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../platform/db/schema.ts';
import { hashSecret, safeEqual } from './secret-format.ts';
import { currentMonth } from './standing.ts';
import {
  countOf,
  lookUp,
  lookUpSql,
  tenantColumns,
  TENANT_IN_GOOD_STANDING,
  toTenant,
  touchLastUsed,
  type BucketCount,
  type Counted,
  type TenantAccount,
  type TenantRowColumns,
} from './lookup.ts';

export interface ResolvedPartnerKey {
  keyId: number;
  mode: 'live' | 'test';
  scopes: string[];
  expiresAt: Date | null;
  partner: { id: number; name: string; status: 'active' | 'suspended' };
}

export interface ResolvedFiscalisationKey {
  keyId: number;
  deviceId: number | null;
  dialect: 'bare' | 'wrapped';
  /** Minted in training mode: every document it files is a training document. */
  training: boolean;
  /** The till login whose getactive minted it (its documents name that login); null for a key the merchant or its partner minted. */
  tillLoginId: number | null;
  tenant: TenantAccount;
}

/** The initialised branch a fiscalisation key files through on /zm/api (named by X-SdcId). */
export interface CompatDevice {
  id: number;
  branch: string;
  sdcId: string;
}

export async function findPartnerKey(
  db: Kysely<DB>,
  secret: string,
  now: Date,
  bucket?: BucketCount,
): Promise<Counted<ResolvedPartnerKey> | undefined> {
  const hash = hashSecret(secret);
  const found = sql`select k.id, k.mode, k.scopes, k.expires_at, k.secret_hash, p.id as partner_id, p.name as partner_name, p.status as partner_status,
      (k.expires_at is null or k.expires_at > now()) as live
    from partner_keys k join partners p on p.id = k.partner_id
    where k.secret_hash = ${hash} and k.revoked_at is null`;
  const row = await lookUp<{
    id: number;
    mode: 'live' | 'test';
    scopes: string[];
    expires_at: Date | null;
    secret_hash: string;
    partner_id: number;
    partner_name: string;
    partner_status: 'active' | 'suspended';
  }>(db, found, touchLastUsed('partner_keys', now), bucket, sql`found.partner_id`, sql`found.live and found.partner_status = 'active'`);
  if (!row || !safeEqual(row.secret_hash, hash)) return undefined;
  return {
    keyId: row.id,
    mode: row.mode,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    partner: { id: row.partner_id, name: row.partner_name, status: row.partner_status },
    count: countOf(row),
  };
}

export async function findFiscalisationKey(
  db: Kysely<DB>,
  secret: string,
  now: Date,
  bucket?: BucketCount,
): Promise<Counted<ResolvedFiscalisationKey> | undefined> {
  const hash = hashSecret(secret);
  const row = (await findFiscalisationKeySql(hash, now, bucket).execute(db)).rows[0];
  if (!row || !safeEqual(row.key_hash, hash)) return undefined;
  return {
    keyId: row.id,
    deviceId: row.device_id,
    dialect: row.dialect,
    training: row.training,
    tillLoginId: row.till_login_id,
    tenant: toTenant(row),
    count: countOf(row),
  };
}

/** findFiscalisationKey's statement, `hash` the presented key's (its text: docs/sql/, `npm run sql`). */
export function findFiscalisationKeySql(hash: string, now: Date, bucket: BucketCount | undefined) {
  const found = sql`select k.id, k.device_id, k.dialect, k.key_hash, k.training, k.till_login_id, ${tenantColumns(currentMonth(now))}
    from api_keys k join tenants t on t.id = k.tenant_id
    where k.key_hash = ${hash} and k.revoked_at is null`;
  return lookUpSql<
    TenantRowColumns & {
      id: number;
      device_id: number | null;
      dialect: 'bare' | 'wrapped';
      key_hash: string;
      training: boolean;
      till_login_id: number | null;
    }
  >(found, touchLastUsed('api_keys', now), bucket, sql`found.t_id`, TENANT_IN_GOOD_STANDING);
}

/** The tenant's initialised branch with this SDC id, if the key may file through it (a branch key only its own). */
export async function findCompatDevice(db: Kysely<DB>, key: ResolvedFiscalisationKey, sdcId: string): Promise<CompatDevice | undefined> {
  let query = db
    .selectFrom('devices')
    .select(['id', 'branch', 'sdc_id'])
    .where('tenant_id', '=', key.tenant.id)
    .where('sdc_id', '=', sdcId)
    .where('initialized', '=', true);
  if (key.deviceId !== null) query = query.where('id', '=', key.deviceId);
  const row = await query.executeTakeFirst();
  return row ? { id: row.id, branch: row.branch, sdcId: row.sdc_id! } : undefined;
}

/**
 * The SDC ids a key may file through (its initialised branches; a branch key only its own), in
 * branch order, at most `limit` of them; `more` when there are others. For a refused X-SdcId:
 * only the key's own merchant's devices are read.
 */
export async function compatSdcIdsOf(
  db: Kysely<DB>,
  key: ResolvedFiscalisationKey,
  limit: number,
): Promise<{ sdcIds: string[]; more: boolean }> {
  let query = db
    .selectFrom('devices')
    .select('sdc_id')
    .where('tenant_id', '=', key.tenant.id)
    .where('initialized', '=', true)
    .where('sdc_id', 'is not', null);
  if (key.deviceId !== null) query = query.where('id', '=', key.deviceId);
  const rows = await query
    .orderBy('branch')
    .limit(limit + 1)
    .execute();
  const sdcIds = rows.map((r) => r.sdc_id!);
  return { sdcIds: sdcIds.slice(0, limit), more: sdcIds.length > limit };
}
