import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config.ts';
import { SecretBox, resolveSecretKey } from '../../credentials/secret-box.ts';
import type { Database } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';
import { RateLimiter } from '../../platform/http/rate-limit.ts';
import { Mailer } from '../../platform/mail/mailer.ts';
import { instrumentClient } from '../../authorities/instrumented.ts';
import { createLogger, type Logger } from '../../platform/observability/log.ts';
import { createMetrics, observeDatabaseAvailability, registerStorageGauges, type Metrics } from '../../platform/observability/metrics.ts';
import type { StorageFloor } from '../../platform/db/storage-floor.ts';
import { createAuthorities, type Authorities } from '../../authorities/index.ts';

export interface Clock {
  now(): Date;
}

const systemClock: Clock = { now: () => new Date() };

/** What every module needs, built once per process and passed down. Close with `closeContext`. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  secretBox: SecretBox;
  rateLimiter: RateLimiter;
  clock: Clock;
  /** Every authority's adapter (the registry of src/authorities/index.ts), by a device's profile. */
  authorities: Authorities;
  metrics: Metrics;
  /** The process's logger (LOG_LEVEL); a worker logs through `log.child({ worker: name })`. */
  log: Logger;
  /** The merchants' mail (SMTP_URL, or the development outbox). */
  mailer: Mailer;
  /** State the modules keep for the life of the context (see `ContextMember`). */
  members: ContextMembers;
}

/**
 * Process state that a module owns and the context holds: the sale signals, the classification
 * catalogue's in-memory copy, the group commits of the hot statements (sales, filing outcomes,
 * tenant-token lookups; closed after committing what waits). This file sits below the modules (they import it), so it does not
 * build their state itself, which would make it import them back. Instead a module declares a
 * member (a name, how to build it, how to release it), `moduleMembers` in src/app/modules.ts
 * lists them, and `provideModuleMembers` builds them all on a context in one explicit step
 * (`buildApp` and `startGateway` take it). Reading a member that was never provided throws:
 * nothing is created as a side effect of its first use.
 */
export interface ContextMember<T> {
  readonly name: string;
  create(ctx: AppContext): T;
  close?(value: T): void | Promise<void>;
}

class ContextMembers {
  private readonly values = new Map<ContextMember<unknown>, unknown>();

  /** Builds `member` on `ctx`, unless it is there already. */
  provide<T>(ctx: AppContext, member: ContextMember<T>): void {
    if (!this.values.has(member)) this.values.set(member, member.create(ctx));
  }

  get<T>(member: ContextMember<T>): T {
    if (!this.values.has(member))
      throw new Error(`${member.name} was not provided on this context (provideModuleMembers in src/app/modules.ts)`);
    return this.values.get(member) as T;
  }

  /** Releases every member, newest first. */
  async close(): Promise<void> {
    const entries = [...this.values].reverse();
    this.values.clear();
    for (const [member, value] of entries) await member.close?.(value);
  }
}

export interface ContextOptions {
  clock?: Clock;
  rateLimitKeyPrefix?: string;
  /** Replaces the logger built from LOG_LEVEL (tests: a level and a stream to read). */
  log?: Logger;
}

/**
 * The shared rate-limit store's client. ioredis reports every failed reconnect as an `error`
 * event (and prints it when nobody listens): log once when Redis goes away and once when it is
 * back; meanwhile the limiter counts per process (rate-limit.ts).
 */
function redisClient(url: string, log: Logger): Redis {
  // Loaded only when REDIS_URL is set: most deployments never need it, and it adds to every start.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(url, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.warn({ err }, 'Redis is unreachable: rate limits are counted per process until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info('Redis is reachable again: rate limits are shared again');
  });
  return redis;
}

/** The embedded database's disk: a warning when writes start being refused, a line when they are taken again, and its gauges. */
function watchStorage(storage: StorageFloor, log: Logger, metrics: Metrics): void {
  registerStorageGauges(metrics, storage);
  storage.onChange((state) => {
    const fields = { dataDir: storage.dataDir, freeBytes: state.freeBytes, minFreeBytes: storage.minFreeBytes };
    if (state.refusing) log.warn(fields, storage.changeLine(state));
    else log.info(fields, storage.changeLine(state));
  });
}

export function createContext(config: Config, database: Database, options: ContextOptions = {}): AppContext {
  const secretBox = new SecretBox(resolveSecretKey(config.secretKey, config.dataDir));
  const log = options.log ?? createLogger(config.logLevel);
  let rateLimiter: RateLimiter;
  const prefix = options.rateLimitKeyPrefix;
  if (database.kind === 'embedded') rateLimiter = new RateLimiter('memory', {}, prefix);
  else if (config.redisUrl) rateLimiter = new RateLimiter('redis', { redis: redisClient(config.redisUrl, log) }, prefix);
  else rateLimiter = new RateLimiter('postgres', { db: database.db }, prefix);
  const metrics = createMetrics();
  const clock = options.clock ?? systemClock;
  const authorities = createAuthorities({
    transport: { timeoutMs: config.vsdcTimeoutMs, hostConnections: config.vsdcHostConnections, hostRate: config.vsdcHostRate },
    instrument: (client) => instrumentClient(client, metrics),
    now: () => clock.now(),
  });
  const mailer = new Mailer(config, log);
  if (database.storage) watchStorage(database.storage, log, metrics);
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    secretBox,
    rateLimiter,
    clock,
    authorities,
    metrics,
    log,
    mailer,
    members: new ContextMembers(),
  };
  ctx.members.provide(ctx, DATABASE_OUTAGES);
  return ctx;
}

/**
 * A database outage, as the context says it: one line when it begins and one when it ends, and
 * nothing in between (observability/log.ts); the metrics of observeDatabaseAvailability.
 */
const DATABASE_OUTAGES: ContextMember<Array<() => void>> = {
  name: 'database.outages',
  create: ({ database: { availability }, log, metrics }) => [
    observeDatabaseAvailability(metrics, availability),
    availability.observe({
      down: (reason) =>
        log.warn(
          { reason },
          'database unreachable: requests that need it are answered 503 database_unavailable and the workers wait for it; nothing is lost',
        ),
      up: (downForMs, failures) => log.info({ downForMs, failedAttempts: failures }, 'database answers again: requests and workers resume'),
    }),
  ],
  close: (unsubscribe) => unsubscribe.forEach((off) => off()),
};

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.members.close();
  await ctx.rateLimiter.close();
  await ctx.authorities.close();
  ctx.mailer.close();
}
