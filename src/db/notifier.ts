import { EventEmitter } from 'node:events';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';

export type Listener = (payload: string) => void;

/**
 * Wakes workers and waiting requests when rows change. On PostgreSQL it is LISTEN/NOTIFY
 * (delivered on commit, to every process); on the embedded database an in-process emitter.
 * A notification is only a hint: every consumer re-reads the database.
 */
export interface Notifier {
  /** Send a notification; inside a transaction on PostgreSQL it is delivered at commit. */
  notify(executor: Kysely<unknown>, channel: string, payload?: string): Promise<void>;
  listen(channel: string, listener: Listener): () => void;
  close(): Promise<void>;
}

export class LocalNotifier implements Notifier {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async notify(_executor: Kysely<unknown>, channel: string, payload = ''): Promise<void> {
    queueMicrotask(() => this.emitter.emit(channel, payload));
  }
  listen(channel: string, listener: Listener): () => void {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export class PostgresNotifier implements Notifier {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private client: pg.Client | undefined;
  private readonly channels = new Set<string>();
  private closed = false;
  private connecting: Promise<void> | undefined;

  constructor(private readonly connectionString: string) {}

  async notify(executor: Kysely<unknown>, channel: string, payload = ''): Promise<void> {
    await sql`select pg_notify(${channel}, ${payload})`.execute(executor);
  }

  listen(channel: string, listener: Listener): () => void {
    this.emitter.on(channel, listener);
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      void this.ensureConnected().then(() => this.client?.query(`listen "${channel.replace(/"/g, '')}"`)).catch(() => {});
    }
    return () => this.emitter.off(channel, listener);
  }

  private ensureConnected(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString });
      client.on('notification', (msg) => this.emitter.emit(msg.channel, msg.payload ?? ''));
      client.on('error', () => this.reconnect(client));
      client.on('end', () => this.reconnect(client));
      await client.connect();
      this.client = client;
      for (const channel of this.channels) await client.query(`listen "${channel.replace(/"/g, '')}"`);
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private reconnect(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    setTimeout(() => void this.ensureConnected().catch(() => this.reconnect(client)), 500).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    this.emitter.removeAllListeners();
    await client?.end().catch(() => {});
  }
}
