import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { ABILITIES, type Ability } from '../../../credentials/abilities.ts';
import { ApiError, NotFoundError, requiredText } from '../../../platform/errors/errors.ts';
import { PREFIXES, hashSecret, last4, mintSecret } from '../../../credentials/secret-format.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { presentApiKey, presentToken, type ApiKeyResource, type TokenResource } from './present.ts';
import { insertApiKey, insertToken, listApiKeyRows, listTokenRows, lockTenantCredential, markRevoked, type TenantRow } from './store.ts';
import { deviceForKey } from '../devices/store.ts';

// Tenant tokens (merchant surface) and fiscalisation keys (/zm/api): plaintext once, then
// only their SHA-256 is kept. Revocation takes effect on the next request (no cache). Minted and
// revoked by the merchant's partner or, on the developer screen, by the merchant's own users.

/** The merchant the credential belongs to (its partner's row, or a signed-in user's merchant). */
type TenantRef = Pick<TenantRow, 'id'>;

export async function listTokens(db: Kysely<DB>, tenant: TenantRef): Promise<TokenResource[]> {
  const rows = await listTokenRows(db, tenant.id);
  return rows.map(presentToken);
}

/** `abilities`: what the token may do (both unless given), kept in ABILITIES' order. */
export async function mintToken(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRef,
  name: string,
  abilities: readonly Ability[] = ABILITIES,
  training = false,
): Promise<TokenResource & { token: string }> {
  const tokenName = requiredText(name, 'name');
  const token = mintSecret(PREFIXES.tenantToken);
  const granted = ABILITIES.filter((a) => abilities.includes(a));
  return db.transaction().execute(async (trx) => {
    const row = await insertToken(trx, {
      tenant_id: tenant.id,
      name: tokenName,
      abilities: granted,
      training,
      token_hash: hashSecret(token),
      last4: last4(token),
    });
    await recordAudit(trx, {
      actor,
      action: 'token.created',
      tenantId: tenant.id,
      targetType: 'tenant_token',
      targetId: row.id,
      details: { name: row.name, abilities: granted, training },
    });
    return { ...presentToken(row), token };
  });
}

const REVOCABLE = {
  tenant_tokens: { notFound: 'Token not found.', action: 'token.revoked', targetType: 'tenant_token' },
  api_keys: { notFound: 'Fiscalisation key not found.', action: 'api_key.revoked', targetType: 'api_key' },
} as const;

/** Revokes a tenant token or fiscalisation key; revoking one twice is not an error (`revoked: false`). */
async function revokeCredential(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRef,
  table: keyof typeof REVOCABLE,
  id: number,
): Promise<{ revoked: boolean; id: number }> {
  const { notFound, action, targetType } = REVOCABLE[table];
  return db.transaction().execute(async (trx) => {
    const row = await lockTenantCredential(trx, table, tenant.id, id);
    if (!row) throw new NotFoundError(notFound);
    if (row.revoked_at) return { revoked: false, id: row.id };
    await markRevoked(trx, table, row.id);
    await recordAudit(trx, { actor, action, tenantId: tenant.id, targetType, targetId: row.id });
    return { revoked: true, id: row.id };
  });
}

export async function revokeToken(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRef,
  tokenId: number,
): Promise<{ revoked: boolean; id: number }> {
  return revokeCredential(db, actor, tenant, 'tenant_tokens', tokenId);
}

export async function listApiKeys(db: Kysely<DB>, tenant: TenantRef): Promise<ApiKeyResource[]> {
  const rows = await listApiKeyRows(db, tenant.id);
  return rows.map(presentApiKey);
}

export async function mintApiKey(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRef,
  input: { branch?: string | null; dialect?: 'bare' | 'wrapped'; training?: boolean },
): Promise<ApiKeyResource & { key: string }> {
  const key = mintSecret(PREFIXES.fiscalisationKey);
  return db.transaction().execute(async (trx) => {
    let device: { id: number; branch: string; sdc_id: string | null } | undefined;
    if (input.branch) {
      device = await deviceForKey(trx, tenant.id, input.branch);
      if (!device) throw new ApiError('device_not_found', `No device is registered for branch ${input.branch} of this merchant.`);
    }
    const training = input.training ?? false;
    const row = await insertApiKey(trx, {
      tenant_id: tenant.id,
      device_id: device?.id ?? null,
      dialect: input.dialect ?? 'bare',
      training,
      key_hash: hashSecret(key),
      last4: last4(key),
    });
    await recordAudit(trx, {
      actor,
      action: 'api_key.created',
      tenantId: tenant.id,
      targetType: 'api_key',
      targetId: row.id,
      details: { branch: device?.branch ?? null, dialect: row.dialect, training },
    });
    return { ...presentApiKey({ ...row, last_used_at: null, branch: device?.branch ?? null, sdc_id: device?.sdc_id ?? null }), key };
  });
}

export async function revokeApiKey(
  db: Kysely<DB>,
  actor: Actor,
  tenant: TenantRef,
  keyId: number,
): Promise<{ revoked: boolean; id: number }> {
  return revokeCredential(db, actor, tenant, 'api_keys', keyId);
}
