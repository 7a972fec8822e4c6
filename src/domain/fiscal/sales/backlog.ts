// The fleet's backlog: which branches have pending documents, walked without reading every
// document (the filer's claim, the alarms, the fiscal gauges and the console's backlog views).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';

/**
 * `backlog(device_id)`, a recursive CTE: every branch with a pending document, one row each (and a
 * final null), by a loose index scan of `sales_pending` that jumps from each branch to the next,
 * so a national backlog costs a row per branch, not per document.
 */
export const BRANCHES_WITH_BACKLOG_CTE = sql`backlog(device_id) as (
      (select device_id from sales where status = 'pending' order by device_id limit 1)
      union all
      select (select s.device_id from sales s where s.status = 'pending' and s.device_id > b.device_id order by s.device_id limit 1)
      from backlog b where b.device_id is not null
    )`;

/** How many pending documents a backlog walk reads per branch it needs, and how much more each time it falls short. */
const WALK_FACTOR = 4;

/**
 * The devices of the first `wanted` branches with a backlog (or more), by their oldest pending
 * document (two stored at the same time: the one stored first), or every one (`all`); `inScope`,
 * a condition on the walked documents `w` (device_id, tenant_id), narrows the branches.
 *
 * It walks the pending documents oldest first (`sales_pending_age`) and keeps each branch where it
 * first meets it — at its oldest document — until it has met `wanted`, each read going on where the
 * last stopped and reading four times more: a page or a set of series reads the oldest documents of
 * the backlog, not all of it.
 */
export async function branchesByOldestBacklog(
  db: Kysely<DB>,
  wanted: number,
  inScope?: RawBuilder<unknown>,
): Promise<{ devices: number[]; all: boolean }> {
  const met = new Set<number>();
  let after: [string, number] | undefined;
  for (let read = Math.max(100, wanted * WALK_FACTOR); ; read *= WALK_FACTOR) {
    const row = (await oldestBacklogReadSql(read, after, inScope).execute(db)).rows[0];
    for (const device of row?.devices ?? []) met.add(device);
    const all = (row?.read ?? 0) < read;
    if (all || met.size >= wanted) return { devices: [...met], all };
    after = row!.last!;
  }
}

/**
 * One read of branchesByOldestBacklog: the next `read` pending documents after `after` (from the
 * oldest when undefined), how many there were, the last one, and the devices met in them (in
 * `inScope`) by their first document. Its text: docs/sql/, `npm run sql`.
 */
export function oldestBacklogReadSql(read: number, after: [string, number] | undefined, inScope: RawBuilder<unknown> | undefined) {
  // The limit is a literal so that a generic plan sees how few rows are wanted.
  return sql<{ read: number; last: [string, number] | null; devices: number[] }>`
      with walk as materialized (
        select s.device_id, s.tenant_id, s.created_at, s.id, row_number() over (order by s.created_at, s.id) as position from sales s
        where s.status = 'pending'${after === undefined ? sql`` : sql` and (s.created_at, s.id) > (${after[0]}::timestamptz, ${after[1]}::bigint)`}
        order by s.created_at, s.id limit ${sql.lit(read)})
      select (select count(*) from walk)::int as read,
        (select json_build_array(w.created_at::text, w.id) from walk w order by w.position desc limit 1) as last,
        coalesce((select json_agg(m.device_id order by m.first)
                  from (select w.device_id, min(w.position) as first from walk w ${inScope === undefined ? sql`` : sql`where ${inScope}`} group by w.device_id) m), '[]') as devices`;
}
