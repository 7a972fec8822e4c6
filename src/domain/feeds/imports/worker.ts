import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { pullWorker } from '../pulls/template.ts';
import { FILING_RETRY_BATCH, pullDueBranches, retryDueFilings } from './service.ts';

/**
 * Pulls every initialised branch's customs lines every IMPORT_PULL_INTERVAL seconds (hourly by
 * default); `intervalMs` overrides it (tests).
 */
export function importPullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  return pullWorker(ctx, 'imports.pull', options.intervalMs ?? ctx.config.importPullIntervalSec * 1000, (intervalMs) =>
    pullDueBranches(ctx, intervalMs),
  );
}

/** Resends merchants' answers to import lines that the VSDC did not take. */
export function importFilingWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'imports.file',
    pollMs: options.pollMs ?? 1_000,
    batchSize: FILING_RETRY_BATCH,
    log: ctx.log,
    round: () => retryDueFilings(ctx),
  });
}
