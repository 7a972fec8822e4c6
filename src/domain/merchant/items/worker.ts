import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../vsdc/polling.ts';
import { ITEM_RETRY_BATCH, retryDueItems } from './service.ts';

/** Resends item registrations and amendments the VSDC did not answer. */
export function itemRetryWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'items.register',
    pollMs: options.pollMs ?? 1_000,
    batchSize: ITEM_RETRY_BATCH,
    log: ctx.log,
    round: () => retryDueItems(ctx),
  });
}
