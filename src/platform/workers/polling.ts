// The loop of a worker whose rows wait for their time in the database: a round claims up to a
// batch of due rows (leases + SKIP LOCKED, so any number of processes may run it) and handles
// them; a full batch runs the next round at once, a short one waits.
import type { Logger } from '../observability/log.ts';
import type { Worker } from './index.ts';
import { workerLoop } from './loop.ts';

interface PollingWorkerOptions {
  /** `module.job`; on every line the worker logs. */
  name: string;
  /** Pause between rounds that found less than a full batch. */
  pollMs: number;
  /** One round: claims and handles up to `batchSize` rows, returns how many it handled. */
  round: () => Promise<number>;
  batchSize: number;
  /** The context's logger (`ctx.log`); the worker logs through a child bound to its name. */
  log: Logger;
}

/** Runs `round` until stopped: again at once after a full batch, else after `pollMs`. */
export function pollingWorker(options: PollingWorkerOptions): Worker {
  const loop = workerLoop({ name: options.name, log: options.log });
  const round = loop.pass({
    run: async () => ((await options.round()) >= options.batchSize ? 0 : options.pollMs),
    failure: 'round failed',
    retryMs: options.pollMs,
    inHand: true,
  });
  return loop.worker(() => round.schedule(0));
}
