// The documents as stored (SaleRow, SaleLineRow) and the reads of them: one, a page, a note's
// original locked, what credit notes took back. Storing one: document-insert.ts; the fleet's
// backlog: backlog.ts.
import { sql, type Compilable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentStatus, SaleLinesTable, SalesTable, SalesType, SaleStatus } from '../../../platform/db/tables/sales.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import { prepared, runPrepared } from '../../../platform/db/prepared.ts';
import { partyName } from '../../kernel/audit/store.ts';
import { PROFILES_SHARING_SEQUENCE } from '../../../authorities/index.ts';

/**
 * A stored document, with its issuer's name when the statement that read it resolved it
 * (`issuedByName`): the statements whose rows become resources do.
 */
export type SaleRow = Selectable<SalesTable> & { issued_by_name?: string | null };
export type SaleLineRow = Selectable<SaleLinesTable>;

/** The outcome columns of a document the authority has not (or not successfully) answered. */
export const NO_OUTCOME = {
  result_code: null,
  last_error: null,
  receipt_no: null,
  total_receipt_no: null,
  internal_data: null,
  receipt_signature: null,
  sdc_id: null,
  mrc_no: null,
  qr_code_url: null,
  published_at: null,
} as const satisfies Partial<SaleRow>;

/**
 * The name of the credential that issued the sales row `alias` (as the merchant's audit trail
 * names it: kernel/audit partyName), read in the statement that reads the row, as
 * `issued_by_name`: the credential is named as it is called now, revoked or not; null for a
 * document stored before issuers were recorded.
 */
export function issuedByName(alias: string): RawBuilder<string | null> {
  return partyName(sql.ref(`${alias}.issued_by_type`), sql.ref(`${alias}.issued_by_id`));
}

/** Beside `selectAll()` of `sales`, in a read whose rows become resources: the issuer's name. */
const ISSUED_BY_NAME = issuedByName('sales').as('issued_by_name');

export async function findSale(db: Kysely<DB>, tenantId: number, id: number): Promise<SaleRow | undefined> {
  return (
    await runPrepared(db, db.selectFrom('sales').selectAll().select(ISSUED_BY_NAME).where('id', '=', id).where('tenant_id', '=', tenantId))
  )[0];
}

export async function findByReference(db: Kysely<DB>, tenantId: number, reference: string): Promise<SaleRow | undefined> {
  return db
    .selectFrom('sales')
    .selectAll()
    .select(ISSUED_BY_NAME)
    .where('tenant_id', '=', tenantId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

export async function linesOf(db: Kysely<DB>, saleIds: number[]): Promise<Map<number, SaleLineRow[]>> {
  const bySale = new Map<number, SaleLineRow[]>();
  if (saleIds.length === 0) return bySale;
  const rows = await runPrepared(
    db,
    db
      .selectFrom('sale_lines')
      .selectAll()
      .where('sale_id', '=', (eb) => eb.fn.any(eb.val(saleIds)))
      .orderBy('sale_id')
      .orderBy('line'),
  );
  for (const row of rows) {
    const id = Number(row.sale_id);
    const list = bySale.get(id);
    if (list) list.push(row);
    else bySale.set(id, [row]);
  }
  return bySale;
}

const STORED_STATUSES: readonly DocumentStatus[] = ['pending', 'uploaded', 'failed', 'resolved'];

/**
 * The stored statuses a list's `status` and `resolved` filters mean, or undefined for any: the
 * resource's `failed` is stored as `failed` or, once resolved, `resolved`; `resolved=true` is only
 * the latter, `resolved=false` every other one. Empty when the two exclude each other.
 */
export function storedStatuses(filter: { status?: SaleStatus | undefined; resolved?: boolean | undefined }): DocumentStatus[] | undefined {
  if (filter.status === undefined && filter.resolved === undefined) return undefined;
  return STORED_STATUSES.filter(
    (stored) =>
      (filter.status === undefined || filter.status === (stored === 'resolved' ? 'failed' : stored)) &&
      (filter.resolved === undefined || filter.resolved === (stored === 'resolved')),
  );
}

export interface SaleFilter {
  deviceId?: number;
  /** Matches the caller's clientInvoiceNo or the Idempotency-Key (both indexed per tenant). */
  reference?: string;
  /** The stored statuses to list (storedStatuses); none matches nothing. */
  statuses?: DocumentStatus[];
  type?: SaleRow['type'];
  salesType?: SalesType;
  /** `occurred_at` in [occurredFrom, occurredBefore): the merchant's days, as instants. */
  occurredFrom?: Date;
  occurredBefore?: Date;
}

/**
 * One page of the tenant's documents, newest first, and how many match. Every filter is a
 * condition of the one statement (and its count); each narrows through an index of the tenant's
 * rows (EXPLAIN, generic plans, PostgreSQL): a branch through sales_device_list (or a BitmapAnd
 * with sales_tenant_status), a status through sales_tenant_status, a note type through the
 * partial sales_tenant_notes, days through sales_tenant_occurred, a reference through its own
 * indexes; a plain `type=sale` walks sales_tenant_list (most rows are sales).
 */
export async function listSales(
  db: Kysely<DB>,
  tenantId: number,
  filter: SaleFilter,
  page: number,
): Promise<{ rows: SaleRow[]; total: number }> {
  let query = db.selectFrom('sales').where('tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('device_id', '=', filter.deviceId);
  const reference = filter.reference;
  if (reference !== undefined)
    query = query.where((eb) => eb.or([eb('client_invoice_no', '=', reference), eb('reference', '=', reference)]));
  const statuses = filter.statuses;
  if (statuses !== undefined)
    query =
      statuses.length === 1
        ? query.where('status', '=', statuses[0]!)
        : statuses.length === 0
          ? query.where(sql<boolean>`false`)
          : query.where('status', 'in', statuses);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.salesType !== undefined) query = query.where('sales_type', '=', filter.salesType);
  // Written out (not a parameter), so that the generic plan can use the partial sales_tenant_notes.
  if (filter.type !== undefined && filter.type !== 'sale') query = query.where(sql<boolean>`type <> 'sale'`);
  if (filter.occurredFrom !== undefined) query = query.where('occurred_at', '>=', filter.occurredFrom);
  if (filter.occurredBefore !== undefined) query = query.where('occurred_at', '<', filter.occurredBefore);
  const narrowed =
    statuses !== undefined ||
    filter.type !== undefined ||
    filter.salesType !== undefined ||
    filter.occurredFrom !== undefined ||
    filter.occurredBefore !== undefined;
  const counted = reference !== undefined || narrowed;
  // A lookup by reference (an integrator's "did my sale go through?") runs prepared: its generic
  // plan is the two reference indexes whatever the data. Pages and the other filters are planned
  // per request, for the merchant's share of the table (a generic plan walked the whole table).
  const run = <R>(q: Compilable<R> & { execute(): Promise<R[]> }) =>
    reference !== undefined && !narrowed ? runPrepared(db, q) : q.execute();
  const [rows, total] = await Promise.all([
    run(query.selectAll().select(ISSUED_BY_NAME).orderBy('id', 'desc').limit(PER_PAGE).offset(offsetOf(page))),
    counted
      ? run(query.select((eb) => eb.fn.countAll<number>().as('n'))).then(([r]) => Number(r!.n))
      : documentsOf(db, tenantId, filter.deviceId),
  ]);
  return { rows, total };
}

export async function timezoneOf(db: Kysely<DB>, tenantId: number): Promise<string> {
  const row = await db.selectFrom('tenants').select('timezone').where('id', '=', tenantId).executeTakeFirstOrThrow();
  return row.timezone;
}

/**
 * How many documents the tenant's branches (or one of them) hold, without counting rows: a
 * branch numbers each sequence's documents without gaps and never deletes one, so it holds, per
 * sequence, its next number minus its first (an index lookup per kind). A branch whose unit numbers
 * every kind from one sequence (PROFILES_SHARING_SEQUENCE) holds its normal sequence's next number
 * minus the first of any kind. Counting would grow with the table.
 */
async function documentsOf(db: Kysely<DB>, tenantId: number, deviceId: number | undefined): Promise<number> {
  const first = (kind: SalesType) =>
    sql`(select min(s.invoice_no) from sales s where s.device_id = d.id and s.sales_type = ${sql.lit(kind)})`;
  const result = await sql<{ n: number }>`${prepared}
    select coalesce(sum(case when t.authority || '-' || d.protocol = any(string_to_array(${PROFILES_SHARING_SEQUENCE.join(',')}::text, ','))
      then d.next_invoice_no - coalesce(least(${first('normal')}, ${first('training')}, ${first('proforma')}), d.next_invoice_no)
      else d.next_invoice_no - coalesce(${first('normal')}, d.next_invoice_no)
        + d.next_training_no - coalesce(${first('training')}, d.next_training_no)
        + d.next_proforma_no - coalesce(${first('proforma')}, d.next_proforma_no) end), 0)::bigint as n
    from devices d join tenants t on t.id = d.tenant_id
    where d.tenant_id = ${tenantId} ${deviceId === undefined ? sql`` : sql`and d.id = ${deviceId}`}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** The original of a note, locked so that concurrent notes on it are counted one after another. */
export async function lockSale(db: Kysely<DB>, tenantId: number, id: number): Promise<SaleRow | undefined> {
  return db
    .selectFrom('sales')
    .selectAll()
    .select(ISSUED_BY_NAME)
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .forUpdate()
    .executeTakeFirst();
}

/** What credit notes took back of one original line so far (sums, as exact decimal text). */
interface CreditedSums {
  quantity: string;
  amount: string;
  discount: string;
  /** Σ filed splyAmt (the line's `supply`, else its amount). */
  supply: string;
  net: string;
  vat: string;
}

/** Per original line, what credit notes that were not refused have taken back so far. */
export async function creditedByLine(db: Kysely<DB>, originalSaleId: number): Promise<Map<number, CreditedSums>> {
  const rows = await db
    .selectFrom('sale_lines as l')
    .innerJoin('sales as n', 'n.id', 'l.sale_id')
    .select([
      'l.original_line',
      sql<string>`sum(l.quantity)::text`.as('quantity'),
      sql<string>`sum(l.amount)::text`.as('amount'),
      sql<string>`sum(l.discount)::text`.as('discount'),
      sql<string>`sum(coalesce(l.supply, l.amount))::text`.as('supply'),
      sql<string>`sum(l.net)::text`.as('net'),
      sql<string>`sum(l.vat)::text`.as('vat'),
    ])
    .where('n.original_sale_id', '=', originalSaleId)
    .where('n.type', '=', 'credit_note')
    // A refused note (failed, or resolved since) took nothing back.
    .where('n.status', 'not in', ['failed', 'resolved'])
    .where('l.original_line', 'is not', null)
    .groupBy('l.original_line')
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.original_line),
      { quantity: r.quantity, amount: r.amount, discount: r.discount, supply: r.supply, net: r.net, vat: r.vat },
    ]),
  );
}

/** The credit and debit notes issued against a sale, oldest first, whatever their status. */
export async function notesOfSale(db: Kysely<DB>, tenantId: number, saleId: number) {
  return db
    .selectFrom('sales')
    .select([
      'id',
      'type',
      'invoice_no',
      'sdc_id',
      'receipt_no',
      'status',
      'reason_code',
      'total',
      'occurred_at',
      'issued_by_type',
      'issued_by_id',
      ISSUED_BY_NAME,
    ])
    .where('tenant_id', '=', tenantId)
    .where('original_sale_id', '=', saleId)
    .orderBy('id')
    .execute();
}
