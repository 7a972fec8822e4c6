import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pullWorker } from '../pulls/template.ts';
import { pullDuePrincipalBranches } from './service.ts';

/**
 * Pulls every initialised branch's principals every PRINCIPAL_PULL_INTERVAL seconds (hourly by
 * default); `intervalMs` overrides it (tests).
 */
export function principalPullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  return pullWorker(ctx, 'principals.pull', options.intervalMs ?? ctx.config.principalPullIntervalSec * 1000, (intervalMs) =>
    pullDuePrincipalBranches(ctx, intervalMs),
  );
}
