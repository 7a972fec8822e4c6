import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { pullWorker } from '../pulls/template.ts';
import { FILING_RETRY_BATCH, fileDuePurchaseAnswers, pullDuePurchaseBranches } from './service.ts';

/**
 * Pulls every initialised branch's purchases every PURCHASE_PULL_INTERVAL seconds (hourly by
 * default); `intervalMs` overrides it (tests).
 */
export function purchasePullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  return pullWorker(ctx, 'purchases.pull', options.intervalMs ?? ctx.config.purchasePullIntervalSec * 1000, (intervalMs) =>
    pullDuePurchaseBranches(ctx, intervalMs),
  );
}

/** Files merchants' answers to purchases that the authority has not taken yet. */
export function purchaseFilingWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'purchases.file',
    pollMs: options.pollMs ?? 1_000,
    batchSize: FILING_RETRY_BATCH,
    log: ctx.log,
    round: () => fileDuePurchaseAnswers(ctx),
  });
}
