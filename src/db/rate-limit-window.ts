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
 * CTEs `clock` and `counted`: counts one request against the bucket `key` (an expression over
 * `source`'s row, e.g. a looked-up tenant id; no row, nothing counted) in a window of
 * `windowMs`. Select `counted.points`, `counted.expire` and `clock.ms` to make the decision.
 */
export function countInWindow(key: RawBuilder<unknown>, windowMs: number, source: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  return sql`clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms),
    counted as (
      insert into rate_limits as r (key, points, expire)
      select ${key}, 1, clock.ms + ${windowMs}::bigint from clock ${source}
      on conflict (key) do update set
        points = case when r.expire <= excluded.expire - ${windowMs}::bigint then 1 else r.points + 1 end,
        expire = case when r.expire <= excluded.expire - ${windowMs}::bigint then excluded.expire else r.expire end
      returning points, expire
    )`;
}

export function windowCount(row: { points: number | string; expire: number | string; now: number | string }): WindowCount {
  return { points: Number(row.points), expireMs: Number(row.expire), nowMs: Number(row.now) };
}
