// Claiming rows: one vocabulary for every table whose rows wait for work and are taken by one
// process at a time (a VSDC call, a branch's filing turn, a webhook attempt, a merchant's mail, a
// device's initialisation, the catalogue sync). Rows are claimed in the database, so any number of
// processes share the work:
//
//   due       its next attempt time has come (`due` <= now);
//   free      nobody holds it: no lease, or the lease has run out (`until` null or <= now);
//   claim     lease free (and due) rows until now + the lease length, in one statement,
//             skipping rows another claim has locked (FOR UPDATE SKIP LOCKED);
//   holder    where a table records who holds a lease, only the holder renews, records or
//             releases it;
//   release   clear the lease (and the holder): the row is free again.
//
// The tables name these columns differently (they predate this module); LEASES maps them, and
// the stores say "free", "due" and "release" through the functions here. "Now" is the
// database's now(), except where the caller passes the application clock's time (webhook
// deliveries and mail, whose tests drive a clock). Lease lengths and delays are in milliseconds.
import { sql, type RawBuilder, type Updateable, type UpdateObject } from 'kysely';
import type { DB } from '../db/schema.ts';

type Column<T extends keyof DB> = keyof DB[T] & string;

interface LeaseColumns<T extends keyof DB> {
  /** The row's key. */
  key: Column<T>;
  /** When the lease runs out; null when the row is free. */
  until: Column<T>;
  /** Who holds the lease, where the table records it. */
  holder?: Column<T>;
  /** When the row is next due, where rows wait for a time. */
  due?: Column<T>;
}

/** Every leased table with the names of its lease columns. */
const LEASES = {
  customers: { key: 'id', until: 'lease_until', due: 'next_attempt_at' },
  items: { key: 'id', until: 'lease_until', due: 'next_attempt_at' },
  item_compositions: { key: 'id', until: 'lease_until', due: 'next_attempt_at' },
  branch_users: { key: 'id', until: 'lease_until', due: 'next_attempt_at' },
  import_items: { key: 'id', until: 'lease_until', due: 'next_attempt_at' },
  purchases: { key: 'id', until: 'lease_until', due: 'next_attempt_at' },
  feed_pulls: { key: 'id', until: 'lease_until', due: 'next_pull_at' },
  filing_queues: { key: 'device_id', until: 'lease_until', holder: 'lease_owner', due: 'next_attempt_at' },
  webhook_deliveries: { key: 'id', until: 'locked_until', holder: 'lease_token', due: 'next_attempt_at' },
  devices: { key: 'id', until: 'init_claimed_until' },
  catalogue_sync: { key: 'id', until: 'claimed_until' },
  reconciliation_runs: { key: 'id', until: 'lease_until', holder: 'lease_owner', due: 'next_attempt_at' },
  stock_branches: { key: 'device_id', until: 'lease_until', holder: 'lease_owner', due: 'next_attempt_at' },
  mail_outbox: { key: 'id', until: 'lease_until', holder: 'lease_owner', due: 'next_attempt_at' },
} as const satisfies { [T in keyof DB]?: LeaseColumns<T> };

type LeasedTable = keyof typeof LEASES;
/** Leased tables whose rows wait for a time (`due`). */
type DueTable = { [T in LeasedTable]: (typeof LEASES)[T] extends { due: string } ? T : never }[LeasedTable];
/** Leased tables that record the lease's holder. */
type HeldTable = { [T in LeasedTable]: (typeof LEASES)[T] extends { holder: string } ? T : never }[LeasedTable];

function ref(alias: string | undefined, column: string): RawBuilder<unknown> {
  return sql.ref(alias ? `${alias}.${column}` : column);
}

function nowSql(now: Date | undefined): RawBuilder<Date> {
  return now ? sql<Date>`${now}::timestamptz` : sql<Date>`now()`;
}

/**
 * The time `ms` from now: a lease's end, or a next attempt's time. `ms` may be an SQL expression
 * (a column of a statement's input, each row its own length; double precision).
 */
export function fromNow(ms: number | RawBuilder<number>, now?: Date): RawBuilder<Date> {
  if (typeof ms !== 'number') return sql<Date>`now() + make_interval(secs => ${ms} / 1000)`;
  return now ? sql<Date>`${new Date(now.getTime() + ms)}::timestamptz` : sql<Date>`now() + make_interval(secs => ${ms / 1000})`;
}

/** Nobody holds the row: no lease, or its lease has run out. `alias`: the table's name in the query. */
export function isFree(table: LeasedTable, alias?: string, now?: Date): RawBuilder<boolean> {
  const until = ref(alias, LEASES[table].until);
  return sql<boolean>`(${until} is null or ${until} <= ${nowSql(now)})`;
}

/**
 * Free, or held by `holder` already: a holder that knows it is not working on the row (a lease
 * left by its own step that failed, e.g. when the database went away before the release) may
 * take it again at once instead of waiting for the lease to run out.
 */
export function isFreeOrHeldBy(table: HeldTable, holder: string, alias?: string, now?: Date): RawBuilder<boolean> {
  return sql<boolean>`(${isFree(table, alias, now)} or ${heldBy(table, holder, alias)})`;
}

/** Someone holds the row: its lease has not run out. */
export function isHeld(table: LeasedTable, alias?: string, now?: Date): RawBuilder<boolean> {
  return sql<boolean>`(${ref(alias, LEASES[table].until)} > ${nowSql(now)})`;
}

/** The row's next attempt time has come. */
export function isDue(table: DueTable, alias?: string, now?: Date): RawBuilder<boolean> {
  return sql<boolean>`(${ref(alias, LEASES[table].due)} <= ${nowSql(now)})`;
}

/** `holder` holds the row's lease (`holder`: a value, or an SQL expression such as a statement's input column). */
export function heldBy(table: HeldTable, holder: string | RawBuilder<string>, alias?: string): RawBuilder<boolean> {
  return sql<boolean>`(${ref(alias, LEASES[table].holder)} = ${holder})`;
}

/**
 * A lease taken or renewed: until `ms` from now (`fromNow`; `now`: the application clock's), by
 * `holder` where the table records one. Without a holder it is a renewal: the holder stays.
 */
type Lease<T extends LeasedTable> = { ms: number; now?: Date } & (T extends HeldTable
  ? { holder?: string | RawBuilder<string> }
  : { holder?: never });

function leaseParts(table: LeasedTable, lease: { ms: number; now?: Date; holder?: string | RawBuilder<string> | undefined }) {
  const { until, holder } = LEASES[table] as LeaseColumns<LeasedTable>;
  const held = lease.holder !== undefined && holder ? [{ column: holder, value: lease.holder }] : [];
  return [...held, { column: until, value: fromNow(lease.ms, lease.now) }];
}

/** The column values that lease a row (for `.set()`, or an insert's values): `[holder, ]until`. */
export function leased<T extends LeasedTable>(table: T, lease: Lease<T>): UpdateObject<DB, T> {
  return Object.fromEntries(leaseParts(table, lease).map((p) => [p.column, p.value])) as UpdateObject<DB, T>;
}

/** The same as an SQL `set` list: `[holder = …, ]until = …`. */
export function leasedSql<T extends LeasedTable>(table: T, lease: Lease<T>): RawBuilder<unknown> {
  return sql.join(leaseParts(table, lease).map((p) => sql`${sql.ref(p.column)} = ${p.value}`));
}

/**
 * For an insert that leases the rows it writes: the lease's `columns` and their `values` (in that
 * order), and `fromExcluded`, the `on conflict … do update set` list that takes the lease from the
 * row proposed for insertion (`excluded`).
 */
export function leasedInsertSql<T extends LeasedTable>(
  table: T,
  lease: Lease<T>,
): { columns: RawBuilder<unknown>; values: RawBuilder<unknown>; fromExcluded: RawBuilder<unknown> } {
  const parts = leaseParts(table, lease);
  return {
    columns: sql.join(parts.map((p) => sql.ref(p.column))),
    values: sql.join(parts.map((p) => sql`${p.value}`)),
    fromExcluded: sql.join(parts.map((p) => sql`${sql.ref(p.column)} = ${sql.ref(`excluded.${p.column}`)}`)),
  };
}

/** The column values that release a row (for `.set()`). */
export function released<T extends LeasedTable>(table: T): Updateable<DB[T]> {
  const { until, holder } = LEASES[table] as LeaseColumns<T>;
  return { [until]: null, ...(holder ? { [holder]: null } : {}) } as Updateable<DB[T]>;
}

/** The same as an SQL `set` list: `until = null[, holder = null]`. */
export function releasedSql(table: LeasedTable): RawBuilder<unknown> {
  const { until, holder } = LEASES[table] as LeaseColumns<LeasedTable>;
  return holder ? sql`${sql.ref(until)} = null, ${sql.ref(holder)} = null` : sql`${sql.ref(until)} = null`;
}

/**
 * The holder keeps the row until `until`, or releases it when `release` is true, as an SQL `set`
 * list (`until = case …, holder = case …`): a statement that records the holder's work and,
 * in the same write, renews its lease or gives the row back when nothing is left to do. The
 * caller's `where` names the holder (heldBy).
 */
export function renewedOrReleasedSql(table: HeldTable, release: RawBuilder<boolean>, until: RawBuilder<Date>): RawBuilder<unknown> {
  const columns = LEASES[table];
  const holder = sql.ref(`${table}.${columns.holder}`);
  return sql`${sql.ref(columns.until)} = case when ${release} then null else ${until} end,
    ${sql.ref(columns.holder)} = case when ${release} then null else ${holder} end`;
}

interface DueClaim {
  /** Which rows wait, besides being due and free (over the table as `r`, and `join`). */
  waiting: RawBuilder<boolean>;
  leaseMs: number;
  limit: number;
  /** Joins after the table (`r`) that `waiting` reads; locked rows are the table's only. */
  join?: RawBuilder<unknown>;
}

/**
 * Two CTEs, `due` and `claimed`: up to `limit` rows of `table` that wait, are due and free,
 * oldest due first, now leased for `leaseMs`. `claimed` holds the leased rows in full; the
 * caller's query selects from it.
 */
export function claimDueRows(table: Exclude<DueTable, HeldTable>, claim: DueClaim): RawBuilder<unknown> {
  const { key, until, due } = LEASES[table];
  const t = sql.table(table);
  return sql`
    with due as (
      select r.${sql.ref(key)} from ${t} r ${claim.join ?? sql``}
      where (${claim.waiting}) and ${isDue(table, 'r')} and ${isFree(table, 'r')}
      order by r.${sql.ref(due)}
      limit ${claim.limit}
      for update of r skip locked
    ),
    claimed as (
      update ${t} r set ${sql.ref(until)} = ${fromNow(claim.leaseMs)}
      from due where r.${sql.ref(key)} = due.${sql.ref(key)}
      returning r.*
    )`;
}
