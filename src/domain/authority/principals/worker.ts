import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../vsdc/polling.ts';
import { PULL_BATCH, pullDuePrincipalBranches } from './service.ts';

/** A newly initialised branch is pulled within this long, whatever the interval. */
const MAX_PULL_POLL_MS = 10_000;

/**
 * Pulls every initialised branch's principals every PRINCIPAL_PULL_INTERVAL seconds (hourly by
 * default); `intervalMs` overrides it (tests).
 */
export function principalPullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  const intervalMs = options.intervalMs ?? ctx.config.principalPullIntervalSec * 1000;
  return pollingWorker({
    name: 'principals.pull',
    pollMs: Math.min(intervalMs, MAX_PULL_POLL_MS),
    batchSize: PULL_BATCH,
    log: ctx.log,
    round: () => pullDuePrincipalBranches(ctx, intervalMs),
  });
}
