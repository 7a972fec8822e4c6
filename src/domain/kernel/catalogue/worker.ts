import type { AppContext } from '../context.ts';
import type { Worker, WorkerStopReport } from '../../../platform/workers/index.ts';
import { classificationCatalogue, syncCatalogue } from './service.ts';

/** The catalogue changes rarely; refresh it a few times a day, and every minute until it loads. */
export const CATALOGUE_REFRESH_MS = 6 * 3600_000;
const CATALOGUE_RETRY_MS = 60_000;
export const CATALOGUE_WORKER_NAME = 'catalogue.sync';

export function catalogueWorker(ctx: AppContext): Worker {
  const log = ctx.log.child({ worker: CATALOGUE_WORKER_NAME });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  function tick(): void {
    running = (async () => {
      let next = CATALOGUE_REFRESH_MS;
      try {
        const result = await syncCatalogue(ctx);
        if (result.kind === 'synced') classificationCatalogue(ctx).invalidate();
        if (result.kind === 'failed' || result.kind === 'no_device') next = CATALOGUE_RETRY_MS;
      } catch (err) {
        log.error({ err }, 'catalogue sync failed');
        next = CATALOGUE_RETRY_MS;
      }
      running = undefined;
      schedule(next);
    })();
  }

  return {
    name: CATALOGUE_WORKER_NAME,
    start() {
      schedule(0);
    },
    async stop(): Promise<WorkerStopReport> {
      stopped = true;
      if (timer) clearTimeout(timer);
      const inHand = running ? 1 : 0;
      await running;
      return { inHand, cut: 0 };
    },
  };
}
