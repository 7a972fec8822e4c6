// Recording a document's outcome: the one use case the filer (a VSDC answer to its filing) and
// reconciliation (adopting a document whose filing reply was lost) share. In one statement the
// document moves from `pending` to its outcome with its webhook event and deliveries (they commit
// together, or not at all); then the delivery workers are woken, and the request waiting for the
// document is handed the recorded row (in this process) or told by a notification at commit (in
// the others, PostgreSQL).
import type { AppContext } from '../../kernel/context.ts';
import { eventRow, serialiseEnvelope, wakeDeliveryWorkers, type InvoiceEventType } from '../../kernel/outbox/events.ts';
import { presentLineRow, presentSale } from '../sales/present.ts';
import { OUTCOME_CHANNEL, saleSignals, signalPayload } from '../signals/sale-signals.ts';
import type { SaleLineRow, SaleRow } from '../sales/store.ts';
import { FILING_OUTCOMES, type OutcomeFields, type OutcomeLease, type RecordedOutcome } from './outcome-store.ts';

interface DocumentOutcome {
  /** The document as read while pending, and its lines (for the event's body). */
  row: SaleRow;
  lines: SaleLineRow[];
  type: InvoiceEventType;
  fields: OutcomeFields;
  partnerId: number | null;
  /**
   * The filer's lease on the branch (renewed, or given back with `next` when nothing follows;
   * the backoff cleared), or null: the branch's lease and backoff are neither taken nor touched.
   * Either way the document is written only while it is still `pending`, so an outcome recorded
   * by someone else at the same moment is never overwritten and its event fires once.
   */
  lease: OutcomeLease | null;
  /** Also read the branch's pending documents after this one. */
  next?: { batchSize: number };
}

interface RecordedDocumentOutcome extends RecordedOutcome {
  /** The document as recorded (when `recorded`). */
  sale: SaleRow;
}

/**
 * Records the outcome. It is stamped with the application clock, so the document as recorded,
 * its event's body and the other processes' notification are all built here, once; the waiting
 * request of this process gets the recorded row handed over (and when that is the request that
 * stored the document, the other processes are not notified: nobody there waits for it but,
 * rarely, a replay, which reads the row).
 */
export async function recordDocumentOutcome(ctx: AppContext, outcome: DocumentOutcome): Promise<RecordedDocumentOutcome> {
  const saleId = Number(outcome.row.id);
  const notifier = ctx.database.notifier;
  const signals = saleSignals(ctx);
  const notifyOthers = notifier.notifiesInStatements && !signals.storingRequestWaitsHere(saleId);
  const recordedAt = ctx.clock.now();
  const sale: SaleRow = { ...outcome.row, ...outcome.fields, updated_at: recordedAt };
  const row = eventRow({ type: outcome.type, partnerId: outcome.partnerId, tenantId: sale.tenant_id, created: recordedAt });
  const body = serialiseEnvelope({
    id: row.id,
    event: row.type,
    created: row.created.toISOString(),
    data: { invoice: presentSale(sale, outcome.lines.map(presentLineRow)) },
  });
  const recorded = await ctx.members.get(FILING_OUTCOMES).record(
    sale,
    { row, body },
    {
      lease: outcome.lease,
      ...(notifyOthers ? { notify: { channel: OUTCOME_CHANNEL, payload: outcomeNotice(saleId, outcome.fields, recordedAt) } } : {}),
      ...(outcome.next ? { next: outcome.next } : {}),
    },
  );
  await wakeDeliveryWorkers(ctx.db, notifier, recorded.deliveries);
  signals.outcomeRecorded(saleId, recorded.recorded ? sale : undefined);
  return { ...recorded, sale };
}

/** PostgreSQL's limit on a notification's payload is 8,000 bytes; a larger outcome goes as a bare hint. */
const MAX_NOTICE_BYTES = 7_500;

/**
 * The outcome's notification to the other processes (OUTCOME_CHANNEL): the sale id, this
 * process's tag and, as JSON, the columns the outcome set; without them (an outcome too large
 * for a notification) it is a hint to read the row.
 */
function outcomeNotice(saleId: number, fields: OutcomeFields, recordedAt: Date): string {
  const full = `${signalPayload(saleId)}:${JSON.stringify({ ...fields, updated_at: recordedAt })}`;
  return Buffer.byteLength(full) > MAX_NOTICE_BYTES ? `${signalPayload(saleId)}:{}` : full;
}
