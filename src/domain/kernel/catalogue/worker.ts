import type { AppContext } from '../context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { workerLoop } from '../../../platform/workers/loop.ts';
import { classificationCatalogue, syncCatalogue } from './service.ts';

/** The catalogues change rarely; refresh each authority's a few times a day, and every minute until it loads. */
const CATALOGUE_REFRESH_MS = 6 * 3600_000;
const CATALOGUE_RETRY_MS = 60_000;
const CATALOGUE_WORKER_NAME = 'catalogue.sync';

export function catalogueWorker(ctx: AppContext): Worker {
  const loop = workerLoop({ name: CATALOGUE_WORKER_NAME, log: ctx.log });
  const sync = loop.pass({
    run: async () => {
      const result = await syncCatalogue(ctx);
      if (result.kind === 'synced') classificationCatalogue(ctx).invalidate();
      return result.kind === 'failed' || result.kind === 'no_device' ? CATALOGUE_RETRY_MS : CATALOGUE_REFRESH_MS;
    },
    failure: 'catalogue sync failed',
    retryMs: CATALOGUE_RETRY_MS,
    inHand: true,
  });
  return loop.worker(() => sync.schedule(0));
}
