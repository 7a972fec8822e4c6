import { sql, type Kysely, type RawBuilder } from 'kysely';
import { countInWindow, countManyInWindow, windowCount, type WindowCount } from '../platform/db/rate-limit-window.ts';
import type { DB } from '../platform/db/schema.ts';
import type { OfflinePolicy, Plan } from '../platform/db/tables/foundation.ts';
import { hashSecret, safeEqual } from './secret-format.ts';
import { prepared } from '../platform/db/prepared.ts';
import { batchOrEach, GroupCommit, KeyedGroupCommits } from '../platform/db/group-commit.ts';
import { currentMonth, documentsInMonth, inGoodStandingSql, type AccountStanding } from './standing.ts';

// Resolving a presented secret to who holds it: one indexed query per credential kind,
// joined with the account state the auth hook needs. With the PostgreSQL rate-limit store the
// same statement also counts the request against the holder's bucket, so authenticating and
// rate limiting a request cost one round trip; tenant-token lookups arriving together share one
// statement (TenantTokenLookups, a context member: one runs per request on the sale path). The
// same statement keeps the credential's `last_used_at` current, throttled: it writes only when
// the stored time is older than LAST_USED_THROTTLE_MS, so a busy credential costs one row write
// a minute, not one a request.

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

export interface ResolvedTenantToken {
  tokenId: number;
  abilities: string[];
  /** Minted in training mode: every document it issues is a training document. */
  training: boolean;
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
  /** Minted in training mode: every document it files is a training document. */
  training: boolean;
  /** The till login whose getactive minted it (its documents name that login); null for a key the merchant or its partner minted. */
  tillLoginId: number | null;
  tenant: TenantAccount;
}

/** The initialised branch a fiscalisation key files through on /zm/api (named by X-SdcId). */
export interface CompatDevice {
  id: number;
  branch: string;
  sdcId: string;
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

type Counted<T> = T & { count: WindowCount | undefined };

interface CountColumns {
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
function touchLastUsed(table: CredentialTable, now: Date): RawBuilder<unknown> {
  const staleBefore = new Date(now.getTime() - LAST_USED_THROTTLE_MS);
  return sql`touched as (
      update ${sql.table(table)} c set last_used_at = ${now}::timestamptz
      from found
      where c.id = found.id and (c.last_used_at is null or c.last_used_at <= ${staleBefore}::timestamptz)
    )`;
}

/** The lookup `found`, the `last_used_at` stamp, then (when counting) the holder's bucket count joined to it. */
async function lookUp<Row>(
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
function lookUpSql<Row>(
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

function countOf(row: Partial<CountColumns>): WindowCount | undefined {
  if (row.rl_points === null || row.rl_points === undefined) return undefined;
  return windowCount({ points: row.rl_points, expire: row.rl_expire!, now: row.rl_now! });
}

function tenantColumns(month: string | RawBuilder<string>): RawBuilder<unknown> {
  return sql`t.id as t_id, t.partner_id as t_partner_id, t.name as t_name, t.tpin as t_tpin, t.plan as t_plan,
    t.subscription as t_subscription, t.status as t_status, t.monthly_quota as t_monthly_quota,
    t.rate_limit_per_minute as t_rate_limit_per_minute, t.offline_policy as t_offline_policy, t.authority as t_authority, t.timezone as t_timezone,
    ${documentsInMonth(sql`t.id`, month)} as t_documents`;
}

/** The account checks of the auth hook (402/403), over a `found` row with tenant columns. */
const TENANT_IN_GOOD_STANDING = inGoodStandingSql({
  subscription: sql`found.t_subscription`,
  status: sql`found.t_status`,
  monthlyQuota: sql`found.t_monthly_quota`,
  documents: sql`found.t_documents`,
});

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
  t_offline_policy: OfflinePolicy;
  t_authority: string;
  t_timezone: string;
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
    offlinePolicy: row.t_offline_policy,
    authority: row.t_authority,
    timezone: row.t_timezone,
    documentsThisMonth: Number(row.t_documents),
  };
}

/** A partner's merchant with its account standing, as a tenant token would bring it; undefined for another partner's. */
export async function findTenantAccountOfPartner(db: Kysely<DB>, partnerId: number, tenantId: number, now: Date): Promise<TenantAccount | undefined> {
  const row = (await sql<TenantRowColumns>`select ${tenantColumns(currentMonth(now))} from tenants t where t.id = ${tenantId} and t.partner_id = ${partnerId}`.execute(db)).rows[0];
  return row && toTenant(row);
}

/**
 * The tenant token `secret`'s holder, in one statement of its own; with `bucket`, the request is
 * counted in the same statement. The auth hook goes through TenantTokenLookups instead, so that
 * counted lookups arriving together share one statement.
 */
export async function findTenantToken(db: Kysely<DB>, secret: string, now: Date, bucket?: BucketCount): Promise<Counted<ResolvedTenantToken> | undefined> {
  return findOneTenantToken(db, { hash: hashSecret(secret), now }, bucket);
}

interface TokenLookup {
  /** hashSecret of the presented token. */
  hash: string;
  now: Date;
}

type TenantTokenRow = TenantRowColumns & { id: number; abilities: string[]; token_hash: string; training: boolean };

/** The token's own columns of a tenant-token lookup (both forms; beside them, tenantColumns). */
const TENANT_TOKEN_COLUMNS = sql.raw('k.id, k.abilities, k.token_hash, k.training');

/** Which token a tenant-token lookup finds (both forms): the live one with hash `hash`. */
function liveTokenWithHash(hash: string | RawBuilder<string>): RawBuilder<boolean> {
  return sql<boolean>`k.token_hash = ${hash} and k.revoked_at is null`;
}

/** The token's tenant (both forms). */
const TOKEN_TENANT_JOIN = sql`join tenants t on t.id = k.tenant_id`;

function toResolvedToken(row: TenantTokenRow & Partial<CountColumns>, hash: string): Counted<ResolvedTenantToken> | undefined {
  if (!safeEqual(row.token_hash, hash)) return undefined;
  return { tokenId: row.id, abilities: row.abilities, training: row.training, tenant: toTenant(row), count: countOf(row) };
}

/** One tenant-token lookup, one statement (findTenantTokens is its many-row twin). */
export async function findOneTenantToken(db: Kysely<DB>, lookup: TokenLookup, bucket: BucketCount | undefined): Promise<Counted<ResolvedTenantToken> | undefined> {
  const row = (await findOneTenantTokenSql(lookup, bucket).execute(db)).rows[0];
  return row && toResolvedToken(row, lookup.hash);
}

/** findOneTenantToken's statement (its text: docs/sql/, `npm run sql`). */
export function findOneTenantTokenSql({ hash, now }: TokenLookup, bucket: BucketCount | undefined) {
  const found = sql`select ${TENANT_TOKEN_COLUMNS}, ${tenantColumns(currentMonth(now))}
    from tenant_tokens k ${TOKEN_TENANT_JOIN}
    where ${liveTokenWithHash(hash)}`;
  return lookUpSql<TenantTokenRow>(found, touchLastUsed('tenant_tokens', now), bucket, sql`found.t_id`, TENANT_IN_GOOD_STANDING);
}

/** At most this many lookups in one statement. */
const MAX_LOOKUPS_PER_STATEMENT = 100;

/**
 * The context's group commits of counted tenant-token lookups, one per rate-limit bucket (a
 * member of the application context: built with it, closed with it). Lookups that arrive while
 * one is in flight go together, as one statement (the requests' lookups, one count per bucket
 * and the `last_used_at` stamps), like the sales they usually precede. Only with the table
 * store: with the memory store (embedded database) or Redis, the count is not in the statement
 * (no `bucket`) and each lookup runs on its own.
 */
export class TenantTokenLookups {
  private readonly batchers = new KeyedGroupCommits<TokenLookup, Counted<ResolvedTenantToken> | undefined>();

  constructor(private readonly db: Kysely<DB>) {}

  find(secret: string, now: Date, bucket: BucketCount | undefined): Promise<Counted<ResolvedTenantToken> | undefined> {
    const lookup = { hash: hashSecret(secret), now };
    if (!bucket) return findOneTenantToken(this.db, lookup, undefined);
    const batcher = this.batchers.of(
      JSON.stringify([bucket.before, bucket.after, bucket.windowMs]),
      () =>
        new GroupCommit<TokenLookup, Counted<ResolvedTenantToken> | undefined>(
          (items) => batchOrEach(items, (many) => findTenantTokens(this.db, many, bucket), (one) => findOneTenantToken(this.db, one, bucket)),
          { maxBatch: MAX_LOOKUPS_PER_STATEMENT },
        ),
    );
    return batcher.submit(lookup);
  }

  close(): Promise<void> {
    return this.batchers.close();
  }
}

/**
 * Many tenant tokens in one statement, each request counted against its holder's bucket: the
 * statement adds each bucket's requests at once, and each request gets the count it would have
 * had alone, in arrival order (the bucket's count less the requests after it in this statement).
 */
export async function findTenantTokens(db: Kysely<DB>, items: TokenLookup[], bucket: BucketCount): Promise<Array<Counted<ResolvedTenantToken> | undefined>> {
  const result = await findTenantTokensSql(items, bucket).execute(db);
  const rows = [...result.rows].sort((a, b) => Number(a.n) - Number(b.n));
  const inStatement = new Map<string, number>();
  for (const row of rows) if (row.rl_counted) inStatement.set(row.rl_key, (inStatement.get(row.rl_key) ?? 0) + 1);
  const byPosition = new Map<number, TenantTokenRow & Partial<CountColumns>>();
  for (const row of rows) {
    if (row.rl_counted) {
      const after = inStatement.get(row.rl_key)! - 1;
      inStatement.set(row.rl_key, after);
      row.rl_points = Number(row.rl_points) - after;
    }
    byPosition.set(Number(row.n), row);
  }
  return items.map((item, i) => {
    const row = byPosition.get(i + 1);
    return row && toResolvedToken(row, item.hash);
  });
}

/** findTenantTokens' statement (its text: docs/sql/, `npm run sql`). */
export function findTenantTokensSql(items: TokenLookup[], bucket: BucketCount) {
  const bucketKey = sql`${bucket.before}::text || found.t_id || ${bucket.after}::text`;
  return sql<TenantTokenRow & CountColumns & { n: number; rl_key: string; rl_counted: boolean }>`${prepared}
    with wanted as (select * from unnest(${items.map((i) => i.hash)}::text[], ${items.map((i) => currentMonth(i.now))}::text[]) with ordinality as w(hash, month, n)),
    found as (
      select w.n, ${TENANT_TOKEN_COLUMNS}, ${tenantColumns(sql<string>`w.month`)}
      from wanted w join tenant_tokens k on ${liveTokenWithHash(sql<string>`w.hash`)} ${TOKEN_TENANT_JOIN}
    ),
    ${countManyInWindow(sql`select ${bucketKey} as key, count(*)::int as points from found where ${TENANT_IN_GOOD_STANDING} group by 1`, bucket.windowMs)},
    ${touchLastUsed('tenant_tokens', items[0]!.now)}
    select found.*, ${bucketKey} as rl_key, counted.key is not null as rl_counted, counted.points as rl_points, counted.expire as rl_expire, clock.ms as rl_now
    from found cross join clock left join counted on counted.key = ${bucketKey} and ${TENANT_IN_GOOD_STANDING}`;
}

export async function findPartnerKey(db: Kysely<DB>, secret: string, now: Date, bucket?: BucketCount): Promise<Counted<ResolvedPartnerKey> | undefined> {
  const hash = hashSecret(secret);
  const found = sql`select k.id, k.mode, k.scopes, k.expires_at, k.secret_hash, p.id as partner_id, p.name as partner_name, p.status as partner_status,
      (k.expires_at is null or k.expires_at > now()) as live
    from partner_keys k join partners p on p.id = k.partner_id
    where k.secret_hash = ${hash} and k.revoked_at is null`;
  const row = await lookUp<{
    id: number;
    mode: 'live' | 'test';
    scopes: string[];
    expires_at: Date | null;
    secret_hash: string;
    partner_id: number;
    partner_name: string;
    partner_status: 'active' | 'suspended';
  }>(db, found, touchLastUsed('partner_keys', now), bucket, sql`found.partner_id`, sql`found.live and found.partner_status = 'active'`);
  if (!row || !safeEqual(row.secret_hash, hash)) return undefined;
  return {
    keyId: row.id,
    mode: row.mode,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    partner: { id: row.partner_id, name: row.partner_name, status: row.partner_status },
    count: countOf(row),
  };
}

export async function findFiscalisationKey(db: Kysely<DB>, secret: string, now: Date, bucket?: BucketCount): Promise<Counted<ResolvedFiscalisationKey> | undefined> {
  const hash = hashSecret(secret);
  const row = (await findFiscalisationKeySql(hash, now, bucket).execute(db)).rows[0];
  if (!row || !safeEqual(row.key_hash, hash)) return undefined;
  return { keyId: row.id, deviceId: row.device_id, dialect: row.dialect, training: row.training, tillLoginId: row.till_login_id, tenant: toTenant(row), count: countOf(row) };
}

/** findFiscalisationKey's statement, `hash` the presented key's (its text: docs/sql/, `npm run sql`). */
export function findFiscalisationKeySql(hash: string, now: Date, bucket: BucketCount | undefined) {
  const found = sql`select k.id, k.device_id, k.dialect, k.key_hash, k.training, k.till_login_id, ${tenantColumns(currentMonth(now))}
    from api_keys k join tenants t on t.id = k.tenant_id
    where k.key_hash = ${hash} and k.revoked_at is null`;
  return lookUpSql<TenantRowColumns & { id: number; device_id: number | null; dialect: 'bare' | 'wrapped'; key_hash: string; training: boolean; till_login_id: number | null }>(
    found,
    touchLastUsed('api_keys', now),
    bucket,
    sql`found.t_id`,
    TENANT_IN_GOOD_STANDING,
  );
}

/** The tenant's initialised branch with this SDC id, if the key may file through it (a branch key only its own). */
export async function findCompatDevice(db: Kysely<DB>, key: ResolvedFiscalisationKey, sdcId: string): Promise<CompatDevice | undefined> {
  let query = db
    .selectFrom('devices')
    .select(['id', 'branch', 'sdc_id'])
    .where('tenant_id', '=', key.tenant.id)
    .where('sdc_id', '=', sdcId)
    .where('initialized', '=', true);
  if (key.deviceId !== null) query = query.where('id', '=', key.deviceId);
  const row = await query.executeTakeFirst();
  return row ? { id: row.id, branch: row.branch, sdcId: row.sdc_id! } : undefined;
}

/**
 * The SDC ids a key may file through (its initialised branches; a branch key only its own), in
 * branch order, at most `limit` of them; `more` when there are others. For a refused X-SdcId:
 * only the key's own merchant's devices are read.
 */
export async function compatSdcIdsOf(db: Kysely<DB>, key: ResolvedFiscalisationKey, limit: number): Promise<{ sdcIds: string[]; more: boolean }> {
  let query = db
    .selectFrom('devices')
    .select('sdc_id')
    .where('tenant_id', '=', key.tenant.id)
    .where('initialized', '=', true)
    .where('sdc_id', 'is not', null);
  if (key.deviceId !== null) query = query.where('id', '=', key.deviceId);
  const rows = await query.orderBy('branch').limit(limit + 1).execute();
  const sdcIds = rows.map((r) => r.sdc_id!);
  return { sdcIds: sdcIds.slice(0, limit), more: sdcIds.length > limit };
}
