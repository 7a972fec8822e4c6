// The one way stock moves: a movement is recorded with its lines, the branch's levels change and
// its stock chain is queued (the movement row, `pending`, in the branch's sarNo order), all inside
// the caller's transaction. Sales and credit notes (booked by worker.ts once filed), adjustments
// (service.ts) and accepted purchases (purchases module) all come through here.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { authorityProfile, profileOf } from '../../../authorities/index.ts';
import { Money, round2 } from '../../../authorities/port/amounts.ts';

interface StockMovementLine {
  itemCode: string;
  quantity: string;
  unitPrice: string;
}

interface StockMovementRequest {
  tenantId: number;
  deviceId: number; // the branch
  sarTyCd: string; // code class 12
  source: { kind: 'sale' | 'credit_note' | 'debit_note' | 'adjustment' | 'purchase'; id: number };
  /** Lines naming an unregistered item or a service are dropped here. */
  lines: StockMovementLine[];
  counterparty?: { tpin: string | null; name: string | null; branch: string | null };
  remark?: string;
}

/** Code class 12: `0x` brings goods in, `1x` takes them out. */
export function isIncoming(sarTyCd: string): boolean {
  return sarTyCd.startsWith('0');
}

/** Item types that carry stock: 1 raw material, 2 finished product (3, a service, carries none). */
export const GOODS_ITEM_TYPES = ['1', '2'] as const;

interface RecordedMovement {
  id: number;
  sarNo: number;
  /** The branch's quantity of each item of the movement after it, as exact decimal text. */
  remaining: Map<string, string>;
}

interface GoodsItem {
  item_code: string;
  vat_category: string;
}

/**
 * The tenant's tracking switch, the rate of each tax category of the branch's authority and, of
 * `codes`, the goods items the authority registered (an item it never accepted would only be
 * refused in the chain; a service carries no stock).
 */
async function trackedGoods(
  db: Kysely<DB>,
  tenantId: number,
  deviceId: number,
  codes: string[],
): Promise<{ tracking: boolean; rates: Map<string, number>; items: Map<string, GoodsItem> }> {
  const rows = await db
    .selectFrom('tenants as t')
    .innerJoin('devices as d', 'd.tenant_id', 't.id')
    .leftJoin('items as i', (join) =>
      join
        .onRef('i.tenant_id', '=', 't.id')
        .on('i.item_code', 'in', codes.length > 0 ? codes : [''])
        .on('i.item_type_code', 'in', [...GOODS_ITEM_TYPES])
        .on('i.registered_at', 'is not', null),
    )
    .select(['t.stock_tracking', 't.authority', 'd.protocol', 'i.item_code', 'i.vat_category'])
    .where('t.id', '=', tenantId)
    .where('d.id', '=', deviceId)
    .execute();
  const first = rows[0];
  if (!first) return { tracking: false, rates: new Map(), items: new Map() };
  const items = new Map<string, GoodsItem>();
  for (const r of rows)
    if (r.item_code !== null && r.vat_category !== null) items.set(r.item_code, { item_code: r.item_code, vat_category: r.vat_category });
  const rates = new Map(authorityProfile(profileOf(first.authority, first.protocol)).taxCategories.map((c) => [c.code, c.rate]));
  return { tracking: first.stock_tracking, rates, items };
}

/** A line's amounts from its tax-inclusive unit price and the rate of the item's category (0 for one the authority does not list). */
function lineAmounts(quantity: Money, unitPrice: Money, rate: number): { taxable: string; tax: string; total: string } {
  const total = round2(quantity.times(unitPrice));
  const tax = round2(total.times(rate).dividedBy(100 + rate));
  return { taxable: total.minus(tax).toFixed(2), tax: tax.toFixed(2), total: total.toFixed(2) };
}

/**
 * Records the movement (see queueStockMovement) and says what the branch holds after it. Undefined
 * when nothing applies.
 */
export async function recordStockMovement(db: Kysely<DB>, request: StockMovementRequest): Promise<RecordedMovement | undefined> {
  const codes = [...new Set(request.lines.map((l) => l.itemCode))];
  const { tracking, rates, items } = await trackedGoods(db, request.tenantId, request.deviceId, codes);
  if (!tracking) return undefined;
  const lines = request.lines
    .filter((l) => items.has(l.itemCode))
    .map((l) => ({ ...l, quantity: new Money(l.quantity), unitPrice: new Money(l.unitPrice) }))
    .filter((l) => l.quantity.greaterThan(0));
  if (lines.length === 0) return undefined;

  // The branch's next sarNo; the row lock also serialises the branch's movements to the commit.
  const branch = await sql<{ last_sar_no: number }>`
    insert into stock_branches (device_id, tenant_id, last_sar_no) values (${request.deviceId}, ${request.tenantId}, 1)
    on conflict (device_id) do update set last_sar_no = stock_branches.last_sar_no + 1, updated_at = now()
    returning last_sar_no`.execute(db);
  const sarNo = Number(branch.rows[0]!.last_sar_no);

  const sign = isIncoming(request.sarTyCd) ? 1 : -1;
  const deltas = new Map<string, Money>();
  for (const l of lines) deltas.set(l.itemCode, (deltas.get(l.itemCode) ?? new Money(0)).plus(l.quantity.times(sign)));
  const levels = await sql<{ item_code: string; quantity: string }>`
    insert into stock_levels (device_id, tenant_id, item_code, quantity)
    select ${request.deviceId}, ${request.tenantId}, x.item_code, x.delta
    from jsonb_to_recordset(${JSON.stringify([...deltas].map(([item_code, delta]) => ({ item_code, delta: delta.toString() })))}::jsonb) as x(item_code text, delta numeric)
    order by x.item_code
    on conflict (device_id, item_code) do update set quantity = stock_levels.quantity + excluded.quantity, updated_at = now()
    returning item_code, quantity::text as quantity`.execute(db);
  const remaining = new Map(levels.rows.map((r) => [r.item_code, r.quantity]));

  // Each line's remaining: the final level, less what later lines of the same item moved.
  const after = new Map([...remaining].map(([code, q]) => [code, new Money(q)]));
  const stored = new Array<{
    seq: number;
    item_code: string;
    quantity: string;
    unit_price: string;
    taxable: string;
    tax: string;
    total: string;
    remaining: string;
  }>(lines.length);
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    const level = after.get(l.itemCode)!;
    stored[i] = {
      seq: i + 1,
      item_code: l.itemCode,
      quantity: l.quantity.toString(),
      unit_price: l.unitPrice.toString(),
      ...lineAmounts(l.quantity, l.unitPrice, rates.get(items.get(l.itemCode)!.vat_category) ?? 0),
      remaining: level.toString(),
    };
    after.set(l.itemCode, level.minus(l.quantity.times(sign)));
  }
  const sum = (field: 'taxable' | 'tax' | 'total') => stored.reduce((s, l) => s.plus(l[field]), new Money(0)).toFixed(2);
  const counterparty = request.counterparty ?? { tpin: null, name: null, branch: null };
  const movement = await sql<{ id: number }>`
    with movement as (
      insert into stock_movements (tenant_id, device_id, sar_no, sar_type_code, source_kind, source_id, counterparty_tpin, counterparty_name,
        counterparty_branch, remark, total_taxable, total_tax, total_amount)
      values (${request.tenantId}, ${request.deviceId}, ${sarNo}, ${request.sarTyCd}, ${request.source.kind}, ${request.source.id}, ${counterparty.tpin},
        ${counterparty.name}, ${counterparty.branch}, ${request.remark ?? null}, ${sum('taxable')}, ${sum('tax')}, ${sum('total')})
      returning id
    ),
    movement_lines as (
      insert into stock_movement_lines (movement_id, seq, item_code, quantity, unit_price, taxable, tax, total, remaining)
      select movement.id, l.seq, l.item_code, l.quantity, l.unit_price, l.taxable, l.tax, l.total, l.remaining
      from movement cross join jsonb_to_recordset(${JSON.stringify(stored)}::jsonb) as l(seq integer, item_code text, quantity numeric,
        unit_price numeric, taxable numeric, tax numeric, total numeric, remaining numeric)
    )
    select id from movement`.execute(db);
  return { id: Number(movement.rows[0]!.id), sarNo, remaining };
}

/** Records the movement, updates levels and queues its stock chain, inside the caller's transaction. Null when nothing applies (tracking off, no goods lines). */
export async function queueStockMovement(db: Kysely<DB>, request: StockMovementRequest): Promise<number | null> {
  const recorded = await recordStockMovement(db, request);
  return recorded ? recorded.id : null;
}
