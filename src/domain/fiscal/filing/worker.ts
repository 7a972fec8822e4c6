// The filing worker of one process: drains branches as they get new documents (woken at once in
// this process, through LISTEN/NOTIFY from others), retries deferred branches when their backoff
// passes, and polls as a safety net (e.g. leases left by a crashed process). Any number of
// processes may run it against one PostgreSQL: the per-branch lease keeps a branch in one hand.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { workerLoop } from '../../../platform/workers/loop.ts';
import { FILING_CHANNEL, foreignSignal, saleSignals } from '../signals/sale-signals.ts';
import { BranchFiler } from './filer.ts';
import { probeBackedOffVsdcs } from './probe.ts';
import { branchesReady, clearLeases, renewLeases, wakeAddress, type ClaimedBranch } from './queue.ts';

const FILING_WORKER_NAME = 'filing.file';
const POLL_MS = 1_000;
/** On stop, in-flight VSDC calls get this long to answer before they are cut. */
const STOP_GRACE_MS = 5_000;

interface FilingWorker extends Worker {
  /** Ask for a branch to be drained now (a hint; the database decides if there is work). */
  wake(deviceId: number): void;
}

interface FilingWorkerOptions {
  /** How long in-flight VSDC calls get on stop (default STOP_GRACE_MS; tests shorten it). */
  stopGraceMs?: number;
}

export function filingWorker(ctx: AppContext, options: FilingWorkerOptions = {}): FilingWorker {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  // The branches being drained are the loop's units in hand, by device id; a drain ended by the
  // stop's grace counts as cut.
  const loop = workerLoop({ name: FILING_WORKER_NAME, log: ctx.log, stopGraceMs: options.stopGraceMs ?? STOP_GRACE_MS });
  const { log } = loop;
  const filer = new BranchFiler(ctx, owner, loop.stopping, loop.cut, (target) => {
    // The other backed-off branches at this address need not wait for their own backoff or probe.
    wakeAddress(ctx.db, target.baseUrl).then(
      (woken) => woken.forEach(wake),
      (err: unknown) => log.error({ err }, 'waking the branches of a VSDC that answers again failed'),
    );
  });
  /**
   * The most branches drained at once (FILING_CONCURRENCY): as many as have work, up to this. A
   * branch in flight holds no DB connection while its VSDC call waits; what it costs is its batch
   * in memory, a socket and a lease (docs/deployment.md, "Sizing a fleet").
   */
  const maxBranches = ctx.config.filingConcurrency;
  /** The branches being drained (their leases are renewed together by the heartbeat). */
  const draining = new Set<number>();
  const dirty = new Set<number>();
  /** Each deferred branch's wake-up when its backoff passes (what cancels it). */
  const retryTimers = new Map<number, () => void>();
  let claiming = false;

  const poll = loop.pass({
    run: async () => {
      for (const deviceId of await branchesReady(ctx.db, owner, Math.max(1_000, maxBranches))) wake(deviceId);
    },
    everyMs: POLL_MS,
    failure: 'poll failed',
  });
  /** Every VSDC_PROBE_MS: probe the VSDCs of branches in backoff, and file at once where one answers. */
  const probe = loop.pass({
    run: async () => {
      for (const deviceId of await probeBackedOffVsdcs(ctx, loop.cut)) wake(deviceId);
    },
    everyMs: ctx.config.vsdcProbeMs,
    failure: 'probing backed-off VSDCs failed',
    waitedAfterCut: true,
  });

  /**
   * Every third of a lease: the leases of every branch in hand, renewed in one statement. An
   * outcome renews its branch's lease too, but a branch may wait longer than a lease without one
   * (for a slot at a capped VSDC host, then a VSDC call of up to VSDC_TIMEOUT_MS).
   */
  const heartbeatMs = Math.max(1_000, Math.floor(filer.leaseMs / 3));
  const heartbeat = loop.pass({
    run: async () => {
      await renewLeases(ctx.db, [...draining], owner, filer.leaseMs);
    },
    everyMs: heartbeatMs,
    failure: 'renewing the leases of the branches in hand failed',
  });

  function wake(deviceId: number): void {
    if (loop.stopped) return;
    dirty.add(deviceId);
    pump();
  }

  /**
   * Starts draining the woken branches, claiming them all in one statement. One claim is in
   * flight at a time; branches woken meanwhile wait for the next, so under load a claim takes
   * many branches at once.
   */
  function pump(): void {
    if (loop.stopped || claiming) return;
    const ready: number[] = [];
    for (const deviceId of dirty) {
      if (loop.inHand + ready.length >= maxBranches) break;
      if (loop.holds(deviceId)) continue; // woken again while draining: drained once more after
      dirty.delete(deviceId);
      ready.push(deviceId);
    }
    if (ready.length === 0) return;
    claiming = true;
    const claims = filer.claim(ready).catch((err: unknown) => {
      log.error({ err }, 'claiming branches failed'); // the poll finds them again
      return new Map<number, ClaimedBranch>();
    });
    void claims.then(() => {
      claiming = false;
      if (dirty.size > 0) pump();
    });
    for (const deviceId of ready) {
      draining.add(deviceId);
      void loop.hold(drain(deviceId, claims), deviceId).then(() => {
        draining.delete(deviceId);
        if (dirty.size > 0) pump();
      });
    }
  }

  /** Every slot is taken and a branch that is not being drained waits for one. */
  function othersWaiting(): boolean {
    if (loop.inHand < maxBranches) return false;
    for (const deviceId of dirty) if (!loop.holds(deviceId)) return true;
    return false;
  }

  async function drain(deviceId: number, claims: Promise<Map<number, ClaimedBranch>>): Promise<void> {
    try {
      const result = await filer.drain(deviceId, (await claims).get(deviceId), othersWaiting);
      if (result.kind === 'cut') loop.countCut();
      if (result.kind === 'yielded') {
        // Back in line behind the branches that waited (a Set keeps insertion order).
        dirty.delete(deviceId);
        wake(deviceId);
      }
      if (result.kind === 'deferred') {
        retryTimers.get(deviceId)?.();
        retryTimers.set(
          deviceId,
          loop.after(result.retryInMs + 10, () => {
            retryTimers.delete(deviceId);
            wake(deviceId);
          }),
        );
      }
    } catch (err) {
      log.error({ err, deviceId }, 'draining a branch failed');
    }
  }

  const worker = loop.worker(() => {
    loop.listen(saleSignals(ctx).onDocumentQueued(wake));
    loop.listen(
      ctx.database.notifier.listen(FILING_CHANNEL, (payload) => {
        const deviceId = foreignSignal(payload);
        if (deviceId !== undefined) wake(deviceId);
      }),
    );
    loop.listen(ctx.database.notifier.onResync(() => poll.run()));
    const ready = ctx.database.kind === 'embedded' ? clearLeases(ctx.db) : Promise.resolve();
    void ready
      .catch((err: unknown) => log.error({ err }, 'clearing stale leases failed'))
      .then(() => {
        poll.run();
        probe.schedule(ctx.config.vsdcProbeMs);
        heartbeat.schedule(heartbeatMs);
      });
  });
  return { ...worker, wake };
}
