// Reconciliation with the authority: a run asks a branch's VSDC (selectInvoice) for each of its
// documents of a date range and compares what the gateway recorded with what the VSDC holds.
// Runs are jobs: claimed with a lease by any process, checked one document at a time, paced,
// resumed after a crash where they stopped (each document is checked once).
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../../kernel/context.ts';
import type { ReconciliationOutcome, ReconciliationRequester } from '../../../platform/db/tables/reconciliation.ts';
import { ApiError, NotFoundError, ValidationError, assertCalendarDays } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import type { FiscalReceipt } from '../../../authorities/port/index.ts';
import { nextBackoffMs } from '../../../platform/workers/backoff.ts';
import { sameTotal } from '../filing/filer.ts';
import { recordDocumentOutcome } from '../filing/outcome.ts';
import { uploadedFields } from '../filing/outcome-store.ts';
import type { SaleRow } from '../sales/store.ts';
import { presentedStatus } from '../sales/present.ts';
import { enqueueEvent, RECONCILIATION_MISMATCH_EVENT, wakeDeliveryWorkers } from '../../kernel/outbox/events.ts';
import { presentResult, presentRun, type DifferenceResource, type ReconciliationResource, type ResultResource } from './present.ts';
import type { CreateReconciliationBody, RunQuery } from './schemas.ts';
import {
  claimRun,
  completeIfDone,
  deferRun,
  earlierPending,
  filingInProgress,
  findRun,
  insertRun,
  linesOfSale,
  listDocuments,
  listResults,
  listRuns,
  nextToCheck,
  openRunOfDevice,
  recordResult,
  releaseRun,
  reloadSale,
  renewRunLease,
  runById,
  type ClaimedRun,
} from './store.ts';

/** Documents checked per turn; then the run is given back so other runs (and processes) get theirs. */
export const RECONCILE_BATCH = 20;
const MAX_RANGE_DAYS = 366;
/** How long a run waits when its branch is being filed right now (live filing goes first). */
const YIELD_MS = 250;

const dayStart = (value: string): number => Date.parse(`${value}T00:00:00Z`);

/** Starts a run for one of the tenant's initialised branches (audited); 409 while the branch has one open. */
export async function createRun(
  ctx: AppContext,
  tenantId: number,
  body: CreateReconciliationBody,
  requestedBy: ReconciliationRequester,
  actor: Actor,
): Promise<ReconciliationResource> {
  assertCalendarDays({ from: body.from, to: body.to });
  const from = dayStart(body.from);
  const to = dayStart(body.to);
  if (to < from) throw new ValidationError({ to: ['The to field must be the same day as from or later.'] });
  if ((to - from) / 86_400_000 > MAX_RANGE_DAYS)
    throw new ValidationError({ to: [`The range may span at most ${MAX_RANGE_DAYS} days; reconcile a longer period in several runs.`] });
  const device = await ctx.db
    .selectFrom('devices')
    .select(['id', 'initialized'])
    .where('tenant_id', '=', tenantId)
    .where('branch', '=', body.branch)
    .executeTakeFirst();
  if (!device) throw new ValidationError({ branch: [`Branch ${body.branch} is not registered for this merchant.`] });
  if (!device.initialized)
    throw new ValidationError({ branch: [`Branch ${body.branch} is not initialised: it has filed nothing to reconcile.`] });
  const run = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertRun(trx, {
      tenantId,
      deviceId: device.id,
      branch: body.branch,
      from: body.from,
      to: body.to,
      pendingAfterSec: ctx.config.reconcilePendingAfterSec,
      requestedBy,
    });
    if (inserted) {
      await recordAudit(trx, {
        actor,
        action: 'reconciliation.started',
        tenantId,
        targetType: 'reconciliation',
        targetId: Number(inserted.id),
        details: { branch: body.branch, from: body.from, to: body.to },
      });
    }
    return inserted;
  });
  if (!run) {
    const open = await openRunOfDevice(ctx.db, device.id);
    throw new ApiError(
      'reconciliation_in_progress',
      `Branch ${body.branch} has a reconciliation that has not finished (id ${open ? Number(open.id) : 'unknown'}); wait for it or follow its progress.`,
    );
  }
  return presentRun(run);
}

export async function listRunsPage(
  ctx: AppContext,
  tenantId: number,
  query: { page: number; branch?: string | undefined },
): Promise<Page<ReconciliationResource>> {
  const { rows, total } = await listRuns(ctx.db, tenantId, query.branch === undefined ? {} : { branch: query.branch }, query.page);
  return pageOf(rows.map(presentRun), total, query.page);
}

export async function getRunWithResults(
  ctx: AppContext,
  tenantId: number,
  runId: number,
  query: RunQuery,
): Promise<{ data: ReconciliationResource & { results: ResultResource[] }; meta: Page<unknown>['meta'] }> {
  const run = await findRun(ctx.db, tenantId, runId);
  if (!run) throw new NotFoundError('No such reconciliation.');
  const { rows, total } = await listResults(ctx.db, Number(run.id), query.outcome ?? 'attention', query.page);
  const page = pageOf(rows.map(presentResult), total, query.page);
  return { data: { ...presentRun(run), results: page.data }, meta: page.meta };
}

// ---- the runner ----

type Checked = { outcome: ReconciliationOutcome; differences: DifferenceResource[] };
type Step = { kind: 'checked'; completed: boolean } | { kind: 'unreachable'; reason: string } | { kind: 'lease_lost' };

interface RoundOptions {
  /** Who holds a run's lease: unique per worker (or CLI) instance. */
  owner: string;
  /** Stops pacing and the next document, and cuts a VSDC call in flight (that document is checked on the next claim). */
  signal: AbortSignal;
  /** Only this run (the CLI). */
  runId?: number;
  /** How the run waits RECONCILE_PACE_MS between two VSDC calls (tests record the waits instead of sleeping). */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const sleepUnlessAborted = (ms: number, signal: AbortSignal): Promise<void> => sleep(ms, undefined, { signal }).catch(() => {});

function runLeaseMs(ctx: AppContext): number {
  return ctx.config.vsdcTimeoutMs + ctx.config.reconcilePaceMs + 5_000;
}

/**
 * One turn: claims a run, lists its documents on its first claim, checks up to RECONCILE_BATCH
 * of them (pausing RECONCILE_PACE_MS after each VSDC call) and gives the run back. Returns how
 * many documents it checked. The branch's filing lease is never taken: a run waits while a
 * filer holds it.
 */
export async function reconcileRound(ctx: AppContext, options: RoundOptions): Promise<number> {
  const { owner, signal } = options;
  const leaseMs = runLeaseMs(ctx);
  const claimed = await claimRun(ctx.db, ctx.secretBox, owner, leaseMs, options.runId);
  if (!claimed) return 0;
  const runId = Number(claimed.run.id);
  if (claimed.run.listed_at === null) {
    const listed = await listDocuments(ctx.db, claimed.run, owner);
    if (!listed) return 0;
    claimed.run = listed;
  }
  const docs = await nextToCheck(ctx.db, runId, RECONCILE_BATCH);
  if (docs.length === 0) {
    await completeIfDone(ctx.db, runId, owner);
    return 0;
  }
  let handled = 0;
  for (const doc of docs) {
    if (signal.aborted) break;
    if (await filingInProgress(ctx.db, claimed.run.device_id)) {
      await releaseRun(ctx.db, runId, owner, Math.max(YIELD_MS, ctx.config.reconcilePaceMs));
      return handled;
    }
    if (!(await renewRunLease(ctx.db, runId, owner, leaseMs))) return handled;
    const step = await checkDocument(ctx, claimed, doc, owner, leaseMs, signal);
    if (step.kind === 'lease_lost') return handled;
    if (step.kind === 'unreachable' && signal.aborted) break; // stopped mid-call: the document is checked on the next claim
    if (step.kind === 'unreachable') {
      const delay = claimed.run.retry_delay_ms ?? ctx.config.filingRetryMs;
      await deferRun(ctx.db, runId, owner, delay, nextBackoffMs(delay), `The VSDC did not answer: ${step.reason}`);
      return handled;
    }
    handled++;
    if (step.completed) return handled;
    if (ctx.config.reconcilePaceMs > 0) await (options.pause ?? sleepUnlessAborted)(ctx.config.reconcilePaceMs, signal);
  }
  await releaseRun(ctx.db, runId, owner);
  return handled;
}

/** Drives one run to its end from here (the CLI), reporting progress after every turn. */
export async function runToCompletion(
  ctx: AppContext,
  runId: number,
  owner: string,
  signal: AbortSignal,
  onProgress: (run: ReconciliationResource) => void,
): Promise<ReconciliationResource> {
  for (;;) {
    const handled = await reconcileRound(ctx, { owner, signal, runId });
    const run = await runById(ctx.db, runId);
    if (!run) throw new NotFoundError('No such reconciliation.');
    const presented = presentRun(run);
    onProgress(presented);
    if (run.status === 'completed' || signal.aborted) return presented;
    // Another process holds the run, or it waits out a backoff or a filer: look again shortly.
    if (handled === 0) await sleepUnlessAborted(Math.max(YIELD_MS, ctx.config.reconcilePaceMs), signal);
  }
}

/** What the authority holds of a document: its receipt and the total it was filed with. */
interface Filed {
  receipt: FiscalReceipt;
  total: number;
}

function compareReceipt(sale: SaleRow, filed: Filed, tolerance: number): DifferenceResource[] {
  const differences: DifferenceResource[] = [];
  const ourReceipt = sale.receipt_no === null ? null : Number(sale.receipt_no);
  if (ourReceipt !== filed.receipt.receiptNo) differences.push({ field: 'receiptNo', ours: ourReceipt, theirs: filed.receipt.receiptNo });
  if (sale.receipt_signature !== filed.receipt.receiptSignature)
    differences.push({ field: 'receiptSignature', ours: sale.receipt_signature, theirs: filed.receipt.receiptSignature });
  if (!sameTotal(sale.total, filed.total, tolerance)) differences.push({ field: 'total', ours: Number(sale.total), theirs: filed.total });
  return differences;
}

const lookupFailed = (code: string, message: string): DifferenceResource[] => [
  { field: 'lookup', ours: null, theirs: `${code} ${message}`.trim() },
];

async function checkDocument(
  ctx: AppContext,
  claimed: ClaimedRun,
  sale: SaleRow,
  owner: string,
  leaseMs: number,
  signal: AbortSignal,
): Promise<Step> {
  const sdcId = sale.sdc_id ?? claimed.sdcId;
  const authority = ctx.authorities.of(claimed.profile);
  const tolerance = authority.profile.amountTolerance;
  let checked: Checked;
  if (sdcId === null) {
    checked = {
      outcome: sale.status === 'uploaded' ? 'unknown' : 'not_filed',
      differences: lookupFailed('', 'the branch has no SDC id to look the invoice up with'),
    };
  } else {
    const device = {
      profile: claimed.profile,
      baseUrl: claimed.baseUrl,
      tpin: sale.tpin,
      branch: claimed.run.branch,
      sdcId,
      mrcNo: claimed.mrcNo,
      ...claimed.secrets,
    };
    const found = await authority.filing.findFiled(device, { invoiceNo: Number(sale.invoice_no), salesType: 'normal' }, { signal });
    if (found.kind === 'unreachable') return { kind: 'unreachable', reason: `${found.reason}: ${found.detail}` };
    const lookupProblem =
      found.kind === 'rejected'
        ? lookupFailed(found.code, found.message)
        : found.kind === 'unreadable'
          ? lookupFailed('', found.problem)
          : [];
    if (sale.status === 'uploaded') {
      if (found.kind === 'ok') {
        const differences = compareReceipt(sale, found, tolerance);
        checked = { outcome: differences.length === 0 ? 'match' : 'mismatch', differences };
      } else checked = { outcome: 'unknown', differences: lookupProblem };
    } else if (found.kind !== 'ok') {
      checked = { outcome: 'not_filed', differences: lookupProblem };
    } else if (sale.status === 'pending') {
      checked = await adoptOrCompare(ctx, claimed, sale, found, tolerance);
    } else {
      // Refused (or resolved) here, yet the VSDC holds it.
      checked = { outcome: 'mismatch', differences: [{ field: 'status', ours: sale.status, theirs: 'filed' }] };
    }
  }
  return record(ctx, claimed, sale, owner, leaseMs, checked);
}

/**
 * A pending document the VSDC holds: the reply to its filing was lost. Adopted as uploaded with
 * the VSDC's receipt through the filing module's outcome use case (filing/outcome.ts) without
 * the branch's lease: it writes only while the document is still pending (so a filer recording
 * it at the same moment cannot record it twice, and its webhook event fires once), and leaves
 * the branch's filing lease and backoff as they are. Adopted only when no earlier document of
 * the branch is pending, so the branch's outcomes keep invoice order; else the filer adopts it
 * in its turn.
 */
async function adoptOrCompare(ctx: AppContext, claimed: ClaimedRun, sale: SaleRow, filed: Filed, tolerance: number): Promise<Checked> {
  if (!sameTotal(sale.total, filed.total, tolerance))
    return { outcome: 'mismatch', differences: [{ field: 'total', ours: Number(sale.total), theirs: filed.total }] };
  if (await earlierPending(ctx.db, sale.device_id, Number(sale.id))) {
    return { outcome: 'mismatch', differences: [{ field: 'status', ours: 'pending', theirs: 'filed' }] };
  }
  const saleId = Number(sale.id);
  const receipt = filed.receipt;
  const fields = uploadedFields({ ...receipt, sdcId: receipt.sdcId ?? claimed.sdcId, mrcNo: receipt.mrcNo ?? claimed.mrcNo });
  const lines = await linesOfSale(ctx.db, saleId);
  const recorded = await recordDocumentOutcome(ctx, {
    row: sale,
    lines,
    type: 'invoice.fiscalised',
    fields,
    partnerId: claimed.partnerId,
    lease: null,
  });
  if (recorded.recorded) return { outcome: 'adopted', differences: [] };
  // A filer recorded it first: compare with what it recorded.
  const now = await reloadSale(ctx.db, saleId);
  if (now.status !== 'uploaded') return { outcome: 'mismatch', differences: [{ field: 'status', ours: now.status, theirs: 'filed' }] };
  const differences = compareReceipt(now, filed, tolerance);
  return { outcome: differences.length === 0 ? 'match' : 'mismatch', differences };
}

/** The document's outcome on the run, and for a mismatch or an unknown document its event, in one transaction. */
async function record(
  ctx: AppContext,
  claimed: ClaimedRun,
  sale: SaleRow,
  owner: string,
  leaseMs: number,
  checked: Checked,
): Promise<Step> {
  const runId = Number(claimed.run.id);
  const notifier = ctx.database.notifier;
  const stored = await ctx.db.transaction().execute(async (trx) => {
    const recorded = await recordResult(
      trx,
      { id: runId, owner, leaseMs },
      Number(sale.id),
      checked.outcome,
      checked.differences.length === 0 ? null : JSON.stringify(checked.differences),
    );
    if (!recorded) return undefined;
    let deliveries = 0;
    if (checked.outcome === 'mismatch' || checked.outcome === 'unknown') {
      ({ deliveries } = await enqueueEvent(
        trx,
        {
          type: RECONCILIATION_MISMATCH_EVENT,
          partnerId: claimed.partnerId,
          tenantId: sale.tenant_id,
          created: ctx.clock.now(),
          data: {
            reconciliation: presentRun(recorded.run),
            document: {
              ...presentResult(recorded.result),
              saleId: Number(sale.id),
              status: presentedStatus(sale.status),
              clientInvoiceNo: sale.client_invoice_no,
            },
          },
        },
        // PostgreSQL: notified at commit by the statement itself; embedded: woken below, after the commit.
        notifier.notifiesInStatements ? notifier : undefined,
      ));
    }
    return { ...recorded, deliveries };
  });
  if (!stored) return { kind: 'lease_lost' };
  await wakeDeliveryWorkers(ctx.db, notifier, stored.deliveries);
  return { kind: 'checked', completed: stored.run.status === 'completed' };
}
