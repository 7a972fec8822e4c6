import type { Redis } from 'ioredis';
import type pg from 'pg';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Plan } from '../db/tables/foundation.ts';

// Per-tenant fixed one-minute windows (rate-limiter-flexible). On the embedded database the
// store is in memory (one process); on PostgreSQL it is a shared table, or Redis when
// REDIS_URL is set, so every process counts one bucket per tenant.

export const PLAN_LIMITS: Record<Plan, number> = { free_trial: 60, starter: 120, growth: 300, enterprise: 600 };
export const DEFAULT_LIMITS = { v1: 120, zm: 300 } as const;
export const PARTNER_LIMIT_PER_MINUTE = 1200;
const WINDOW_SECONDS = 60;

export type Surface = keyof typeof DEFAULT_LIMITS;

export function tenantLimit(tenant: { plan: Plan | null; rateLimitPerMinute: number | null }, surface: Surface): number {
  if (tenant.rateLimitPerMinute) return tenant.rateLimitPerMinute;
  if (tenant.plan) return PLAN_LIMITS[tenant.plan];
  return DEFAULT_LIMITS[surface];
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (also the Retry-After on a 429). */
  resetSeconds: number;
}

export type RateLimitStoreKind = 'memory' | 'postgres' | 'redis';

export class RateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    readonly storeKind: RateLimitStoreKind,
    private readonly store: { pool?: pg.Pool; redis?: Redis } = {},
    /** Namespaces the keys, so gateways sharing one Redis for different databases never collide. */
    private readonly keyPrefix = 'rl',
  ) {}

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (limiter) return limiter;
    const common = { points, duration: WINDOW_SECONDS, keyPrefix: this.keyPrefix };
    if (this.storeKind === 'redis') {
      limiter = new RateLimiterRedis({ ...common, storeClient: this.store.redis, insuranceLimiter: new RateLimiterMemory(common) });
    } else if (this.storeKind === 'postgres') {
      limiter = new RateLimiterPostgres({
        ...common,
        storeClient: this.store.pool,
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        insuranceLimiter: new RateLimiterMemory(common),
      });
    } else {
      limiter = new RateLimiterMemory(common);
    }
    this.limiters.set(points, limiter);
    return limiter;
  }

  async consume(key: string, limit: number): Promise<RateLimitDecision> {
    try {
      const res = await this.limiterFor(limit).consume(key, 1);
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
