/** A background loop that claims its work from the database; any number may run across processes. */
export interface Worker {
  name: string;
  start(): void;
  /** Stop claiming new work and finish what is in hand (or cut it after a grace); says which. */
  stop(): Promise<WorkerStopReport>;
}

/** What a worker held when it was told to stop, for the shutdown's last log line. */
export interface WorkerStopReport {
  /** Units of work under way at the stop: branches being filed, deliveries being sent, a running pass. */
  inHand: number;
  /** Of those, cut before they finished and left for the next claim (e.g. VSDC calls aborted after the grace). */
  cut: number;
}

/** Makes a worker from what it runs against (the application's context, which platform does not know). */
export type WorkerFactory<Context> = (ctx: Context) => Worker;

export interface RunningWorkers {
  workers: Worker[];
  /** Stops every worker at once; each one's report by name. */
  stop(): Promise<Record<string, WorkerStopReport>>;
  /** The workers whose stop has not finished yet (what a forced exit cuts). */
  stillStopping(): string[];
}

export function startWorkers<Context>(ctx: Context, factories: Array<WorkerFactory<Context>>): RunningWorkers {
  const workers = factories.map((make) => make(ctx));
  for (const w of workers) w.start();
  const stopping = new Set<string>();
  return {
    workers,
    async stop() {
      for (const w of workers) stopping.add(w.name);
      const reports = await Promise.all(
        workers.map(async (w) => {
          const report = await w.stop();
          stopping.delete(w.name);
          return [w.name, report] as const;
        }),
      );
      return Object.fromEntries(reports);
    },
    stillStopping: () => [...stopping],
  };
}
