import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ApiKeysTable, OfflinePolicy, Plan, TenantsTable, TenantTokensTable } from '../../../platform/db/tables/foundation.ts';
import { offsetOf } from '../../../platform/http/pagination.ts';

export type TenantRow = Selectable<TenantsTable>;
/** Marks a tenant token, a fiscalisation key or a partner key revoked (effective on the next request). */
export async function markRevoked(db: Kysely<DB>, table: 'tenant_tokens' | 'api_keys' | 'partner_keys', id: number): Promise<void> {
  await db
    .updateTable(table)
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

// --- Partners ---------------------------------------------------------------------------------
export async function findTenantOfPartner(db: Kysely<DB>, partnerId: number, tenantId: number): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).where('partner_id', '=', partnerId).executeTakeFirst();
}
/** One page (20) of the partner's tenants by id, and how many there are in all. */
export async function listTenantRows(db: Kysely<DB>, partnerId: number, page: number): Promise<{ rows: TenantRow[]; total: number }> {
  const base = db.selectFrom('tenants').where('partner_id', '=', partnerId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('id').limit(20).offset(offsetOf(page)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
/** Every tenant, whoever provisioned it (the operator's view), by id. */
export async function listAllTenantRows(db: Kysely<DB>): Promise<TenantRow[]> {
  return db.selectFrom('tenants').selectAll().orderBy('id').execute();
}
export async function tenantWithTpin(db: Kysely<DB>, partnerId: number, tpin: string): Promise<{ id: number } | undefined> {
  return db.selectFrom('tenants').select('id').where('partner_id', '=', partnerId).where('tpin', '=', tpin).executeTakeFirst();
}
export async function insertTenant(db: Kysely<DB>, values: Insertable<TenantsTable>): Promise<TenantRow> {
  return db.insertInto('tenants').values(values).returningAll().executeTakeFirstOrThrow();
}
/** The settings a partner changes on its merchant (the tenant PATCH). */
export interface TenantSettings {
  offlinePolicy?: OfflinePolicy;
  timezone?: string;
  stockTracking?: boolean;
}
/** Writes the given settings (one statement) and answers the row. */
export async function writeTenantSettings(db: Kysely<DB>, tenantId: number, settings: TenantSettings): Promise<TenantRow> {
  return db
    .updateTable('tenants')
    .set({
      ...(settings.offlinePolicy === undefined ? {} : { offline_policy: settings.offlinePolicy }),
      ...(settings.timezone === undefined ? {} : { timezone: settings.timezone }),
      ...(settings.stockTracking === undefined ? {} : { stock_tracking: settings.stockTracking }),
      updated_at: new Date(),
    })
    .where('id', '=', tenantId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
/** What the operator may change on a tenant's account (admin API and CLI). */
export interface TenantAccountPatch {
  plan?: Plan | null;
  subscription?: 'active' | 'blocked';
  status?: 'active' | 'suspended';
  monthlyQuota?: number | null;
  rateLimitPerMinute?: number | null;
  offlinePolicy?: OfflinePolicy;
}
/** The column of each field of the account patch. */
const ACCOUNT_COLUMNS = {
  plan: 'plan',
  subscription: 'subscription',
  status: 'status',
  monthlyQuota: 'monthly_quota',
  rateLimitPerMinute: 'rate_limit_per_minute',
  offlinePolicy: 'offline_policy',
} as const satisfies Record<keyof TenantAccountPatch, keyof TenantsTable>;
/** The operator's change to a tenant's account: only the fields given are set. */
export async function updateTenantAccountRow(db: Kysely<DB>, tenantId: number, patch: TenantAccountPatch): Promise<TenantRow | undefined> {
  const values: Record<string, unknown> = { updated_at: sql`now()` };
  for (const [field, column] of Object.entries(ACCOUNT_COLUMNS)) {
    const value = patch[field as keyof TenantAccountPatch];
    if (value !== undefined) values[column] = value;
  }
  return db.updateTable('tenants').set(values).where('id', '=', tenantId).returningAll().executeTakeFirst();
}

// --- Devices ----------------------------------------------------------------------------------
export async function listTokenRows(db: Kysely<DB>, tenantId: number) {
  return db
    .selectFrom('tenant_tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
}
export async function insertToken(db: Kysely<DB>, values: Insertable<TenantTokensTable>) {
  return db.insertInto('tenant_tokens').values(values).returningAll().executeTakeFirstOrThrow();
}
/** A tenant token or fiscalisation key of the tenant, revoked or not, locked. */
export async function lockTenantCredential(
  db: Kysely<DB>,
  table: 'tenant_tokens' | 'api_keys',
  tenantId: number,
  id: number,
): Promise<{ id: number; revoked_at: Date | null } | undefined> {
  return db
    .selectFrom(table)
    .select(['id', 'revoked_at'])
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .forUpdate()
    .executeTakeFirst();
}
export async function listApiKeyRows(db: Kysely<DB>, tenantId: number) {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('devices as d', 'd.id', 'k.device_id')
    .select(['k.id', 'k.last4', 'k.dialect', 'k.training', 'k.created_at', 'k.last_used_at', 'd.branch', 'd.sdc_id'])
    .where('k.tenant_id', '=', tenantId)
    .where('k.revoked_at', 'is', null)
    .orderBy('k.id')
    .execute();
}
export async function insertApiKey(db: Kysely<DB>, values: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

// --- Correcting and removing an uninitialised device ------------------------------------------
/** A tenant by id (the signed-in user's own merchant). */
export async function findTenantRow(db: Kysely<DB>, tenantId: number): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
}
