import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pullWorker } from '../pulls/template.ts';
import { pullDueStockLedgers } from './service.ts';

/**
 * Reads every initialised branch's stock ledger from its VSDC every STOCK_PULL_INTERVAL seconds
 * (hourly by default); `intervalMs` overrides it (tests).
 */
export function stockLedgerPullWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  return pullWorker(ctx, 'stock-ledger.pull', options.intervalMs ?? ctx.config.stockPullIntervalSec * 1000, (intervalMs) =>
    pullDueStockLedgers(ctx, intervalMs),
  );
}
