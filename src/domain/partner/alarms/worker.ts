// Runs the backlog alarm pass on a timer. Any number of processes may run it: each branch is
// decided under a row lock (SKIP LOCKED), so an alarm is never fired twice.
import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { intervalWorker } from '../../../platform/workers/interval.ts';
import { evaluateBacklogAlarms } from './evaluate.ts';

const ALARM_WORKER_NAME = 'alarms.backlog';
/** Alarms are about hours; a quarter of a minute is precise enough and costs one query. */
const DEFAULT_INTERVAL_MS = 15_000;

export function createBacklogAlarmWorker(ctx: AppContext, options: { intervalMs?: number } = {}): Worker {
  return intervalWorker({
    name: ALARM_WORKER_NAME,
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    pass: () => evaluateBacklogAlarms(ctx),
    log: ctx.log,
    failure: 'backlog alarm pass failed',
  });
}

export const backlogAlarmWorker = (ctx: AppContext): Worker => createBacklogAlarmWorker(ctx);
