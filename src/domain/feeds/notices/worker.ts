import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { AUTHORITY_PULL_BATCH, pullDueAuthorityFeeds } from './service.ts';

/** A tenant whose first device was just initialised is pulled within this long, whatever the intervals. */
const MAX_PULL_POLL_MS = 10_000;

/**
 * Pulls every tenant's authority notices every NOTICE_PULL_INTERVAL seconds (hourly by default)
 * and its branches every BRANCH_SYNC_INTERVAL seconds (daily); `intervalMs` overrides both (tests).
 */
export function authorityPullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  const shortest = options.intervalMs ?? Math.min(ctx.config.noticePullIntervalSec, ctx.config.branchSyncIntervalSec) * 1000;
  return pollingWorker({
    name: 'notices.pull',
    pollMs: Math.min(shortest, MAX_PULL_POLL_MS),
    batchSize: AUTHORITY_PULL_BATCH,
    log: ctx.log,
    round: () => pullDueAuthorityFeeds(ctx, options.intervalMs),
  });
}
