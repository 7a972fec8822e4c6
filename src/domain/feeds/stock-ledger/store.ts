// All SQL of the VSDC's stock ledger: the copy of each branch's ledger (movements keyed by branch
// and sarNo, their signed lines, the per-item sums), where its pull stands, and the comparison
// with the gateway's own levels (fiscal/stock's tables, read here).
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { deviceSecrets, sealedDeviceColumns, type SealedDeviceColumns } from '../../kernel/authority-rows/devices.ts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import type { AuthorityDevice, LedgerMove } from '../../../authorities/port/index.ts';
import { profileOf } from '../../../authorities/index.ts';
import { fromNow } from '../../../platform/workers/lease-sql.ts';
import type { ComparisonStatus } from './schemas.ts';

/**
 * How far the branch's own movements have been answered by its VSDC now: every movement up to
 * the returned sarNo (the first still unsent one, less one; else the last one) was accepted
 * (or refused) — the chain sends a branch's movements one at a time in sarNo order. Read just
 * before the ledger is asked for: a later movement may reach the VSDC after the ledger was read.
 */
export async function answeredSarNo(db: Kysely<DB>, deviceId: number): Promise<number> {
  const result = await sql<{ answered: number | string }>`
    select coalesce(
      (select min(sar_no) - 1 from stock_movements where device_id = ${deviceId} and state = 'pending'),
      (select last_sar_no from stock_branches where device_id = ${deviceId}),
      0) as answered`.execute(db);
  return Number(result.rows[0]!.answered);
}

/**
 * Stores what a read of the ledger brought, in the caller's transaction: each movement replaces
 * the one of the same sarNo (lines with it), then the VSDC's level of every item they touched
 * (before or after) is summed again from the copy. The branch's pull row is locked first, so two
 * reads of one branch (the worker's, a merchant's refresh) store one after the other.
 */
export async function storeLedgerMovements(db: Kysely<DB>, deviceId: number, received: readonly LedgerMove[]): Promise<void> {
  await sql`select id from feed_pulls where feed = 'stock-ledger' and device_id = ${deviceId} for update`.execute(db);
  // One row per sarNo (the last one listed wins), in key order.
  const movements = [...new Map(received.map((m) => [m.number, m])).values()].sort((a, b) => a.number - b.number);
  if (movements.length === 0) return;
  const sarNos = movements.map((m) => m.number);
  await sql`
    insert into stock_ledger_movements (device_id, sar_no, sar_type_code, movement)
    select ${deviceId}, x.sar_no, x.sar_type_code, x.movement
    from jsonb_to_recordset(${JSON.stringify(movements.map((m) => ({ sar_no: m.number, sar_type_code: m.type, movement: m.raw })))}::jsonb)
      as x(sar_no bigint, sar_type_code text, movement jsonb)
    order by x.sar_no
    on conflict (device_id, sar_no) do update set sar_type_code = excluded.sar_type_code, movement = excluded.movement, updated_at = now()`.execute(
    db,
  );
  const replaced = await sql<{ item_code: string }>`
    delete from stock_ledger_lines where device_id = ${deviceId} and sar_no = any(${sarNos}::bigint[]) returning item_code`.execute(db);
  const lines = movements.flatMap((m) =>
    m.lines.map((l) => ({ sar_no: m.number, seq: l.seq, item_code: l.itemCode, quantity: l.quantity })),
  );
  if (lines.length > 0) {
    await sql`
      insert into stock_ledger_lines (device_id, sar_no, seq, item_code, quantity)
      select ${deviceId}, l.sar_no, l.seq, l.item_code, l.quantity
      from jsonb_to_recordset(${JSON.stringify(lines)}::jsonb) as l(sar_no bigint, seq integer, item_code text, quantity numeric)`.execute(
      db,
    );
  }
  const touched = [...new Set([...replaced.rows.map((r) => r.item_code), ...lines.map((l) => l.item_code)])].sort();
  if (touched.length === 0) return;
  await sql`delete from stock_ledger_levels where device_id = ${deviceId} and item_code = any(${touched}::text[])`.execute(db);
  await sql`
    insert into stock_ledger_levels (device_id, item_code, quantity)
    select ${deviceId}, item_code, sum(quantity) from stock_ledger_lines
    where device_id = ${deviceId} and item_code = any(${touched}::text[])
    group by item_code`.execute(db);
}

/** The read is recorded as the branch's latest: its movements up to `answered` were answered before it. */
export async function markLedgerRead(db: Kysely<DB>, deviceId: number, answered: number): Promise<void> {
  await sql`update feed_pulls set answered_sar_no = ${answered}, updated_at = now() where feed = 'stock-ledger' and device_id = ${deviceId}`.execute(
    db,
  );
}

// ---- a read the merchant asks for ----

/** The branch's device and where its pull stands (its row made if the worker has not yet). */
export async function livePullOf(
  db: Kysely<DB>,
  box: SecretBox,
  deviceId: number,
): Promise<{ device: AuthorityDevice; cursor: string | null }> {
  await sql`
    insert into feed_pulls (feed, tenant_id, device_id) select 'stock-ledger', d.tenant_id, d.id from devices d where d.id = ${deviceId}
    on conflict (feed, device_id) where device_id is not null do nothing`.execute(db);
  const result = await sql<
    {
      vsdc_base_url: string;
      branch: string;
      tpin: string;
      authority: string;
      protocol: string;
      sdc_id: string | null;
      mrc_no: string | null;
      last_req_dt: string | null;
    } & SealedDeviceColumns
  >`
    select d.vsdc_base_url, d.branch, t.tpin, t.authority, d.protocol, d.sdc_id, d.mrc_no, p.last_req_dt, ${sealedDeviceColumns('d')}
    from devices d join tenants t on t.id = d.tenant_id join feed_pulls p on p.feed = 'stock-ledger' and p.device_id = d.id
    where d.id = ${deviceId}`.execute(db);
  const row = result.rows[0]!;
  return {
    device: {
      profile: profileOf(row.authority, row.protocol),
      baseUrl: row.vsdc_base_url,
      tpin: row.tpin,
      branch: row.branch,
      sdcId: row.sdc_id,
      mrcNo: row.mrc_no,
      ...deviceSecrets(box, row),
    },
    cursor: row.last_req_dt,
  };
}

/**
 * A live read got its answer (run in the transaction that stored it): as the pull template's finish, except
 * that the lease is left to whoever holds it and the cursor never goes back (a background read
 * may be answered around the same time; cursors are compared as text, which orders ZRA's
 * date-times).
 */
export async function finishLivePull(db: Kysely<DB>, deviceId: number, cursor: string | null, intervalMs: number): Promise<void> {
  await sql`
    update feed_pulls set
      last_req_dt = case when last_req_dt is null or ${cursor}::text > last_req_dt then coalesce(${cursor}::text, last_req_dt) else last_req_dt end,
      next_pull_at = ${fromNow(intervalMs)},
      failures = 0,
      last_pulled_at = now(),
      last_error = null,
      updated_at = now()
    where feed = 'stock-ledger' and device_id = ${deviceId}`.execute(db);
}

/** A live read got no usable answer: said on the pull row (the next background read is not moved). */
export async function recordLivePullError(db: Kysely<DB>, deviceId: number, error: string): Promise<void> {
  await sql`update feed_pulls set last_error = ${error.slice(0, 1000)}, updated_at = now() where feed = 'stock-ledger' and device_id = ${deviceId}`.execute(
    db,
  );
}

// ---- the comparison ----

export interface ComparisonRow {
  item_code: string;
  item_name: string | null;
  gateway: string;
  vsdc: string;
  /** gateway − vsdc, exact. */
  difference: string;
  unsent: string;
  unsent_movements: number;
  status: ComparisonStatus;
}

export interface LedgerState {
  pulledAt: Date | null;
  lastError: string | null;
  answered: number | null;
}

export async function ledgerStateOf(db: Kysely<DB>, deviceId: number): Promise<LedgerState> {
  const row = await db
    .selectFrom('feed_pulls')
    .select(['last_pulled_at', 'last_error', 'answered_sar_no'])
    .where('feed', '=', 'stock-ledger')
    .where('device_id', '=', deviceId)
    .executeTakeFirst();
  return { pulledAt: row?.last_pulled_at ?? null, lastError: row?.last_error ?? null, answered: row?.answered_sar_no ?? null };
}

/**
 * Every item either side has at the branch: the gateway's level, the VSDC's (the copy's sum),
 * and the branch's movements the copy does not have and that were not answered when it was read
 * (sarNo above `answered`, not refused, not in the copy). Never read (`answered` null): every
 * item `unknown`, and the unsent movements are those the gateway has not sent yet.
 */
function comparison(deviceId: number, tenantId: number, answered: number | null) {
  return sql`
    with gateway as (
      select item_code, quantity from stock_levels where device_id = ${deviceId}
    ),
    vsdc as (
      select item_code, quantity from stock_ledger_levels where device_id = ${deviceId}
    ),
    unsent as (
      select l.item_code,
        sum(case when m.sar_type_code like '0%' then l.quantity else -l.quantity end) as quantity,
        count(distinct m.id)::int as movements
      from stock_movements m
      join stock_movement_lines l on l.movement_id = m.id
      where m.device_id = ${deviceId}
        and case when ${answered}::integer is null then m.state = 'pending'
          else m.sar_no > ${answered ?? 0} and m.state <> 'failed'
            and not exists (select 1 from stock_ledger_movements c where c.device_id = m.device_id and c.sar_no = m.sar_no) end
      group by l.item_code
    ),
    codes as (
      select item_code from gateway union select item_code from vsdc union select item_code from unsent
    ),
    compared as (
      select c.item_code,
        coalesce(g.quantity, 0) as gateway,
        coalesce(v.quantity, 0) as vsdc,
        coalesce(u.quantity, 0) as unsent,
        coalesce(u.movements, 0) as unsent_movements
      from codes c
      left join gateway g on g.item_code = c.item_code
      left join vsdc v on v.item_code = c.item_code
      left join unsent u on u.item_code = c.item_code
    )
    select compared.item_code, i.name as item_name, compared.gateway::text as gateway, compared.vsdc::text as vsdc,
      (compared.gateway - compared.vsdc)::text as difference, compared.unsent::text as unsent, compared.unsent_movements,
      case
        when ${answered}::integer is null then 'unknown'
        when compared.gateway = compared.vsdc then 'matches'
        when compared.gateway - compared.unsent = compared.vsdc then 'pending'
        else 'differs'
      end as status
    from compared
    left join items i on i.tenant_id = ${tenantId} and i.item_code = compared.item_code`;
}

/** One page of the comparison (by item code, optionally one status) and the count of each status. */
export async function compareLevels(
  db: Kysely<DB>,
  deviceId: number,
  tenantId: number,
  answered: number | null,
  filter: { status?: ComparisonStatus | undefined },
  page: number,
): Promise<{ rows: ComparisonRow[]; counts: Record<ComparisonStatus, number> }> {
  const [rows, counts] = await Promise.all([
    sql<ComparisonRow>`
      select * from (${comparison(deviceId, tenantId, answered)}) compared
      where ${filter.status ?? null}::text is null or compared.status = ${filter.status ?? null}
      order by compared.item_code
      limit ${PER_PAGE} offset ${offsetOf(page)}`.execute(db),
    sql<{ status: ComparisonStatus; n: number | string }>`
      select status, count(*) as n from (${comparison(deviceId, tenantId, answered)}) compared group by status`.execute(db),
  ]);
  const byStatus: Record<ComparisonStatus, number> = { matches: 0, pending: 0, differs: 0, unknown: 0 };
  for (const r of counts.rows) byStatus[r.status] = Number(r.n);
  return { rows: rows.rows, counts: byStatus };
}
