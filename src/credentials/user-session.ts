// The merchant user behind a session cookie (docs/merchants.md): one statement finds the live
// session with its user and merchant, with the merchant's account standing as a tenant token's
// lookup brings it (the cookie also reaches the merchant API); `last_seen_at` is stamped at most
// once a minute.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../platform/db/schema.ts';
import type { UserRole } from '../platform/db/tables/accounts.ts';
import type { TenantAccount } from './lookup.ts';
import { currentMonth, documentsInMonth } from './standing.ts';
import { sha256 } from './user-secrets.ts';

export const SESSION_COOKIE = 'fg_session';
/** A session ends this long after sign-in, or after this long unused, whichever comes first. */
export const SESSION_LIFETIME_MS = 30 * 86_400_000;
const SESSION_IDLE_MS = 7 * 86_400_000;
const LAST_SEEN_STEP_MS = 60_000;

export interface SessionUser {
  sessionId: string;
  userId: number;
  email: string;
  role: UserRole;
  /** The merchant with its account state (subscription, status, quota, this month's documents). */
  tenant: TenantAccount & { origin: 'partner' | 'self' };
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export async function findUserSession(db: Kysely<DB>, sessionToken: string, now: Date): Promise<SessionUser | undefined> {
  const id = sha256(sessionToken);
  const row = await db
    .selectFrom('user_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select([
      's.id as session_id',
      's.last_seen_at',
      'u.id as user_id',
      'u.email',
      'u.role',
      't.id as tenant_id',
      't.partner_id',
      't.name',
      't.tpin',
      't.origin',
      't.plan',
      't.rate_limit_per_minute',
      't.status',
      't.subscription',
      't.monthly_quota',
      't.offline_policy',
      't.authority',
      't.timezone',
      documentsInMonth(sql`t.id`, currentMonth(now)).as('documents'),
    ])
    .where('s.id', '=', id)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', new Date(now.getTime() - SESSION_IDLE_MS))
    .where('u.removed_at', 'is', null)
    .where('u.email_verified_at', 'is not', null)
    .executeTakeFirst();
  if (!row) return undefined;
  if (now.getTime() - new Date(row.last_seen_at).getTime() >= LAST_SEEN_STEP_MS) {
    await db.updateTable('user_sessions').set({ last_seen_at: now }).where('id', '=', id).where('last_seen_at', '<', now).execute();
  }
  return {
    sessionId: row.session_id,
    userId: row.user_id,
    email: row.email,
    role: row.role,
    tenant: {
      id: row.tenant_id,
      partnerId: row.partner_id,
      name: row.name,
      tpin: row.tpin,
      origin: row.origin,
      plan: row.plan,
      rateLimitPerMinute: row.rate_limit_per_minute,
      status: row.status,
      subscription: row.subscription,
      monthlyQuota: row.monthly_quota,
      offlinePolicy: row.offline_policy,
      authority: row.authority,
      timezone: row.timezone,
      documentsThisMonth: Number(row.documents),
    },
  };
}
