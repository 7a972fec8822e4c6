import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pullWorker } from '../pulls/template.ts';
import { pullDueAuthorityFeeds } from './service.ts';

/**
 * Pulls every tenant's authority notices every NOTICE_PULL_INTERVAL seconds (hourly by default)
 * and its branches every BRANCH_SYNC_INTERVAL seconds (daily); `intervalMs` overrides both (tests).
 */
export function authorityPullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  const shortest = options.intervalMs ?? Math.min(ctx.config.noticePullIntervalSec, ctx.config.branchSyncIntervalSec) * 1000;
  return pullWorker(ctx, 'notices.pull', shortest, () => pullDueAuthorityFeeds(ctx, options.intervalMs));
}
