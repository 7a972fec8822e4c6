// Storing a document: the one-document statement (insertOneDocument) and its many-document
// twin (insertDocuments), both built from document-columns.ts, and the sales group commit that
// gathers the documents stored at the same moment into one statement (DOCUMENT_INSERTS).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { SalesType } from '../../../platform/db/tables/sales.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { batchOrEach, GroupCommit, KeyedGroupCommits } from '../../../platform/db/group-commit.ts';
import type { AppContext, ContextMember } from '../../kernel/context.ts';
import { defaultBranchSql } from '../../kernel/devices/branch-rule.ts';
import { kindUnits } from '../../../authorities/index.ts';
import {
  DOCUMENT_COLUMN_LIST,
  DOCUMENT_COLUMN_TYPES,
  DOCUMENT_INPUT_VALUES,
  documentFields,
  documentValues,
  LINE_INPUT_VALUES,
  LINE_INSERT_TARGET,
  LINE_RECORD,
  type DocumentTarget,
  type NewDocument,
} from './document-columns.ts';
import { issuedByName, type SaleRow } from './store.ts';

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
  | { kind: 'branch_down'; branch: string }
  /** The branch's unit (its device's `protocol`) files no document of this kind: nothing stored, no number used. */
  | { kind: 'kind_refused'; branch: string; protocol: string };

/**
 * The initialised device a document goes to: X-Branch's, else the branch rule's SQL form
 * (kernel/devices/branch-rule.ts). No row when none applies (the caller says why).
 */
function targetDevice(tenantId: number, target: DocumentTarget) {
  if ('deviceId' in target)
    return sql`select id, branch, protocol from devices where id = ${target.deviceId} and tenant_id = ${tenantId} and initialized`;
  const named = target.branchHeader !== undefined ? sql`${target.branchHeader}::text` : defaultBranchSql(sql`${tenantId}`);
  return sql`select id, branch, protocol from devices where tenant_id = ${tenantId} and initialized and branch = ${named}`;
}

/** The devices column that holds the next number of a kind's sequence. */
const NEXT_NUMBER_COLUMN: Record<SalesType, string> = {
  normal: 'next_invoice_no',
  training: 'next_training_no',
  proforma: 'next_proforma_no',
};

/** `a,b`: a list of protocols as one text parameter (the statement splits it), the same text in both statements. */
const protocolList = (protocols: readonly string[]): string => protocols.join(',');

/**
 * How the one-document statement numbers a document: whether the target's unit files its kind
 * (`ok`, over `target`), the counter columns it advances and the number it takes (over the
 * updated `devices` row). A normal document: every unit files it, from `next_invoice_no`. A
 * training or proforma one: only the units whose profile files the kind take it, and a unit
 * whose kinds share one sequence numbers it from `next_invoice_no`, another from its kind's own.
 */
function numberingSql(doc: NewDocument) {
  const own = sql.ref(NEXT_NUMBER_COLUMN[doc.salesType]);
  if (doc.salesType === 'normal') return { ok: sql`true`, advance: sql`${own} = ${own} + 1`, taken: sql`${own} - 1` };
  const units = kindUnits(doc.authority, doc.salesType);
  const shares = sql`protocol = any(string_to_array(${protocolList(units.shareSequence)}::text, ','))`;
  return {
    ok: sql`target.protocol = any(string_to_array(${protocolList(units.files)}::text, ','))`,
    advance: sql`next_invoice_no = next_invoice_no + (${shares})::int, ${own} = ${own} + (not ${shares})::int`,
    taken: sql`case when ${shares} then next_invoice_no else ${own} end - 1`,
  };
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
  const found = (await insertOneDocumentSql(doc, options).execute(db)).rows[0];
  if (!found) return { kind: 'no_device' };
  const { target_branch: branch, target_protocol: protocol, kind_ok: kindOk, branch_down: branchDown, notified: _notified, ...row } = found;
  if (!kindOk) return { kind: 'kind_refused', branch, protocol };
  if (row.id === null) return { kind: 'branch_down', branch };
  return { kind: 'stored', document: { row, branchDown } };
}

/** insertOneDocument's statement (its text: docs/sql/, `npm run sql`). */
export function insertOneDocumentSql(doc: NewDocument, options: InsertOptions) {
  const lines = JSON.stringify(doc.lines);
  // The payload names the device, known only inside the statement.
  const notify = options.notify
    ? sql`, case when document.id is not null then pg_notify(${options.notify.channel}, document.device_id::text || ${`:${options.notify.origin}`}::text) end as notified`
    : sql``;
  const numbering = numberingSql(doc);
  // Beside the stored row (all null when nothing was stored): the branch, its unit, whether that
  // files the document's kind and whether the branch is down.
  return sql<
    SaleRow & { target_branch: string; target_protocol: string; kind_ok: boolean; branch_down: boolean; notified?: unknown }
  >`${prepared}
    with target as (${targetDevice(doc.tenantId, doc.target)}),
    state as (
      select target.id, target.branch, target.protocol, ${numbering.ok} as kind_ok, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set ${numbering.advance}
      where id = (select id from state where state.kind_ok and not (state.down and ${options.refuseWhenDown}::boolean))
      returning id, branch, ${numbering.taken} as invoice_no
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
    select document.*, ${issuedByName('document')} as issued_by_name, state.branch as target_branch, state.protocol as target_protocol,
      state.kind_ok, state.down as branch_down ${notify}
    from state left join document on true`;
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
  const units = doc.salesType === 'normal' ? null : kindUnits(doc.authority, doc.salesType);
  return {
    n,
    kind_units: units && protocolList(units.files),
    shared_units: units && protocolList(units.shareSequence),
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
  const result = await insertDocumentsSql(items, notify).execute(db);
  return result.rows.map((found): InsertOutcome => {
    const {
      n: _n,
      target_branch: branch,
      target_protocol: protocol,
      kind_ok: kindOk,
      branch_down: branchDown,
      notified: _notified,
      ...row
    } = found;
    if (branch === null) return { kind: 'no_device' };
    if (kindOk === false) return { kind: 'kind_refused', branch, protocol: protocol! };
    if (row.id === null) return { kind: 'branch_down', branch };
    return { kind: 'stored', document: { row, branchDown: branchDown === true } };
  });
}

/** insertDocuments' statement (its text: docs/sql/, `npm run sql`). */
export function insertDocumentsSql(items: PendingInsert[], notify: InsertOptions['notify']) {
  const input = JSON.stringify(items.map((item, n) => batchInput(n, item)));
  return sql<
    SaleRow & {
      n: number;
      target_branch: string | null;
      target_protocol: string | null;
      kind_ok: boolean | null;
      branch_down: boolean | null;
      notified: unknown;
    }
  >`${prepared}
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as i(n integer, device_id integer, branch_header text,
        kind_units text, shared_units text, refuse_when_down boolean, month text, lines jsonb, ${DOCUMENT_COLUMN_TYPES})
    ),
    target as (
      -- Each document's device by key: a lateral with a limit is not flattened into a join, whose
      -- generic plan (the JSON's rows estimated at 100) hashes every device once a fleet has some
      -- thousands of them (a seq scan of 10,000 devices per statement).
      select i.n, d.id, d.branch, d.protocol
      from input i cross join lateral (
        select d.id, d.branch, d.protocol from devices d
        where i.device_id is not null and d.id = i.device_id and d.tenant_id = i.tenant_id and d.initialized
        union all
        select d.id, d.branch, d.protocol from devices d
        where i.device_id is null and d.tenant_id = i.tenant_id and d.initialized
          and d.branch = coalesce(i.branch_header, ${defaultBranchSql(sql.ref('i.tenant_id'))})
        limit 1
      ) d
    ),
    -- A training or proforma document: only the units (protocols) in kind_units file it, and those
    -- in shared_units number it from the normal sequence (a normal document: null, every unit, its own).
    state as (
      select target.n, target.id, target.branch, target.protocol,
        i.kind_units is null or target.protocol = any(string_to_array(i.kind_units, ',')) as kind_ok,
        case when target.protocol = any(string_to_array(coalesce(i.shared_units, ''), ',')) then 'normal' else i.sales_type end as sequence,
        exists (
          select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
        ) as down
      from target join input i on i.n = target.n
    ),
    taking as (
      select state.n, state.id, i.sales_type, state.sequence, row_number() over (partition by state.id, state.sequence order by state.n) as k
      from state join input i on i.n = state.n
      where state.kind_ok and not (state.down and i.refuse_when_down)
    ),
    wanted as (
      select id,
        count(*) filter (where sequence = 'normal')::int as normal,
        count(*) filter (where sequence = 'training')::int as training,
        count(*) filter (where sequence = 'proforma')::int as proforma
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
        case taking.sequence when 'training' then counter.first_training when 'proforma' then counter.first_proforma
          else counter.first_normal end + taking.k - 1 as invoice_no
      from taking join counter on counter.id = taking.id
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, ${DOCUMENT_COLUMN_LIST})
      select placed.device_id, placed.branch, placed.invoice_no, ${DOCUMENT_INPUT_VALUES}
      from placed join input i on i.n = placed.n
      -- A branch's documents take their ids in arrival order: its filing order (filing/pending-documents.ts).
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
    select i.n, state.branch as target_branch, state.protocol as target_protocol, state.kind_ok, state.down as branch_down,
      document.*, ${issuedByName('document')} as issued_by_name,
      (select count(pg_notify(${notify?.channel ?? null}::text, woken.device_id::text || ${`:${notify?.origin ?? ''}`}::text))
        from (select distinct device_id from document where ${notify?.channel ?? null}::text is not null) woken) as notified
    from input i
    left join state on state.n = i.n
    left join placed on placed.n = i.n
    left join document on document.device_id = placed.device_id and document.sales_type = placed.sales_type and document.invoice_no = placed.invoice_no
    order by i.n`;
}
