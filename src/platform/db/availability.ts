// Whether the database can be reached, as the connections to it find out. An outage (a server
// stopped or restarting, a failover, a server refusing connections) is not a defect: requests are
// answered 503 `database_unavailable`, workers wait and retry, and the process says so once when
// the outage begins and once when it ends. Only PostgreSQL goes away; the embedded database is in
// the process and its tracker never changes state.

/**
 * How long opening a connection may take before the database counts as unreachable (a
 * blackholed server must not hold a request). Only the opening: a request waiting for a pooled
 * connection while all are busy is load, not an outage, and waits as before.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * SQLSTATEs of a server going away or refusing connections: class 08 (connection exception, but
 * 08P01, a protocol violation, which is a defect), 57P01–57P03 (shutting down, crashed, not yet
 * accepting connections: a restart, a failover), class 53 (out of resources: too many
 * connections, a full disk).
 */
const SERVER_CODE = /^(08(?!P01)[0-9A-Z]{3}|57P0[1-3]|53[0-9A-Z]{3})$/;
/** Socket errors: only when they came from a database connection (`tagDatabaseError`), not a VSDC's or a receiver's. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
/** What node-postgres says, without a code, when a connection ended or cannot be used. */
const CLIENT_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;
const FROM_DATABASE = Symbol('fromDatabase');
const FROM_CONNECT = Symbol('fromConnect');

/**
 * Marks an error thrown by a database statement (`statement`) or by an attempt to open a
 * connection (`connect`: whatever the reason — refused, timed out, the server starting up — the
 * database cannot be reached).
 */
export function tagDatabaseError(err: unknown, where: 'statement' | 'connect' = 'statement'): void {
  if (typeof err !== 'object' || err === null || Object.isFrozen(err)) return;
  Object.defineProperty(err, where === 'connect' ? FROM_CONNECT : FROM_DATABASE, { value: true });
}

/** The error says the database could not be reached (as opposed to a statement it refused). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (FROM_CONNECT in err) return true;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && SERVER_CODE.test(code)) return true;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return FROM_DATABASE in err;
  return typeof message === 'string' && CLIENT_MESSAGE.test(message);
}

/** A short reason for a log line: the code and the message (never a connection string). */
export function unavailableReason(err: unknown): string {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return [typeof code === 'string' ? code : undefined, typeof message === 'string' ? message : undefined].filter(Boolean).join(' ');
}

export interface AvailabilityObserver {
  /** The outage began: the first attempt to connect failed, for this reason. */
  down(reason: string): void;
  /** A connection succeeded again after `downForMs`, during which `failures` attempts failed. */
  up(downForMs: number, failures: number): void;
}

export class DatabaseAvailability {
  private downSince: number | undefined;
  private failures = 0;
  private readonly observers = new Set<AvailabilityObserver>();

  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * A new connection could not be made: the database is away. (A connection that breaks is not
   * an outage by itself — one backend may be terminated alone — the next connection attempt says.)
   */
  connectFailed(err: unknown): void {
    if (!isDatabaseUnavailable(err)) return;
    this.failures++;
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    for (const observer of this.observers) observer.down(unavailableReason(err));
  }

  /** A new connection was made: the database answers. */
  connected(): void {
    if (this.downSince === undefined) return;
    const downForMs = Date.now() - this.downSince;
    const failures = this.failures;
    this.downSince = undefined;
    this.failures = 0;
    for (const observer of this.observers) observer.up(downForMs, failures);
  }

  observe(observer: AvailabilityObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Calls `listener` each time the database answers again after an outage. */
  onUp(listener: () => void): () => void {
    return this.observe({ down: () => {}, up: listener });
  }
}
