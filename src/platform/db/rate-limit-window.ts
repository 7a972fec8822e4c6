// Fixed rate-limit windows counted in the `rate_limits` table (the PostgreSQL store): one row per
// bucket holding the requests counted so far and when its window ends (ms since the epoch, by
// the database's clock, so every process shares one clock). The same row format as
// rate-limiter-flexible's PostgreSQL store.
import { sql, type RawBuilder } from 'kysely';

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  points: number;
  /** When the window ends and when it was counted, in ms since the epoch (database clock). */
  expireMs: number;
  nowMs: number;
}

/**
 * CTEs `clock` and `counted`: counts one request against the bucket `key` in a window of
 * `windowMs`. With `source`, `key` is an expression over its relation's row (e.g. a looked-up
 * tenant id), counted only when that row exists and passes `where`. Select `counted.points`,
 * `counted.expire` and `clock.ms` to make the decision.
 */
export function countInWindow(
  key: RawBuilder<unknown>,
  windowMs: number,
  source?: { relation: RawBuilder<unknown>; where: RawBuilder<unknown> },
): RawBuilder<unknown> {
  const asked = source
    ? sql`select ${key} as key, 1 as points from ${source.relation} where ${source.where}`
    : sql`select ${key} as key, 1 as points`;
  return countManyInWindow(asked, windowMs);
}

/**
 * CTEs `clock` and `counted`: counts `asked` (rows of `key`, `points`: requests per bucket, one
 * row per bucket) in windows of `windowMs`, one upsert per bucket, in key order (so concurrent
 * statements lock the rows in one order). `counted` answers each bucket's `key`, `points` (this
 * window's requests, those counted here included) and `expire`.
 */
export function countManyInWindow(asked: RawBuilder<unknown>, windowMs: number): RawBuilder<unknown> {
  return sql`clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms),
    counted as (
      insert into rate_limits as r (key, points, expire)
      select asked.key, asked.points, clock.ms + ${windowMs}::bigint from (${asked}) asked cross join clock
      order by asked.key
      on conflict (key) do update set
        points = case when r.expire <= excluded.expire - ${windowMs}::bigint then excluded.points else r.points + excluded.points end,
        expire = case when r.expire <= excluded.expire - ${windowMs}::bigint then excluded.expire else r.expire end
      returning key, points, expire
    )`;
}

export function windowCount(row: { points: number | string; expire: number | string; now: number | string }): WindowCount {
  return { points: Number(row.points), expireMs: Number(row.expire), nowMs: Number(row.now) };
}
