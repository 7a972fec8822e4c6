import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { hashSecret, last4, mintSecret } from '../../../credentials/secret-format.ts';
import type { ResolvedPartnerKey } from '../../../credentials/key-lookup.ts';
import { SCOPES, type Scope } from '../../../credentials/abilities.ts';
import { ApiError, NotFoundError, requiredText } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { partnerKeyPrefix, presentPartnerKey, type PartnerKeyResource } from './present.ts';
import {
  findOwnPartnerKey,
  insertPartnerKeyRow,
  listLivePartnerKeys,
  lockPartnerKey,
  markPartnerKeyRotated,
  newestSealedPartnerKeyRows,
  setPartnerKeyCiphertext,
  type PartnerKeyRow,
} from './store.ts';
import { markRevoked } from '../../kernel/tenants/store.ts';

// Partner secret keys: hashed for lookup and also sealed (AES-256-GCM) so the partner can
// read a key back. The AAD binds each ciphertext to its key id and partner.
//
// What an sk_test_ key may do: everything its scopes allow on the partner's own merchants
// (sk_test_ is a privilege tier, not a sandbox: it files real invoices), but it can never
// mint, rotate, read back or revoke an sk_live_ key; it only manages sk_test_ keys.

const aadOf = (keyId: number, partnerId: number) => `partner_key:${keyId}:partner:${partnerId}`;

/** Inserts a key and seals its secret with the row's own id in the AAD. */
export async function insertPartnerKey(
  db: Kysely<DB>,
  box: SecretBox,
  partnerId: number,
  input: { name: string; mode: 'live' | 'test'; scopes: readonly string[] },
): Promise<{ row: PartnerKeyRow; secret: string }> {
  const secret = mintSecret(partnerKeyPrefix(input.mode));
  const id = await insertPartnerKeyRow(db, {
    partner_id: partnerId,
    name: input.name,
    mode: input.mode,
    scopes: [...input.scopes],
    secret_hash: hashSecret(secret),
    last4: last4(secret),
  });
  const row = await setPartnerKeyCiphertext(db, id, box.seal(secret, aadOf(id, partnerId)));
  return { row, secret };
}

/** The newest sealed partner keys with what each was sealed to: does a key open them? (src/app/secret-key.ts). */
export async function newestSealedPartnerKeys(db: Kysely<DB>, limit: number): Promise<Array<{ sealed: string; aad: string }>> {
  const rows = await newestSealedPartnerKeyRows(db, limit);
  return rows.map((row) => ({ sealed: row.secret_ciphertext, aad: aadOf(row.id, row.partner_id) }));
}

async function ownKey(db: Kysely<DB>, caller: ResolvedPartnerKey, keyId: number, forUpdate = false): Promise<PartnerKeyRow> {
  const row = await findOwnPartnerKey(db, caller.partner.id, keyId, forUpdate);
  if (!row) throw new NotFoundError('Partner key not found.');
  return row;
}

function assertMayTouch(caller: ResolvedPartnerKey, target: { mode: 'live' | 'test' }): void {
  if (caller.mode === 'test' && target.mode === 'live') {
    throw new ApiError('insufficient_privilege', 'An sk_test_ key cannot mint, rotate, read back or revoke sk_live_ keys.');
  }
}

const actorOf = (caller: ResolvedPartnerKey): Actor => ({ type: 'partner_key', keyId: caller.keyId, partnerId: caller.partner.id });

export async function listPartnerKeys(db: Kysely<DB>, caller: ResolvedPartnerKey, now: Date): Promise<PartnerKeyResource[]> {
  const rows = await listLivePartnerKeys(db, caller.partner.id, now);
  return rows.map(presentPartnerKey);
}

export async function mintPartnerKey(
  db: Kysely<DB>,
  box: SecretBox,
  caller: ResolvedPartnerKey,
  input: { name: string; scopes: Scope[]; mode?: 'live' | 'test' },
): Promise<PartnerKeyResource & { secret: string }> {
  const keyName = requiredText(input.name, 'name');
  const mode = input.mode ?? caller.mode;
  assertMayTouch(caller, { mode });
  const beyond = input.scopes.filter((s) => !caller.scopes.includes(s));
  if (beyond.length > 0) {
    throw new ApiError('insufficient_privilege', `A key can only grant scopes it holds itself; this key lacks: ${beyond.join(', ')}.`);
  }
  const scopes = SCOPES.filter((s) => input.scopes.includes(s));
  return db.transaction().execute(async (trx) => {
    const { row, secret } = await insertPartnerKey(trx, box, caller.partner.id, { name: keyName, mode, scopes });
    await recordAudit(trx, {
      actor: actorOf(caller),
      action: 'partner_key.created',
      targetType: 'partner_key',
      targetId: row.id,
      details: { mode, scopes },
    });
    return { ...presentPartnerKey(row), secret };
  });
}

export async function readPartnerKeySecret(
  db: Kysely<DB>,
  box: SecretBox,
  caller: ResolvedPartnerKey,
  keyId: number,
): Promise<{ id: number; secret: string }> {
  const row = await ownKey(db, caller, keyId);
  assertMayTouch(caller, row);
  const secret = box.open(row.secret_ciphertext, aadOf(row.id, row.partner_id));
  await recordAudit(db, { actor: actorOf(caller), action: 'partner_key.secret_read', targetType: 'partner_key', targetId: row.id });
  return { id: row.id, secret };
}

export async function rotatePartnerKey(
  db: Kysely<DB>,
  box: SecretBox,
  caller: ResolvedPartnerKey,
  keyId: number,
  graceSeconds: number,
): Promise<PartnerKeyResource & { secret: string; previous: { id: number; expiresAt: string } }> {
  return db.transaction().execute(async (trx) => {
    const old = await ownKey(trx, caller, keyId, true);
    assertMayTouch(caller, old);
    if (old.rotated_to_id !== null) {
      throw new ApiError('already_rotated', `This key was already rotated; its replacement is key ${old.rotated_to_id}.`);
    }
    const { row, secret } = await insertPartnerKey(trx, box, old.partner_id, { name: old.name, mode: old.mode, scopes: old.scopes });
    const expiresAt = await markPartnerKeyRotated(trx, old.id, row.id, graceSeconds);
    await recordAudit(trx, {
      actor: actorOf(caller),
      action: 'partner_key.rotated',
      targetType: 'partner_key',
      targetId: old.id,
      details: { replacementId: row.id, graceSeconds },
    });
    return { ...presentPartnerKey(row), secret, previous: { id: old.id, expiresAt: expiresAt.toISOString() } };
  });
}

export async function revokePartnerKey(
  db: Kysely<DB>,
  caller: ResolvedPartnerKey,
  keyId: number,
): Promise<{ revoked: boolean; id: number }> {
  return db.transaction().execute(async (trx) => {
    const row = await lockPartnerKey(trx, caller.partner.id, keyId);
    if (!row) throw new NotFoundError('Partner key not found.');
    assertMayTouch(caller, row);
    if (row.revoked_at) return { revoked: false, id: row.id };
    await markRevoked(trx, 'partner_keys', row.id);
    await recordAudit(trx, { actor: actorOf(caller), action: 'partner_key.revoked', targetType: 'partner_key', targetId: row.id });
    return { revoked: true, id: row.id };
  });
}
