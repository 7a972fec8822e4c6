import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../platform/db/schema.ts';
import { ApiError } from '../platform/errors/errors.ts';

// A tenant "in good standing": its subscription is not blocked (402), it has documents left in
// this month's quota (402), and it is not suspended (403). The one home of that rule, in its
// JavaScript form (the auth hook, the till login, partner changes to a merchant) and its SQL
// form (the credential lookup, which counts a request against the rate limit only for a tenant
// the hook will let through).

/** The account state the rule reads. */
export interface AccountStanding {
  subscription: 'active' | 'blocked';
  status: 'active' | 'suspended';
  monthlyQuota: number | null;
  documentsThisMonth: number;
}

/** The last month currentMonth answered, with its bounds (ms since the epoch, UTC). */
let lastMonth = { from: 0, until: 0, month: '' };

/**
 * The calendar month usage is counted in (UTC): `2025-03`. Every request asks twice; the answer
 * changes once a month, so the last one is kept with its bounds (formatting a date each time
 * showed in the sale path's profile).
 */
export function currentMonth(now: Date): string {
  const ms = now.getTime();
  if (ms >= lastMonth.from && ms < lastMonth.until) return lastMonth.month;
  const month = now.toISOString().slice(0, 7);
  lastMonth = {
    from: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
    until: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
    month,
  };
  return month;
}

/** The documents a tenant has issued in `month`, as SQL over a tenant id expression. */
export function documentsInMonth(tenantId: RawBuilder<unknown>, month: string | RawBuilder<string>): RawBuilder<number> {
  return sql<number>`coalesce((select u.documents from tenant_usage u where u.tenant_id = ${tenantId} and u.month = ${month}), 0)`;
}

/** The documents a tenant has issued this month (one query). */
export async function documentsThisMonth(db: Kysely<DB>, tenantId: number, now: Date): Promise<number> {
  const { rows } = await sql<{ documents: number }>`select ${documentsInMonth(sql`${tenantId}`, currentMonth(now))} as documents`.execute(
    db,
  );
  return Number(rows[0]?.documents ?? 0);
}

/**
 * The 402s: a blocked subscription or an exhausted monthly quota. A partner's changes to its
 * merchant are refused for these, but not for a suspension (that is the operator's decision
 * about the merchant's traffic, not about its provider).
 */
export function assertTenantBillable(account: Omit<AccountStanding, 'status'>): void {
  if (account.subscription === 'blocked') {
    throw new ApiError('subscription_blocked', "This merchant's subscription is blocked. Contact your provider to restore it.");
  }
  if (account.monthlyQuota !== null && account.documentsThisMonth >= account.monthlyQuota) {
    throw new ApiError('quota_exhausted', `This merchant has used its monthly quota of ${account.monthlyQuota} documents.`);
  }
}

/** 402/403 for a tenant's account state; on every surface of that tenant. */
export function assertTenantInGoodStanding(account: AccountStanding): void {
  assertTenantBillable(account);
  if (account.status === 'suspended') {
    throw new ApiError('tenant_suspended', 'This merchant account is suspended.');
  }
}

/**
 * Whether the merchant may file now, and if not why: the message the 402/403 would carry (the
 * console shows it, GET /api/v1/account/me).
 */
export function standingOf(account: AccountStanding): { canFile: boolean; reason: string | null } {
  try {
    assertTenantInGoodStanding(account);
    return { canFile: true, reason: null };
  } catch (err) {
    if (err instanceof ApiError) return { canFile: false, reason: err.message };
    throw err;
  }
}

/** The SQL columns the SQL form of the rule reads. */
interface StandingColumns {
  subscription: RawBuilder<unknown>;
  status: RawBuilder<unknown>;
  monthlyQuota: RawBuilder<unknown>;
  documents: RawBuilder<unknown>;
}

/** `assertTenantInGoodStanding` as an SQL predicate: true exactly when it would not throw. */
export function inGoodStandingSql(c: StandingColumns): RawBuilder<boolean> {
  return sql<boolean>`${c.subscription} = 'active' and ${c.status} = 'active'
  and (${c.monthlyQuota} is null or ${c.documents} < ${c.monthlyQuota})`;
}
