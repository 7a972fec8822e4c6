import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { OfflinePolicy, Plan } from '../../../platform/db/tables/foundation.ts';
import { assertTenantBillable, documentsThisMonth } from '../../../credentials/standing.ts';
import { FieldErrors, NotFoundError, fieldError, requiredText } from '../../../platform/errors/errors.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { DEFAULT_AUTHORITY, knowsAuthority, oneOf, MERCHANT_AUTHORITIES, taxpayerIdProblem } from '../devices/authorities.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { canonicalTimeZone } from '../../../platform/lib/time-zones.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { authorityBranchesFor } from '../devices/register.ts';
import { presentTenant } from './present.ts';
import type { TenantResource } from './schemas.ts';
import {
  findTenantOfPartner,
  insertTenant,
  listAllTenantRows,
  listTenantRows,
  tenantWithTpin,
  writeTenantSettings,
  type TenantRow,
  type TenantSettings,
} from './store.ts';
import { devicesOf } from '../devices/store.ts';

/** The tenant if it is on this partner's book; anything else is a plain 404, never a 403. */
export async function tenantOfPartner(db: Kysely<DB>, partnerId: number, tenantId: number): Promise<TenantRow> {
  const row = await findTenantOfPartner(db, partnerId, tenantId);
  if (!row) throw new NotFoundError('Tenant not found.');
  return row;
}

/** Changes to a tenant with a blocked subscription or an exhausted quota are refused with 402. */
export async function assertTenantWritable(db: Kysely<DB>, tenant: TenantRow, now: Date): Promise<void> {
  const used = tenant.monthly_quota === null ? 0 : await documentsThisMonth(db, tenant.id, now);
  assertTenantBillable({ subscription: tenant.subscription, monthlyQuota: tenant.monthly_quota, documentsThisMonth: used });
}

/** The tenant resources of `rows` (in order), with their devices and the authority's branches. */
async function tenantResources(db: Kysely<DB>, rows: TenantRow[]): Promise<TenantResource[]> {
  const devices = await devicesOf(
    db,
    rows.map((r) => r.id),
  );
  const branches = await authorityBranchesFor(db, new Map(rows.map((r) => [r.id, (devices.get(r.id) ?? []).map((d) => d.branch)])));
  return rows.map((r) => presentTenant(r, devices.get(r.id) ?? [], branches.get(r.id) ?? []));
}

/** The tenant resource with its devices, read in the same transaction as the row. */
export async function tenantWithDevices(db: Kysely<DB>, row: TenantRow): Promise<TenantResource> {
  const [resource] = await tenantResources(db, [row]);
  return resource!;
}

export async function listTenants(db: Kysely<DB>, partnerId: number, page: number): Promise<Page<TenantResource>> {
  const { rows, total } = await listTenantRows(db, partnerId, page);
  return pageOf(await tenantResources(db, rows), total, page);
}

/** The operator's list of every merchant (the CLI's `tenant list`). */
export async function listAllTenants(db: Kysely<DB>): Promise<Array<TenantResource & { partnerId: number | null }>> {
  const rows = await listAllTenantRows(db);
  const resources = await tenantResources(db, rows);
  return rows.map((r, i) => ({ ...resources[i]!, partnerId: r.partner_id }));
}

export async function getTenant(db: Kysely<DB>, partnerId: number, tenantId: number): Promise<TenantResource> {
  const row = await tenantOfPartner(db, partnerId, tenantId);
  return tenantWithDevices(db, row);
}

/** The settings a partner may change on its merchant (the account itself is the operator's). */
export async function updateTenantSettings(
  db: Kysely<DB>,
  actor: Actor,
  partnerId: number,
  tenantId: number,
  patch: { offlinePolicy?: OfflinePolicy; timezone?: string; stockTracking?: boolean },
): Promise<TenantResource> {
  const timezone = patch.timezone === undefined ? undefined : canonicalTimeZone(patch.timezone);
  if (timezone === null)
    throw fieldError(
      'timezone',
      `The timezone field must be an IANA time zone name such as Africa/Lusaka; "${patch.timezone}" is not one.`,
    );
  return db.transaction().execute(async (trx) => {
    const row = await tenantOfPartner(trx, partnerId, tenantId);
    const changes: TenantSettings = {};
    if (patch.offlinePolicy !== undefined && patch.offlinePolicy !== row.offline_policy) changes.offlinePolicy = patch.offlinePolicy;
    if (timezone !== undefined && timezone !== row.timezone) changes.timezone = timezone;
    if (patch.stockTracking !== undefined && patch.stockTracking !== row.stock_tracking) changes.stockTracking = patch.stockTracking;
    if (Object.keys(changes).length === 0) return tenantWithDevices(trx, row);
    const updated = await writeTenantSettings(trx, tenantId, changes);
    await recordAudit(trx, {
      actor,
      action: 'tenant.updated',
      partnerId,
      tenantId,
      targetType: 'tenant',
      targetId: tenantId,
      details: { ...changes },
    });
    return tenantWithDevices(trx, updated);
  });
}

interface CreateTenantInput {
  name: string;
  tpin: string;
  /** `zra` unless given. */
  authority?: string;
  plan?: Plan | null;
  email?: string | null;
  offlinePolicy?: OfflinePolicy;
}

export async function createTenant(db: Kysely<DB>, actor: Actor, partnerId: number, input: CreateTenantInput): Promise<TenantResource> {
  const duplicate = () => fieldError('tpin', `A merchant with TPIN ${input.tpin} is already on your book.`);
  const name = requiredText(input.name, 'name');
  const authority = input.authority ?? DEFAULT_AUTHORITY;
  checkTenantInput(new FieldErrors(), { ...input, authority }).throwIfAny();
  const profile = merchantProfile(authority);
  return db
    .transaction()
    .execute(async (trx) => {
      const clash = await tenantWithTpin(trx, partnerId, input.tpin);
      if (clash) throw duplicate();
      const row = await insertTenant(trx, {
        partner_id: partnerId,
        name,
        tpin: input.tpin,
        authority,
        timezone: profile.timeZone,
        plan: input.plan ?? null,
        email: input.email ?? null,
        offline_policy: input.offlinePolicy ?? 'queue',
      });
      await recordAudit(trx, {
        actor,
        action: 'tenant.created',
        partnerId,
        tenantId: row.id,
        targetType: 'tenant',
        targetId: row.id,
        details: { name: row.name, tpin: row.tpin, authority: row.authority, plan: row.plan, offlinePolicy: row.offline_policy },
      });
      return presentTenant(row, [], []);
    })
    .catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicate() : err;
    });
}

/**
 * A new merchant's authority and taxpayer id: the authority one the registry has, the id in its
 * form (read defensively: the route's hook runs it before the schema).
 */
export function checkTenantInput(errors: FieldErrors, body: { authority?: unknown; tpin?: unknown }): FieldErrors {
  const authority = body.authority ?? DEFAULT_AUTHORITY;
  if (typeof authority !== 'string') return errors;
  if (!knowsAuthority(authority)) {
    errors.add('authority', `The authority field must be ${oneOf(MERCHANT_AUTHORITIES)}.`);
    return errors;
  }
  if (typeof body.tpin === 'string') {
    const problem = taxpayerIdProblem('tpin', authority, body.tpin);
    if (problem) errors.add('tpin', problem);
  }
  return errors;
}
