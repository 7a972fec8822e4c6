// A signed-in merchant user without the mail round trip: for tests that walk every route (auth
// matrix, fuzzer, OpenAPI). test/merchant/accounts/ signs up through HTTP instead.
import type { AppContext } from '../../src/domain/kernel/context.ts';
import { csrfTokenOf, newSecret, sha256 } from '../../src/credentials/user-secrets.ts';
import { SESSION_COOKIE, SESSION_LIFETIME_MS } from '../../src/credentials/user-session.ts';
import type { UserRole } from '../../src/platform/db/tables/accounts.ts';
import { hashPassword } from '../../src/credentials/passwords.ts';

export interface SignedInUser {
  userId: number;
  email: string;
  /** Cookie and X-CSRF-Token, for any request. */
  headers: { cookie: string; 'x-csrf-token': string };
}

let counter = 0;

export async function seedSignedInUser(ctx: AppContext, tenantId: number, role: UserRole = 'owner'): Promise<SignedInUser> {
  counter += 1;
  const now = ctx.clock.now();
  const email = `user${counter}-${process.pid}-${now.getTime()}@example.com`;
  const user = await ctx.db
    .insertInto('users')
    .values({ tenant_id: tenantId, email, password_hash: await hashPassword('a long enough password', 10), role, email_verified_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = newSecret();
  await ctx.db
    .insertInto('user_sessions')
    .values({
      id: sha256(token),
      user_id: user.id,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
      ip: null,
      user_agent: null,
    })
    .execute();
  return { userId: user.id, email, headers: { cookie: `${SESSION_COOKIE}=${token}`, 'x-csrf-token': csrfTokenOf(token) } };
}

/**
 * `count` signed-in users of one merchant, made in two statements (one password hash for all):
 * for walks that sign sessions out, one session per request.
 */
export async function seedSignedInUsers(ctx: AppContext, tenantId: number, count: number): Promise<SignedInUser[]> {
  const now = ctx.clock.now();
  const hash = await hashPassword('a long enough password', 10);
  counter += 1;
  const users = await ctx.db
    .insertInto('users')
    .values(
      Array.from({ length: count }, (_, i) => ({
        tenant_id: tenantId,
        email: `bulk${counter}-${i}-${process.pid}-${now.getTime()}@example.com`,
        password_hash: hash,
        role: 'owner' as const,
        email_verified_at: now,
      })),
    )
    .returning(['id', 'email'])
    .execute();
  const tokens = users.map(() => newSecret());
  await ctx.db
    .insertInto('user_sessions')
    .values(
      users.map((u, i) => ({
        id: sha256(tokens[i]!),
        user_id: u.id,
        created_at: now,
        last_seen_at: now,
        expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
        ip: null,
        user_agent: null,
      })),
    )
    .execute();
  return users.map((u, i) => ({
    userId: u.id,
    email: u.email,
    headers: { cookie: `${SESSION_COOKIE}=${tokens[i]!}`, 'x-csrf-token': csrfTokenOf(tokens[i]!) },
  }));
}
