import { sql, type Compilable, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentType, SaleLinesTable, SalesTable } from '../../../platform/db/tables/sales.ts';
import type { FilingDetails } from '../../../vsdc/sales-body.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import { prepared, runPrepared } from '../../../platform/db/prepared.ts';
import { batchOrEach, GroupCommit } from '../../../platform/db/group-commit.ts';

export type SaleRow = Selectable<SalesTable>;
export type SaleLineRow = Selectable<SaleLinesTable>;

/** The outcome columns of a document the authority has not (or not successfully) answered. */
export const NO_OUTCOME = {
  result_code: null,
  last_error: null,
  receipt_no: null,
  internal_data: null,
  receipt_signature: null,
  sdc_id: null,
  mrc_no: null,
  qr_code_url: null,
  published_at: null,
} as const satisfies Partial<SaleRow>;

export interface NewLine {
  line: number;
  name: string;
  classification_code: string;
  item_code: string | null;
  quantity: number;
  price: number;
  vat_category: string;
  vat_rate: number;
  /** MTV (B) lines: the RRP per unit. */
  rrp: number | null;
  amount: number;
  discount: number;
  /** MTV (B) lines: the filed splyAmt (quantity × the higher of RRP and price); null: amount. */
  supply: number | null;
  net: number;
  vat: number;
  total: number;
  original_line: number | null;
}

/** Which device a document goes to: a known one (notes), or the branch rule of design.md. */
export type DocumentTarget = { deviceId: number } | { branchHeader: string | undefined };

export interface NewDocument {
  tenantId: number;
  target: DocumentTarget;
  tpin: string;
  type: DocumentType;
  reference: string | null;
  requestHash: string | null;
  clientInvoiceNo: string | null;
  customerName: string;
  customerTpin: string | null;
  paymentMethod: string;
  taxInclusive: boolean;
  destinationCountryCode: string | null;
  occurredAt: Date;
  net: number;
  vat: number;
  total: number;
  originalSaleId: number | null;
  originalReceiptNo: number | null;
  originalSdcId: string | null;
  reasonCode: string | null;
  /** Filing details beyond the document's own fields (a till's registrant, line units); absent: none. */
  filingDetails?: FilingDetails | null;
  lines: NewLine[];
}

export interface StoredDocument {
  /** The document as stored (status `pending`). */
  row: SaleRow;
  /** The branch's last VSDC attempt failed and it waits to retry: nobody files this document now. */
  branchDown: boolean;
}

export type InsertOutcome =
  | { kind: 'stored'; document: StoredDocument }
  /** No initialised device matches the target (the caller says why). */
  | { kind: 'no_device' }
  /** `refuseWhenDown` and the branch's VSDC is known unreachable: nothing stored, no number used. */
  | { kind: 'branch_down'; branch: string };

/**
 * The initialised device a document goes to. Without X-Branch: the tenant's 000 branch if
 * registered, else its only branch. No row when none applies (the caller says why).
 */
function targetDevice(tenantId: number, target: DocumentTarget) {
  if ('deviceId' in target) return sql`select id, branch from devices where id = ${target.deviceId} and tenant_id = ${tenantId} and initialized`;
  const named =
    target.branchHeader !== undefined
      ? sql`${target.branchHeader}::text`
      : sql`(select coalesce(max(branch) filter (where branch = '000'), case when count(*) = 1 then max(branch) end) from devices where tenant_id = ${tenantId})`;
  return sql`select id, branch from devices where tenant_id = ${tenantId} and initialized and branch = ${named}`;
}

/**
 * Stores a document as `pending` in ONE statement: picks the branch's device, takes its next
 * invoice number from the counter row (the row lock serialises a branch's documents, so numbers
 * commit in order and without gaps), inserts the document and its lines, counts it against the
 * monthly quota and, on PostgreSQL, notifies the filers (delivered at commit). A statement is
 * atomic, so a clash on the Idempotency-Key (unique violation, thrown) undoes the counter too.
 * It also reads whether the branch is known down (its last VSDC attempt failed); with
 * `refuseWhenDown` such a branch takes no document (no number is used).
 */
export interface InsertOptions {
  month: string;
  refuseWhenDown: boolean;
  notify?: { channel: string; origin: string };
}

/**
 * Stores a document as `pending` (see insertOneDocument). Outside a transaction it goes through
 * the sales group commit: documents stored at the same moment, from any branch, share one
 * statement and one commit (insertDocuments); it resolves once its document is committed.
 * Inside a transaction (`db` is one) it is the statement of its own.
 */
export function insertDocument(db: Kysely<DB>, doc: NewDocument, options: InsertOptions): Promise<InsertOutcome> {
  if (db.isTransaction) return insertOneDocument(db, doc, options);
  return documentBatcher(db, options.notify).submit({ doc, options });
}

export async function insertOneDocument(db: Kysely<DB>, doc: NewDocument, options: InsertOptions): Promise<InsertOutcome> {
  const lines = JSON.stringify(doc.lines);
  const filingDetails = doc.filingDetails ? JSON.stringify(doc.filingDetails) : null;
  // The payload names the device, known only inside the statement.
  const notify = options.notify
    ? sql`, case when document.id is not null then pg_notify(${options.notify.channel}, document.device_id::text || ${`:${options.notify.origin}`}::text) end as notified`
    : sql``;
  // Beside the stored row (all null when nothing was stored): the branch and whether it is down.
  const result = await sql<SaleRow & { target_branch: string; branch_down: boolean; notified?: unknown }>`${prepared}
    with target as (${targetDevice(doc.tenantId, doc.target)}),
    state as (
      select target.id, target.branch, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set next_invoice_no = next_invoice_no + 1
      where id = (select id from state where not (state.down and ${options.refuseWhenDown}::boolean))
      returning id, branch, next_invoice_no - 1 as invoice_no
    ),
    document as (
      insert into sales (
        tenant_id, device_id, tpin, branch, type, invoice_no, reference, request_hash, client_invoice_no,
        customer_name, customer_tpin, payment_method, tax_inclusive, destination_country_code, occurred_at,
        net, vat, total, original_sale_id, original_receipt_no, original_sdc_id, reason_code, filing_details)
      select ${doc.tenantId}, counter.id, ${doc.tpin}, counter.branch, ${doc.type}, counter.invoice_no, ${doc.reference},
        ${doc.requestHash}, ${doc.clientInvoiceNo}, ${doc.customerName}, ${doc.customerTpin}, ${doc.paymentMethod},
        ${doc.taxInclusive}, ${doc.destinationCountryCode}, ${doc.occurredAt}, ${doc.net}, ${doc.vat}, ${doc.total},
        ${doc.originalSaleId}, ${doc.originalReceiptNo}, ${doc.originalSdcId}, ${doc.reasonCode}, ${filingDetails}
      from counter
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category,
        vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category,
        l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document cross join jsonb_to_recordset(${lines}::jsonb) as l(line integer, name text, classification_code text,
        item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric,
        discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select ${doc.tenantId}, ${options.month}, 1 from document
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, state.branch as target_branch, state.down as branch_down ${notify}
    from state left join document on true`.execute(db);
  const found = result.rows[0];
  if (!found) return { kind: 'no_device' };
  const { target_branch: branch, branch_down: branchDown, notified: _notified, ...row } = found;
  if (row.id === null) return { kind: 'branch_down', branch };
  return { kind: 'stored', document: { row, branchDown } };
}

/** Documents of one batch at most (a sale's lines travel in the same JSON parameter). */
const MAX_DOCUMENTS_PER_BATCH = 64;

export interface PendingInsert {
  doc: NewDocument;
  options: InsertOptions;
}

const batchers = new WeakMap<Kysely<DB>, Map<string, GroupCommit<PendingInsert, InsertOutcome>>>();

/** The group commit of `db`'s sales (one per notification target: every process has one). */
function documentBatcher(db: Kysely<DB>, notify: InsertOptions['notify']): GroupCommit<PendingInsert, InsertOutcome> {
  let byNotify = batchers.get(db);
  if (!byNotify) batchers.set(db, (byNotify = new Map()));
  const key = notify ? `${notify.channel}:${notify.origin}` : '';
  let batcher = byNotify.get(key);
  if (!batcher) {
    batcher = new GroupCommit<PendingInsert, InsertOutcome>(
      (items) =>
        batchOrEach(
          items,
          (many) => insertDocuments(db, many, notify),
          (one) => insertOneDocument(db, one.doc, one.options),
        ),
      { maxBatch: MAX_DOCUMENTS_PER_BATCH },
    );
    byNotify.set(key, batcher);
  }
  return batcher;
}

/** A document as the batch statement reads it (one element of its JSON parameter). */
function batchInput(n: number, { doc, options }: PendingInsert) {
  return {
    n,
    tenant_id: doc.tenantId,
    device_id: 'deviceId' in doc.target ? doc.target.deviceId : null,
    branch_header: 'branchHeader' in doc.target ? (doc.target.branchHeader ?? null) : null,
    tpin: doc.tpin,
    type: doc.type,
    reference: doc.reference,
    request_hash: doc.requestHash,
    client_invoice_no: doc.clientInvoiceNo,
    customer_name: doc.customerName,
    customer_tpin: doc.customerTpin,
    payment_method: doc.paymentMethod,
    tax_inclusive: doc.taxInclusive,
    destination_country_code: doc.destinationCountryCode,
    occurred_at: doc.occurredAt.toISOString(),
    net: doc.net,
    vat: doc.vat,
    total: doc.total,
    original_sale_id: doc.originalSaleId,
    original_receipt_no: doc.originalReceiptNo,
    original_sdc_id: doc.originalSdcId,
    reason_code: doc.reasonCode,
    filing_details: doc.filingDetails ? JSON.stringify(doc.filingDetails) : null,
    refuse_when_down: options.refuseWhenDown,
    month: options.month,
    lines: doc.lines,
  };
}

/**
 * Stores several documents in ONE statement, each exactly as insertOneDocument would, with one
 * commit for all: picks each document's device, locks the counter rows of every branch involved
 * (in device order, so concurrent batches never deadlock on them), advances each counter by the
 * number of documents its branch takes and numbers them from it in arrival order (the order of
 * `items`), inserts the documents and their lines, counts the quota per tenant and month, and
 * notifies the filers once per branch. Answers one outcome per item, in order. The statement's
 * text does not depend on the batch (the documents travel as one JSON parameter), so it is
 * prepared once per connection.
 */
export async function insertDocuments(db: Kysely<DB>, items: PendingInsert[], notify: InsertOptions['notify']): Promise<InsertOutcome[]> {
  const input = JSON.stringify(items.map((item, n) => batchInput(n, item)));
  const result = await sql<SaleRow & { n: number; target_branch: string | null; branch_down: boolean | null; notified: unknown }>`${prepared}
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as i(n integer, tenant_id integer, device_id integer, branch_header text,
        tpin text, type text, reference text, request_hash text, client_invoice_no text, customer_name text, customer_tpin text,
        payment_method text, tax_inclusive boolean, destination_country_code text, occurred_at timestamptz, net numeric,
        vat numeric, total numeric, original_sale_id bigint, original_receipt_no bigint, original_sdc_id text, reason_code text,
        filing_details text, refuse_when_down boolean, month text, lines jsonb)
    ),
    target as (
      select i.n, d.id, d.branch
      from input i join devices d on d.tenant_id = i.tenant_id and d.initialized
      where case when i.device_id is not null then d.id = i.device_id
        else d.branch = coalesce(i.branch_header, (
          select coalesce(max(x.branch) filter (where x.branch = '000'), case when count(*) = 1 then max(x.branch) end)
          from devices x where x.tenant_id = i.tenant_id)) end
    ),
    state as (
      select target.n, target.id, target.branch, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    taking as (
      select state.n, state.id, row_number() over (partition by state.id order by state.n) as k
      from state join input i on i.n = state.n
      where not (state.down and i.refuse_when_down)
    ),
    wanted as (select id, count(*)::int as taken from taking group by id),
    locked as (select d.id from devices d where d.id in (select id from wanted) order by d.id for update),
    counter as (
      update devices d set next_invoice_no = d.next_invoice_no + wanted.taken
      from wanted
      where d.id = wanted.id and d.id in (select id from locked)
      returning d.id, d.branch, d.next_invoice_no - wanted.taken as first_no
    ),
    placed as (
      select taking.n, taking.id as device_id, counter.branch, counter.first_no + taking.k - 1 as invoice_no
      from taking join counter on counter.id = taking.id
    ),
    document as (
      insert into sales (
        tenant_id, device_id, tpin, branch, type, invoice_no, reference, request_hash, client_invoice_no,
        customer_name, customer_tpin, payment_method, tax_inclusive, destination_country_code, occurred_at,
        net, vat, total, original_sale_id, original_receipt_no, original_sdc_id, reason_code, filing_details)
      select i.tenant_id, placed.device_id, i.tpin, placed.branch, i.type, placed.invoice_no, i.reference,
        i.request_hash, i.client_invoice_no, i.customer_name, i.customer_tpin, i.payment_method,
        i.tax_inclusive, i.destination_country_code, i.occurred_at, i.net, i.vat, i.total,
        i.original_sale_id, i.original_receipt_no, i.original_sdc_id, i.reason_code, i.filing_details
      from placed join input i on i.n = placed.n
      order by placed.device_id, placed.invoice_no
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category,
        vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category,
        l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document
      join placed on placed.device_id = document.device_id and placed.invoice_no = document.invoice_no
      join input i on i.n = placed.n
      cross join jsonb_to_recordset(i.lines) as l(line integer, name text, classification_code text,
        item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric,
        discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select i.tenant_id, i.month, count(*) from placed join input i on i.n = placed.n
      group by i.tenant_id, i.month
      order by i.tenant_id, i.month
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + excluded.documents
    )
    select i.n, state.branch as target_branch, state.down as branch_down, document.*,
      (select count(pg_notify(${notify?.channel ?? null}::text, woken.device_id::text || ${`:${notify?.origin ?? ''}`}::text))
        from (select distinct device_id from document where ${notify?.channel ?? null}::text is not null) woken) as notified
    from input i
    left join state on state.n = i.n
    left join placed on placed.n = i.n
    left join document on document.device_id = placed.device_id and document.invoice_no = placed.invoice_no
    order by i.n`.execute(db);
  return result.rows.map((found): InsertOutcome => {
    const { n: _n, target_branch: branch, branch_down: branchDown, notified: _notified, ...row } = found;
    if (branch === null) return { kind: 'no_device' };
    if (row.id === null) return { kind: 'branch_down', branch };
    return { kind: 'stored', document: { row, branchDown: branchDown === true } };
  });
}

export async function findSale(db: Kysely<DB>, tenantId: number, id: number): Promise<SaleRow | undefined> {
  return (await runPrepared(db, db.selectFrom('sales').selectAll().where('id', '=', id).where('tenant_id', '=', tenantId)))[0];
}

export async function findByReference(db: Kysely<DB>, tenantId: number, reference: string): Promise<SaleRow | undefined> {
  return db.selectFrom('sales').selectAll().where('tenant_id', '=', tenantId).where('reference', '=', reference).executeTakeFirst();
}

export async function linesOf(db: Kysely<DB>, saleIds: number[]): Promise<Map<number, SaleLineRow[]>> {
  const bySale = new Map<number, SaleLineRow[]>();
  if (saleIds.length === 0) return bySale;
  const rows = await runPrepared(db, db.selectFrom('sale_lines').selectAll().where('sale_id', '=', (eb) => eb.fn.any(eb.val(saleIds))).orderBy('sale_id').orderBy('line'));
  for (const row of rows) {
    const id = Number(row.sale_id);
    const list = bySale.get(id);
    if (list) list.push(row);
    else bySale.set(id, [row]);
  }
  return bySale;
}

export interface SaleFilter {
  deviceId?: number;
  /** Matches the caller's clientInvoiceNo or the Idempotency-Key (both indexed per tenant). */
  reference?: string;
  status?: SaleRow['status'];
  type?: SaleRow['type'];
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
export async function listSales(db: Kysely<DB>, tenantId: number, filter: SaleFilter, page: number): Promise<{ rows: SaleRow[]; total: number }> {
  let query = db.selectFrom('sales').where('tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('device_id', '=', filter.deviceId);
  const reference = filter.reference;
  if (reference !== undefined) query = query.where((eb) => eb.or([eb('client_invoice_no', '=', reference), eb('reference', '=', reference)]));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  // Written out (not a parameter), so that the generic plan can use the partial sales_tenant_notes.
  if (filter.type !== undefined && filter.type !== 'sale') query = query.where(sql<boolean>`type <> 'sale'`);
  if (filter.occurredFrom !== undefined) query = query.where('occurred_at', '>=', filter.occurredFrom);
  if (filter.occurredBefore !== undefined) query = query.where('occurred_at', '<', filter.occurredBefore);
  const narrowed = filter.status !== undefined || filter.type !== undefined || filter.occurredFrom !== undefined || filter.occurredBefore !== undefined;
  const counted = reference !== undefined || narrowed;
  // A lookup by reference (an integrator's "did my sale go through?") runs prepared: its generic
  // plan is the two reference indexes whatever the data. Pages and the other filters are planned
  // per request, for the merchant's share of the table (a generic plan walked the whole table).
  const run = <R>(q: Compilable<R> & { execute(): Promise<R[]> }) => (reference !== undefined && !narrowed ? runPrepared(db, q) : q.execute());
  const [rows, total] = await Promise.all([
    run(query.selectAll().orderBy('id', 'desc').limit(PER_PAGE).offset(offsetOf(page))),
    counted ? run(query.select((eb) => eb.fn.countAll<number>().as('n'))).then(([r]) => Number(r!.n)) : documentsOf(db, tenantId, filter.deviceId),
  ]);
  return { rows, total };
}

export async function timezoneOf(db: Kysely<DB>, tenantId: number): Promise<string> {
  const row = await db.selectFrom('tenants').select('timezone').where('id', '=', tenantId).executeTakeFirstOrThrow();
  return row.timezone;
}

/**
 * How many documents the tenant's branches (or one of them) hold, without counting rows: a
 * branch numbers its documents without gaps and never deletes one, so it holds its next invoice
 * number minus its first (an index lookup). Counting would grow with the table.
 */
async function documentsOf(db: Kysely<DB>, tenantId: number, deviceId: number | undefined): Promise<number> {
  const result = await sql<{ n: number }>`${prepared}
    select coalesce(sum(d.next_invoice_no - coalesce((select min(s.invoice_no) from sales s where s.device_id = d.id), d.next_invoice_no)), 0)::bigint as n
    from devices d where d.tenant_id = ${tenantId} ${deviceId === undefined ? sql`` : sql`and d.id = ${deviceId}`}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** The original of a note, locked so that concurrent notes on it are counted one after another. */
export async function lockSale(db: Kysely<DB>, tenantId: number, id: number): Promise<SaleRow | undefined> {
  return db.selectFrom('sales').selectAll().where('id', '=', id).where('tenant_id', '=', tenantId).forUpdate().executeTakeFirst();
}

/** What credit notes took back of one original line so far (sums, as exact decimal text). */
export interface CreditedSums {
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
  return new Map(rows.map((r) => [Number(r.original_line), { quantity: r.quantity, amount: r.amount, discount: r.discount, supply: r.supply, net: r.net, vat: r.vat }]));
}
