import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Plan } from '../db/tables/foundation.ts';
import { hashSecret, safeEqual } from './secret-format.ts';

// Resolving a presented secret to who holds it: one indexed query per credential kind,
// joined with the account state the auth hook needs (so a request costs one round trip).

export interface TenantAccount {
  id: number;
  partnerId: number | null;
  name: string;
  tpin: string;
  plan: Plan | null;
  subscription: 'active' | 'blocked';
  status: 'active' | 'suspended';
  monthlyQuota: number | null;
  rateLimitPerMinute: number | null;
  documentsThisMonth: number;
}

export interface ResolvedTenantToken {
  tokenId: number;
  abilities: string[];
  tenant: TenantAccount;
}

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
  tenant: TenantAccount;
}

export function currentMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

function tenantColumns(month: string) {
  return [
    't.id as t_id',
    't.partner_id as t_partner_id',
    't.name as t_name',
    't.tpin as t_tpin',
    't.plan as t_plan',
    't.subscription as t_subscription',
    't.status as t_status',
    't.monthly_quota as t_monthly_quota',
    't.rate_limit_per_minute as t_rate_limit_per_minute',
    sql<number>`coalesce((select u.documents from tenant_usage u where u.tenant_id = t.id and u.month = ${month}), 0)`.as('t_documents'),
  ] as const;
}

interface TenantRowColumns {
  t_id: number;
  t_partner_id: number | null;
  t_name: string;
  t_tpin: string;
  t_plan: Plan | null;
  t_subscription: 'active' | 'blocked';
  t_status: 'active' | 'suspended';
  t_monthly_quota: number | null;
  t_rate_limit_per_minute: number | null;
  t_documents: number;
}

function toTenant(row: TenantRowColumns): TenantAccount {
  return {
    id: row.t_id,
    partnerId: row.t_partner_id,
    name: row.t_name,
    tpin: row.t_tpin,
    plan: row.t_plan,
    subscription: row.t_subscription,
    status: row.t_status,
    monthlyQuota: row.t_monthly_quota,
    rateLimitPerMinute: row.t_rate_limit_per_minute,
    documentsThisMonth: Number(row.t_documents),
  };
}

export async function findTenantToken(db: Kysely<DB>, secret: string, now: Date): Promise<ResolvedTenantToken | undefined> {
  const hash = hashSecret(secret);
  const row = await db
    .selectFrom('tenant_tokens as k')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select(['k.id', 'k.abilities', 'k.token_hash', ...tenantColumns(currentMonth(now))])
    .where('k.token_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || !safeEqual(row.token_hash, hash)) return undefined;
  return { tokenId: row.id, abilities: row.abilities, tenant: toTenant(row) };
}

export async function findPartnerKey(db: Kysely<DB>, secret: string): Promise<ResolvedPartnerKey | undefined> {
  const hash = hashSecret(secret);
  const row = await db
    .selectFrom('partner_keys as k')
    .innerJoin('partners as p', 'p.id', 'k.partner_id')
    .select(['k.id', 'k.mode', 'k.scopes', 'k.expires_at', 'k.secret_hash', 'p.id as partner_id', 'p.name as partner_name', 'p.status as partner_status'])
    .where('k.secret_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || !safeEqual(row.secret_hash, hash)) return undefined;
  return {
    keyId: row.id,
    mode: row.mode,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    partner: { id: row.partner_id, name: row.partner_name, status: row.partner_status },
  };
}

export async function findFiscalisationKey(db: Kysely<DB>, secret: string, now: Date): Promise<ResolvedFiscalisationKey | undefined> {
  const hash = hashSecret(secret);
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('tenants as t', 't.id', 'k.tenant_id')
    .select(['k.id', 'k.device_id', 'k.dialect', 'k.key_hash', ...tenantColumns(currentMonth(now))])
    .where('k.key_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || !safeEqual(row.key_hash, hash)) return undefined;
  return { keyId: row.id, deviceId: row.device_id, dialect: row.dialect, tenant: toTenant(row) };
}
