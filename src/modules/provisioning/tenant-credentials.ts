import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { ABILITIES } from '../../http/auth.ts';
import { ApiError, NotFoundError } from '../../http/errors.ts';
import { PREFIXES, hashSecret, last4, masked, mintSecret } from '../../credentials/secret-format.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import type { TenantRow } from './tenants.ts';
import { iso } from '../../lib/time.ts';

// Tenant tokens (merchant surface) and fiscalisation keys (/zm/api): plaintext once, then
// only their SHA-256 is kept. Revocation takes effect on the next request (no cache).

export interface TokenResource {
  id: number;
  name: string;
  abilities: string[];
  masked: string;
  createdAt: string;
  lastUsedAt: string | null;
}

function presentToken(row: { id: number; name: string; abilities: string[]; last4: string; created_at: Date; last_used_at: Date | null }): TokenResource {
  return {
    id: row.id,
    name: row.name,
    abilities: row.abilities,
    masked: masked(PREFIXES.tenantToken, row.last4),
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
  };
}

export async function listTokens(db: Kysely<DB>, tenant: TenantRow): Promise<TokenResource[]> {
  const rows = await db.selectFrom('tenant_tokens').selectAll().where('tenant_id', '=', tenant.id).where('revoked_at', 'is', null).orderBy('id').execute();
  return rows.map(presentToken);
}

export async function mintToken(db: Kysely<DB>, actor: Actor, tenant: TenantRow, name: string): Promise<TokenResource & { token: string }> {
  const token = mintSecret(PREFIXES.tenantToken);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('tenant_tokens')
      .values({ tenant_id: tenant.id, name: name.trim(), abilities: [...ABILITIES], token_hash: hashSecret(token), last4: last4(token) })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, { actor, action: 'token.created', tenantId: tenant.id, targetType: 'tenant_token', targetId: row.id, details: { name: row.name } });
    return { ...presentToken(row), token };
  });
}

export async function revokeToken(db: Kysely<DB>, actor: Actor, tenant: TenantRow, tokenId: number): Promise<{ revoked: boolean; id: number }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('tenant_tokens').select(['id', 'revoked_at']).where('id', '=', tokenId).where('tenant_id', '=', tenant.id).forUpdate().executeTakeFirst();
    if (!row) throw new NotFoundError('Token not found.');
    if (row.revoked_at) return { revoked: false, id: row.id };
    await trx.updateTable('tenant_tokens').set({ revoked_at: sql`now()` }).where('id', '=', row.id).execute();
    await recordAudit(trx, { actor, action: 'token.revoked', tenantId: tenant.id, targetType: 'tenant_token', targetId: row.id });
    return { revoked: true, id: row.id };
  });
}

export interface ApiKeyResource {
  id: number;
  masked: string;
  branch: string | null;
  sdcId: string | null;
  dialect: 'bare' | 'wrapped';
  createdAt: string;
  lastUsedAt: string | null;
}

export async function listApiKeys(db: Kysely<DB>, tenant: TenantRow): Promise<ApiKeyResource[]> {
  const rows = await db
    .selectFrom('api_keys as k')
    .leftJoin('devices as d', 'd.id', 'k.device_id')
    .select(['k.id', 'k.last4', 'k.dialect', 'k.created_at', 'k.last_used_at', 'd.branch', 'd.sdc_id'])
    .where('k.tenant_id', '=', tenant.id)
    .where('k.revoked_at', 'is', null)
    .orderBy('k.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    masked: masked(PREFIXES.fiscalisationKey, r.last4),
    branch: r.branch,
    sdcId: r.sdc_id,
    dialect: r.dialect,
    createdAt: r.created_at.toISOString(),
    lastUsedAt: iso(r.last_used_at),
  }));
}

export async function mintApiKey(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRow,
  input: { branch?: string | null; dialect?: 'bare' | 'wrapped' },
): Promise<ApiKeyResource & { key: string }> {
  const key = mintSecret(PREFIXES.fiscalisationKey);
  return db.transaction().execute(async (trx) => {
    let device: { id: number; branch: string; sdc_id: string | null } | undefined;
    if (input.branch) {
      device = await trx.selectFrom('devices').select(['id', 'branch', 'sdc_id']).where('tenant_id', '=', tenant.id).where('branch', '=', input.branch).executeTakeFirst();
      if (!device) throw new ApiError(404, 'device_not_found', `No device is registered for branch ${input.branch} of this merchant.`);
    }
    const row = await trx
      .insertInto('api_keys')
      .values({ tenant_id: tenant.id, device_id: device?.id ?? null, dialect: input.dialect ?? 'bare', key_hash: hashSecret(key), last4: last4(key) })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, { actor, action: 'api_key.created', tenantId: tenant.id, targetType: 'api_key', targetId: row.id, details: { branch: device?.branch ?? null, dialect: row.dialect } });
    return {
      id: row.id,
      key,
      masked: masked(PREFIXES.fiscalisationKey, row.last4),
      branch: device?.branch ?? null,
      sdcId: device?.sdc_id ?? null,
      dialect: row.dialect,
      createdAt: row.created_at.toISOString(),
      lastUsedAt: null,
    };
  });
}

export async function revokeApiKey(db: Kysely<DB>, actor: Actor, tenant: TenantRow, keyId: number): Promise<{ revoked: boolean; id: number }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', keyId).where('tenant_id', '=', tenant.id).forUpdate().executeTakeFirst();
    if (!row) throw new NotFoundError('Fiscalisation key not found.');
    if (row.revoked_at) return { revoked: false, id: row.id };
    await trx.updateTable('api_keys').set({ revoked_at: sql`now()` }).where('id', '=', row.id).execute();
    await recordAudit(trx, { actor, action: 'api_key.revoked', tenantId: tenant.id, targetType: 'api_key', targetId: row.id });
    return { revoked: true, id: row.id };
  });
}
