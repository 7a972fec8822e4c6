import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import { SecretBox, resolveSecretKey } from './credentials/secret-box.ts';
import type { Database } from './db/database.ts';
import type { DB } from './db/schema.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { registerFiscalGauges } from './observability/fiscal-gauges.ts';
import { instrumentVsdcClient } from './observability/instrumented-vsdc.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { createVsdcClient, type VsdcClient } from './vsdc/client.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What every module needs, built once per process and passed down. Close with `closeContext`. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  secretBox: SecretBox;
  rateLimiter: RateLimiter;
  clock: Clock;
  vsdc: VsdcClient;
  metrics: Metrics;
}

export function createContext(config: Config, database: Database, options: { clock?: Clock; vsdc?: VsdcClient; rateLimitKeyPrefix?: string } = {}): AppContext {
  const secretBox = new SecretBox(resolveSecretKey(config.secretKey, config.dataDir));
  let rateLimiter: RateLimiter;
  const prefix = options.rateLimitKeyPrefix;
  if (database.kind === 'embedded') rateLimiter = new RateLimiter('memory', {}, prefix);
  else if (config.redisUrl) rateLimiter = new RateLimiter('redis', { redis: new Redis(config.redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 1 }) }, prefix);
  else rateLimiter = new RateLimiter('postgres', { db: database.db }, prefix);
  const metrics = createMetrics();
  registerFiscalGauges(metrics, database.db);
  const vsdc = instrumentVsdcClient(options.vsdc ?? createVsdcClient({ timeoutMs: config.vsdcTimeoutMs }), metrics);
  return { config, database, db: database.db, secretBox, rateLimiter, clock: options.clock ?? systemClock, vsdc, metrics };
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.rateLimiter.close();
  await ctx.vsdc.close();
}
