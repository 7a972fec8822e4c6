// A background loop on a fixed timer, for passes that are safe to run in several processes at
// once (they lock what they touch in the database).
import type { Logger } from '../observability/log.ts';
import type { Worker } from './index.ts';
import { workerLoop } from './loop.ts';

interface IntervalWorkerOptions {
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
  const loop = workerLoop({ name: options.name, log: options.log });
  const pass = loop.pass({
    run: async () => {
      await options.pass();
    },
    failure: options.failure,
    inHand: true,
    skipWhileRunning: true,
  });
  return loop.worker(() => {
    pass.run();
    loop.every(options.intervalMs, () => pass.run());
  });
}
