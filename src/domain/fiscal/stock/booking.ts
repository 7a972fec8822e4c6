// Booking filed documents: each branch's cursor (`stock_branches.booked_invoice_no`) moved past
// its documents in invoice order, the plain ones in one statement for many branches, the ones
// that move stock read for worker.ts to queue their movements in the same transaction.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { fullBackfillDue } from '../../../platform/workers/backfill.ts';
import { initializedSql } from '../../kernel/devices/store.ts';

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
  await db
    .updateTable('stock_branches')
    .set({ booked_invoice_no: invoiceNo, updated_at: sql<Date>`now()` })
    .where('device_id', '=', deviceId)
    .execute();
}
