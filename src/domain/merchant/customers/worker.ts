import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { CUSTOMER_RETRY_BATCH, retryDueCustomers } from './service.ts';

/** Retries customer verifications and registrations the VSDC did not answer. */
export function customerRetryWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'customers.register',
    pollMs: options.pollMs ?? 1_000,
    batchSize: CUSTOMER_RETRY_BATCH,
    log: ctx.log,
    round: () => retryDueCustomers(ctx),
  });
}
