// Background workers have no request logger: one JSON line on stderr per problem.
const QUIET_LEVELS = new Set(['silent', 'fatal']);

export interface WorkerLog {
  error(message: string, err?: unknown, details?: Record<string, unknown>): void;
}

export function workerLog(worker: string, level: string): WorkerLog {
  return {
    error(message, err, details = {}) {
      if (QUIET_LEVELS.has(level)) return;
      const error = err instanceof Error ? err.message : err === undefined ? undefined : String(err);
      process.stderr.write(JSON.stringify({ level: 50, time: Date.now(), worker, msg: message, error, ...details }) + '\n');
    },
  };
}
