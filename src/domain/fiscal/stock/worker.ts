// The stock worker of one process. Each pass: (1) books the stock of documents whose filing
// ended, branch by branch in invoice order (a movement per uploaded sale or credit note with
// goods lines, in the same transaction that moves the branch's booked invoice number on: a
// crash books a document exactly once; documents that move no stock, most of them, are booked
// for up to 100 branches in one statement); (2) sends the chain of every branch with unsent
// movements, leased per branch (any number of processes may run it). A full pass (every chain,
// and the next slice of a sweep over the branches) runs at least every pollMs; between them, a pass after the filing outcomes this
// process hears of books only those documents' branches, and `wake` (a movement queued) sends
// the chains.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../../kernel/context.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { workerLoop } from '../../../platform/workers/loop.ts';
import { saleSignals } from '../signals/sale-signals.ts';
import { drainChain } from './chain.ts';
import { stockSignals } from './signals.ts';
import { queueStockMovement } from './movements.ts';
import { bookPlainBranches, bookPlainDocuments, branchesOfSales, branchesToBook, lockNextFiled, markBooked } from './booking.ts';
import { claimChainBranches, clearChainLeases } from './chain-store.ts';

const STOCK_WORKER_NAME = 'stock.chain';
const POLL_MS = 1_000;
/** Branches a full pass looks at: the next slice of the sweep. */
const SWEEP_BRANCHES = 1_000;
/** A movement queued (an adjustment, a purchase): its chain is sent soon. */
const WAKE_DELAY_MS = 20;
/**
 * Filing outcomes heard are booked in passes at most this far apart: under load a branch files
 * hundreds of documents a second, and booking them in one pass costs one statement where a pass
 * per outcome cost one each. Booking is not urgent (nothing waits on it; the chain follows it).
 */
const HEARD_DELAY_MS = 200;
const BOOK_BATCH = 50;
const BRANCHES_PER_PASS = 20;
/** Branches booked by one statement at most. */
const BRANCHES_PER_BOOKING = 100;
/** More outcomes heard than this between two passes: the next pass is a full one. */
const MAX_HEARD_SALES = 5_000;
const STOP_GRACE_MS = 5_000;

/** Sales move goods out (11), credit notes bring them back (03); debit notes move none (docs/stock.md). */
const SAR_TYPE_OF = { sale: '11', credit_note: '03' } as const;

/**
 * Books the branch's filed documents (nothing when another process is booking it now); true when
 * a movement was queued. `movesStock`: its next documents are known to move stock (bookPlainBranches
 * said so), so the first batch goes straight to the transaction.
 */
async function bookBranch(ctx: AppContext, deviceId: number, movesStock = false): Promise<boolean> {
  let queued = false;
  for (let known = movesStock; ; known = false) {
    if (!known) {
      // Most documents move no stock (no item-coded line): those are booked in one statement.
      const plain = await bookPlainDocuments(ctx.db, deviceId, BOOK_BATCH);
      if (plain.kind === 'locked' || plain.kind === 'nothing') return queued;
      if (plain.kind === 'booked') {
        if (plain.count < BOOK_BATCH) return queued;
        continue;
      }
    }
    const more = await ctx.db.transaction().execute(async (trx) => {
      const docs = await lockNextFiled(trx, deviceId, BOOK_BATCH);
      if (!docs || docs.length === 0) return false;
      for (const doc of docs) {
        if (doc.status !== 'uploaded' || doc.type === 'debit_note' || doc.lines.length === 0) continue;
        queued = true;
        await queueStockMovement(trx, {
          tenantId: doc.tenantId,
          deviceId,
          sarTyCd: SAR_TYPE_OF[doc.type],
          source: { kind: doc.type, id: doc.id },
          lines: doc.lines.map((l) => ({ itemCode: l.itemCode, quantity: l.quantity, unitPrice: l.price })),
          counterparty: { tpin: doc.customerTpin, name: doc.customerName, branch: null },
        });
      }
      await markBooked(trx, deviceId, docs.at(-1)!.invoiceNo);
      return docs.length === BOOK_BATCH;
    });
    if (!more) return queued;
  }
}

/**
 * Books several branches: what moves no stock in one statement for all of them (the common
 * case), a branch with a document that moves stock by bookBranch. True when a movement was queued.
 */
async function bookBranches(ctx: AppContext, deviceIds: number[], stopped: () => boolean): Promise<boolean> {
  let queued = false;
  let pending = deviceIds;
  while (pending.length > 0 && !stopped()) {
    const more: number[] = [];
    for (const [deviceId, booking] of await bookPlainBranches(ctx.db, pending, BOOK_BATCH)) {
      if (booking.kind === 'moves_stock') {
        if (await bookBranch(ctx, deviceId, true)) queued = true;
      } else if (booking.kind === 'booked' && booking.count === BOOK_BATCH) more.push(deviceId);
    }
    pending = more;
  }
  return queued;
}

interface StockWorker extends Worker {
  /** Run a pass soon (a hint: the database says what there is to do). */
  wake(): void;
}

export function stockWorker(ctx: AppContext, options: { pollMs?: number } = {}): StockWorker {
  const pollMs = options.pollMs ?? POLL_MS;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const loop = workerLoop({ name: STOCK_WORKER_NAME, log: ctx.log, stopGraceMs: STOP_GRACE_MS });
  const leaseMs = vsdcLeaseMs(ctx.config);
  // What the passes between two full ones look at: the branches of the outcomes heard since the
  // last pass (one indexed read), not every branch of the database; the chain only when a
  // movement was queued. A full pass runs at least every pollMs: every chain, and the next
  // SWEEP_BRANCHES branches of a sweep over all of them (a fleet of 200,000 branches is read a
  // slice a pass, never whole).
  let heardSales: number[] = [];
  let lastFullAt = 0;
  /** Where the full passes' sweep over the branches stands (a device id; 0: from the start). */
  let sweepFrom = 0;
  let chainDue = true;

  const passes = loop.pass({ run: pass, everyMs: pollMs, failure: 'stock pass failed' });

  async function pass(): Promise<void> {
    const full = Date.now() - lastFullAt >= pollMs || heardSales.length > MAX_HEARD_SALES;
    const sales = heardSales;
    heardSales = [];
    let chain = chainDue || full;
    chainDue = false;
    if (full) lastFullAt = Date.now();
    let branches: number[] = [];
    if (full) {
      const swept = await branchesToBook(ctx.db, SWEEP_BRANCHES, sweepFrom);
      sweepFrom = swept.next;
      branches = swept.devices;
    } else if (sales.length > 0) branches = await branchesOfSales(ctx.db, sales);
    for (let at = 0; at < branches.length; at += BRANCHES_PER_BOOKING) {
      if (loop.stopped) return;
      if (await bookBranches(ctx, branches.slice(at, at + BRANCHES_PER_BOOKING), () => loop.stopped)) chain = true;
    }
    if (!chain) return;
    for (;;) {
      if (loop.stopped) return;
      const claimed = await claimChainBranches(ctx.db, ctx.secretBox, owner, leaseMs, BRANCHES_PER_PASS);
      if (claimed.length === 0) return;
      const results = await Promise.all(
        claimed.map((branch) =>
          loop.hold(
            drainChain(ctx, branch, { owner, leaseMs, stopping: loop.stopping, cut: loop.cut }).catch((err: unknown) => {
              loop.log.error({ err, deviceId: branch.deviceId }, 'sending a stock chain failed');
              return { kind: 'done' as const };
            }),
            branch.deviceId,
          ),
        ),
      );
      for (const result of results) {
        if (result.kind === 'deferred') passes.schedule(result.retryInMs + 10);
        if (result.kind === 'stopped' && loop.cut.aborted) loop.countCut();
      }
      if (claimed.length < BRANCHES_PER_PASS) return;
    }
  }

  const wake = (): void => {
    chainDue = true;
    passes.schedule(WAKE_DELAY_MS);
  };
  const heard = (saleId: number): void => {
    heardSales.push(saleId);
    passes.schedule(HEARD_DELAY_MS);
  };

  const worker = loop.worker(() => {
    loop.listen(saleSignals(ctx).onOutcomeRecorded(heard));
    loop.listen(stockSignals(ctx).onMovementQueued(wake));
    const ready = ctx.database.kind === 'embedded' ? clearChainLeases(ctx.db) : Promise.resolve();
    void ready.catch((err: unknown) => loop.log.error({ err }, 'clearing stale stock leases failed')).then(() => passes.schedule(0));
  });
  return { ...worker, wake };
}
