import type { AppContext } from '../context.ts';

/** A background loop that claims its work from the database; any number may run across processes. */
export interface Worker {
  name: string;
  start(): void;
  /** Stop claiming new work and finish what is in hand. */
  stop(): Promise<void>;
}

export type WorkerFactory = (ctx: AppContext) => Worker;

export function startWorkers(ctx: AppContext, factories: WorkerFactory[]): { workers: Worker[]; stop(): Promise<void> } {
  const workers = factories.map((make) => make(ctx));
  for (const w of workers) w.start();
  return {
    workers,
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
