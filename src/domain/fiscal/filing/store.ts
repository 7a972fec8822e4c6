// The filing queue is the sales table itself (status `pending`); this adds one row per branch
// in `filing_queues` for its lease (who files it now) and its backoff (when to try again).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityDevice, AuthorityProfileId, FiscalReceipt } from '../../../authorities/port/index.ts';
import { BRANCHES_WITH_BACKLOG_CTE, issuedByName, NO_OUTCOME, type SaleLineRow, type SaleRow } from '../sales/store.ts';
import { DELIVERIES_NOTICE, eventCtes, eventValues, type EventRow } from '../../kernel/outbox/events.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { batchOrEach, GroupCommit } from '../../../platform/db/group-commit.ts';
import { fromNow, heldBy, isDue, isFree, isFreeOrHeldBy, leased, leasedInsertSql, released, releasedSql, renewedOrReleasedSql } from '../../../platform/workers/lease-sql.ts';
import type { ContextMember } from '../../kernel/context.ts';

/**
 * Branches with pending documents that nobody leases and whose backoff has passed.
 *
 * One row per branch, not per document (issue 36: a national backlog is 100,000s of documents): the
 * branches with a backlog come from BRANCHES_WITH_BACKLOG_CTE, and each one's queue row is looked
 * up by its key (a scalar subquery, so the planner cannot turn it into a
 * scan of every queue row); the walk stops at `limit` ready branches.
 */
export async function branchesReady(db: Kysely<DB>, owner: string, limit: number): Promise<number[]> {
  const result = await sql<{ device_id: number }>`
    with recursive ${BRANCHES_WITH_BACKLOG_CTE}
    select b.device_id from backlog b
    where b.device_id is not null
      and coalesce((select ${isFreeOrHeldBy('filing_queues', owner, 'q')} and ${isDue('filing_queues', 'q')} from filing_queues q where q.device_id = b.device_id), true)
    limit ${limit}`.execute(db);
  return result.rows.map((r) => Number(r.device_id));
}

export interface BranchTarget {
  deviceId: number;
  /** Which adapter files for the branch (its tenant's authority and its protocol). */
  profile: AuthorityProfileId;
  baseUrl: string;
  branch: string;
  sdcId: string | null;
  mrcNo: string | null;
  tenantId: number;
  partnerId: number | null;
}

export interface PendingDocument {
  row: SaleRow;
  lines: SaleLineRow[];
}

export interface ClaimedBranch {
  /** The current backoff (null while the VSDC answers). */
  retryDelayMs: number | null;
  target: BranchTarget;
  /** The first pending documents, in invoice order. */
  batch: PendingDocument[];
}

/**
 * The branch's next pending documents (stored after document `after`, an id) with their lines, as
 * one json array in the order the branch stored them: its ids, which the counter row's lock hands
 * out in invoice order within each kind (normal, training, proforma; sales/store.ts).
 */
function pendingJson(deviceId: number | RawBuilder<number>, limit: number | RawBuilder<number>, after: number | RawBuilder<number> = 0) {
  return sql<PendingJson[]>`coalesce((
    select json_agg(p order by p.id) from (
      select s.*, ${issuedByName('s')} as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = ${deviceId} and s.status = 'pending' and s.id > ${after}
      order by s.id
      limit ${limit}) p), '[]'::json)`;
}

/** A sales row as json_agg renders it: timestamps as text, numerics as numbers. */
type PendingJson = Omit<SaleRow, 'occurred_at' | 'created_at' | 'updated_at' | 'published_at' | 'net' | 'vat' | 'total'> & {
  occurred_at: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  net: number | string;
  vat: number | string;
  total: number | string;
  lines: SaleLineRow[];
};

function toPending(docs: PendingJson[]): PendingDocument[] {
  return docs.map(({ lines, ...row }) => ({
    row: {
      ...row,
      occurred_at: new Date(row.occurred_at),
      created_at: new Date(row.created_at),
      updated_at: new Date(row.updated_at),
      published_at: row.published_at === null ? null : new Date(row.published_at),
      net: String(row.net),
      vat: String(row.vat),
      total: String(row.total),
    },
    lines,
  }));
}

/**
 * Takes the leases of those branches that are free and past their backoff (creating their rows
 * on first use), and in the same statement reads where to file each and its first pending
 * documents. Rows are locked in device order, so processes claiming overlapping sets never
 * deadlock; two processes claiming one branch serialise on its row and only one gets it. The
 * branches not claimed are missing from the answer.
 *
 * A branch another process holds (as this statement's snapshot sees it) is not even tried: its
 * row may be locked by that process's open outcome transaction (the outcomes' group commit keeps
 * several branches' rows locked until its one commit), and waiting on it would queue every
 * claimer behind every other process's commits. Nothing is lost by skipping it: the holder hears
 * the same wake-up and looks for that branch's next documents when its turn ends.
 */
export async function claimBranches(db: Kysely<DB>, deviceIds: readonly number[], owner: string, leaseMs: number, batchSize: number): Promise<Map<number, ClaimedBranch>> {
  const ids = [...new Set(deviceIds)].sort((a, b) => a - b);
  const lease = leasedInsertSql('filing_queues', { holder: owner, ms: leaseMs });
  const result = await sql<{
    device_id: number;
    retry_delay_ms: number | null;
    vsdc_base_url: string;
    branch: string;
    sdc_id: string | null;
    mrc_no: string | null;
    tenant_id: number;
    partner_id: number | null;
    batch: PendingJson[];
    authority: string;
    protocol: string;
  }>`${prepared}
    with claim as (
      insert into filing_queues (device_id, ${lease.columns}, next_attempt_at)
      select wanted.id, ${lease.values}, now()
      from unnest(${ids}::int[]) with ordinality as wanted(id, n)
      where not exists (select 1 from filing_queues held where held.device_id = wanted.id and not (${isFreeOrHeldBy('filing_queues', owner, 'held')} and ${isDue('filing_queues', 'held')}))
      order by wanted.n
      on conflict (device_id) do update set ${lease.fromExcluded}, updated_at = now()
      where ${isFreeOrHeldBy('filing_queues', owner, 'filing_queues')} and ${isDue('filing_queues', 'filing_queues')}
      returning device_id, retry_delay_ms
    )
    select claim.device_id, claim.retry_delay_ms, d.vsdc_base_url, d.branch, d.sdc_id, d.mrc_no, t.id as tenant_id, t.partner_id, t.authority, d.protocol,
      ${pendingJson(sql<number>`claim.device_id`, batchSize)} as batch
    from claim join devices d on d.id = claim.device_id join tenants t on t.id = d.tenant_id`.execute(db);
  const claimed = new Map<number, ClaimedBranch>();
  for (const row of result.rows) {
    const deviceId = Number(row.device_id);
    claimed.set(deviceId, {
      retryDelayMs: row.retry_delay_ms,
      target: { deviceId, profile: profileOf(row.authority, row.protocol), baseUrl: row.vsdc_base_url, branch: row.branch, sdcId: row.sdc_id, mrcNo: row.mrc_no, tenantId: row.tenant_id, partnerId: row.partner_id },
      batch: toPending(row.batch),
    });
  }
  return claimed;
}

/**
 * The branch's next pending documents; when there are none, the lease is released in the same
 * statement. (A document stored just after is announced by its own wake-up.)
 */
export async function nextBatchOrRelease(db: Kysely<DB>, deviceId: number, owner: string, batchSize: number): Promise<PendingDocument[]> {
  const result = await sql<{ batch: PendingJson[] }>`${prepared}
    with next as (select ${pendingJson(deviceId, batchSize)} as batch),
    released as (
      update filing_queues set ${releasedSql('filing_queues')}, updated_at = now()
      where device_id = ${deviceId} and ${heldBy('filing_queues', owner)} and json_array_length((select batch from next)) = 0
    )
    select batch from next`.execute(db);
  return toPending(result.rows[0]?.batch ?? []);
}

/** Extends the lease; false when another process holds it now. */
export async function renewLease(db: Kysely<DB>, deviceId: number, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('filing_queues')
    .set({ ...leased('filing_queues', { ms: leaseMs }), updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('filing_queues', owner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Extends the leases `owner` holds on these branches, in one statement (the worker's heartbeat:
 * a branch waiting for a VSDC host slot or a slow VSDC records no outcome to renew it by).
 */
export async function renewLeases(db: Kysely<DB>, deviceIds: readonly number[], owner: string, leaseMs: number): Promise<number> {
  if (deviceIds.length === 0) return 0;
  const result = await db
    .updateTable('filing_queues')
    .set({ ...leased('filing_queues', { ms: leaseMs }), updated_at: sql`now()` })
    .where(sql<boolean>`device_id = any(${[...deviceIds]}::int[])`)
    .where(heldBy('filing_queues', owner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function releaseBranch(db: Kysely<DB>, deviceId: number, owner: string): Promise<void> {
  await db
    .updateTable('filing_queues')
    .set({ ...released('filing_queues'), updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('filing_queues', owner))
    .execute();
}

/** The VSDC did not answer: release the branch until `delayMs` from now and grow the backoff. */
export async function deferBranch(db: Kysely<DB>, deviceId: number, owner: string, delayMs: number, nextDelayMs: number, error: string): Promise<void> {
  await db
    .updateTable('filing_queues')
    .set({
      ...released('filing_queues'),
      next_attempt_at: fromNow(delayMs),
      retry_delay_ms: nextDelayMs,
      last_error: error.slice(0, 1000),
      updated_at: sql`now()`,
    })
    .where('device_id', '=', deviceId)
    .where(heldBy('filing_queues', owner))
    .execute();
}


/**
 * The VSDC addresses with branches in backoff that were not probed in the last `intervalMs`, each
 * with the branch there probed longest ago (so the branches of an address take turns, should
 * one of them fail for reasons of its own); that branch is marked probed in the same statement.
 * Two processes may rarely probe one address in the same interval; a probe only reads. The
 * update finds its rows by key (`= any(array(…))`): as a join, its plan read every queue row to
 * mark the few probed (issue 36).
 */
/** Each: one branch of a VSDC address whose branches are in backoff, what a probe of that address calls. */
export async function claimProbes(db: Kysely<DB>, intervalMs: number): Promise<AuthorityDevice[]> {
  const result = await sql<{ vsdc_base_url: string; tpin: string; branch: string; authority: string; protocol: string }>`
    with backed_off as (
      select q.device_id, q.probed_at, d.vsdc_base_url, d.branch, d.tenant_id, d.protocol
      from filing_queues q join devices d on d.id = q.device_id
      where q.retry_delay_ms is not null and not ${isDue('filing_queues', 'q')} and ${isFree('filing_queues', 'q')}
    ),
    due as (
      select distinct on (b.vsdc_base_url) b.device_id, b.vsdc_base_url, b.branch, b.tenant_id, b.protocol
      from backed_off b
      where not exists (
        select 1 from backed_off recent
        where recent.vsdc_base_url = b.vsdc_base_url and recent.probed_at > now() - make_interval(secs => ${intervalMs / 1000}))
      order by b.vsdc_base_url, b.probed_at nulls first, b.device_id
    ),
    probed as (
      update filing_queues q set probed_at = now()
      where q.device_id = any(array(select due.device_id from due)) and q.retry_delay_ms is not null
      returning q.device_id)
    select due.vsdc_base_url, t.tpin, due.branch, t.authority, due.protocol
    from due join probed on probed.device_id = due.device_id join tenants t on t.id = due.tenant_id`.execute(db);
  return result.rows.map((r) => ({ profile: profileOf(r.authority, r.protocol), baseUrl: r.vsdc_base_url, tpin: r.tpin, branch: r.branch }));
}

/**
 * The VSDC at `baseUrl` answers again: every branch there that waits out a backoff is due now
 * (its backoff length is kept until a document is filed). Returns those branches.
 */
export async function wakeAddress(db: Kysely<DB>, baseUrl: string): Promise<number[]> {
  const result = await sql<{ device_id: number }>`
    update filing_queues q set next_attempt_at = now()
    from devices d
    where d.id = q.device_id and d.vsdc_base_url = ${baseUrl} and q.retry_delay_ms is not null and not ${isDue('filing_queues', 'q')}
    returning q.device_id`.execute(db);
  return result.rows.map((r) => Number(r.device_id));
}

/** Embedded database: one process only, so any lease found at start-up was left by a crash. */
export async function clearLeases(db: Kysely<DB>): Promise<void> {
  await db.updateTable('filing_queues').set(released('filing_queues')).where('lease_owner', 'is not', null).execute();
}

/** What an outcome sets on a document: every column a filing writes. */
export type OutcomeFields = Pick<
  SaleRow,
  'status' | 'result_code' | 'last_error' | 'receipt_no' | 'internal_data' | 'receipt_signature' | 'sdc_id' | 'mrc_no' | 'qr_code_url' | 'published_at'
>;

export function uploadedFields(receipt: FiscalReceipt & { sdcId: string | null; mrcNo: string | null }): OutcomeFields {
  return {
    status: 'uploaded',
    result_code: '000',
    last_error: null,
    receipt_no: receipt.receiptNo,
    internal_data: receipt.internalData,
    receipt_signature: receipt.receiptSignature,
    sdc_id: receipt.sdcId,
    mrc_no: receipt.mrcNo,
    qr_code_url: receipt.qrCodeUrl,
    published_at: receipt.publishedAt,
  };
}

export function failedFields(resultCode: string | null, lastError: string): OutcomeFields {
  return { ...NO_OUTCOME, status: 'failed', result_code: resultCode, last_error: lastError.slice(0, 2000) };
}

/** The outcome's webhook event: its row and its body (the envelope with the sale as recorded). */
interface OutcomeEvent {
  row: EventRow;
  body: string;
}

/**
 * What an outcome may do to the branch's filing lease besides recording the document (the
 * document itself is written only while it is `pending`, whoever records it).
 * - `lease`: the filer's: the branch's lease, held by `owner`, is renewed for `leaseMs` (or,
 *   with `next` and nothing following, given back) and its backoff cleared (the VSDC answered);
 *   without the lease (another process holds it now) nothing of the branch is written.
 * - null: the branch's lease and backoff are neither taken nor touched (reconciliation adopting
 *   a document whose filing reply was lost).
 */
export interface OutcomeLease {
  owner: string;
  leaseMs: number;
}

export interface OutcomeOptions {
  lease: OutcomeLease | null;
  /** PostgreSQL: announce the outcome (and the new deliveries) at commit, on `channel`. */
  notify?: { channel: string; payload: string };
  /** Also read the branch's pending documents after this one (with `lease`: none left gives the branch back). */
  next?: { batchSize: number };
}

export interface RecordedOutcome {
  /** False when the document was no longer pending (another filer recorded it): nothing was written. */
  recorded: boolean;
  /** False when another process holds the branch's lease now (always false without `lease`). */
  leaseHeld: boolean;
  deliveries: number;
  /** With `next`: the following pending documents; empty means the branch was given back. */
  next: PendingDocument[];
}

/**
 * The columns of `sales` an outcome writes, with their SQL types: every OutcomeFields column
 * and `updated_at`. Both outcome statements are built from this one list, once: recordOneOutcome
 * binds each value as a parameter, recordManyOutcomes reads each from its json input as that type.
 */
const OUTCOME_COLUMNS = {
  status: 'text',
  result_code: 'text',
  last_error: 'text',
  receipt_no: 'bigint',
  internal_data: 'text',
  receipt_signature: 'text',
  sdc_id: 'text',
  mrc_no: 'text',
  qr_code_url: 'text',
  published_at: 'timestamptz',
  updated_at: 'timestamptz',
} as const satisfies { [C in keyof OutcomeFields | 'updated_at']: string };

const OUTCOME_COLUMN_NAMES = Object.keys(OUTCOME_COLUMNS) as Array<keyof typeof OUTCOME_COLUMNS>;
/** `status = `, `result_code = `, …: the set list's heads, each followed by the bound value. */
const OUTCOME_SET_HEADS = OUTCOME_COLUMN_NAMES.map((c) => sql.raw(`${c} = `));
/** `status = i.status, …` */
const OUTCOME_SET_FROM_INPUT = sql.raw(OUTCOME_COLUMN_NAMES.map((c) => `${c} = i.${c}`).join(', '));
/** `status text, …` (a record definition for jsonb_to_recordset) */
const OUTCOME_COLUMN_TYPES = sql.raw(OUTCOME_COLUMN_NAMES.map((c) => `${c} ${OUTCOME_COLUMNS[c]}`).join(', '));

/** The outcome's set list with `sale`'s values bound (recordOneOutcome). */
function outcomeSet(sale: SaleRow) {
  return sql.join(OUTCOME_COLUMN_NAMES.map((c, i) => sql`${OUTCOME_SET_HEADS[i]!}${sale[c]}`));
}

/** The lease's set list: renewed until `until`, or given back when `release`; the backoff cleared (the VSDC answered). */
function leaseSet(release: RawBuilder<boolean>, until: RawBuilder<Date>) {
  return sql`${renewedOrReleasedSql('filing_queues', release, until)}, retry_delay_ms = null, last_error = null, updated_at = now()`;
}

/** The outcome statement's one row; `recorded` is false when the document was no longer pending. */
interface OutcomeRow {
  recorded: boolean;
  lease_held: boolean;
  deliveries: number;
  next_batch: PendingJson[];
}

/**
 * Records a filing in ONE statement: moves the still-pending document to its outcome (`sale`:
 * the document as it is to be stored, outcome and `updated_at` included), stores its webhook
 * event and queues the deliveries (so the outcome and its event commit together), extends the
 * branch's lease and clears its backoff (the VSDC answered), and with `next` reads the branch's
 * following documents, giving the branch back when there are none. The outcomes' statement,
 * recordManyOutcomes, does the same for several; a lone outcome (one branch filing, a caller's
 * transaction) keeps this statement of plain parameters: through the many-outcomes statement it
 * cost a branch filing alone about a tenth of its peak (273 against 290–306 sales/s: its jsonb
 * input and per-row joins are paid for one row).
 */
export async function recordOneOutcome(db: Kysely<DB>, sale: SaleRow, event: OutcomeEvent, options: OutcomeOptions): Promise<RecordedOutcome> {
  const done = options.next ? sql<boolean>`json_array_length((select batch from next)) = 0` : sql<boolean>`false`;
  const notices = options.notify
    ? sql`, (select pg_notify(${options.notify.channel}, ${options.notify.payload}::text) from outcome) as outcome_notice, ${DELIVERIES_NOTICE}`
    : sql``;
  // Without a lease the holder is null: the branch's row is not written (one statement text either way).
  const holder = sql<string>`${options.lease?.owner ?? null}::text`;
  const result = await sql<OutcomeRow>`${prepared}
    with next as (select ${options.next ? pendingJson(sale.device_id, options.next.batchSize, Number(sale.id)) : sql`'[]'::json`} as batch),
    lease as (
      update filing_queues set ${leaseSet(done, fromNow(options.lease?.leaseMs ?? 0))}
      where device_id = ${sale.device_id} and ${holder} is not null and ${heldBy('filing_queues', holder)}
      returning device_id
    ),
    outcome as (
      update sales set ${outcomeSet(sale)}
      where id = ${sale.id} and status = 'pending'
      returning id
    ),
    ${eventCtes(eventValues(event.row), sql`${event.body}::text`, sql`from outcome`)}
    select exists (select 1 from outcome) as recorded, exists (select 1 from lease) as lease_held,
      (select count(*) from deliveries)::int as deliveries, (select batch from next) as next_batch ${notices}`.execute(db);
  const row = result.rows[0]!;
  return { recorded: row.recorded, leaseHeld: row.lease_held, deliveries: row.deliveries, next: toPending(row.next_batch) };
}

interface PendingOutcome {
  sale: SaleRow;
  event: OutcomeEvent;
  options: OutcomeOptions;
}

/** One outcome as the many-outcomes statement reads it (jsonb_to_recordset). */
function outcomeInput({ sale, event, options }: PendingOutcome, n: number) {
  return {
    n,
    sale_id: sale.id,
    device_id: sale.device_id,
    owner: options.lease?.owner ?? null,
    lease_ms: options.lease?.leaseMs ?? null,
    batch_size: options.next?.batchSize ?? null,
    after_id: sale.id,
    ...Object.fromEntries(OUTCOME_COLUMN_NAMES.map((c) => [c, sale[c]])),
    event_id: event.row.id,
    event_type: event.row.type,
    partner_id: event.row.partnerId,
    tenant_id: event.row.tenantId,
    event_created: event.row.created,
    event_body: event.body,
    channel: options.notify?.channel ?? null,
    payload: options.notify?.payload ?? null,
  };
}

/**
 * Records filings of DIFFERENT branches in ONE statement (one round trip, one commit): for each,
 * what recordOneOutcome does, answered on its own row. The outcomes' group commit.
 */
export async function recordManyOutcomes(db: Kysely<DB>, outcomes: PendingOutcome[]): Promise<RecordedOutcome[]> {
  const input = JSON.stringify(outcomes.map(outcomeInput));
  const done = sql<boolean>`(x.batch_size is not null and json_array_length(x.batch) = 0)`;
  const result = await sql<OutcomeRow & { n: number }>`${prepared}
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as i(n integer, sale_id bigint, device_id integer, owner text,
        lease_ms double precision, batch_size integer, after_id bigint, ${OUTCOME_COLUMN_TYPES}, event_id text, event_type text,
        partner_id integer, tenant_id integer, event_created timestamptz, event_body text, channel text, payload text)
    ),
    next as (
      select i.n, i.device_id, i.owner, i.lease_ms, i.batch_size,
        case when i.batch_size is null then '[]'::json
          else ${pendingJson(sql<number>`i.device_id`, sql<number>`i.batch_size`, sql<number>`i.after_id`)} end as batch
      from input i
    ),
    lease as (
      update filing_queues set ${leaseSet(done, fromNow(sql<number>`x.lease_ms`))}
      from next x
      where filing_queues.device_id = x.device_id and x.owner is not null and ${heldBy('filing_queues', sql<string>`x.owner`, 'filing_queues')}
      returning filing_queues.device_id
    ),
    outcome as (
      update sales set ${OUTCOME_SET_FROM_INPUT}
      from input i
      where sales.id = i.sale_id and sales.status = 'pending'
      returning sales.id
    ),
    ${eventCtes(
      { id: sql`i.event_id`, type: sql`i.event_type`, partnerId: sql`i.partner_id`, tenantId: sql`i.tenant_id`, created: sql`i.event_created` },
      sql`i.event_body`,
      sql`from input i join outcome on outcome.id = i.sale_id`,
    )}
    select i.n, exists (select 1 from outcome where outcome.id = i.sale_id) as recorded,
      exists (select 1 from lease where lease.device_id = i.device_id) as lease_held,
      (select count(*) from deliveries where deliveries.event_id = i.event_id)::int as deliveries, x.batch as next_batch,
      case when i.channel is not null and exists (select 1 from outcome where outcome.id = i.sale_id) then pg_notify(i.channel, i.payload) end as outcome_notice
      ${outcomes.some((o) => o.options.notify) ? sql`, ${DELIVERIES_NOTICE}` : sql``}
    from input i join next x on x.n = i.n
    order by i.n`.execute(db);
  return result.rows.map((row) => ({ recorded: row.recorded, leaseHeld: row.lease_held, deliveries: row.deliveries, next: toPending(row.next_batch) }));
}

/** Outcomes of one commit at most. */
const MAX_OUTCOMES_PER_COMMIT = 64;
/**
 * Outcome statements at once when full batches wait: a fleet's answers from a slow VSDC arrive
 * in bursts of a thousand, which one statement at a time records in sixteen turns while every
 * branch of the burst waits to send its next document. Four of the pool's ten connections.
 */
const PARALLEL_OUTCOME_COMMITS = 4;

/**
 * Records a filing (recordOneOutcome) through the context's outcomes group commit
 * (FILING_OUTCOMES, used by filing/outcome.ts): outcomes recorded at the same moment by the filers
 * of different branches are recorded by one statement (recordManyOutcomes), one commit for all
 * of them; it resolves once its outcome is committed. Should that statement fail for a reason in
 * the data (a deadlock with another process, say), each outcome is recorded again on its own, so
 * one cannot fail the others. Two outcomes of one branch never share a statement (a branch's
 * filer records one at a time; should they meet, the batch is recorded one by one).
 */
class OutcomeRecorder {
  private readonly batcher: GroupCommit<PendingOutcome, RecordedOutcome>;

  constructor(private readonly db: Kysely<DB>) {
    const one = (o: PendingOutcome) => recordOneOutcome(db, o.sale, o.event, o.options);
    this.batcher = new GroupCommit<PendingOutcome, RecordedOutcome>(
      (items) =>
        batchOrEach(
          items,
          async (many) => {
            if (new Set(many.map((o) => o.sale.device_id)).size < many.length) {
              const each: RecordedOutcome[] = [];
              for (const o of many) each.push(await one(o));
              return each;
            }
            return recordManyOutcomes(db, many);
          },
          one,
        ),
      { maxBatch: MAX_OUTCOMES_PER_COMMIT, parallel: PARALLEL_OUTCOME_COMMITS },
    );
  }

  record(sale: SaleRow, event: OutcomeEvent, options: OutcomeOptions): Promise<RecordedOutcome> {
    return this.batcher.submit({ sale, event, options });
  }

  close(): Promise<void> {
    return this.batcher.close();
  }
}

export const FILING_OUTCOMES: ContextMember<OutcomeRecorder> = {
  name: 'the filing outcomes group commit',
  create: (ctx) => new OutcomeRecorder(ctx.db),
  close: (recorder) => recorder.close(),
};
