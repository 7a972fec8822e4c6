import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { RECONCILE_BATCH, reconcileRound } from './service.ts';
import { clearRunLeases } from './store.ts';

/**
 * Works through reconciliation runs: one run (one branch) at a time per process, any number of
 * processes. A stop cuts the pacing and the VSDC call in hand and gives the run back; it is resumed
 * by the next claim (its lease runs out, or at once on the embedded database's next start).
 */
export function reconciliationWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  const owner = `reconcile-${randomBytes(6).toString('hex')}`;
  const stop = new AbortController();
  let ready: Promise<void> | undefined;
  const inner = pollingWorker({
    name: 'reconciliation.run',
    pollMs: options.pollMs ?? 1_000,
    batchSize: RECONCILE_BATCH,
    log: ctx.log,
    round: async () => {
      await (ready ??= ctx.database.kind === 'embedded' ? clearRunLeases(ctx.db) : Promise.resolve());
      return stop.signal.aborted ? 0 : reconcileRound(ctx, { owner, signal: stop.signal });
    },
  });
  return {
    name: inner.name,
    start: () => inner.start(),
    async stop() {
      stop.abort();
      return inner.stop();
    },
  };
}
