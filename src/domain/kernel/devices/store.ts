import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DevicesTable } from '../../../platform/db/tables/foundation.ts';
import { isFree, isHeld, leased, released } from '../../../platform/workers/lease-sql.ts';
import { RECENT_INITIALISATION_MS } from '../../../platform/workers/backfill.ts';
import type { AuthorityBranchesTable } from '../../../platform/db/tables/authority.ts';
import type { AuthorityDevice } from '../../../authorities/port/index.ts';
import { HEADQUARTERS } from './authorities.ts';
import { authorityDeviceColumns, authorityDeviceOf, type AuthorityDeviceColumns } from '../authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

export type DeviceRow = Selectable<DevicesTable>;
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
    .set(leased('devices', { ms: claimMs }))
    .where('id', '=', deviceId)
    .where('initialized', '=', false)
    .where(isFree('devices'))
    .returningAll()
    .executeTakeFirst();
}
export async function releaseDeviceClaim(db: Kysely<DB>, deviceId: number): Promise<void> {
  await db.updateTable('devices').set(released('devices')).where('id', '=', deviceId).execute();
}
export interface DeviceInitInfo {
  sdcId: string;
  mrcNo: string;
  taxpayerName: string | null;
  branchName: string | null;
  lastSaleInvoiceNo: number;
  lastPurchaseInvoiceNo: number | null;
  lastSaleReceiptNo: number | null;
  /** The training and proforma counters (lastTrainInvcNo, lastProfrmInvcNo): null when the VSDC keeps none. */
  lastTrainingInvoiceNo?: number | null;
  lastProformaInvoiceNo?: number | null;
  /** The key the unit gave (KRA's cmcKey): stored sealed, never as given. */
  unitKey?: string | null;
}
/**
 * Initialised branches (`alias`: the devices table in the query), for a worker's backfill: every
 * one, or (`recentOnly`) those initialised within RECENT_INITIALISATION_MS, an index range of
 * devices_recently_initialized (platform/workers/backfill.ts). The interval is a literal, so
 * even a generic plan sees how narrow the range is.
 */
export function initializedSql(alias: string, recentOnly: boolean): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  if (!recentOnly) return sql<boolean>`${column('initialized')}`;
  return sql<boolean>`(${column('initialized')} and ${column('initialized_at')} > now() - ${sql.raw(`interval '${RECENT_INITIALISATION_MS / 1000} seconds'`)})`;
}

/** Stores the handshake's answer (the unit's key sealed by the caller); undefined when the device was already initialised. */
export async function markDeviceInitialized(
  db: Kysely<DB>,
  deviceId: number,
  info: DeviceInitInfo,
  unitKeySealed: string | null = null,
): Promise<DeviceRow | undefined> {
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
      last_train_invc_no: info.lastTrainingInvoiceNo ?? null,
      last_profrm_invc_no: info.lastProformaInvoiceNo ?? null,
      // Continues whichever is further on: the unit's counter or the previous system's last number.
      next_invoice_no: sql<number>`greatest(last_invoice_no, ${info.lastSaleInvoiceNo}) + 1`,
      ...(unitKeySealed === null ? {} : { unit_key_sealed: unitKeySealed }),
      next_training_no: (info.lastTrainingInvoiceNo ?? 0) + 1,
      next_proforma_no: (info.lastProformaInvoiceNo ?? 0) + 1,
      initialized_at: sql`now()`,
      ...released('devices'),
      updated_at: sql`now()`,
    })
    .where('id', '=', deviceId)
    .where('initialized', '=', false)
    .returningAll()
    .executeTakeFirst();
}

// --- Tenant tokens and fiscalisation keys -----------------------------------------------------
/** The device a branch key is bound to. */
export async function deviceForKey(
  db: Kysely<DB>,
  tenantId: number,
  branch: string,
): Promise<{ id: number; branch: string; sdc_id: string | null } | undefined> {
  return db
    .selectFrom('devices')
    .select(['id', 'branch', 'sdc_id'])
    .where('tenant_id', '=', tenantId)
    .where('branch', '=', branch)
    .executeTakeFirst();
}
/** The tenant's device for the branch, locked for a correction or a removal. */
export async function lockDevice(
  db: Kysely<DB>,
  tenantId: number,
  branch: string,
): Promise<(DeviceRow & { claimed: boolean }) | undefined> {
  return db
    .selectFrom('devices')
    .selectAll()
    .select(sql<boolean>`coalesce(${isHeld('devices')}, false)`.as('claimed'))
    .where('tenant_id', '=', tenantId)
    .where('branch', '=', branch)
    .forUpdate()
    .executeTakeFirst();
}
/** What a correction may set on a device row. */
export type DeviceChanges = Partial<
  Pick<DeviceRow, 'vsdc_base_url' | 'device_serial' | 'last_invoice_no' | 'production' | 'api_credential_sealed' | 'api_credential_kind'>
>;
export async function updateDeviceRow(db: Kysely<DB>, deviceId: number, changes: DeviceChanges): Promise<DeviceRow> {
  return db
    .updateTable('devices')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', deviceId)
    .returningAll()
    .executeTakeFirstOrThrow();
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
const DEVICE_STATE_TABLES = [
  'filing_queues',
  'backlog_alarms',
  'stock_branches',
  'feed_pulls',
  'stock_ledger_lines',
  'stock_ledger_movements',
  'stock_ledger_levels',
  'purchase_invoice_counters',
] as const;
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
  await db
    .updateTable('till_logins')
    .set({ device_id: null })
    .where('device_id', '=', deviceId)
    .where('deleted_at', 'is not', null)
    .execute();
  await db.updateTable('api_keys').set({ device_id: null }).where('device_id', '=', deviceId).where('revoked_at', 'is not', null).execute();
  await db.deleteFrom('devices').where('id', '=', deviceId).execute();
}

export interface BranchDevice {
  id: number;
  branch: string;
  branchName: string | null;
  deviceSerial: string;
  initialized: boolean;
  sdcId: string | null;
  mrcNo: string | null;
}
export async function devicesOfTenant(db: Kysely<DB>, tenantId: number): Promise<BranchDevice[]> {
  const rows = await db
    .selectFrom('devices')
    .select(['id', 'branch', 'branch_name', 'device_serial', 'initialized', 'sdc_id', 'mrc_no'])
    .where('tenant_id', '=', tenantId)
    .orderBy('branch')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    branch: r.branch,
    branchName: r.branch_name,
    deviceSerial: r.device_serial,
    initialized: r.initialized,
    sdcId: r.sdc_id,
    mrcNo: r.mrc_no,
  }));
}

export type AuthorityBranchRow = Selectable<AuthorityBranchesTable>;
/** The device a tenant's feeds go through, or undefined while it has no initialised device. */
export async function pullDeviceOf(db: Kysely<DB>, box: SecretBox, tenantId: number): Promise<AuthorityDevice | undefined> {
  const result = await sql<AuthorityDeviceColumns>`
    select ${authorityDeviceColumns('device', 't')}
    from tenants t join lateral (${pullDevice('t.id')}) device on true
    where t.id = ${tenantId}`.execute(db);
  const row = result.rows[0];
  return row && authorityDeviceOf(row, box);
}
/** A branch as the gateway keeps it; `branch_record` is the raw JSON as received. */
export type ReceivedBranch = Omit<AuthorityBranchRow, 'tenant_id' | 'received_at' | 'branch_record'> & { branch_record: unknown };
/** Records (or replaces, by bhfId) the branches the authority reported for the tenant. */
export async function upsertBranches(db: Kysely<DB>, tenantId: number, branches: ReceivedBranch[]): Promise<void> {
  if (branches.length === 0) return;
  await db
    .insertInto('authority_branches')
    .values(branches.map((b) => ({ ...b, branch_record: JSON.stringify(b.branch_record), tenant_id: tenantId })))
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'branch']).doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        status_code: eb.ref('excluded.status_code'),
        opened_on: eb.ref('excluded.opened_on'),
        province: eb.ref('excluded.province'),
        district: eb.ref('excluded.district'),
        sector: eb.ref('excluded.sector'),
        location: eb.ref('excluded.location'),
        headquarters: eb.ref('excluded.headquarters'),
        manager_name: eb.ref('excluded.manager_name'),
        manager_phone: eb.ref('excluded.manager_phone'),
        manager_email: eb.ref('excluded.manager_email'),
        branch_record: eb.ref('excluded.branch_record'),
        received_at: sql<Date>`now()`,
      })),
    )
    .execute();
}
/** Each tenant's authority branches, by bhfId. */
export async function authorityBranchesOf(db: Kysely<DB>, tenantIds: number[]): Promise<Map<number, AuthorityBranchRow[]>> {
  const byTenant = new Map<number, AuthorityBranchRow[]>();
  if (tenantIds.length === 0) return byTenant;
  const rows = await db
    .selectFrom('authority_branches')
    .selectAll()
    .where('tenant_id', 'in', tenantIds)
    .orderBy('tenant_id')
    .orderBy('branch')
    .execute();
  for (const row of rows) {
    const list = byTenant.get(row.tenant_id) ?? [];
    list.push(row);
    byTenant.set(row.tenant_id, list);
  }
  return byTenant;
}

/** The device a tenant's authority feeds are pulled through: headquarters (000, 00) when initialised, else its oldest initialised one; a lateral subquery over `tenantRef`. */
export const pullDevice = (tenantRef: string) => sql`
  select d.* from devices d
  where d.tenant_id = ${sql.ref(tenantRef)} and d.initialized
  order by (d.branch in (${sql.join(HEADQUARTERS.map((hq) => sql.lit(hq)))})) desc, d.id
  limit 1`;
