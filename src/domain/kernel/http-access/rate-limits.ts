// The rate limit of every authenticated request: its bucket (one per merchant surface and
// partner), counted by the credential's lookup statement with the table store, else here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { BucketCount, TenantAccount } from '../../../credentials/lookup.ts';
import type { WindowCount } from '../../../platform/db/rate-limit-window.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { decisionOf, tenantLimit, WINDOW_MS, type RateLimitDecision } from '../../../platform/http/rate-limit.ts';

/**
 * The rate-limit buckets, one name each: `t:<tenant>:v1` (the merchant API, tokens and console
 * alike), `t:<tenant>:zm` (/zm/api and till logins), `p:<partner>`. A lookup statement that
 * counts the request itself is given the same name split around the id (`countedBucket`).
 */
const BUCKETS = {
  merchant: { before: 't:', after: ':v1' },
  till: { before: 't:', after: ':zm' },
  partner: { before: 'p:', after: '' },
} as const;
type BucketKind = keyof typeof BUCKETS;
export const bucketOf = (kind: BucketKind, id: number) => `${BUCKETS[kind].before}${id}${BUCKETS[kind].after}`;

/**
 * The merchant's own bucket: its tenant tokens and its users' sessions (console actions, on the
 * merchant API and the account surface) share one limit.
 */
export const merchantBucket = (tenantId: number) => bucketOf('merchant', tenantId);

/** With the table store, the credential lookup counts the request in its own statement, in the bucket of `kind`. */
export function countedBucket(ctx: AppContext, kind: BucketKind): BucketCount | undefined {
  const { before, after } = BUCKETS[kind];
  return ctx.rateLimiter.countsInDatabase ? { before: ctx.rateLimiter.keyOf(before), after, windowMs: WINDOW_MS } : undefined;
}

/** `counted`: the request was already counted by the lookup statement. */
export async function applyRateLimit(
  ctx: AppContext,
  request: FastifyRequest,
  key: string,
  limit: number,
  counted?: WindowCount,
): Promise<void> {
  const decision = counted ? decisionOf(counted, limit) : await ctx.rateLimiter.consume(key, limit);
  request.rateLimit = decision;
  if (!decision.allowed) {
    throw new ApiError('rate_limited', `Too many requests: the limit is ${limit} a minute. Retry after ${decision.resetSeconds} s.`, {
      'retry-after': String(decision.resetSeconds),
    });
  }
}

export function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision | undefined): void {
  if (!decision) return;
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.resetSeconds);
}

/** Exposed for the till login route, which authenticates from its body. */
export async function rateLimitTenant(
  ctx: AppContext,
  request: FastifyRequest,
  tenant: TenantAccount,
  surface: 'v1' | 'zm',
): Promise<void> {
  await applyRateLimit(ctx, request, bucketOf(surface === 'v1' ? 'merchant' : 'till', tenant.id), tenantLimit(tenant, surface));
}
