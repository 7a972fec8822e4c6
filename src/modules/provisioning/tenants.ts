import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { DevicesTable, OfflinePolicy, Plan, TenantsTable } from '../../db/tables/foundation.ts';
import { assertTenantBillable, documentsThisMonth } from '../../credentials/standing.ts';
import { NotFoundError, fieldError } from '../../http/errors.ts';
import { offsetOf, pageOf, type Page } from '../../http/pagination.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import type { DeviceResource, TenantResource } from './schemas.ts';
import { iso } from '../../lib/time.ts';

export type TenantRow = Selectable<TenantsTable>;
export type DeviceRow = Selectable<DevicesTable>;

export function presentDevice(row: DeviceRow): DeviceResource {
  return {
    id: row.id,
    deviceSerial: row.device_serial,
    branch: row.branch,
    vsdcBaseUrl: row.vsdc_base_url,
    initialized: row.initialized,
    sdcId: row.sdc_id,
    mrcNo: row.mrc_no,
    taxpayerName: row.taxpayer_name,
    branchName: row.branch_name,
    lastSaleInvoiceNo: row.last_sale_invc_no,
    lastSaleReceiptNo: row.last_sale_rcpt_no,
    lastPurchaseInvoiceNo: row.last_pchs_invc_no,
    nextInvoiceNo: row.initialized ? row.next_invoice_no : null,
    initializedAt: iso(row.initialized_at),
    createdAt: row.created_at.toISOString(),
  };
}

export function presentTenant(row: TenantRow, devices: DeviceRow[]): TenantResource {
  return {
    id: row.id,
    name: row.name,
    tpin: row.tpin,
    email: row.email,
    plan: row.plan,
    subscription: row.subscription,
    status: row.status,
    monthlyQuota: row.monthly_quota,
    rateLimitPerMinute: row.rate_limit_per_minute,
    offlinePolicy: row.offline_policy,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    devices: devices.map(presentDevice),
  };
}

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

/** The tenant if it is on this partner's book; anything else is a plain 404, never a 403. */
export async function tenantOfPartner(db: Kysely<DB>, partnerId: number, tenantId: number): Promise<TenantRow> {
  const row = await db.selectFrom('tenants').selectAll().where('id', '=', tenantId).where('partner_id', '=', partnerId).executeTakeFirst();
  if (!row) throw new NotFoundError('Tenant not found.');
  return row;
}

/** Changes to a tenant with a blocked subscription or an exhausted quota are refused with 402. */
export async function assertTenantWritable(db: Kysely<DB>, tenant: TenantRow, now: Date): Promise<void> {
  const used = tenant.monthly_quota === null ? 0 : await documentsThisMonth(db, tenant.id, now);
  assertTenantBillable({ subscription: tenant.subscription, monthlyQuota: tenant.monthly_quota, documentsThisMonth: used });
}

export async function listTenants(db: Kysely<DB>, partnerId: number, page: number): Promise<Page<TenantResource>> {
  const base = db.selectFrom('tenants').where('partner_id', '=', partnerId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('id').limit(20).offset(offsetOf(page)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const devices = await devicesOf(db, rows.map((r) => r.id));
  return pageOf(rows.map((r) => presentTenant(r, devices.get(r.id) ?? [])), Number(count.n), page);
}

export async function getTenant(db: Kysely<DB>, partnerId: number, tenantId: number): Promise<TenantResource> {
  const row = await tenantOfPartner(db, partnerId, tenantId);
  const devices = await devicesOf(db, [row.id]);
  return presentTenant(row, devices.get(row.id) ?? []);
}

/** The settings a partner may change on its merchant (the account itself is the operator's). */
export async function updateTenantSettings(db: Kysely<DB>, actor: Actor, partnerId: number, tenantId: number, patch: { offlinePolicy?: OfflinePolicy }): Promise<TenantResource> {
  return db.transaction().execute(async (trx) => {
    let row = await tenantOfPartner(trx, partnerId, tenantId);
    if (patch.offlinePolicy !== undefined && patch.offlinePolicy !== row.offline_policy) {
      row = await trx.updateTable('tenants').set({ offline_policy: patch.offlinePolicy, updated_at: new Date() }).where('id', '=', tenantId).returningAll().executeTakeFirstOrThrow();
      await recordAudit(trx, { actor, action: 'tenant.updated', partnerId, tenantId, targetType: 'tenant', targetId: tenantId, details: { offlinePolicy: patch.offlinePolicy } });
    }
    const devices = await devicesOf(trx, [row.id]);
    return presentTenant(row, devices.get(row.id) ?? []);
  });
}

export interface CreateTenantInput {
  name: string;
  tpin: string;
  plan?: Plan | null;
  email?: string | null;
  offlinePolicy?: OfflinePolicy;
}

export async function createTenant(db: Kysely<DB>, actor: Actor, partnerId: number, input: CreateTenantInput): Promise<TenantResource> {
  const duplicate = () => fieldError('tpin', `A merchant with TPIN ${input.tpin} is already on your book.`);
  return db.transaction().execute(async (trx) => {
    const clash = await trx.selectFrom('tenants').select('id').where('partner_id', '=', partnerId).where('tpin', '=', input.tpin).executeTakeFirst();
    if (clash) throw duplicate();
    const row = await trx
      .insertInto('tenants')
      .values({ partner_id: partnerId, name: input.name.trim(), tpin: input.tpin, plan: input.plan ?? null, email: input.email ?? null, offline_policy: input.offlinePolicy ?? 'queue' })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, { actor, action: 'tenant.created', partnerId, tenantId: row.id, targetType: 'tenant', targetId: row.id, details: { name: row.name, tpin: row.tpin, plan: row.plan, offlinePolicy: row.offline_policy } });
    return presentTenant(row, []);
  }).catch((err: unknown) => {
    throw isUniqueViolation(err) ? duplicate() : err;
  });
}
