// A filing's outcome: the document moved from `pending` to it with its webhook event, the
// branch's lease renewed, in one statement (recordOneOutcome) or one for several branches
// (recordManyOutcomes, its twin), both built from OUTCOME_COLUMNS; FILING_OUTCOMES, the group
// commit that gathers the outcomes recorded at the same moment.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { FiscalReceipt } from '../../../authorities/port/index.ts';
import { NO_OUTCOME, type SaleRow } from '../sales/store.ts';
import { DELIVERIES_NOTICE, eventCtes, eventValues, type EventRow } from '../../kernel/outbox/events.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { batchOrEach, GroupCommit } from '../../../platform/db/group-commit.ts';
import { fromNow, heldBy, renewedOrReleasedSql } from '../../../platform/workers/lease-sql.ts';
import type { ContextMember } from '../../kernel/context.ts';
import { pendingJson, toPending, type PendingDocument, type PendingJson } from './pending-documents.ts';

/** What an outcome sets on a document: every column a filing writes. */
export type OutcomeFields = Pick<
  SaleRow,
  | 'status'
  | 'result_code'
  | 'last_error'
  | 'receipt_no'
  | 'total_receipt_no'
  | 'internal_data'
  | 'receipt_signature'
  | 'sdc_id'
  | 'mrc_no'
  | 'qr_code_url'
  | 'published_at'
>;

export function uploadedFields(receipt: FiscalReceipt & { sdcId: string | null; mrcNo: string | null }): OutcomeFields {
  return {
    status: 'uploaded',
    result_code: '000',
    last_error: null,
    receipt_no: receipt.receiptNo,
    total_receipt_no: receipt.totalReceiptNo ?? null,
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
  total_receipt_no: 'integer',
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
 * transaction) keeps this statement of plain parameters: through the many-outcomes statement one
 * row pays for its jsonb input and per-row joins (docs/decisions.md, "Outcomes: one statement").
 */
export async function recordOneOutcome(
  db: Kysely<DB>,
  sale: SaleRow,
  event: OutcomeEvent,
  options: OutcomeOptions,
): Promise<RecordedOutcome> {
  const row = (await recordOneOutcomeSql(sale, event, options).execute(db)).rows[0]!;
  return { recorded: row.recorded, leaseHeld: row.lease_held, deliveries: row.deliveries, next: toPending(row.next_batch) };
}

/** recordOneOutcome's statement (its text: docs/sql/, `npm run sql`). */
export function recordOneOutcomeSql(sale: SaleRow, event: OutcomeEvent, options: OutcomeOptions) {
  const done = options.next ? sql<boolean>`json_array_length((select batch from next)) = 0` : sql<boolean>`false`;
  const notices = options.notify
    ? sql`, (select pg_notify(${options.notify.channel}, ${options.notify.payload}::text) from outcome) as outcome_notice, ${DELIVERIES_NOTICE}`
    : sql``;
  // Without a lease the holder is null: the branch's row is not written (one statement text either way).
  const holder = sql<string>`${options.lease?.owner ?? null}::text`;
  return sql<OutcomeRow>`${prepared}
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
      (select count(*) from deliveries)::int as deliveries, (select batch from next) as next_batch ${notices}`;
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
  const result = await recordManyOutcomesSql(outcomes).execute(db);
  return result.rows.map((row) => ({
    recorded: row.recorded,
    leaseHeld: row.lease_held,
    deliveries: row.deliveries,
    next: toPending(row.next_batch),
  }));
}

/** recordManyOutcomes' statement (its text: docs/sql/, `npm run sql`). */
export function recordManyOutcomesSql(outcomes: PendingOutcome[]) {
  const input = JSON.stringify(outcomes.map(outcomeInput));
  const done = sql<boolean>`(x.batch_size is not null and json_array_length(x.batch) = 0)`;
  return sql<OutcomeRow & { n: number }>`${prepared}
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
      {
        id: sql`i.event_id`,
        type: sql`i.event_type`,
        partnerId: sql`i.partner_id`,
        tenantId: sql`i.tenant_id`,
        created: sql`i.event_created`,
      },
      sql`i.event_body`,
      sql`from input i join outcome on outcome.id = i.sale_id`,
    )}
    select i.n, exists (select 1 from outcome where outcome.id = i.sale_id) as recorded,
      exists (select 1 from lease where lease.device_id = i.device_id) as lease_held,
      (select count(*) from deliveries where deliveries.event_id = i.event_id)::int as deliveries, x.batch as next_batch,
      case when i.channel is not null and exists (select 1 from outcome where outcome.id = i.sale_id) then pg_notify(i.channel, i.payload) end as outcome_notice
      ${outcomes.some((o) => o.options.notify) ? sql`, ${DELIVERIES_NOTICE}` : sql``}
    from input i join next x on x.n = i.n
    order by i.n`;
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
