import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, ContextMember } from '../context.ts';
import { TenantTokenLookups, compatSdcIdsOf, findCompatDevice, findFiscalisationKey, findPartnerKey, type ResolvedFiscalisationKey, type ResolvedPartnerKey, type ResolvedTenantToken, type BucketCount, type CompatDevice, type TenantAccount } from '../../../credentials/lookup.ts';
import { assertTenantInGoodStanding } from '../../../credentials/standing.ts';
import type { WindowCount } from '../../../platform/db/rate-limit-window.ts';
import { hasValidChecksum, kindOf, safeEqual } from '../../../credentials/secret-format.ts';
import { csrfMatches } from '../../../credentials/user-secrets.ts';
import { cookieValue, findUserSession, SESSION_COOKIE, type SessionUser } from '../../../credentials/user-session.ts';
import type { UserRole } from '../../../platform/db/tables/accounts.ts';
import { ApiError, NotFoundError, unauthenticated } from '../../../platform/errors/errors.ts';
import type { ErrorCode } from '../../../platform/errors/codes.ts';
import { decisionOf, partnerLimit, tenantLimit, WINDOW_MS, type RateLimitDecision } from '../../../platform/http/rate-limit.ts';
import { type Scope, ABILITIES, type Ability } from '../../../credentials/abilities.ts';

// One onRequest hook authenticates every route according to the `auth` its route declares,
// then applies the account checks (402/403) and the rate limit (429), in that order, before
// the body is even parsed. Routes never see an unauthenticated request.

/** The tenant-token lookups' group commits (credentials/lookup.ts), held by the context. */
export const TENANT_TOKEN_LOOKUPS: ContextMember<TenantTokenLookups> = {
  name: 'the tenant-token lookups group commit',
  create: (ctx) => new TenantTokenLookups(ctx.db),
  close: (lookups) => lookups.close(),
};

export type RouteAuth =
  | { surface: 'public' }
  /**
   * A tenant token with `ability`; or, with no Authorization header, a merchant user's session
   * cookie (the console), whose role grants the abilities (ROLE_ABILITIES).
   */
  | {
      surface: 'merchant';
      ability: Ability;
      /** The route acts on the merchant's branch (X-Branch, else the branch rule): it reads it, or writes to it (initialised). */
      branch?: 'read' | 'write';
    }
  /** `tenant`: the route acts on the partner's merchant `:tenant` (404 if not its own); `writable` refuses one that is not billable (402). */
  | { surface: 'partner'; scope: Scope; tenant?: 'read' | 'writable' }
  /**
   * A merchant user's session cookie (`fg_session`, docs/merchants.md); `role` is the least role
   * the route needs (owner > admin > viewer). Every write also needs `X-CSRF-Token`.
   */
  | { surface: 'account'; role: UserRole; tenant?: 'read' | 'writable' }
  /** `/zm/api`: X-Api-Key + X-SdcId (alias Terminal-Id); `branch: 'none'` needs only the key. */
  | { surface: 'compat'; branch?: 'required' | 'none' }
  /** `/api/ApiKey/getactive`: a till login in the body; only the rate limit and 402 apply. */
  | { surface: 'till_login' }
  /**
   * The operator's ADMIN_TOKEN; a server started without one refuses everyone, unless the route
   * says `withoutToken: 'open'` (then it serves anyone: development, e.g. /metrics). `refusal`:
   * the 401's message, when the route names what it wants. `absentBecause`: a route that exists
   * only in some configurations says why when it does not (a 404 before any credential is asked
   * for: the token would not make it exist), or undefined when it does.
   */
  | { surface: 'admin'; withoutToken?: 'open'; refusal?: string; tenant?: 'read'; absentBecause?: () => string | undefined };

type Principal =
  | { kind: 'tenant'; token: ResolvedTenantToken; tenant: TenantAccount }
  | { kind: 'partner'; key: ResolvedPartnerKey }
  | { kind: 'fiscalisation_key'; key: ResolvedFiscalisationKey; tenant: TenantAccount; device: CompatDevice | undefined }
  | { kind: 'admin' }
  | { kind: 'user'; user: SessionUser; sessionToken: string }
  /** A merchant user's session on the merchant surface (the console using the merchant API). */
  | { kind: 'member'; user: SessionUser; sessionToken: string; tenant: TenantAccount };

/** Every route with its declared auth and request schemas (tests walk it: auth matrix, fuzzing). */
export interface CatalogedRoute {
  method: string;
  url: string;
  auth: RouteAuth;
  /** The coded errors the route lists beyond those its declaration implies (route-errors.ts). */
  errors: readonly ErrorCode[];
  bodySchema: unknown;
  querySchema: unknown;
  headersSchema: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeCatalog: CatalogedRoute[];
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The coded errors the handler can answer beyond those `auth` implies (kernel/access/route-errors.ts). */
    errors?: readonly ErrorCode[];
  }
  interface FastifyRequest {
    principal?: Principal;
    rateLimit?: RateLimitDecision;
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() !== '' ? text.trim() : undefined;
}

export const unauthenticatedSession = () => unauthenticated('The session has ended (signed out, expired or revoked). Sign in again.');

/** The tenant behind a merchant or compat principal, if any (for routes and the request log). */
export function principalTenant(principal: Principal | undefined): TenantAccount | undefined {
  if (principal?.kind === 'tenant' || principal?.kind === 'fiscalisation_key' || principal?.kind === 'member') return principal.tenant;
  return undefined;
}

/** Who made the request, for its log line: ids only. */
function logWhoOf(p: Principal | undefined): Record<string, number | string> | undefined {
  if (!p) return undefined;
  if (p.kind === 'partner') return { partner: p.key.partner.id, key: p.key.keyId };
  if (p.kind === 'admin') return { actor: 'admin' };
  if (p.kind === 'member' || p.kind === 'user') return { tenant: p.user.tenant.id, user: p.user.userId };
  const tenant = principalTenant(p);
  return tenant ? { tenant: tenant.id } : undefined;
}

/** Who acts on the merchant surface: the tenant token, or the signed-in user (the console). */
type MerchantActor = { type: 'tenant_token'; id: number } | { type: 'user'; id: number };

export function merchantActor(request: FastifyRequest): MerchantActor {
  const principal = request.principal;
  if (principal?.kind === 'tenant') return { type: 'tenant_token', id: principal.token.tokenId };
  if (principal?.kind === 'member') return { type: 'user', id: principal.user.userId };
  throw unauthenticated('Send Authorization: Bearer <tenant token>.');
}

export function requireTenant(request: FastifyRequest): TenantAccount {
  const tenant = principalTenant(request.principal);
  if (!tenant) throw unauthenticated();
  return tenant;
}

/** The request's token or fiscalisation key was minted in training mode: it issues training documents only. */
export function trainingCredential(request: FastifyRequest): boolean {
  const principal = request.principal;
  if (principal?.kind === 'tenant') return principal.token.training;
  if (principal?.kind === 'fiscalisation_key') return principal.key.training;
  return false;
}

export function requireUser(request: FastifyRequest): { user: SessionUser; sessionToken: string } {
  if (request.principal?.kind !== 'user') throw unauthenticated();
  return request.principal;
}

const ROLE_RANK: Record<UserRole, number> = { viewer: 1, admin: 2, owner: 3 };
/** What a role may do on the merchant API with the session cookie. */
const ROLE_ABILITIES: Record<UserRole, readonly Ability[]> = { viewer: ['invoices:read'], admin: ABILITIES, owner: ABILITIES };
export const roleAtLeast = (role: UserRole, least: UserRole): boolean => ROLE_RANK[role] >= ROLE_RANK[least];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The live session of the cookie, with the CSRF check for a write (both surfaces that take the cookie). */
async function sessionOf(ctx: AppContext, request: FastifyRequest, sessionToken: string): Promise<SessionUser> {
  const user = await findUserSession(ctx.db, sessionToken, ctx.clock.now());
  if (!user) throw unauthenticatedSession();
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(sessionToken, headerValue(request, 'x-csrf-token'))) {
    throw new ApiError('csrf_token_invalid', 'Send the X-CSRF-Token header with the csrfToken of your session (from sign-in or GET /api/v1/account/me).');
  }
  return user;
}

/**
 * The merchant's own bucket: its tenant tokens and its users' sessions (console actions, on the
 * merchant API and the account surface) share one limit.
 */
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
const bucketOf = (kind: BucketKind, id: number) => `${BUCKETS[kind].before}${id}${BUCKETS[kind].after}`;
const merchantBucket = (tenantId: number) => bucketOf('merchant', tenantId);

async function authenticateAccount(ctx: AppContext, request: FastifyRequest, role: UserRole): Promise<Principal> {
  const sessionToken = cookieValue(request.headers.cookie, SESSION_COOKIE);
  if (!sessionToken) throw unauthenticated('Sign in first: POST /api/v1/account/signin sets the fg_session cookie.');
  const user = await sessionOf(ctx, request, sessionToken);
  await applyRateLimit(ctx, request, merchantBucket(user.tenant.id), tenantLimit(user.tenant, 'v1'));
  if (!roleAtLeast(user.role, role)) {
    throw new ApiError('role_insufficient', `Your role (${user.role}) may not do this: it needs ${role === 'owner' ? 'an owner' : `an ${role} or owner`}.`);
  }
  return { kind: 'user', user, sessionToken };
}

export function requirePartner(request: FastifyRequest): ResolvedPartnerKey {
  if (request.principal?.kind !== 'partner') throw unauthenticated();
  return request.principal.key;
}

/** The partner key acting, as the audit log and the services name it. */
export function partnerActor(request: FastifyRequest): { type: 'partner_key'; keyId: number; partnerId: number } {
  const { keyId, partner } = requirePartner(request);
  return { type: 'partner_key', keyId, partnerId: partner.id };
}

/**
 * A merchant user's session on the merchant surface: the same standing rules and rate-limit
 * bucket as the merchant's tenant tokens; the role grants the abilities.
 */
async function authenticateMember(ctx: AppContext, request: FastifyRequest, ability: Ability, sessionToken: string): Promise<Principal> {
  const user = await sessionOf(ctx, request, sessionToken);
  assertTenantInGoodStanding(user.tenant);
  await applyRateLimit(ctx, request, merchantBucket(user.tenant.id), tenantLimit(user.tenant, 'v1'));
  if (!ROLE_ABILITIES[user.role].includes(ability)) {
    throw new ApiError('role_insufficient', `Your role (${user.role}) may only read: filing and other changes need an admin or owner.`);
  }
  return { kind: 'member', user, sessionToken, tenant: user.tenant };
}

async function authenticateMerchant(ctx: AppContext, request: FastifyRequest, ability: Ability): Promise<Principal> {
  // Machines send a token: with an Authorization header the header decides and a cookie is ignored.
  if (request.headers.authorization === undefined) {
    const sessionToken = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (sessionToken) return authenticateMember(ctx, request, ability, sessionToken);
  }
  const secret = bearer(request);
  if (!secret) throw unauthenticated('A tenant token is required: send Authorization: Bearer <TENANT_TOKEN> (or, from the console, the fg_session cookie).');
  const kind = kindOf(secret);
  if (kind?.kind === 'fiscalisation_key') {
    throw unauthenticated('Fiscalisation keys (pk_) are accepted only on /zm/api. Use a tenant token here.');
  }
  if (kind?.kind === 'partner_key') {
    throw unauthenticated('Partner secret keys are not accepted on merchant endpoints. Use a tenant token.');
  }
  if (kind?.kind !== 'tenant_token' || !hasValidChecksum(secret, kind.prefix)) throw unauthenticated('The tenant token is invalid.');
  const token = await ctx.members.get(TENANT_TOKEN_LOOKUPS).find(secret, ctx.clock.now(), countedBucket(ctx, 'merchant'));
  if (!token) throw unauthenticated('The tenant token is invalid or has been revoked.');
  assertTenantInGoodStanding(token.tenant);
  await applyRateLimit(ctx, request, merchantBucket(token.tenant.id), tenantLimit(token.tenant, 'v1'), token.count);
  if (!token.abilities.includes(ability)) {
    throw new ApiError('missing_ability', `This token lacks the ${ability} ability.`);
  }
  return { kind: 'tenant', token, tenant: token.tenant };
}

async function authenticatePartner(ctx: AppContext, request: FastifyRequest, scope: Scope): Promise<Principal> {
  const secret = bearer(request);
  if (!secret) throw unauthenticated('A partner secret key is required: send Authorization: Bearer <sk_live_… or sk_test_…>.');
  const kind = kindOf(secret);
  if (kind?.kind !== 'partner_key') {
    throw unauthenticated('This endpoint takes a partner secret key (sk_live_ or sk_test_); tenant tokens and fiscalisation keys are not accepted.');
  }
  if (!hasValidChecksum(secret, kind.prefix)) throw unauthenticated('The partner secret key is invalid.');
  const key = await findPartnerKey(ctx.db, secret, ctx.clock.now(), countedBucket(ctx, 'partner'));
  if (!key) throw unauthenticated('The partner secret key is invalid or has been revoked.');
  if (key.expiresAt && key.expiresAt.getTime() <= ctx.clock.now().getTime()) {
    throw new ApiError('api_key_expired', 'This partner key was rotated and its grace window has ended. Use its replacement.');
  }
  if (key.partner.status === 'suspended') {
    throw new ApiError('partner_suspended', 'This partner account is suspended.');
  }
  await applyRateLimit(ctx, request, bucketOf('partner', key.partner.id), partnerLimit(ctx.config), key.count);
  if (!key.scopes.includes(scope)) {
    throw new ApiError('missing_scope', `This key lacks the ${scope} scope.`);
  }
  return { kind: 'partner', key };
}

/** What /zm/api is, for a caller who sent the modern surface's credential. */
const LEGACY_DIALECT = '/zm/api speaks the legacy till dialect (docs/compat.md)';

/** How many SDC ids a refused X-SdcId is told; GET /zm/api/Branches lists them all. */
const SDC_IDS_NAMED = 5;

/**
 * The 401 for a missing X-SdcId, or one the key may not use: it names the SDC ids the key files
 * through (its own merchant's only; never the one sent, which may be another merchant's) and
 * points to GET /zm/api/Branches.
 */
async function sdcIdRefusal(ctx: AppContext, key: ResolvedFiscalisationKey, sent: boolean): Promise<ApiError> {
  const { sdcIds, more } = await compatSdcIdsOf(ctx.db, key, SDC_IDS_NAMED);
  const problem = sent
    ? 'This key may not file through the branch X-SdcId (or Terminal-Id) names.'
    : 'X-SdcId (or Terminal-Id) is required: it names the branch this key files through.';
  const branches = `GET /zm/api/Branches (X-Api-Key only) lists the key's branches${sdcIds.length === 0 ? ' and whether each is Initialized' : ''}.`;
  let instead: string;
  if (sdcIds.length === 0) {
    instead = `This key has no initialised branch to file through yet: the merchant must initialise ${key.deviceId !== null ? "the key's branch" : 'a branch'} first. ${branches}`;
  } else if (sdcIds.length === 1 && !more) {
    instead = `Send X-SdcId: ${sdcIds[0]!}, the SDC id of ${key.deviceId !== null ? "the key's branch" : "the merchant's initialised branch"}. ${branches}`;
  } else {
    const listed = more ? `${sdcIds.join(', ')} or another of its branches` : `${sdcIds.slice(0, -1).join(', ')} or ${sdcIds[sdcIds.length - 1]!}`;
    instead = `Send X-SdcId with the SDC id of one of the merchant's initialised branches: ${listed}. ${branches}`;
  }
  return unauthenticated(`${problem} ${instead}`);
}

async function authenticateCompat(ctx: AppContext, request: FastifyRequest, branch: 'required' | 'none'): Promise<Principal> {
  const secret = headerValue(request, 'x-api-key');
  if (!secret) {
    throw unauthenticated(
      request.headers.authorization
        ? `Bearer tokens are not accepted here: ${LEGACY_DIALECT}. A till sends X-Api-Key: <pk_…> and X-SdcId; with a tenant token, file sales through POST /api/v1/sales.`
        : 'Send X-Api-Key: <pk_…> and X-SdcId.',
    );
  }
  const kind = kindOf(secret);
  if (kind?.kind === 'tenant_token') {
    throw unauthenticated(`X-Api-Key takes a fiscalisation key (pk_…), not a tenant token: ${LEGACY_DIALECT}. With a tenant token, send Authorization: Bearer <token> to POST /api/v1/sales.`);
  }
  if (kind?.kind !== 'fiscalisation_key' || !hasValidChecksum(secret, kind.prefix)) throw unauthenticated('The X-Api-Key is invalid: send a fiscalisation key (pk_…).');
  const key = await findFiscalisationKey(ctx.db, secret, ctx.clock.now(), countedBucket(ctx, 'till'));
  if (!key) throw unauthenticated('The X-Api-Key is invalid or has been revoked.');
  let device: CompatDevice | undefined;
  if (branch === 'required') {
    const sdcId = headerValue(request, 'x-sdcid') ?? headerValue(request, 'terminal-id');
    if (!sdcId) throw await sdcIdRefusal(ctx, key, false);
    device = await findCompatDevice(ctx.db, key, sdcId);
    if (!device) throw await sdcIdRefusal(ctx, key, true);
  }
  assertTenantInGoodStanding(key.tenant);
  await applyRateLimit(ctx, request, bucketOf('till', key.tenant.id), tenantLimit(key.tenant, 'zm'), key.count);
  return { kind: 'fiscalisation_key', key, tenant: key.tenant, device };
}

function authenticateAdmin(ctx: AppContext, request: FastifyRequest, auth: Extract<RouteAuth, { surface: 'admin' }>): Principal | undefined {
  const absent = auth.absentBecause?.();
  if (absent !== undefined) throw new NotFoundError(absent);
  const expected = ctx.config.adminToken;
  if (!expected && auth.withoutToken === 'open') return undefined;
  const secret = bearer(request);
  if (!expected || !secret || !safeEqual(secret, expected)) throw unauthenticated(auth.refusal ?? 'The operator token is missing or wrong.');
  return { kind: 'admin' };
}

/** With the table store, the credential lookup counts the request in its own statement, in the bucket of `kind`. */
function countedBucket(ctx: AppContext, kind: BucketKind): BucketCount | undefined {
  const { before, after } = BUCKETS[kind];
  return ctx.rateLimiter.countsInDatabase ? { before: ctx.rateLimiter.keyOf(before), after, windowMs: WINDOW_MS } : undefined;
}

/** `counted`: the request was already counted by the lookup statement. */
async function applyRateLimit(ctx: AppContext, request: FastifyRequest, key: string, limit: number, counted?: WindowCount): Promise<void> {
  const decision = counted ? decisionOf(counted, limit) : await ctx.rateLimiter.consume(key, limit);
  request.rateLimit = decision;
  if (!decision.allowed) {
    throw new ApiError('rate_limited', `Too many requests: the limit is ${limit} a minute. Retry after ${decision.resetSeconds} s.`, {
      'retry-after': String(decision.resetSeconds),
    });
  }
}

function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision | undefined): void {
  if (!decision) return;
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.resetSeconds);
}

/** The surfaces whose credential is `Authorization: Bearer …` (the merchant's also takes the console's cookie). */
const BEARER_SURFACES = new Set<RouteAuth['surface']>(['merchant', 'partner', 'admin']);

/**
 * A 401 of a bearer surface says which scheme it wants (RFC 6750 §3): `Bearer`, and
 * `error="invalid_token"` when one was sent and refused.
 */
function withBearerChallenge(err: unknown, request: FastifyRequest): unknown {
  if (!(err instanceof ApiError) || err.status !== 401) return err;
  const challenge = request.headers.authorization === undefined ? 'Bearer' : 'Bearer error="invalid_token"';
  return new ApiError(err.code, err.message, { ...err.headers, 'www-authenticate': challenge });
}

function authenticate(ctx: AppContext, request: FastifyRequest, auth: RouteAuth): Promise<Principal> | Principal | undefined {
  switch (auth.surface) {
    case 'public':
    case 'till_login':
      return undefined;
    case 'merchant':
      return authenticateMerchant(ctx, request, auth.ability);
    case 'account':
      return authenticateAccount(ctx, request, auth.role);
    case 'partner':
      return authenticatePartner(ctx, request, auth.scope);
    case 'compat':
      return authenticateCompat(ctx, request, auth.branch ?? 'required');
    case 'admin':
      return authenticateAdmin(ctx, request, auth);
  }
}

/** Registers the hook. A route that declares no `config.auth` fails at start-up, not in traffic. */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  const catalog: CatalogedRoute[] = [];
  app.decorate('routeCatalog', catalog);
  app.addHook('onRoute', (route) => {
    if (!route.config?.auth) {
      if (!route.url.startsWith('/docs')) throw new Error(`route ${String(route.method)} ${route.url} declares no auth`);
      route.config = { ...route.config, auth: { surface: 'public' } };
    }
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const schema = route.schema;
      catalog.push({ method, url: route.url, auth: route.config.auth!, errors: route.config.errors ?? [], bodySchema: schema?.body, querySchema: schema?.querystring, headersSchema: schema?.headers });
    }
  });
  app.addHook('onRequest', async (request) => {
    const auth = request.routeOptions.config?.auth;
    if (!auth) return; // the not-found handler
    try {
      request.principal = await authenticate(ctx, request, auth);
    } catch (err) {
      throw BEARER_SURFACES.has(auth.surface) ? withBearerChallenge(err, request) : err;
    }
    request.logWho = logWhoOf(request.principal);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    setRateLimitHeaders(reply, request.rateLimit);
    done(null, payload);
  });
}

/** Exposed for the till login route, which authenticates from its body. */
export async function rateLimitTenant(ctx: AppContext, request: FastifyRequest, tenant: TenantAccount, surface: 'v1' | 'zm'): Promise<void> {
  await applyRateLimit(ctx, request, bucketOf(surface === 'v1' ? 'merchant' : 'till', tenant.id), tenantLimit(tenant, surface));
}
