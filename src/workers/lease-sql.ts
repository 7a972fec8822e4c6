// The claim a retry round makes on waiting rows: the due ones, oldest first, leased to this
// process. SKIP LOCKED plus the lease: two processes never send one row at the same time.
import { sql, type RawBuilder } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Tables whose rows wait for a VSDC with the retry columns (`next_attempt_at`, `lease_until`). */
export type LeasedTable = { [T in keyof DB]: DB[T] extends { id: unknown; next_attempt_at: unknown; lease_until: unknown } ? T : never }[keyof DB];

/**
 * Two CTEs, `due` and `claimed`: up to `limit` rows of `table` that match `waiting`, whose next
 * attempt is due and whose lease is free, now leased for `leaseSeconds`. `claimed` holds the
 * leased rows in full; the caller's query selects from it.
 */
export function leaseDueRows(table: LeasedTable, waiting: RawBuilder<boolean>, leaseSeconds: number, limit: number): RawBuilder<unknown> {
  const t = sql.table(table);
  return sql`
    with due as (
      select id from ${t}
      where (${waiting})
        and next_attempt_at <= now() and (lease_until is null or lease_until < now())
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ),
    claimed as (
      update ${t} set lease_until = now() + make_interval(secs => ${leaseSeconds})
      from due where ${t}.id = due.id
      returning ${t}.*
    )`;
}
