// Runs the backlog alarm pass on a timer. Any number of processes may run it: each branch is
// decided under a row lock (SKIP LOCKED), so an alarm is never fired twice.
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../workers/index.ts';
import { workerLog } from '../webhooks/worker-log.ts';
import { evaluateBacklogAlarms } from './evaluate.ts';

export const ALARM_WORKER_NAME = 'alarms.backlog';
/** Alarms are about hours; a quarter of a minute is precise enough and costs one query. */
const DEFAULT_INTERVAL_MS = 15_000;

export function createBacklogAlarmWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const log = workerLog(ALARM_WORKER_NAME, ctx.config.logLevel);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= evaluateBacklogAlarms(ctx)
      .catch((err: unknown) => log.error('backlog alarm pass failed', err))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    name: ALARM_WORKER_NAME,
    start() {
      if (timer) return;
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

export const backlogAlarmWorker = (ctx: AppContext): Worker => createBacklogAlarmWorker(ctx);
