import { sql, type Compilable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentStatus, DocumentType, SaleLinesTable, SalesTable, SalesType, SaleStatus } from '../../../platform/db/tables/sales.ts';
import type { FilingDetails } from '../../../authorities/port/index.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import { prepared, runPrepared } from '../../../platform/db/prepared.ts';
import { batchOrEach, GroupCommit, KeyedGroupCommits } from '../../../platform/db/group-commit.ts';
import type { AppContext, ContextMember } from '../../kernel/context.ts';
import { defaultBranchSql } from '../../kernel/devices/branch-rule.ts';
import { partyName, type Issuer } from '../../kernel/audit/store.ts';

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
type DocumentTarget = { deviceId: number } | { branchHeader: string | undefined };

export interface NewDocument {
  tenantId: number;
  target: DocumentTarget;
  tpin: string;
  type: DocumentType;
  /** Which of the branch's sequences numbers it; only `normal` documents count against the quota. */
  salesType: SalesType;
  reference: string | null;
  requestHash: string | null;
  clientInvoiceNo: string | null;
  customerName: string;
  customerTpin: string | null;
  customerAddress: string | null;
  paymentMethod: string;
  taxInclusive: boolean;
  destinationCountryCode: string | null;
  occurredAt: Date;
  /** ISO 4217; the amounts are in it. */
  currency: string;
  /** ZMW per unit of currency (1 for ZMW). */
  exchangeRate: number;
  lpoNumber: string | null;
  principalId: string | null;
  net: number;
  vat: number;
  total: number;
  originalSaleId: number | null;
  originalReceiptNo: number | null;
  originalSdcId: string | null;
  reasonCode: string | null;
  /** The credential of the request that issues it. */
  issuedBy: Issuer;
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
 * The columns of `sales` a new document brings (the statement picks the others it writes:
 * device_id, branch and invoice_no), each with its SQL type and its value. Both insert
 * statements are built from this one list, once: insertOneDocument binds each value as a
 * parameter, insertDocuments reads each from its json input as that type. A new column a
 * document brings is one line here (with its migration and its table interface).
 */
const DOCUMENT_COLUMNS = {
  tenant_id: { type: 'integer', value: (d) => d.tenantId },
  tpin: { type: 'text', value: (d) => d.tpin },
  type: { type: 'text', value: (d) => d.type },
  sales_type: { type: 'text', value: (d) => d.salesType },
  reference: { type: 'text', value: (d) => d.reference },
  request_hash: { type: 'text', value: (d) => d.requestHash },
  client_invoice_no: { type: 'text', value: (d) => d.clientInvoiceNo },
  customer_name: { type: 'text', value: (d) => d.customerName },
  customer_tpin: { type: 'text', value: (d) => d.customerTpin },
  customer_address: { type: 'text', value: (d) => d.customerAddress },
  payment_method: { type: 'text', value: (d) => d.paymentMethod },
  tax_inclusive: { type: 'boolean', value: (d) => d.taxInclusive },
  destination_country_code: { type: 'text', value: (d) => d.destinationCountryCode },
  // A Date: bound as such, and in the json input as its ISO text (toJSON).
  occurred_at: { type: 'timestamptz', value: (d) => d.occurredAt },
  currency: { type: 'text', value: (d) => d.currency },
  exchange_rate: { type: 'numeric', value: (d) => d.exchangeRate },
  lpo_number: { type: 'text', value: (d) => d.lpoNumber },
  principal_id: { type: 'text', value: (d) => d.principalId },
  net: { type: 'numeric', value: (d) => d.net },
  vat: { type: 'numeric', value: (d) => d.vat },
  total: { type: 'numeric', value: (d) => d.total },
  original_sale_id: { type: 'bigint', value: (d) => d.originalSaleId },
  original_receipt_no: { type: 'bigint', value: (d) => d.originalReceiptNo },
  original_sdc_id: { type: 'text', value: (d) => d.originalSdcId },
  reason_code: { type: 'text', value: (d) => d.reasonCode },
  filing_details: { type: 'text', value: (d) => (d.filingDetails ? JSON.stringify(d.filingDetails) : null) },
  issued_by_type: { type: 'text', value: (d) => d.issuedBy.type },
  issued_by_id: { type: 'bigint', value: (d) => d.issuedBy.id },
} as const satisfies { [C in keyof SalesTable]?: { type: string; value: (doc: NewDocument) => unknown } };

const DOCUMENT_COLUMN_NAMES = Object.keys(DOCUMENT_COLUMNS) as Array<keyof typeof DOCUMENT_COLUMNS>;
type DocumentColumn = (typeof DOCUMENT_COLUMN_NAMES)[number];

/**
 * Columns stored as an expression of the document's values rather than as the value itself (both
 * statements): `ref` names a column's value. The customer's address falls back to the registered
 * customer's when the sale names its TPIN (in the statement: no round trip for it).
 */
const STORED_AS: { [C in DocumentColumn]?: (ref: (column: DocumentColumn) => RawBuilder<unknown>) => RawBuilder<unknown> } = {
  customer_address: (ref) =>
    sql`coalesce(${ref('customer_address')}, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = ${ref('tenant_id')} and c.tpin = ${ref('customer_tpin')}))`,
};

/**
 * The name of the credential that issued the sales row `alias` (as the merchant's audit trail
 * names it: kernel/audit partyName), read in the statement that reads the row, as
 * `issued_by_name`: the credential is named as it is called now, revoked or not; null for a
 * document stored before issuers were recorded.
 */
export function issuedByName(alias: string): RawBuilder<string | null> {
  return partyName(sql.ref(`${alias}.issued_by_type`), sql.ref(`${alias}.issued_by_id`));
}

/** `tenant_id, tpin, …` */
const DOCUMENT_COLUMN_LIST = sql.raw(DOCUMENT_COLUMN_NAMES.join(', '));
/** `tenant_id integer, tpin text, …` (a record definition for jsonb_to_recordset) */
const DOCUMENT_COLUMN_TYPES = sql.raw(DOCUMENT_COLUMN_NAMES.map((c) => `${c} ${DOCUMENT_COLUMNS[c].type}`).join(', '));
/** `i.tenant_id, i.tpin, …` */
const DOCUMENT_INPUT_VALUES = sql.join(DOCUMENT_COLUMN_NAMES.map((c) => STORED_AS[c]?.((other) => sql.raw(`i.${other}`)) ?? sql.raw(`i.${c}`)));

/** The document's values, in DOCUMENT_COLUMN_NAMES order (insertOneDocument's parameters). */
function documentValues(doc: NewDocument) {
  const param = (c: DocumentColumn) => sql`${DOCUMENT_COLUMNS[c].value(doc)}::${sql.raw(DOCUMENT_COLUMNS[c].type)}`;
  return sql.join(DOCUMENT_COLUMN_NAMES.map((c) => STORED_AS[c]?.(param) ?? sql`${DOCUMENT_COLUMNS[c].value(doc)}`));
}

/** The document's values by column name (an element of insertDocuments' json input). */
function documentFields(doc: NewDocument): Record<string, unknown> {
  return Object.fromEntries(DOCUMENT_COLUMN_NAMES.map((c) => [c, DOCUMENT_COLUMNS[c].value(doc)]));
}

/** The columns of `sale_lines` a line brings (all but sale_id), with their SQL types: every field of NewLine. */
const LINE_COLUMNS = {
  line: 'integer',
  name: 'text',
  classification_code: 'text',
  item_code: 'text',
  quantity: 'numeric',
  price: 'numeric',
  vat_category: 'text',
  vat_rate: 'numeric',
  rrp: 'numeric',
  amount: 'numeric',
  discount: 'numeric',
  supply: 'numeric',
  net: 'numeric',
  vat: 'numeric',
  total: 'numeric',
  original_line: 'integer',
} as const satisfies { [C in keyof NewLine]: string };

const LINE_COLUMN_NAMES = Object.keys(LINE_COLUMNS) as Array<keyof typeof LINE_COLUMNS>;
/** `sale_lines (sale_id, line, …)` */
const LINE_INSERT_TARGET = sql.raw(`sale_lines (sale_id, ${LINE_COLUMN_NAMES.join(', ')})`);
/** `l.line, l.name, …` */
const LINE_INPUT_VALUES = sql.raw(LINE_COLUMN_NAMES.map((c) => `l.${c}`).join(', '));
/** `l(line integer, …)`: the record of jsonb_to_recordset over a document's lines. */
const LINE_RECORD = sql.raw(`l(${LINE_COLUMN_NAMES.map((c) => `${c} ${LINE_COLUMNS[c]}`).join(', ')})`);

/**
 * The initialised device a document goes to: X-Branch's, else the branch rule's SQL form
 * (kernel/devices/branch-rule.ts). No row when none applies (the caller says why).
 */
function targetDevice(tenantId: number, target: DocumentTarget) {
  if ('deviceId' in target) return sql`select id, branch from devices where id = ${target.deviceId} and tenant_id = ${tenantId} and initialized`;
  const named =
    target.branchHeader !== undefined
      ? sql`${target.branchHeader}::text`
      : defaultBranchSql(sql`${tenantId}`);
  return sql`select id, branch from devices where tenant_id = ${tenantId} and initialized and branch = ${named}`;
}

/**
 * `backlog(device_id)`, a recursive CTE: every branch with a pending document, one row each (and a
 * final null), by a loose index scan of `sales_pending` that jumps from each branch to the next,
 * so a national backlog costs a row per branch, not per document (issue 36).
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
 * the backlog, not all of it (issue 36).
 */
export async function branchesByOldestBacklog(db: Kysely<DB>, wanted: number, inScope?: RawBuilder<unknown>): Promise<{ devices: number[]; all: boolean }> {
  const met = new Set<number>();
  let after: [string, number] | undefined;
  for (let read = Math.max(100, wanted * WALK_FACTOR); ; read *= WALK_FACTOR) {
    // The limit is a literal so that a generic plan sees how few rows are wanted.
    const row = (await sql<{ read: number; last: [string, number] | null; devices: number[] }>`
      with walk as materialized (
        select s.device_id, s.tenant_id, s.created_at, s.id, row_number() over (order by s.created_at, s.id) as position from sales s
        where s.status = 'pending'${after === undefined ? sql`` : sql` and (s.created_at, s.id) > (${after[0]}::timestamptz, ${after[1]}::bigint)`}
        order by s.created_at, s.id limit ${sql.lit(read)})
      select (select count(*) from walk)::int as read,
        (select json_build_array(w.created_at::text, w.id) from walk w order by w.position desc limit 1) as last,
        coalesce((select json_agg(m.device_id order by m.first)
                  from (select w.device_id, min(w.position) as first from walk w ${inScope === undefined ? sql`` : sql`where ${inScope}`} group by w.device_id) m), '[]') as devices`.execute(db)).rows[0];
    for (const device of row?.devices ?? []) met.add(device);
    const all = (row?.read ?? 0) < read;
    if (all || met.size >= wanted) return { devices: [...met], all };
    after = row!.last!;
  }
}

/** The devices column that holds the next number of a kind's sequence. */
const NEXT_NUMBER_COLUMN: Record<SalesType, string> = { normal: 'next_invoice_no', training: 'next_training_no', proforma: 'next_proforma_no' };

function nextNumberSql(salesType: SalesType) {
  return sql.ref(NEXT_NUMBER_COLUMN[salesType]);
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
interface InsertOptions {
  month: string;
  refuseWhenDown: boolean;
  notify?: { channel: string; origin: string };
}

/**
 * Stores a document as `pending` (see insertOneDocument). Outside a transaction (`db` is the
 * context's) it goes through the context's sales group commit (DOCUMENT_INSERTS): documents
 * stored at the same moment, from any branch, share one statement and one commit
 * (insertDocuments); it resolves once its document is committed. Inside a transaction (`db` is
 * one) it is the statement of its own.
 */
export function insertDocument(ctx: AppContext, db: Kysely<DB>, doc: NewDocument, options: InsertOptions): Promise<InsertOutcome> {
  if (db.isTransaction) return insertOneDocument(db, doc, options);
  return ctx.members.get(DOCUMENT_INSERTS).insert(doc, options);
}

export async function insertOneDocument(db: Kysely<DB>, doc: NewDocument, options: InsertOptions): Promise<InsertOutcome> {
  const lines = JSON.stringify(doc.lines);
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
      update devices set ${nextNumberSql(doc.salesType)} = ${nextNumberSql(doc.salesType)} + 1
      where id = (select id from state where not (state.down and ${options.refuseWhenDown}::boolean))
      returning id, branch, ${nextNumberSql(doc.salesType)} - 1 as invoice_no
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, ${DOCUMENT_COLUMN_LIST})
      select counter.id, counter.branch, counter.invoice_no, ${documentValues(doc)}
      from counter
      returning *
    ),
    document_lines as (
      insert into ${LINE_INSERT_TARGET}
      select document.id, ${LINE_INPUT_VALUES}
      from document cross join jsonb_to_recordset(${lines}::jsonb) as ${LINE_RECORD}
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select ${doc.tenantId}, ${options.month}, 1 from document where document.sales_type = 'normal'
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, ${issuedByName('document')} as issued_by_name, state.branch as target_branch, state.down as branch_down ${notify}
    from state left join document on true`.execute(db);
  const found = result.rows[0];
  if (!found) return { kind: 'no_device' };
  const { target_branch: branch, branch_down: branchDown, notified: _notified, ...row } = found;
  if (row.id === null) return { kind: 'branch_down', branch };
  return { kind: 'stored', document: { row, branchDown } };
}

/** Documents of one batch at most (a sale's lines travel in the same JSON parameter). */
const MAX_DOCUMENTS_PER_BATCH = 64;

interface PendingInsert {
  doc: NewDocument;
  options: InsertOptions;
}

/**
 * The context's sales group commits, one per notification target (a member: built with the
 * context, closed with it after committing what waits).
 */
class DocumentInserts {
  private readonly batchers = new KeyedGroupCommits<PendingInsert, InsertOutcome>();

  constructor(private readonly db: Kysely<DB>) {}

  insert(doc: NewDocument, options: InsertOptions): Promise<InsertOutcome> {
    const { notify } = options;
    const key = notify ? `${notify.channel}:${notify.origin}` : '';
    const batcher = this.batchers.of(
      key,
      () =>
        new GroupCommit<PendingInsert, InsertOutcome>(
          (items) =>
            batchOrEach(
              items,
              (many) => insertDocuments(this.db, many, notify),
              (one) => insertOneDocument(this.db, one.doc, one.options),
            ),
          { maxBatch: MAX_DOCUMENTS_PER_BATCH },
        ),
    );
    return batcher.submit({ doc, options });
  }

  close(): Promise<void> {
    return this.batchers.close();
  }
}

export const DOCUMENT_INSERTS: ContextMember<DocumentInserts> = {
  name: 'the sales group commit',
  create: (ctx) => new DocumentInserts(ctx.db),
  close: (inserts) => inserts.close(),
};

/** A document as the batch statement reads it (one element of its JSON parameter). */
function batchInput(n: number, { doc, options }: PendingInsert) {
  return {
    n,
    device_id: 'deviceId' in doc.target ? doc.target.deviceId : null,
    branch_header: 'branchHeader' in doc.target ? (doc.target.branchHeader ?? null) : null,
    refuse_when_down: options.refuseWhenDown,
    month: options.month,
    lines: doc.lines,
    ...documentFields(doc),
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
      select * from jsonb_to_recordset(${input}::jsonb) as i(n integer, device_id integer, branch_header text,
        refuse_when_down boolean, month text, lines jsonb, ${DOCUMENT_COLUMN_TYPES})
    ),
    target as (
      -- Each document's device by key: a lateral with a limit is not flattened into a join, whose
      -- generic plan (the JSON's rows estimated at 100) hashes every device once a fleet has some
      -- thousands of them (issue 36: a seq scan of 10,000 devices per statement).
      select i.n, d.id, d.branch
      from input i cross join lateral (
        select d.id, d.branch from devices d
        where i.device_id is not null and d.id = i.device_id and d.tenant_id = i.tenant_id and d.initialized
        union all
        select d.id, d.branch from devices d
        where i.device_id is null and d.tenant_id = i.tenant_id and d.initialized
          and d.branch = coalesce(i.branch_header, ${defaultBranchSql(sql.ref('i.tenant_id'))})
        limit 1
      ) d
    ),
    state as (
      select target.n, target.id, target.branch, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    taking as (
      select state.n, state.id, i.sales_type, row_number() over (partition by state.id, i.sales_type order by state.n) as k
      from state join input i on i.n = state.n
      where not (state.down and i.refuse_when_down)
    ),
    wanted as (
      select id,
        count(*) filter (where sales_type = 'normal')::int as normal,
        count(*) filter (where sales_type = 'training')::int as training,
        count(*) filter (where sales_type = 'proforma')::int as proforma
      from taking group by id
    ),
    locked as (select d.id from devices d where d.id in (select id from wanted) order by d.id for update),
    counter as (
      update devices d set next_invoice_no = d.next_invoice_no + wanted.normal,
        next_training_no = d.next_training_no + wanted.training,
        next_proforma_no = d.next_proforma_no + wanted.proforma
      from wanted
      where d.id = wanted.id and d.id in (select id from locked)
      returning d.id, d.branch, d.next_invoice_no - wanted.normal as first_normal,
        d.next_training_no - wanted.training as first_training, d.next_proforma_no - wanted.proforma as first_proforma
    ),
    placed as (
      select taking.n, taking.id as device_id, counter.branch, taking.sales_type,
        case taking.sales_type when 'training' then counter.first_training when 'proforma' then counter.first_proforma
          else counter.first_normal end + taking.k - 1 as invoice_no
      from taking join counter on counter.id = taking.id
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, ${DOCUMENT_COLUMN_LIST})
      select placed.device_id, placed.branch, placed.invoice_no, ${DOCUMENT_INPUT_VALUES}
      from placed join input i on i.n = placed.n
      -- A branch's documents take their ids in arrival order: its filing order (filing/store.ts).
      order by placed.device_id, placed.n
      returning *
    ),
    document_lines as (
      insert into ${LINE_INSERT_TARGET}
      select document.id, ${LINE_INPUT_VALUES}
      from document
      join placed on placed.device_id = document.device_id and placed.sales_type = document.sales_type and placed.invoice_no = document.invoice_no
      join input i on i.n = placed.n
      cross join jsonb_to_recordset(i.lines) as ${LINE_RECORD}
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select i.tenant_id, i.month, count(*) from placed join input i on i.n = placed.n
      where i.sales_type = 'normal'
      group by i.tenant_id, i.month
      order by i.tenant_id, i.month
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + excluded.documents
    )
    select i.n, state.branch as target_branch, state.down as branch_down, document.*, ${issuedByName('document')} as issued_by_name,
      (select count(pg_notify(${notify?.channel ?? null}::text, woken.device_id::text || ${`:${notify?.origin ?? ''}`}::text))
        from (select distinct device_id from document where ${notify?.channel ?? null}::text is not null) woken) as notified
    from input i
    left join state on state.n = i.n
    left join placed on placed.n = i.n
    left join document on document.device_id = placed.device_id and document.sales_type = placed.sales_type and document.invoice_no = placed.invoice_no
    order by i.n`.execute(db);
  return result.rows.map((found): InsertOutcome => {
    const { n: _n, target_branch: branch, branch_down: branchDown, notified: _notified, ...row } = found;
    if (branch === null) return { kind: 'no_device' };
    if (row.id === null) return { kind: 'branch_down', branch };
    return { kind: 'stored', document: { row, branchDown: branchDown === true } };
  });
}

/** Beside `selectAll()` of `sales`, in a read whose rows become resources: the issuer's name. */
const ISSUED_BY_NAME = issuedByName('sales').as('issued_by_name');

export async function findSale(db: Kysely<DB>, tenantId: number, id: number): Promise<SaleRow | undefined> {
  return (await runPrepared(db, db.selectFrom('sales').selectAll().select(ISSUED_BY_NAME).where('id', '=', id).where('tenant_id', '=', tenantId)))[0];
}

export async function findByReference(db: Kysely<DB>, tenantId: number, reference: string): Promise<SaleRow | undefined> {
  return db.selectFrom('sales').selectAll().select(ISSUED_BY_NAME).where('tenant_id', '=', tenantId).where('reference', '=', reference).executeTakeFirst();
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
export async function listSales(db: Kysely<DB>, tenantId: number, filter: SaleFilter, page: number): Promise<{ rows: SaleRow[]; total: number }> {
  let query = db.selectFrom('sales').where('tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('device_id', '=', filter.deviceId);
  const reference = filter.reference;
  if (reference !== undefined) query = query.where((eb) => eb.or([eb('client_invoice_no', '=', reference), eb('reference', '=', reference)]));
  const statuses = filter.statuses;
  if (statuses !== undefined) query = statuses.length === 1 ? query.where('status', '=', statuses[0]!) : statuses.length === 0 ? query.where(sql<boolean>`false`) : query.where('status', 'in', statuses);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.salesType !== undefined) query = query.where('sales_type', '=', filter.salesType);
  // Written out (not a parameter), so that the generic plan can use the partial sales_tenant_notes.
  if (filter.type !== undefined && filter.type !== 'sale') query = query.where(sql<boolean>`type <> 'sale'`);
  if (filter.occurredFrom !== undefined) query = query.where('occurred_at', '>=', filter.occurredFrom);
  if (filter.occurredBefore !== undefined) query = query.where('occurred_at', '<', filter.occurredBefore);
  const narrowed = statuses !== undefined || filter.type !== undefined || filter.salesType !== undefined || filter.occurredFrom !== undefined || filter.occurredBefore !== undefined;
  const counted = reference !== undefined || narrowed;
  // A lookup by reference (an integrator's "did my sale go through?") runs prepared: its generic
  // plan is the two reference indexes whatever the data. Pages and the other filters are planned
  // per request, for the merchant's share of the table (a generic plan walked the whole table).
  const run = <R>(q: Compilable<R> & { execute(): Promise<R[]> }) => (reference !== undefined && !narrowed ? runPrepared(db, q) : q.execute());
  const [rows, total] = await Promise.all([
    run(query.selectAll().select(ISSUED_BY_NAME).orderBy('id', 'desc').limit(PER_PAGE).offset(offsetOf(page))),
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
 * branch numbers each kind's documents without gaps and never deletes one, so it holds, per kind,
 * its next number minus its first (an index lookup). Counting would grow with the table.
 */
async function documentsOf(db: Kysely<DB>, tenantId: number, deviceId: number | undefined): Promise<number> {
  const result = await sql<{ n: number }>`${prepared}
    select coalesce(sum(
      d.next_invoice_no - coalesce((select min(s.invoice_no) from sales s where s.device_id = d.id and s.sales_type = 'normal'), d.next_invoice_no)
      + d.next_training_no - coalesce((select min(s.invoice_no) from sales s where s.device_id = d.id and s.sales_type = 'training'), d.next_training_no)
      + d.next_proforma_no - coalesce((select min(s.invoice_no) from sales s where s.device_id = d.id and s.sales_type = 'proforma'), d.next_proforma_no)), 0)::bigint as n
    from devices d where d.tenant_id = ${tenantId} ${deviceId === undefined ? sql`` : sql`and d.id = ${deviceId}`}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** The original of a note, locked so that concurrent notes on it are counted one after another. */
export async function lockSale(db: Kysely<DB>, tenantId: number, id: number): Promise<SaleRow | undefined> {
  return db.selectFrom('sales').selectAll().select(ISSUED_BY_NAME).where('id', '=', id).where('tenant_id', '=', tenantId).forUpdate().executeTakeFirst();
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
  return new Map(rows.map((r) => [Number(r.original_line), { quantity: r.quantity, amount: r.amount, discount: r.discount, supply: r.supply, net: r.net, vat: r.vat }]));
}

/** The credit and debit notes issued against a sale, oldest first, whatever their status. */
export async function notesOfSale(db: Kysely<DB>, tenantId: number, saleId: number) {
  return db
    .selectFrom('sales')
    .select(['id', 'type', 'invoice_no', 'sdc_id', 'receipt_no', 'status', 'reason_code', 'total', 'occurred_at', 'issued_by_type', 'issued_by_id', ISSUED_BY_NAME])
    .where('tenant_id', '=', tenantId)
    .where('original_sale_id', '=', saleId)
    .orderBy('id')
    .execute();
}
