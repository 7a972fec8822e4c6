// A background loop on a fixed timer, for passes that are safe to run in several processes at
// once (they lock what they touch in the database).
import type { Logger } from '../observability/log.ts';
import type { Worker, WorkerStopReport } from './index.ts';

export interface IntervalWorkerOptions {
  /** `module.job`; on every line the worker logs. */
  name: string;
  intervalMs: number;
  /** One pass; its result is ignored. */
  pass: () => Promise<unknown>;
  /** The context's logger (`ctx.log`); the worker logs through a child bound to its name. */
  log: Logger;
  /** Logged, with the error, when a pass fails. */
  failure: string;
}

/** Runs `pass` at start and every `intervalMs`, skipping a tick while the previous pass still runs. */
export function intervalWorker(options: IntervalWorkerOptions): Worker {
  const log = options.log.child({ worker: options.name });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= options
      .pass()
      .catch((err: unknown) => log.error({ err }, options.failure))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    name: options.name,
    start() {
      if (timer) return;
      run();
      timer = setInterval(run, options.intervalMs);
      timer.unref();
    },
    async stop(): Promise<WorkerStopReport> {
      clearInterval(timer);
      timer = undefined;
      const inHand = running ? 1 : 0;
      await running;
      return { inHand, cut: 0 };
    },
  };
}
