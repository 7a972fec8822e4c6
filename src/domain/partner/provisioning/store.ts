// Provisioning's SQL: partners, their keys, tenants, devices, tenant tokens and fiscalisation
// keys. Functions return rows (or undefined); the services turn absence into errors.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ApiKeysTable, DevicesTable, OfflinePolicy, PartnerKeysTable, Plan, TenantsTable, TenantTokensTable } from '../../../platform/db/tables/foundation.ts';
import { offsetOf } from '../../../platform/http/pagination.ts';
import { fromNow, isFree } from '../../../platform/workers/lease-sql.ts';

export type TenantRow = Selectable<TenantsTable>;
export type DeviceRow = Selectable<DevicesTable>;
export type PartnerKeyRow = Selectable<PartnerKeysTable>;

/** Marks a tenant token, a fiscalisation key or a partner key revoked (effective on the next request). */
export async function markRevoked(db: Kysely<DB>, table: 'tenant_tokens' | 'api_keys' | 'partner_keys', id: number): Promise<void> {
  await db.updateTable(table).set({ revoked_at: sql`now()` }).where('id', '=', id).execute();
}

// --- Partners ---------------------------------------------------------------------------------

export async function insertPartner(db: Kysely<DB>, name: string) {
  return db.insertInto('partners').values({ name }).returningAll().executeTakeFirstOrThrow();
}

export async function updatePartnerStatus(db: Kysely<DB>, partnerId: number, status: 'active' | 'suspended') {
  return db.updateTable('partners').set({ status, updated_at: sql`now()` }).where('id', '=', partnerId).returningAll().executeTakeFirst();
}

export async function listPartnerRows(db: Kysely<DB>) {
  return db.selectFrom('partners').selectAll().orderBy('id').execute();
}

// --- Partner keys -----------------------------------------------------------------------------

/** Inserts a key whose ciphertext is still a placeholder: it is sealed with the row's own id. */
export async function insertPartnerKeyRow(db: Kysely<DB>, values: Omit<Insertable<PartnerKeysTable>, 'secret_ciphertext'>): Promise<number> {
  const inserted = await db.insertInto('partner_keys').values({ ...values, secret_ciphertext: 'pending' }).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export async function setPartnerKeyCiphertext(db: Kysely<DB>, keyId: number, ciphertext: string): Promise<PartnerKeyRow> {
  return db.updateTable('partner_keys').set({ secret_ciphertext: ciphertext }).where('id', '=', keyId).returningAll().executeTakeFirstOrThrow();
}

/** The partner's key if it is not revoked (expired keys included: they can still be read or rotated). */
export async function findOwnPartnerKey(db: Kysely<DB>, partnerId: number, keyId: number, forUpdate = false): Promise<PartnerKeyRow | undefined> {
  let query = db.selectFrom('partner_keys').selectAll().where('id', '=', keyId).where('partner_id', '=', partnerId).where('revoked_at', 'is', null);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The partner's key, revoked or not, locked. */
export async function lockPartnerKey(db: Kysely<DB>, partnerId: number, keyId: number): Promise<PartnerKeyRow | undefined> {
  return db.selectFrom('partner_keys').selectAll().where('id', '=', keyId).where('partner_id', '=', partnerId).forUpdate().executeTakeFirst();
}

export async function listLivePartnerKeys(db: Kysely<DB>, partnerId: number, now: Date): Promise<PartnerKeyRow[]> {
  return db
    .selectFrom('partner_keys')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id')
    .execute();
}

/** Points the old key at its replacement and lets it expire after the grace window; returns when. */
export async function markPartnerKeyRotated(db: Kysely<DB>, keyId: number, replacementId: number, graceSeconds: number): Promise<Date> {
  const updated = await db
    .updateTable('partner_keys')
    .set({ rotated_to_id: replacementId, expires_at: sql`now() + make_interval(secs => ${graceSeconds})` })
    .where('id', '=', keyId)
    .returning('expires_at')
    .executeTakeFirstOrThrow();
  return updated.expires_at!;
}

// --- Tenants ----------------------------------------------------------------------------------

export async function devicesOf(db: Kysely<DB>, tenantIds: number[]): Promise<Map<number, DeviceRow[]>> {
  const byTenant = new Map<number, DeviceRow[]>();
  if (tenantIds.length === 0) return byTenant;
  const rows = await db.selectFrom('devices').selectAll().where('tenant_id', 'in', tenantIds).orderBy('branch').execute();
  for (const row of rows) {
    const list = byTenant.get(row.tenant_id) ?? [];
    list.push(row);
    byTenant.set(row.tenant_id, list);
  }
  return byTenant;
}

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

/** Undefined when the tenant already has a device for that branch. */
export async function insertDevice(db: Kysely<DB>, values: Insertable<DevicesTable>): Promise<DeviceRow | undefined> {
  return db
    .insertInto('devices')
    .values(values)
    .onConflict((oc) => oc.columns(['tenant_id', 'branch']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findDevice(db: Kysely<DB>, tenantId: number, branch: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('tenant_id', '=', tenantId).where('branch', '=', branch).executeTakeFirst();
}

/** A short claim on an uninitialised device for one handshake; undefined while another holds it. */
export async function claimDeviceForInit(db: Kysely<DB>, deviceId: number, claimMs: number): Promise<DeviceRow | undefined> {
  return db
    .updateTable('devices')
    .set({ init_claimed_until: fromNow(claimMs) })
    .where('id', '=', deviceId)
    .where('initialized', '=', false)
    .where(isFree('devices'))
    .returningAll()
    .executeTakeFirst();
}

export async function releaseDeviceClaim(db: Kysely<DB>, deviceId: number): Promise<void> {
  await db.updateTable('devices').set({ init_claimed_until: null }).where('id', '=', deviceId).execute();
}

export interface DeviceInitInfo {
  sdcId: string;
  mrcNo: string;
  taxpayerName: string | null;
  branchName: string | null;
  lastSaleInvoiceNo: number;
  lastPurchaseInvoiceNo: number | null;
  lastSaleReceiptNo: number | null;
}

/** Stores the handshake's answer; undefined when the device was already initialised. */
export async function markDeviceInitialized(db: Kysely<DB>, deviceId: number, info: DeviceInitInfo): Promise<DeviceRow | undefined> {
  return db
    .updateTable('devices')
    .set({
      initialized: true,
      sdc_id: info.sdcId,
      mrc_no: info.mrcNo.trim(),
      taxpayer_name: info.taxpayerName,
      branch_name: info.branchName,
      last_sale_invc_no: info.lastSaleInvoiceNo,
      last_pchs_invc_no: info.lastPurchaseInvoiceNo,
      last_sale_rcpt_no: info.lastSaleReceiptNo,
      next_invoice_no: info.lastSaleInvoiceNo + 1,
      initialized_at: sql`now()`,
      init_claimed_until: null,
      updated_at: sql`now()`,
    })
    .where('id', '=', deviceId)
    .where('initialized', '=', false)
    .returningAll()
    .executeTakeFirst();
}

// --- Tenant tokens and fiscalisation keys -----------------------------------------------------

export async function listTokenRows(db: Kysely<DB>, tenantId: number) {
  return db.selectFrom('tenant_tokens').selectAll().where('tenant_id', '=', tenantId).where('revoked_at', 'is', null).orderBy('id').execute();
}

export async function insertToken(db: Kysely<DB>, values: Insertable<TenantTokensTable>) {
  return db.insertInto('tenant_tokens').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A tenant token or fiscalisation key of the tenant, revoked or not, locked. */
export async function lockTenantCredential(db: Kysely<DB>, table: 'tenant_tokens' | 'api_keys', tenantId: number, id: number): Promise<{ id: number; revoked_at: Date | null } | undefined> {
  return db.selectFrom(table).select(['id', 'revoked_at']).where('id', '=', id).where('tenant_id', '=', tenantId).forUpdate().executeTakeFirst();
}

export async function listApiKeyRows(db: Kysely<DB>, tenantId: number) {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('devices as d', 'd.id', 'k.device_id')
    .select(['k.id', 'k.last4', 'k.dialect', 'k.created_at', 'k.last_used_at', 'd.branch', 'd.sdc_id'])
    .where('k.tenant_id', '=', tenantId)
    .where('k.revoked_at', 'is', null)
    .orderBy('k.id')
    .execute();
}

/** The device a branch key is bound to. */
export async function deviceForKey(db: Kysely<DB>, tenantId: number, branch: string): Promise<{ id: number; branch: string; sdc_id: string | null } | undefined> {
  return db.selectFrom('devices').select(['id', 'branch', 'sdc_id']).where('tenant_id', '=', tenantId).where('branch', '=', branch).executeTakeFirst();
}

export async function insertApiKey(db: Kysely<DB>, values: Insertable<ApiKeysTable>) {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

// --- Correcting and removing an uninitialised device ------------------------------------------

/** The tenant's device for the branch, locked for a correction or a removal. */
export async function lockDevice(db: Kysely<DB>, tenantId: number, branch: string): Promise<(DeviceRow & { claimed: boolean }) | undefined> {
  return db
    .selectFrom('devices')
    .selectAll()
    .select(sql<boolean>`coalesce(init_claimed_until > now(), false)`.as('claimed'))
    .where('tenant_id', '=', tenantId)
    .where('branch', '=', branch)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateDeviceRow(db: Kysely<DB>, deviceId: number, changes: { vsdc_base_url?: string; device_serial?: string }): Promise<DeviceRow> {
  return db.updateTable('devices').set({ ...changes, updated_at: sql`now()` }).where('id', '=', deviceId).returningAll().executeTakeFirstOrThrow();
}

/** Live credentials bound to the device: unrevoked fiscalisation keys and undeleted till logins. */
export async function liveCredentialsOfDevice(db: Kysely<DB>, deviceId: number): Promise<{ keys: number[]; tillLogins: number[] }> {
  const [keys, logins] = await Promise.all([
    db.selectFrom('api_keys').select('id').where('device_id', '=', deviceId).where('revoked_at', 'is', null).orderBy('id').execute(),
    db.selectFrom('till_logins').select('id').where('device_id', '=', deviceId).where('deleted_at', 'is', null).orderBy('id').execute(),
  ]);
  return { keys: keys.map((r) => r.id), tillLogins: logins.map((r) => r.id) };
}

/**
 * Rows that only keep a branch's working state (queue leases, pull cursors, alarm memory,
 * counters), never a record of its own: they go with the device.
 */
const DEVICE_STATE_TABLES = ['filing_queues', 'backlog_alarms', 'stock_branches', 'import_pulls', 'purchase_pulls', 'purchase_invoice_counters'] as const;

/**
 * Deletes the device, its working state, its deleted till logins and the binding of its revoked
 * keys (dead credentials: the audit log keeps their creation and end, with the branch). Anything
 * else that refers to the device (documents, purchases, stock, customs lines, reports, …) is a
 * record to keep: the delete then fails with a foreign-key violation, which the caller turns
 * into a refusal. Run inside the caller's transaction, after it checked for live credentials.
 */
export async function deleteDeviceRows(db: Kysely<DB>, deviceId: number): Promise<void> {
  for (const table of DEVICE_STATE_TABLES) await db.deleteFrom(table).where('device_id', '=', deviceId).execute();
  // Deleted credentials stay (their audit rows keep naming them), without the device.
  await db.updateTable('till_logins').set({ device_id: null }).where('device_id', '=', deviceId).where('deleted_at', 'is not', null).execute();
  await db.updateTable('api_keys').set({ device_id: null }).where('device_id', '=', deviceId).where('revoked_at', 'is not', null).execute();
  await db.deleteFrom('devices').where('id', '=', deviceId).execute();
}

/** A tenant by id (the signed-in user's own merchant). */
export async function findTenantRow(db: Kysely<DB>, tenantId: number): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
}
