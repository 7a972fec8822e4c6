import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { ITEM_RETRY_BATCH, retryDueItems } from './service.ts';
import { retryDueComponents } from './composition.ts';

/**
 * Resends item registrations and amendments the VSDC did not answer, then files the
 * composition components whose item is registered and whose wait is over (saveItemComposition).
 */
export function itemRetryWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'items.register',
    pollMs: options.pollMs ?? 1_000,
    batchSize: ITEM_RETRY_BATCH,
    log: ctx.log,
    // Items first: a composite registered in this round has its components filed in the same one.
    round: async () => {
      const items = await retryDueItems(ctx);
      return Math.max(items, await retryDueComponents(ctx));
    },
  });
}
