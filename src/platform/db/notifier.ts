import { EventEmitter } from 'node:events';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { CONNECT_TIMEOUT_MS, tagDatabaseError, type DatabaseAvailability } from './availability.ts';

type Listener = (payload: string) => void;

/**
 * Wakes workers and waiting requests when rows change. On PostgreSQL it is LISTEN/NOTIFY
 * (delivered on commit, to every process); on the embedded database an in-process emitter.
 * A notification is only a hint: every consumer re-reads the database.
 */
export interface Notifier {
  /** Send a notification; inside a transaction on PostgreSQL it is delivered at commit. */
  notify(executor: Kysely<unknown>, channel: string, payload?: string): Promise<void>;
  /**
   * PostgreSQL: a statement may send its notifications itself (`pg_notify`, delivered at
   * commit), saving a round trip. False when notifications travel in memory: send them with
   * `notify` after the statement.
   */
  readonly notifiesInStatements: boolean;
  listen(channel: string, listener: Listener): () => void;
  /**
   * Calls `listener` when notifications may have been missed: the LISTEN connection was lost and
   * is back (PostgreSQL). A consumer that waits for a notification reads the database again.
   */
  onResync(listener: () => void): () => void;
  close(): Promise<void>;
}

export class LocalNotifier implements Notifier {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async notify(_executor: Kysely<unknown>, channel: string, payload = ''): Promise<void> {
    queueMicrotask(() => this.emitter.emit(channel, payload));
  }
  readonly notifiesInStatements = false;
  listen(channel: string, listener: Listener): () => void {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }
  onResync(): () => void {
    return () => {}; // in memory, nothing is ever missed
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;
const RESYNC = Symbol('resync');

export class PostgresNotifier implements Notifier {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private client: pg.Client | undefined;
  private readonly channels = new Set<string>();
  /** Channels LISTENed on the current client; cleared when it is replaced. */
  private listened = new Set<string>();
  /** LISTEN commands go one at a time: a pg client runs one query at a time. */
  private subscribing: Promise<void> = Promise.resolve();
  private closed = false;
  private connecting: Promise<void> | undefined;
  /** Delay before the next attempt after a failed (re)connect; reset once LISTENs succeed. */
  private retryDelayMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  /** A LISTEN connection was lost since the channels were last listened: notifications may have been missed. */
  private lost = false;
  private readonly offUp: () => void;

  constructor(
    private readonly connectionString: string,
    private readonly availability?: DatabaseAvailability,
  ) {
    // The pool reached the database again: listen again now, not after this notifier's backoff,
    // so that the notifications of the first filings after an outage are heard.
    this.offUp = availability?.onUp(() => this.retryNow()) ?? (() => {});
  }

  readonly notifiesInStatements = true;

  async notify(executor: Kysely<unknown>, channel: string, payload = ''): Promise<void> {
    await sql`select pg_notify(${channel}, ${payload})`.execute(executor);
  }

  listen(channel: string, listener: Listener): () => void {
    this.emitter.on(channel, listener);
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      this.subscribe();
    }
    return () => this.emitter.off(channel, listener);
  }

  onResync(listener: () => void): () => void {
    this.emitter.on(RESYNC, listener);
    return () => this.emitter.off(RESYNC, listener);
  }

  private subscribe(): void {
    this.subscribing = this.subscribing
      .then(async () => {
        await this.ensureConnected();
        const client = this.client;
        if (!client) return;
        for (const channel of this.channels) {
          if (this.listened.has(channel)) continue;
          await client.query(`listen "${channel.replace(/"/g, '')}"`);
          this.listened.add(channel);
        }
        this.retryDelayMs = RETRY_FIRST_MS;
        if (this.lost) {
          this.lost = false;
          this.emitter.emit(RESYNC);
        }
      })
      .catch(() => this.retryLater());
  }

  /**
   * The server was unreachable or the LISTEN failed: try again, backing off, until it answers.
   * Without this a notifier whose reconnect failed once would stay deaf for the process's life
   * (consumers still poll, but every wake-up would wait for its poll interval).
   */
  private retryLater(): void {
    if (this.closed) return;
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => {});
    this.lost = true;
    const delay = this.retryDelayMs;
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
    this.scheduleRetry(delay);
  }

  private scheduleRetry(delay: number): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.closed) this.subscribe();
    }, delay);
    this.retryTimer.unref();
  }

  /** A retry is waiting out its backoff: make it now. */
  private retryNow(): void {
    if (this.closed || this.retryTimer === undefined) return;
    this.retryDelayMs = RETRY_FIRST_MS;
    this.scheduleRetry(0);
  }

  private ensureConnected(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.connectionString,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        keepAlive: true,
      });
      client.on('notification', (msg) => this.emitter.emit(msg.channel, msg.payload ?? ''));
      client.on('error', () => this.reconnect(client));
      client.on('end', () => this.reconnect(client));
      try {
        await client.connect();
      } catch (err) {
        tagDatabaseError(err, 'connect');
        this.availability?.connectFailed(err);
        throw err;
      }
      this.availability?.connected();
      this.listened = new Set();
      this.client = client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private reconnect(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.lost = true;
    this.scheduleRetry(RETRY_FIRST_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.offUp();
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.emitter.removeAllListeners();
    await client?.end().catch(() => {});
  }
}
