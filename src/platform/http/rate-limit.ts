import type { Redis } from 'ioredis';
import { sql, type Kysely } from 'kysely';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { countInWindow, windowCount, type WindowCount } from '../db/rate-limit-window.ts';
import type { DB } from '../db/schema.ts';
import type { Plan } from '../db/tables/foundation.ts';
import type { Config } from '../config.ts';
import { prepared } from '../db/prepared.ts';

// Per-tenant fixed one-minute windows. On the embedded database the store is in memory (one
// process); on PostgreSQL it is a shared table, or Redis when REDIS_URL is set, so every
// process counts one bucket per tenant. With the table store, the auth hook counts a request
// in the very statement that looks up its credential (see `bucketOf`); `consume` is for the rest.

const PLAN_LIMITS: Record<Plan, number> = { free_trial: 60, starter: 120, growth: 300, enterprise: 600 };
const DEFAULT_LIMITS = { v1: 120, zm: 300 } as const;
const PARTNER_LIMIT_PER_MINUTE = 1200;
const WINDOW_SECONDS = 60;
export const WINDOW_MS = WINDOW_SECONDS * 1000;

type Surface = keyof typeof DEFAULT_LIMITS;

export function tenantLimit(tenant: { plan: Plan | null; rateLimitPerMinute: number | null }, surface: Surface): number {
  if (tenant.rateLimitPerMinute) return tenant.rateLimitPerMinute;
  if (tenant.plan) return PLAN_LIMITS[tenant.plan];
  return DEFAULT_LIMITS[surface];
}

/** A partner's limit a minute, across its keys. */
export const partnerLimit = (config: Pick<Config, 'partnerRateLimitPerMinute'>): number =>
  config.partnerRateLimitPerMinute ?? PARTNER_LIMIT_PER_MINUTE;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (also the Retry-After on a 429). */
  resetSeconds: number;
}

type RateLimitStoreKind = 'memory' | 'postgres' | 'redis';

export function decisionOf(count: WindowCount, limit: number): RateLimitDecision {
  const resetSeconds = Math.max(1, Math.ceil((count.expireMs - count.nowMs) / 1000));
  return { allowed: count.points <= limit, limit, remaining: Math.max(limit - count.points, 0), resetSeconds };
}

export class RateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    readonly storeKind: RateLimitStoreKind,
    private readonly store: { db?: Kysely<DB>; redis?: Redis } = {},
    /** Namespaces the keys, so gateways sharing one store for different databases never collide. */
    private readonly keyPrefix = 'rl',
  ) {}

  /** The store's key of a bucket (as rate-limiter-flexible names it). */
  keyOf(bucket: string): string {
    return `${this.keyPrefix}:${bucket}`;
  }

  /** True when requests are counted in the database table, so a lookup statement can count them too. */
  get countsInDatabase(): boolean {
    return this.storeKind === 'postgres';
  }

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (limiter) return limiter;
    const common = { points, duration: WINDOW_SECONDS, keyPrefix: this.keyPrefix };
    // The PostgreSQL store falls back to memory too (see `consume`).
    limiter =
      this.storeKind === 'redis'
        ? new RateLimiterRedis({ ...common, storeClient: this.store.redis, insuranceLimiter: new RateLimiterMemory(common) })
        : new RateLimiterMemory(common);
    this.limiters.set(points, limiter);
    return limiter;
  }

  async consume(bucket: string, limit: number): Promise<RateLimitDecision> {
    if (this.storeKind === 'postgres') {
      try {
        const result = await sql<{ points: number; expire: number; now: number }>`${prepared}
          with ${countInWindow(sql`${this.keyOf(bucket)}::text`, WINDOW_MS)}
          select counted.points, counted.expire, clock.ms as now from counted, clock`.execute(this.store.db!);
        return decisionOf(windowCount(result.rows[0]!), limit);
      } catch {
        // The store is out: count in this process rather than refuse traffic.
      }
    }
    try {
      const res = await this.limiterFor(limit).consume(bucket, 1);
      return { allowed: true, limit, remaining: res.remainingPoints, resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.store.redis?.quit().catch(() => {});
  }
}
