// The filing worker of one process: drains branches as they get new documents (woken at once in
// this process, through LISTEN/NOTIFY from others), retries deferred branches when their backoff
// passes, and polls as a safety net (e.g. leases left by a crashed process). Any number of
// processes may run it against one PostgreSQL: the per-branch lease keeps a branch in one hand.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../../kernel/context.ts';
import type { Worker, WorkerStopReport } from '../../../platform/workers/index.ts';
import { FILING_CHANNEL, foreignSignal, saleSignals } from '../sales/signals.ts';
import { BranchFiler } from './filer.ts';
import { probeBackedOffVsdcs } from './probe.ts';
import { branchesReady, clearLeases, wakeAddress, type ClaimedBranch } from './store.ts';

export const FILING_WORKER_NAME = 'filing.file';
const POLL_MS = 1_000;
/** On stop, in-flight VSDC calls get this long to answer before they are cut. */
const STOP_GRACE_MS = 5_000;

export interface FilingWorker extends Worker {
  /** Ask for a branch to be drained now (a hint; the database decides if there is work). */
  wake(deviceId: number): void;
}

export interface FilingWorkerOptions {
  /** How long in-flight VSDC calls get on stop (default STOP_GRACE_MS; tests shorten it). */
  stopGraceMs?: number;
}

export function filingWorker(ctx: AppContext, options: FilingWorkerOptions = {}): FilingWorker {
  const stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const log = ctx.log.child({ worker: FILING_WORKER_NAME });
  const stopping = new AbortController();
  const cutCalls = new AbortController();
  const filer = new BranchFiler(ctx, owner, stopping.signal, cutCalls.signal, (target) => {
    // The other backed-off branches at this address need not wait for their own backoff or probe.
    wakeAddress(ctx.db, target.baseUrl).then((woken) => woken.forEach(wake), (err: unknown) => log.error({ err }, 'waking the branches of a VSDC that answers again failed'));
  });
  /** Branches drained at once (FILING_CONCURRENCY); each holds a DB connection only between VSDC calls. */
  const maxBranches = ctx.config.filingConcurrency;
  const dirty = new Set<number>();
  const active = new Map<number, Promise<void>>();
  const retryTimers = new Map<number, NodeJS.Timeout>();
  const unsubscribe: Array<() => void> = [];
  let pollTimer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let probeTimer: NodeJS.Timeout | undefined;
  let probing: Promise<void> | undefined;
  let claiming = false;
  let stopped = false;
  /** Drains that ended with a VSDC call cut by the stop's grace. */
  let cut = 0;

  function wake(deviceId: number): void {
    if (stopped) return;
    dirty.add(deviceId);
    pump();
  }

  /**
   * Starts draining the woken branches, claiming them all in one statement. One claim is in
   * flight at a time; branches woken meanwhile wait for the next, so under load a claim takes
   * many branches at once.
   */
  function pump(): void {
    if (stopped || claiming) return;
    const ready: number[] = [];
    for (const deviceId of dirty) {
      if (active.size + ready.length >= maxBranches) break;
      if (active.has(deviceId)) continue; // woken again while draining: drained once more after
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
      const run = drain(deviceId, claims).finally(() => {
        active.delete(deviceId);
        if (dirty.size > 0) pump();
      });
      active.set(deviceId, run);
    }
  }

  /** Every slot is taken and a branch that is not being drained waits for one. */
  function othersWaiting(): boolean {
    if (active.size < maxBranches) return false;
    for (const deviceId of dirty) if (!active.has(deviceId)) return true;
    return false;
  }

  async function drain(deviceId: number, claims: Promise<Map<number, ClaimedBranch>>): Promise<void> {
    try {
      const result = await filer.drain(deviceId, (await claims).get(deviceId), othersWaiting);
      if (result.kind === 'cut') cut++;
      if (result.kind === 'yielded') {
        // Back in line behind the branches that waited (a Set keeps insertion order).
        dirty.delete(deviceId);
        wake(deviceId);
      }
      if (result.kind === 'deferred') {
        clearTimeout(retryTimers.get(deviceId));
        const timer = setTimeout(() => {
          retryTimers.delete(deviceId);
          wake(deviceId);
        }, result.retryInMs + 10);
        timer.unref();
        retryTimers.set(deviceId, timer);
      }
    } catch (err) {
      log.error({ err, deviceId }, 'draining a branch failed');
    }
  }

  function poll(): void {
    polling = (async () => {
      try {
        for (const deviceId of await branchesReady(ctx.db, 1_000)) wake(deviceId);
      } catch (err) {
        log.error({ err }, 'poll failed');
      }
      if (!stopped) {
        pollTimer = setTimeout(poll, POLL_MS);
        pollTimer.unref();
      }
    })();
  }

  /** Every VSDC_PROBE_MS: probe the VSDCs of branches in backoff, and file at once where one answers. */
  function probe(): void {
    probing = (async () => {
      try {
        for (const deviceId of await probeBackedOffVsdcs(ctx, cutCalls.signal)) wake(deviceId);
      } catch (err) {
        log.error({ err }, 'probing backed-off VSDCs failed');
      }
      if (!stopped) {
        probeTimer = setTimeout(probe, ctx.config.vsdcProbeMs);
        probeTimer.unref();
      }
    })();
  }

  return {
    name: FILING_WORKER_NAME,
    wake,
    start() {
      unsubscribe.push(saleSignals(ctx).onDocumentQueued(wake));
      unsubscribe.push(
        ctx.database.notifier.listen(FILING_CHANNEL, (payload) => {
          const deviceId = foreignSignal(payload);
          if (deviceId !== undefined) wake(deviceId);
        }),
      );
      const ready = ctx.database.kind === 'embedded' ? clearLeases(ctx.db) : Promise.resolve();
      void ready.catch((err: unknown) => log.error({ err }, 'clearing stale leases failed')).then(() => {
        poll();
        probeTimer = setTimeout(probe, ctx.config.vsdcProbeMs);
        probeTimer.unref();
      });
    },
    async stop(): Promise<WorkerStopReport> {
      stopped = true;
      stopping.abort();
      for (const off of unsubscribe) off();
      clearTimeout(pollTimer);
      clearTimeout(probeTimer);
      for (const timer of retryTimers.values()) clearTimeout(timer);
      await polling;
      const inHand = active.size;
      const drained = Promise.all(active.values());
      const grace = setTimeout(() => cutCalls.abort(), stopGraceMs);
      await drained;
      clearTimeout(grace);
      cutCalls.abort();
      await probing;
      return { inHand, cut };
    },
  };
}
