import { sql, type Kysely, type RawBuilder } from 'kysely';
import { countInWindow, windowCount, type WindowCount } from '../platform/db/rate-limit-window.ts';
import type { DB } from '../platform/db/schema.ts';
import type { OfflinePolicy, Plan } from '../platform/db/tables/foundation.ts';
import { prepared } from '../platform/db/prepared.ts';
import { currentMonth, documentsInMonth, inGoodStandingSql, type AccountStanding } from './standing.ts';

// Resolving a presented secret to who holds it: one indexed query per credential kind,
// joined with the account state the auth hook needs. With the PostgreSQL rate-limit store the
// same statement also counts the request against the holder's bucket, so authenticating and
// rate limiting a request cost one round trip. The same statement keeps the credential's
// `last_used_at` current, throttled: it writes only when the stored time is older than
// LAST_USED_THROTTLE_MS, so a busy credential costs one row write a minute, not one a request.
// This file holds what every lookup shares (the statement's frame, the count, the tenant's
// columns); tenant-token-lookup.ts and key-lookup.ts hold the lookups.

/** A tenant with its account state (subscription, status, quota and this month's documents). */
export interface TenantAccount extends AccountStanding {
  id: number;
  partnerId: number | null;
  name: string;
  tpin: string;
  plan: Plan | null;
  rateLimitPerMinute: number | null;
  offlinePolicy: OfflinePolicy;
  /** The tax authority it files with (`tenants.authority`): its documents are validated and shown by its profile. */
  authority: string;
  /** IANA zone of its days and of its tills' clocks (`tenants.timezone`). */
  timezone: string;
}

/**
 * Count the request against the holder's rate-limit bucket in the lookup statement. The bucket
 * key is `${before}<tenant or partner id>${after}`. Nothing is counted for a credential that
 * is unknown, revoked or expired, or whose account is blocked, suspended or out of quota (they
 * are refused before the rate limit).
 */
export interface BucketCount {
  before: string;
  after: string;
  windowMs: number;
}

export type Counted<T> = T & { count: WindowCount | undefined };

export interface CountColumns {
  rl_points: number | null;
  rl_expire: number | null;
  rl_now: number;
}

/** `last_used_at` is rewritten when it is older than this (or unset): at most once a minute per credential. */
export const LAST_USED_THROTTLE_MS = 60_000;

/** Which credential table the lookup touches; `found.id` is the credential's id. */
type CredentialTable = 'tenant_tokens' | 'partner_keys' | 'api_keys';

/**
 * CTE `touched`: stamps the found credential's `last_used_at` with `now` unless it was stamped
 * within the throttle. Not referenced by the outer select, so PostgreSQL runs it after the
 * lookup (and after the rate-limit count, keeping one lock order); a credential stamped
 * recently matches no row, writes nothing and takes no lock.
 */
export function touchLastUsed(table: CredentialTable, now: Date): RawBuilder<unknown> {
  const staleBefore = new Date(now.getTime() - LAST_USED_THROTTLE_MS);
  return sql`touched as (
      update ${sql.table(table)} c set last_used_at = ${now}::timestamptz
      from found
      where c.id = found.id and (c.last_used_at is null or c.last_used_at <= ${staleBefore}::timestamptz)
    )`;
}

/** The lookup `found`, the `last_used_at` stamp, then (when counting) the holder's bucket count joined to it. */
export async function lookUp<Row>(
  db: Kysely<DB>,
  found: RawBuilder<unknown>,
  touched: RawBuilder<unknown>,
  bucket: BucketCount | undefined,
  key: RawBuilder<unknown>,
  inGoodStanding: RawBuilder<unknown>,
): Promise<(Row & Partial<CountColumns>) | undefined> {
  return (await lookUpSql<Row>(found, touched, bucket, key, inGoodStanding).execute(db)).rows[0];
}

/** lookUp's statement. */
export function lookUpSql<Row>(
  found: RawBuilder<unknown>,
  touched: RawBuilder<unknown>,
  bucket: BucketCount | undefined,
  key: RawBuilder<unknown>,
  inGoodStanding: RawBuilder<unknown>,
): RawBuilder<Row & Partial<CountColumns>> {
  if (!bucket) return sql<Row & Partial<CountColumns>>`${prepared}with found as (${found}), ${touched} select * from found`;
  const bucketKey = sql`${bucket.before}::text || ${key} || ${bucket.after}::text`;
  return sql<Row & CountColumns>`${prepared}
    with found as (${found}), ${countInWindow(bucketKey, bucket.windowMs, { relation: sql`found`, where: inGoodStanding })}, ${touched}
    select found.*, counted.points as rl_points, counted.expire as rl_expire, clock.ms as rl_now
    from found cross join clock left join counted on true`;
}

export function countOf(row: Partial<CountColumns>): WindowCount | undefined {
  if (row.rl_points === null || row.rl_points === undefined) return undefined;
  return windowCount({ points: row.rl_points, expire: row.rl_expire!, now: row.rl_now! });
}

export function tenantColumns(month: string | RawBuilder<string>): RawBuilder<unknown> {
  return sql`t.id as t_id, t.partner_id as t_partner_id, t.name as t_name, t.tpin as t_tpin, t.plan as t_plan,
    t.subscription as t_subscription, t.status as t_status, t.monthly_quota as t_monthly_quota,
    t.rate_limit_per_minute as t_rate_limit_per_minute, t.offline_policy as t_offline_policy, t.authority as t_authority, t.timezone as t_timezone,
    ${documentsInMonth(sql`t.id`, month)} as t_documents`;
}

/** The account checks of the auth hook (402/403), over a `found` row with tenant columns. */
export const TENANT_IN_GOOD_STANDING = inGoodStandingSql({
  subscription: sql`found.t_subscription`,
  status: sql`found.t_status`,
  monthlyQuota: sql`found.t_monthly_quota`,
  documents: sql`found.t_documents`,
});

export interface TenantRowColumns {
  t_id: number;
  t_partner_id: number | null;
  t_name: string;
  t_tpin: string;
  t_plan: Plan | null;
  t_subscription: 'active' | 'blocked';
  t_status: 'active' | 'suspended';
  t_monthly_quota: number | null;
  t_rate_limit_per_minute: number | null;
  t_offline_policy: OfflinePolicy;
  t_authority: string;
  t_timezone: string;
  t_documents: number;
}

export function toTenant(row: TenantRowColumns): TenantAccount {
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
    offlinePolicy: row.t_offline_policy,
    authority: row.t_authority,
    timezone: row.t_timezone,
    documentsThisMonth: Number(row.t_documents),
  };
}

/** A partner's merchant with its account standing, as a tenant token would bring it; undefined for another partner's. */
export async function findTenantAccountOfPartner(
  db: Kysely<DB>,
  partnerId: number,
  tenantId: number,
  now: Date,
): Promise<TenantAccount | undefined> {
  const row = (
    await sql<TenantRowColumns>`select ${tenantColumns(currentMonth(now))} from tenants t where t.id = ${tenantId} and t.partner_id = ${partnerId}`.execute(
      db,
    )
  ).rows[0];
  return row && toTenant(row);
}
