// All SQL of merchant accounts: users, sessions, one-time links, failed sign-ins.
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { UserRole, UsersTable, UserTokenKind, UserTokensTable } from '../../../platform/db/tables/accounts.ts';

export type UserRow = Selectable<UsersTable>;
type UserTokenRow = Selectable<UserTokensTable>;

export function findUserByEmail(db: Kysely<DB>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

export function findUser(db: Kysely<DB>, tenantId: number, userId: number): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .where('tenant_id', '=', tenantId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

/** How many of the merchant's devices are initialised, as an SQL expression of its id. */
export const initialisedBranchCount = (tenantId: RawBuilder<unknown>) =>
  sql<string>`(select count(*) from devices d where d.tenant_id = ${tenantId} and d.initialized)`;

/** The user (as findUser), with how many of its merchant's devices are initialised and the merchant's time zone, in one read. */
export function findUserWithBranches(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
): Promise<(UserRow & { branches: string; timezone: string }) | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .select(initialisedBranchCount(sql.lit(tenantId)).as('branches'))
    .select(sql<string>`(select timezone from tenants where id = ${tenantId})`.as('timezone'))
    .where('id', '=', userId)
    .where('tenant_id', '=', tenantId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
}

export function usersOf(db: Kysely<DB>, tenantId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('removed_at', 'is', null).orderBy('id').execute();
}

export function insertUser(
  db: Kysely<DB>,
  values: { tenant_id: number; email: string; password_hash: string; role: UserRole; email_verified_at: Date | null },
): Promise<UserRow> {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function setUserFields(
  db: Kysely<DB>,
  userId: number,
  fields: { password_hash?: string; password_changed_at?: Date; email_verified_at?: Date; removed_at?: Date },
  now: Date,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...fields, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

export async function insertSession(
  db: Kysely<DB>,
  values: { id: string; user_id: number; now: Date; expires_at: Date; ip: string | null; user_agent: string | null },
): Promise<void> {
  const { now, ...rest } = values;
  await db
    .insertInto('user_sessions')
    .values({ ...rest, created_at: now, last_seen_at: now })
    .execute();
}

/** Revokes the user's live sessions, except `keep` (a session id) if given; answers how many. */
export async function revokeSessions(db: Kysely<DB>, userId: number, now: Date, keep?: string): Promise<number> {
  let query = db.updateTable('user_sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keep) query = query.where('id', '<>', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function revokeSession(db: Kysely<DB>, sessionId: string, now: Date): Promise<void> {
  await db.updateTable('user_sessions').set({ revoked_at: now }).where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
}

export async function insertUserToken(
  db: Kysely<DB>,
  values: {
    token_hash: string;
    kind: UserTokenKind;
    tenant_id: number;
    user_id: number | null;
    email: string;
    role: UserRole | null;
    created_by: string | null;
    created_at: Date;
    expires_at: Date;
  },
): Promise<UserTokenRow> {
  return db.insertInto('user_tokens').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Uses a one-time link: marks it used and answers it, in one statement, only if it is of `kind`,
 * unused and unexpired (two requests with the same link: one wins).
 */
export function useUserToken(db: Kysely<DB>, tokenHash: string, kind: UserTokenKind, now: Date): Promise<UserTokenRow | undefined> {
  return db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** The merchant's invitations nobody accepted or revoked yet and still valid (or the one with `id`), newest first. */
export function pendingInvitations(db: Kysely<DB>, tenantId: number, now: Date, id?: number): Promise<UserTokenRow[]> {
  let query = db.selectFrom('user_tokens').selectAll();
  if (id !== undefined) query = query.where('id', '=', id);
  return query
    .where('tenant_id', '=', tenantId)
    .where('kind', '=', 'invitation')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .execute();
}

/** Voids a pending invitation of the merchant (its link then answers `link_invalid`): the row, or undefined when there is none to void. */
export function voidInvitation(db: Kysely<DB>, tenantId: number, id: number, now: Date): Promise<UserTokenRow | undefined> {
  return db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .where('kind', '=', 'invitation')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Whether the one-time link of `kind` (used, voided or expired alike) belongs to a user whose
 * address is confirmed now: a second visit to a verification link.
 */
export async function linkOfVerifiedUser(db: Kysely<DB>, tokenHash: string, kind: UserTokenKind): Promise<boolean> {
  const row = await db
    .selectFrom('user_tokens as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select('u.id')
    .where('k.token_hash', '=', tokenHash)
    .where('k.kind', '=', kind)
    .where('u.removed_at', 'is', null)
    .where('u.email_verified_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** How many links of `kind` were made for a user since `since` (the cap on mailed links). */
export async function linksSince(db: Kysely<DB>, userId: number, kind: UserTokenKind, since: Date): Promise<number> {
  const row = await db
    .selectFrom('user_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Unused links of `kind` for a user are voided when a newer one is sent or the password changes. */
export async function voidUserTokens(db: Kysely<DB>, userId: number, kind: UserTokenKind, now: Date): Promise<void> {
  await db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .execute();
}

export async function recordSigninFailure(db: Kysely<DB>, email: string, ip: string, now: Date, windowMs: number): Promise<void> {
  await db
    .deleteFrom('signin_failures')
    .where('created_at', '<', new Date(now.getTime() - windowMs))
    .execute();
  await db.insertInto('signin_failures').values({ email, ip, created_at: now }).execute();
}

interface FailureCount {
  count: number;
  oldest: Date | null;
}

export async function signinFailures(db: Kysely<DB>, column: 'email' | 'ip', value: string, since: Date): Promise<FailureCount> {
  const row = await db
    .selectFrom('signin_failures')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where(column, '=', value)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), oldest: row.oldest ? new Date(row.oldest) : null };
}

export async function clearSigninFailures(db: Kysely<DB>, email: string): Promise<void> {
  await db.deleteFrom('signin_failures').where('email', '=', email).execute();
}

export async function insertSelfTenant(
  db: Kysely<DB>,
  values: { name: string; tpin: string; authority: string; timezone: string; email: string },
) {
  return db
    .insertInto('tenants')
    .values({ ...values, partner_id: null, origin: 'self' })
    .returningAll()
    .executeTakeFirstOrThrow();
}
