// The process's one logger. Request lines (Fastify logs through it), worker lines (through a
// child per worker, `ctx.log.child({ worker })`) and the start and stop lines all go through it,
// so LOG_LEVEL and the destination are configured once. Errors go in `err`, where pino writes
// their type, message and stack.
import { pino, type DestinationStream, type Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/availability.ts';

export type { Logger };

/**
 * JSON lines at `level` on standard output, or on `stream` (tests). Standard output is written
 * asynchronously: a synchronous write per request line was a measurable part of a sale's CPU.
 * Lines written meanwhile go out together; pino flushes them on exit.
 */
export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino({ level, hooks: { logMethod: demoteDatabaseOutages } }, stream ?? pino.destination({ dest: 1, sync: false }));
}

/**
 * A warning or an error whose `err` says the database is unreachable is written at debug: an
 * outage is said once when it begins and once when it ends (the context observes
 * `Database.availability`), not once by every request and worker step that meets it.
 */
function demoteDatabaseOutages(
  this: Logger,
  args: Parameters<Logger['info']>,
  method: (...args: Parameters<Logger['info']>) => void,
  level: number,
): void {
  const first = args[0] as { err?: unknown } | undefined;
  if (level >= 40 && typeof first === 'object' && first !== null && isDatabaseUnavailable(first.err)) return this.debug(...args);
  method.apply(this, args);
}
