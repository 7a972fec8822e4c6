// All SQL of stock: booking filed documents, the branch's chain queue (lease + backoff on its
// stock_branches row, the movements in sarNo order), and the merchant's reads.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { StockChainState, StockMovementsTable, StockSourceKind } from '../../../platform/db/tables/stock.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import type { DeviceTarget } from '../../../authorities/zra-vsdc/client.ts';
import { fromNow, heldBy, isDue, isFree, leasedSql, released } from '../../../platform/workers/lease-sql.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { fullBackfillDue } from '../../../platform/workers/backfill.ts';
import { initializedSql } from '../../kernel/devices/store.ts';

// ---- booking filed documents ----

/**
 * Gives every initialised branch its row (every branch on the process's first pass and hourly,
 * else those initialised recently: platform/workers/backfill.ts), then reads the next `limit`
 * branches after `after` (a sweep, in device order, one slice a pass: no pass reads every
 * branch) and returns those whose next unbooked document has its outcome, and where the next
 * slice starts (0: the sweep starts over). Documents are filed in invoice order, so "the next
 * one" is the first row of an index range.
 */
export async function branchesToBook(db: Kysely<DB>, limit: number, after = 0): Promise<{ devices: number[]; next: number }> {
  await sql`
    insert into stock_branches (device_id, tenant_id)
    select d.id, d.tenant_id from devices d
    where ${initializedSql('d', !fullBackfillDue(db, 'stock_branches'))} and not exists (select 1 from stock_branches b where b.device_id = d.id)
    on conflict (device_id) do nothing`.execute(db);
  const result = await sql<{ last: number | null; n: number; ready: number[] | null }>`
    with slice as (
      select device_id, booked_invoice_no from stock_branches where device_id > ${after} order by device_id limit ${limit}
    )
    select (select max(device_id) from slice) as last, (select count(*) from slice)::int as n,
      (select array_agg(b.device_id) from slice b
       join lateral (
         select s.status from sales s where s.device_id = b.device_id and s.sales_type = 'normal' and s.invoice_no > b.booked_invoice_no order by s.invoice_no limit 1
       ) next on true
       where next.status <> 'pending') as ready`.execute(db);
  const row = result.rows[0]!;
  return { devices: (row.ready ?? []).map(Number), next: Number(row.n) < limit || row.last === null ? 0 : Number(row.last) };
}

/** The branches (stock_branches rows) of these documents: where a pass after their outcomes looks. */
export async function branchesOfSales(db: Kysely<DB>, saleIds: readonly number[]): Promise<number[]> {
  const rows = await db
    .selectFrom('sales as s')
    .innerJoin('stock_branches as b', 'b.device_id', 's.device_id')
    .select('s.device_id')
    .distinct()
    .where('s.id', 'in', [...new Set(saleIds)])
    .execute();
  return rows.map((r) => Number(r.device_id));
}

interface FiledDocument {
  id: number;
  tenantId: number;
  type: 'sale' | 'credit_note' | 'debit_note';
  /** Only uploaded documents move stock; a failed one (resolved or not) moves none. */
  status: 'uploaded' | 'failed' | 'resolved';
  invoiceNo: number;
  customerTpin: string | null;
  customerName: string;
  lines: Array<{ itemCode: string; quantity: string; price: string }>;
}

/**
 * Locks the branch's row (undefined when another process is booking it) and reads its next
 * filed documents after the booked one, in invoice order, up to the first still pending.
 */
export async function lockNextFiled(db: Kysely<DB>, deviceId: number, limit: number): Promise<FiledDocument[] | undefined> {
  const locked = await sql<{ booked_invoice_no: string | number }>`
    select booked_invoice_no from stock_branches where device_id = ${deviceId} for update skip locked`.execute(db);
  const booked = locked.rows[0];
  if (!booked) return undefined;
  const after = Number(booked.booked_invoice_no);
  const docs = await db
    .selectFrom('sales')
    .select(['id', 'tenant_id', 'type', 'status', 'invoice_no', 'customer_tpin', 'customer_name'])
    .where('device_id', '=', deviceId)
    // Training and proforma documents sell nothing: they never move stock.
    .where('sales_type', '=', 'normal')
    .where('invoice_no', '>', after)
    .orderBy('invoice_no')
    .limit(limit)
    .execute();
  const filed: FiledDocument[] = [];
  for (const d of docs) {
    if (d.status === 'pending') break;
    filed.push({
      id: Number(d.id),
      tenantId: d.tenant_id,
      type: d.type,
      status: d.status,
      invoiceNo: Number(d.invoice_no),
      customerTpin: d.customer_tpin,
      customerName: d.customer_name,
      lines: [],
    });
  }
  const ids = filed.filter((d) => d.status === 'uploaded').map((d) => d.id);
  if (ids.length > 0) {
    const lines = await db
      .selectFrom('sale_lines')
      .select(['sale_id', 'item_code', sql<string>`quantity::text`.as('quantity'), sql<string>`price::text`.as('price')])
      .where('sale_id', 'in', ids)
      .where('item_code', 'is not', null)
      .orderBy('sale_id')
      .orderBy('line')
      .execute();
    const byId = new Map(filed.map((d) => [d.id, d]));
    for (const l of lines) byId.get(Number(l.sale_id))!.lines.push({ itemCode: l.item_code!, quantity: l.quantity, price: l.price });
  }
  return filed;
}

/** What bookPlainDocuments did. */
type PlainBooking =
  /** Another process is booking the branch now. */
  | { kind: 'locked' }
  /** The branch's next documents were booked (none moves stock); `count` of them, up to the limit. */
  | { kind: 'booked'; count: number }
  /** Nothing filed to book. */
  | { kind: 'nothing' }
  /** One of the next filed documents moves stock: book them with lockNextFiled in a transaction. */
  | { kind: 'moves_stock' };

/**
 * The common case of booking in ONE autocommit statement, for any number of branches: for each
 * branch whose next filed documents (after the booked one, up to the first still pending, at
 * most `limit`) include none that moves stock (an uploaded sale or credit note with an
 * item-coded line), the branch's row is locked (skip locked, as lockNextFiled) and its booked
 * invoice number moved past them in that statement — what the transaction of lockNextFiled +
 * markBooked would do with no movement to queue, in one round trip for every branch instead of
 * five per branch. A branch with a document that moves stock is left as it was (`moves_stock`:
 * the caller books it with lockNextFiled in a transaction); a branch another process is booking
 * now is `locked`. Rows are locked in device order, so two processes never deadlock on them.
 */
export async function bookPlainBranches(db: Kysely<DB>, deviceIds: readonly number[], limit: number): Promise<Map<number, PlainBooking>> {
  const ids = [...new Set(deviceIds)].sort((a, b) => a - b);
  const result = await sql<{ device_id: number; filed: number; moves_stock: boolean; booked: boolean }>`${prepared}
    with branch as (
      select device_id, booked_invoice_no from stock_branches
      where device_id = any(${ids}::int[])
      order by device_id
      for update skip locked
    ),
    next as (
      select b.device_id, s.id, s.type, s.status, s.invoice_no
      from branch b cross join lateral (
        select s.id, s.type, s.status, s.invoice_no from sales s
        where s.device_id = b.device_id and s.invoice_no > b.booked_invoice_no
        order by s.invoice_no
        limit ${limit}) s
    ),
    first_pending as (
      select device_id, min(invoice_no) as invoice_no from next where status = 'pending' group by device_id
    ),
    filed as (
      select n.* from next n left join first_pending p on p.device_id = n.device_id
      where p.invoice_no is null or n.invoice_no < p.invoice_no
    ),
    per_branch as (
      select f.device_id, count(*)::int as filed, max(f.invoice_no) as last_no,
        bool_or(f.status = 'uploaded' and f.type <> 'debit_note'
          and exists (select 1 from sale_lines l where l.sale_id = f.id and l.item_code is not null)) as moves
      from filed f
      group by f.device_id
    ),
    booked as (
      update stock_branches set booked_invoice_no = per_branch.last_no, updated_at = now()
      from per_branch
      where stock_branches.device_id = per_branch.device_id and not per_branch.moves
      returning stock_branches.device_id
    )
    select b.device_id, coalesce(pb.filed, 0) as filed, coalesce(pb.moves, false) as moves_stock,
      exists (select 1 from booked where booked.device_id = b.device_id) as booked
    from branch b left join per_branch pb on pb.device_id = b.device_id`.execute(db);
  const outcomes = new Map<number, PlainBooking>(ids.map((id) => [id, { kind: 'locked' }]));
  for (const row of result.rows) {
    const deviceId = Number(row.device_id);
    if (row.filed === 0) outcomes.set(deviceId, { kind: 'nothing' });
    else if (row.booked) outcomes.set(deviceId, { kind: 'booked', count: row.filed });
    else outcomes.set(deviceId, { kind: 'moves_stock' });
  }
  return outcomes;
}

/** bookPlainBranches for one branch. */
export async function bookPlainDocuments(db: Kysely<DB>, deviceId: number, limit: number): Promise<PlainBooking> {
  return (await bookPlainBranches(db, [deviceId], limit)).get(deviceId)!;
}

export async function markBooked(db: Kysely<DB>, deviceId: number, invoiceNo: number): Promise<void> {
  await db.updateTable('stock_branches').set({ booked_invoice_no: invoiceNo, updated_at: sql<Date>`now()` }).where('device_id', '=', deviceId).execute();
}

// ---- the chain queue ----

export interface ClaimedChainBranch {
  deviceId: number;
  tenantId: number;
  retryDelayMs: number | null;
  target: DeviceTarget;
}

/** Leases up to `limit` branches with unsent movements that nobody holds and whose backoff has passed. */
export async function claimChainBranches(db: Kysely<DB>, owner: string, leaseMs: number, limit: number): Promise<ClaimedChainBranch[]> {
  const result = await sql<{ device_id: number; tenant_id: number; retry_delay_ms: number | null; vsdc_base_url: string; branch: string; tpin: string }>`
    with due as (
      select b.device_id from stock_branches b
      where exists (select 1 from stock_movements m where m.device_id = b.device_id and m.state in ('pending', 'items_sent'))
        and ${isFree('stock_branches', 'b')} and ${isDue('stock_branches', 'b')}
      order by b.next_attempt_at
      limit ${limit}
      for update of b skip locked
    ),
    claimed as (
      update stock_branches b set ${leasedSql('stock_branches', { holder: owner, ms: leaseMs })}
      from due where b.device_id = due.device_id
      returning b.device_id, b.tenant_id, b.retry_delay_ms
    )
    select claimed.*, d.vsdc_base_url, d.branch, t.tpin
    from claimed join devices d on d.id = claimed.device_id join tenants t on t.id = claimed.tenant_id`.execute(db);
  return result.rows.map((r) => ({
    deviceId: Number(r.device_id),
    tenantId: r.tenant_id,
    retryDelayMs: r.retry_delay_ms,
    target: { baseUrl: r.vsdc_base_url, tpin: r.tpin, bhfId: r.branch },
  }));
}

interface ChainLine {
  seq: number;
  itemCode: string;
  quantity: string;
  unitPrice: string;
  taxable: string;
  tax: string;
  total: string;
  remaining: string;
  /** The item as registered (null fields when the item was deleted since: sent as recorded). */
  itemClassCode: string | null;
  itemName: string | null;
  barcode: string | null;
  packagingUnitCode: string | null;
  quantityUnitCode: string | null;
  vatCategory: string | null;
}

export interface ChainMovement {
  id: number;
  sarNo: number;
  sarTypeCode: string;
  sourceKind: StockSourceKind;
  state: 'pending' | 'items_sent';
  counterpartyTpin: string | null;
  counterpartyName: string | null;
  counterpartyBranch: string | null;
  remark: string | null;
  totalTaxable: string;
  totalTax: string;
  totalAmount: string;
  createdAt: Date;
  lines: ChainLine[];
}

/** The branch's first unsent movement with its lines and their items. */
export async function nextUnsent(db: Kysely<DB>, deviceId: number): Promise<ChainMovement | undefined> {
  const movement = await db
    .selectFrom('stock_movements')
    .selectAll()
    .where('device_id', '=', deviceId)
    .where('state', 'in', ['pending', 'items_sent'])
    .orderBy('sar_no')
    .limit(1)
    .executeTakeFirst();
  if (!movement) return undefined;
  const lines = await db
    .selectFrom('stock_movement_lines as l')
    .leftJoin('items as i', (join) => join.on('i.tenant_id', '=', movement.tenant_id).onRef('i.item_code', '=', 'l.item_code'))
    .select([
      'l.seq',
      'l.item_code',
      sql<string>`l.quantity::text`.as('quantity'),
      sql<string>`l.unit_price::text`.as('unit_price'),
      sql<string>`l.taxable::text`.as('taxable'),
      sql<string>`l.tax::text`.as('tax'),
      sql<string>`l.total::text`.as('total'),
      sql<string>`l.remaining::text`.as('remaining'),
      'i.item_class_code',
      'i.name',
      'i.barcode',
      'i.packaging_unit_code',
      'i.quantity_unit_code',
      'i.vat_category',
    ])
    .where('l.movement_id', '=', movement.id)
    .orderBy('l.seq')
    .execute();
  return {
    id: Number(movement.id),
    sarNo: movement.sar_no,
    sarTypeCode: movement.sar_type_code,
    sourceKind: movement.source_kind,
    state: movement.state as ChainMovement['state'],
    counterpartyTpin: movement.counterparty_tpin,
    counterpartyName: movement.counterparty_name,
    counterpartyBranch: movement.counterparty_branch,
    remark: movement.remark,
    totalTaxable: String(movement.total_taxable),
    totalTax: String(movement.total_tax),
    totalAmount: String(movement.total_amount),
    createdAt: movement.created_at,
    lines: lines.map((l) => ({
      seq: l.seq,
      itemCode: l.item_code,
      quantity: l.quantity,
      unitPrice: l.unit_price,
      taxable: l.taxable,
      tax: l.tax,
      total: l.total,
      remaining: l.remaining,
      itemClassCode: l.item_class_code,
      itemName: l.name,
      barcode: l.barcode,
      packagingUnitCode: l.packaging_unit_code,
      quantityUnitCode: l.quantity_unit_code,
      vatCategory: l.vat_category,
    })),
  };
}

/** What one chain call's answer does to the movement. */
export type ChainStep =
  | { kind: 'items_sent' }
  | { kind: 'sent' }
  | { kind: 'failed'; code: string; message: string };

/**
 * Records a step of the movement's chain while `owner` holds the branch (false when it lost the
 * lease: nothing written), and clears the branch's backoff (the VSDC answered) and extends its lease.
 */
export async function recordChainStep(db: Kysely<DB>, deviceId: number, movementId: number, owner: string, leaseMs: number, step: ChainStep): Promise<boolean> {
  const changes =
    step.kind === 'items_sent'
      ? sql`state = 'items_sent'`
      : step.kind === 'sent'
        ? sql`state = 'sent', sent_at = now(), result_code = '000', result_message = null`
        : sql`state = 'failed', result_code = ${step.code}, result_message = ${step.message.slice(0, 2000)}`;
  const result = await sql<{ held: boolean }>`
    with lease as (
      update stock_branches set ${leasedSql('stock_branches', { ms: leaseMs })}, retry_delay_ms = null, last_error = null, updated_at = now()
      where device_id = ${deviceId} and ${heldBy('stock_branches', owner)}
      returning device_id
    ),
    movement as (
      update stock_movements set ${changes}, updated_at = now()
      where id = ${movementId} and state in ('pending', 'items_sent') and exists (select 1 from lease)
      returning id
    )
    select exists (select 1 from lease) as held`.execute(db);
  return Boolean(result.rows[0]?.held);
}

/** Nothing left to send (or stopping): give the branch back. */
export async function releaseChainBranch(db: Kysely<DB>, deviceId: number, owner: string): Promise<void> {
  await db
    .updateTable('stock_branches')
    .set({ ...released('stock_branches'), updated_at: sql<Date>`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('stock_branches', owner))
    .execute();
}

/** The VSDC did not answer: give the branch back until `delayMs` from now, with the backoff grown. */
export async function deferChainBranch(db: Kysely<DB>, deviceId: number, owner: string, delayMs: number, error: string): Promise<void> {
  await db
    .updateTable('stock_branches')
    .set({ ...released('stock_branches'), next_attempt_at: fromNow(delayMs), retry_delay_ms: delayMs, last_error: error.slice(0, 1000), updated_at: sql<Date>`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('stock_branches', owner))
    .execute();
}

/** Embedded database: one process, so a lease found at start-up was left by a crash. */
export async function clearChainLeases(db: Kysely<DB>): Promise<void> {
  await db.updateTable('stock_branches').set(released('stock_branches')).where('lease_owner', 'is not', null).execute();
}

// ---- reads ----

export interface LevelRow {
  item_code: string;
  branch: string;
  quantity: string;
  updated_at: Date;
  item_name: string | null;
  quantity_unit_code: string | null;
}

export async function listLevels(db: Kysely<DB>, tenantId: number, filter: { deviceId?: number | undefined; itemCodes?: string[] | undefined }, page: number): Promise<{ rows: LevelRow[]; total: number }> {
  let query = db.selectFrom('stock_levels as s').innerJoin('devices as d', 'd.id', 's.device_id').where('s.tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('s.device_id', '=', filter.deviceId);
  if (filter.itemCodes !== undefined) query = query.where('s.item_code', 'in', filter.itemCodes);
  const [rows, count] = await Promise.all([
    query
      .leftJoin('items as i', (join) => join.onRef('i.tenant_id', '=', 's.tenant_id').onRef('i.item_code', '=', 's.item_code'))
      .select(['s.item_code', 'd.branch', sql<string>`s.quantity::text`.as('quantity'), 's.updated_at', 'i.name as item_name', 'i.quantity_unit_code'])
      .orderBy('s.item_code')
      .orderBy('d.branch')
      .limit(PER_PAGE)
      .offset(offsetOf(page))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export type MovementRow = Selectable<StockMovementsTable> & { branch: string };

export interface MovementLineRow {
  movement_id: number;
  seq: number;
  item_code: string;
  quantity: string;
  unit_price: string;
  remaining: string;
}

export async function listMovements(
  db: Kysely<DB>,
  tenantId: number,
  filter: { deviceId?: number | undefined; itemCode?: string | undefined; state?: StockChainState | undefined },
  page: number,
): Promise<{ rows: MovementRow[]; lines: Map<number, MovementLineRow[]>; total: number }> {
  let query = db.selectFrom('stock_movements as m').innerJoin('devices as d', 'd.id', 'm.device_id').where('m.tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('m.device_id', '=', filter.deviceId);
  if (filter.state !== undefined) query = query.where('m.state', '=', filter.state);
  const itemCode = filter.itemCode;
  if (itemCode !== undefined) {
    query = query.where((eb) => eb.exists(eb.selectFrom('stock_movement_lines as l').select('l.seq').whereRef('l.movement_id', '=', 'm.id').where('l.item_code', '=', itemCode)));
  }
  const [rows, count] = await Promise.all([
    query.selectAll('m').select('d.branch').orderBy('m.id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, lines: await linesOfMovements(db, rows.map((r) => Number(r.id))), total: Number(count.n) };
}

export async function findMovement(db: Kysely<DB>, tenantId: number, id: number): Promise<{ row: MovementRow; lines: MovementLineRow[] } | undefined> {
  const row = await db.selectFrom('stock_movements as m').innerJoin('devices as d', 'd.id', 'm.device_id').selectAll('m').select('d.branch').where('m.tenant_id', '=', tenantId).where('m.id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return { row, lines: (await linesOfMovements(db, [id])).get(id) ?? [] };
}

async function linesOfMovements(db: Kysely<DB>, ids: number[]): Promise<Map<number, MovementLineRow[]>> {
  const byMovement = new Map<number, MovementLineRow[]>();
  if (ids.length === 0) return byMovement;
  const rows = await db
    .selectFrom('stock_movement_lines')
    .select(['movement_id', 'seq', 'item_code', sql<string>`quantity::text`.as('quantity'), sql<string>`unit_price::text`.as('unit_price'), sql<string>`remaining::text`.as('remaining')])
    .where('movement_id', 'in', ids)
    .orderBy('movement_id')
    .orderBy('seq')
    .execute();
  for (const r of rows) {
    const id = Number(r.movement_id);
    const list = byMovement.get(id) ?? [];
    list.push(r);
    byMovement.set(id, list);
  }
  return byMovement;
}

/** What the sale resource shows of a document's stock: its movement (if any) and how far its branch is booked. */
export interface DocumentStockRow {
  sale_id: number;
  state: StockChainState | null;
  result_code: string | null;
  result_message: string | null;
  booked_invoice_no: number | null;
  stock_tracking: boolean;
}

export async function stockOfDocuments(db: Kysely<DB>, saleIds: number[]): Promise<Map<number, DocumentStockRow>> {
  if (saleIds.length === 0) return new Map();
  const result = await sql<DocumentStockRow>`${prepared}
    select s.id as sale_id, m.state, m.result_code, m.result_message, b.booked_invoice_no, t.stock_tracking
    from sales s
    join tenants t on t.id = s.tenant_id
    -- "<> 'adjustment'" lets the join use the partial unique index stock_movements_source (without
    -- it every listing read all of the table's movements).
    left join stock_movements m on m.source_kind = s.type and m.source_kind <> 'adjustment' and m.source_id = s.id
    left join stock_branches b on b.device_id = s.device_id
    where s.id = any(${saleIds}::bigint[])`.execute(db);
  return new Map(result.rows.map((r) => [Number(r.sale_id), { ...r, booked_invoice_no: r.booked_invoice_no === null ? null : Number(r.booked_invoice_no) }]));
}

// ---- the switch ----

export async function stockTrackingOf(db: Kysely<DB>, tenantId: number): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('stock_tracking').where('id', '=', tenantId).executeTakeFirst();
  return row?.stock_tracking ?? false;
}

export async function setStockTracking(db: Kysely<DB>, tenantId: number, on: boolean): Promise<void> {
  await db.updateTable('tenants').set({ stock_tracking: on, updated_at: sql<Date>`now()` }).where('id', '=', tenantId).execute();
}
