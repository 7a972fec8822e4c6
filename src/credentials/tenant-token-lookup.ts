// The tenant-token lookups (credentials/lookup.ts: what every lookup shares). Tenant-token
// lookups arriving together share one statement (TenantTokenLookups, a context member: one runs
// per request on the sale path).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { countManyInWindow } from '../platform/db/rate-limit-window.ts';
import type { DB } from '../platform/db/schema.ts';
import { prepared } from '../platform/db/prepared.ts';
import { batchOrEach, GroupCommit, KeyedGroupCommits } from '../platform/db/group-commit.ts';
import { hashSecret, safeEqual } from './secret-format.ts';
import { currentMonth } from './standing.ts';
import {
  countOf,
  lookUpSql,
  tenantColumns,
  TENANT_IN_GOOD_STANDING,
  toTenant,
  touchLastUsed,
  type BucketCount,
  type CountColumns,
  type Counted,
  type TenantAccount,
  type TenantRowColumns,
} from './lookup.ts';

export interface ResolvedTenantToken {
  tokenId: number;
  abilities: string[];
  /** Minted in training mode: every document it issues is a training document. */
  training: boolean;
  tenant: TenantAccount;
}

/**
 * The tenant token `secret`'s holder, in one statement of its own; with `bucket`, the request is
 * counted in the same statement. The auth hook goes through TenantTokenLookups instead, so that
 * counted lookups arriving together share one statement.
 */
export async function findTenantToken(
  db: Kysely<DB>,
  secret: string,
  now: Date,
  bucket?: BucketCount,
): Promise<Counted<ResolvedTenantToken> | undefined> {
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
export async function findOneTenantToken(
  db: Kysely<DB>,
  lookup: TokenLookup,
  bucket: BucketCount | undefined,
): Promise<Counted<ResolvedTenantToken> | undefined> {
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
          (items) =>
            batchOrEach(
              items,
              (many) => findTenantTokens(this.db, many, bucket),
              (one) => findOneTenantToken(this.db, one, bucket),
            ),
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
export async function findTenantTokens(
  db: Kysely<DB>,
  items: TokenLookup[],
  bucket: BucketCount,
): Promise<Array<Counted<ResolvedTenantToken> | undefined>> {
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
