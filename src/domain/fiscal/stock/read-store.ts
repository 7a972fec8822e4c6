// The merchant's reads: levels per branch and item, the movements with their lines, and what
// the sale resource shows of a document's stock.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { StockChainState, StockMovementsTable } from '../../../platform/db/tables/stock.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import { prepared } from '../../../platform/db/prepared.ts';

export interface LevelRow {
  item_code: string;
  branch: string;
  quantity: string;
  updated_at: Date;
  item_name: string | null;
  quantity_unit_code: string | null;
}

export async function listLevels(
  db: Kysely<DB>,
  tenantId: number,
  filter: { deviceId?: number | undefined; itemCodes?: string[] | undefined },
  page: number,
): Promise<{ rows: LevelRow[]; total: number }> {
  let query = db.selectFrom('stock_levels as s').innerJoin('devices as d', 'd.id', 's.device_id').where('s.tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('s.device_id', '=', filter.deviceId);
  if (filter.itemCodes !== undefined) query = query.where('s.item_code', 'in', filter.itemCodes);
  const [rows, count] = await Promise.all([
    query
      .leftJoin('items as i', (join) => join.onRef('i.tenant_id', '=', 's.tenant_id').onRef('i.item_code', '=', 's.item_code'))
      .select([
        's.item_code',
        'd.branch',
        sql<string>`s.quantity::text`.as('quantity'),
        's.updated_at',
        'i.name as item_name',
        'i.quantity_unit_code',
      ])
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
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('stock_movement_lines as l')
          .select('l.seq')
          .whereRef('l.movement_id', '=', 'm.id')
          .where('l.item_code', '=', itemCode),
      ),
    );
  }
  const [rows, count] = await Promise.all([
    query.selectAll('m').select('d.branch').orderBy('m.id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows,
    lines: await linesOfMovements(
      db,
      rows.map((r) => Number(r.id)),
    ),
    total: Number(count.n),
  };
}

export async function findMovement(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
): Promise<{ row: MovementRow; lines: MovementLineRow[] } | undefined> {
  const row = await db
    .selectFrom('stock_movements as m')
    .innerJoin('devices as d', 'd.id', 'm.device_id')
    .selectAll('m')
    .select('d.branch')
    .where('m.tenant_id', '=', tenantId)
    .where('m.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return { row, lines: (await linesOfMovements(db, [id])).get(id) ?? [] };
}

async function linesOfMovements(db: Kysely<DB>, ids: number[]): Promise<Map<number, MovementLineRow[]>> {
  const byMovement = new Map<number, MovementLineRow[]>();
  if (ids.length === 0) return byMovement;
  const rows = await db
    .selectFrom('stock_movement_lines')
    .select([
      'movement_id',
      'seq',
      'item_code',
      sql<string>`quantity::text`.as('quantity'),
      sql<string>`unit_price::text`.as('unit_price'),
      sql<string>`remaining::text`.as('remaining'),
    ])
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
  return new Map(
    result.rows.map((r) => [
      Number(r.sale_id),
      { ...r, booked_invoice_no: r.booked_invoice_no === null ? null : Number(r.booked_invoice_no) },
    ]),
  );
}
