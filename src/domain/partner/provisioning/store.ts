// Provisioning's SQL: partners, their keys, tenants, devices, tenant tokens and fiscalisation
// keys. Functions return rows (or undefined); the services turn absence into errors.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { PartnerKeysTable } from '../../../platform/db/tables/foundation.ts';

export type PartnerKeyRow = Selectable<PartnerKeysTable>;

export async function insertPartner(db: Kysely<DB>, name: string) {
  return db.insertInto('partners').values({ name }).returningAll().executeTakeFirstOrThrow();
}

export async function updatePartnerStatus(db: Kysely<DB>, partnerId: number, status: 'active' | 'suspended') {
  return db
    .updateTable('partners')
    .set({ status, updated_at: sql`now()` })
    .where('id', '=', partnerId)
    .returningAll()
    .executeTakeFirst();
}

export async function listPartnerRows(db: Kysely<DB>) {
  return db.selectFrom('partners').selectAll().orderBy('id').execute();
}

// --- Partner keys -----------------------------------------------------------------------------

/** Inserts a key whose ciphertext is still a placeholder: it is sealed with the row's own id. */
export async function insertPartnerKeyRow(
  db: Kysely<DB>,
  values: Omit<Insertable<PartnerKeysTable>, 'secret_ciphertext'>,
): Promise<number> {
  const inserted = await db
    .insertInto('partner_keys')
    .values({ ...values, secret_ciphertext: 'pending' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** The newest sealed partner keys (revoked ones too), for the check of which key seals them (src/app/secret-key.ts). */
export async function newestSealedPartnerKeyRows(
  db: Kysely<DB>,
  limit: number,
): Promise<Array<Pick<PartnerKeyRow, 'id' | 'partner_id' | 'secret_ciphertext'>>> {
  return db
    .selectFrom('partner_keys')
    .select(['id', 'partner_id', 'secret_ciphertext'])
    .where('secret_ciphertext', '<>', 'pending')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function setPartnerKeyCiphertext(db: Kysely<DB>, keyId: number, ciphertext: string): Promise<PartnerKeyRow> {
  return db
    .updateTable('partner_keys')
    .set({ secret_ciphertext: ciphertext })
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The partner's key if it is not revoked (expired keys included: they can still be read or rotated). */
export async function findOwnPartnerKey(
  db: Kysely<DB>,
  partnerId: number,
  keyId: number,
  forUpdate = false,
): Promise<PartnerKeyRow | undefined> {
  let query = db
    .selectFrom('partner_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('partner_id', '=', partnerId)
    .where('revoked_at', 'is', null);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The partner's key, revoked or not, locked. */
export async function lockPartnerKey(db: Kysely<DB>, partnerId: number, keyId: number): Promise<PartnerKeyRow | undefined> {
  return db
    .selectFrom('partner_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('partner_id', '=', partnerId)
    .forUpdate()
    .executeTakeFirst();
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
