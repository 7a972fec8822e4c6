import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { OfflinePolicy, Plan } from '../../db/tables/foundation.ts';
import type { SecretBox } from '../../credentials/secret-box.ts';
import { SCOPES, type Scope } from '../../http/auth.ts';
import { NotFoundError } from '../../http/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { insertPartnerKey, presentPartnerKey, type PartnerKeyResource } from './partner-keys.ts';
import { presentTenant, devicesOf } from './tenants.ts';

// Operator actions (admin API and CLI): partners and the account state of tenants.

export interface PartnerResource {
  id: number;
  name: string;
  status: 'active' | 'suspended';
  createdAt: string;
}

export async function createPartner(
  db: Kysely<DB>,
  box: SecretBox,
  actor: Actor,
  input: { name: string; test?: boolean; scopes?: Scope[] },
): Promise<{ partner: PartnerResource; key: PartnerKeyResource & { secret: string } }> {
  return db.transaction().execute(async (trx) => {
    const partner = await trx.insertInto('partners').values({ name: input.name.trim() }).returningAll().executeTakeFirstOrThrow();
    const scopes = SCOPES.filter((s) => !input.scopes || input.scopes.includes(s));
    const { row, secret } = await insertPartnerKey(trx, box, partner.id, { name: 'Initial key', mode: input.test ? 'test' : 'live', scopes });
    await recordAudit(trx, { actor, action: 'partner.created', partnerId: partner.id, targetType: 'partner', targetId: partner.id, details: { name: partner.name, keyId: row.id } });
    return {
      partner: { id: partner.id, name: partner.name, status: partner.status, createdAt: partner.created_at.toISOString() },
      key: { ...presentPartnerKey(row), secret },
    };
  });
}

export async function setPartnerStatus(db: Kysely<DB>, actor: Actor, partnerId: number, status: 'active' | 'suspended'): Promise<PartnerResource> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.updateTable('partners').set({ status, updated_at: sql`now()` }).where('id', '=', partnerId).returningAll().executeTakeFirst();
    if (!row) throw new NotFoundError('Partner not found.');
    await recordAudit(trx, { actor, action: status === 'suspended' ? 'partner.suspended' : 'partner.resumed', partnerId, targetType: 'partner', targetId: partnerId });
    return { id: row.id, name: row.name, status: row.status, createdAt: row.created_at.toISOString() };
  });
}

export async function listPartners(db: Kysely<DB>): Promise<PartnerResource[]> {
  const rows = await db.selectFrom('partners').selectAll().orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, status: r.status, createdAt: r.created_at.toISOString() }));
}

export interface TenantAccountPatch {
  plan?: Plan | null;
  subscription?: 'active' | 'blocked';
  status?: 'active' | 'suspended';
  monthlyQuota?: number | null;
  rateLimitPerMinute?: number | null;
  offlinePolicy?: OfflinePolicy;
}

export async function updateTenantAccount(db: Kysely<DB>, actor: Actor, tenantId: number, patch: TenantAccountPatch) {
  return db.transaction().execute(async (trx) => {
    const values: Record<string, unknown> = { updated_at: sql`now()` };
    if (patch.plan !== undefined) values.plan = patch.plan;
    if (patch.subscription !== undefined) values.subscription = patch.subscription;
    if (patch.status !== undefined) values.status = patch.status;
    if (patch.monthlyQuota !== undefined) values.monthly_quota = patch.monthlyQuota;
    if (patch.rateLimitPerMinute !== undefined) values.rate_limit_per_minute = patch.rateLimitPerMinute;
    if (patch.offlinePolicy !== undefined) values.offline_policy = patch.offlinePolicy;
    const row = await trx.updateTable('tenants').set(values).where('id', '=', tenantId).returningAll().executeTakeFirst();
    if (!row) throw new NotFoundError('Tenant not found.');
    await recordAudit(trx, { actor, action: 'tenant.account_updated', partnerId: row.partner_id, tenantId, targetType: 'tenant', targetId: tenantId, details: { ...patch } });
    const devices = await devicesOf(trx, [row.id]);
    return presentTenant(row, devices.get(row.id) ?? []);
  });
}
