// Each surface's credential (tenant token or console session, account session, partner key,
// fiscalisation key and X-SdcId, operator token) resolved to the request's Principal, with the
// account checks (402/403) and the rate limit (429) in that order.
import type { FastifyRequest } from 'fastify';
import type { AppContext, ContextMember } from '../context.ts';
import {
  compatSdcIdsOf,
  findCompatDevice,
  findFiscalisationKey,
  findPartnerKey,
  type ResolvedFiscalisationKey,
  type CompatDevice,
} from '../../../credentials/key-lookup.ts';
import { TenantTokenLookups } from '../../../credentials/tenant-token-lookup.ts';
import { assertTenantInGoodStanding } from '../../../credentials/standing.ts';
import { hasValidChecksum, kindOf, safeEqual } from '../../../credentials/secret-format.ts';
import { csrfMatches } from '../../../credentials/user-secrets.ts';
import { cookieValue, findUserSession, SESSION_COOKIE, type SessionUser } from '../../../credentials/user-session.ts';
import type { UserRole } from '../../../platform/db/tables/accounts.ts';
import { ApiError, NotFoundError, unauthenticated } from '../../../platform/errors/errors.ts';
import { partnerLimit, tenantLimit } from '../../../platform/http/rate-limit.ts';
import { type Scope, ABILITIES, type Ability } from '../../../credentials/abilities.ts';
import { roleAtLeast, unauthenticatedSession, type Principal, type RouteAuth } from './auth.ts';
import { applyRateLimit, bucketOf, countedBucket, merchantBucket } from './rate-limits.ts';

/** The tenant-token lookups' group commits (credentials/tenant-token-lookup.ts), held by the context. */
export const TENANT_TOKEN_LOOKUPS: ContextMember<TenantTokenLookups> = {
  name: 'the tenant-token lookups group commit',
  create: (ctx) => new TenantTokenLookups(ctx.db),
  close: (lookups) => lookups.close(),
};

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

/** What a role may do on the merchant API with the session cookie. */
const ROLE_ABILITIES: Record<UserRole, readonly Ability[]> = { viewer: ['invoices:read'], admin: ABILITIES, owner: ABILITIES };
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The live session of the cookie, with the CSRF check for a write (both surfaces that take the cookie). */
async function sessionOf(ctx: AppContext, request: FastifyRequest, sessionToken: string): Promise<SessionUser> {
  const user = await findUserSession(ctx.db, sessionToken, ctx.clock.now());
  if (!user) throw unauthenticatedSession();
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(sessionToken, headerValue(request, 'x-csrf-token'))) {
    throw new ApiError(
      'csrf_token_invalid',
      'Send the X-CSRF-Token header with the csrfToken of your session (from sign-in or GET /api/v1/account/me).',
    );
  }
  return user;
}

async function authenticateAccount(ctx: AppContext, request: FastifyRequest, role: UserRole): Promise<Principal> {
  const sessionToken = cookieValue(request.headers.cookie, SESSION_COOKIE);
  if (!sessionToken) throw unauthenticated('Sign in first: POST /api/v1/account/signin sets the fg_session cookie.');
  const user = await sessionOf(ctx, request, sessionToken);
  await applyRateLimit(ctx, request, merchantBucket(user.tenant.id), tenantLimit(user.tenant, 'v1'));
  if (!roleAtLeast(user.role, role)) {
    throw new ApiError(
      'role_insufficient',
      `Your role (${user.role}) may not do this: it needs ${role === 'owner' ? 'an owner' : `an ${role} or owner`}.`,
    );
  }
  return { kind: 'user', user, sessionToken };
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
  if (!secret)
    throw unauthenticated(
      'A tenant token is required: send Authorization: Bearer <TENANT_TOKEN> (or, from the console, the fg_session cookie).',
    );
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
    throw unauthenticated(
      'This endpoint takes a partner secret key (sk_live_ or sk_test_); tenant tokens and fiscalisation keys are not accepted.',
    );
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
    const listed = more
      ? `${sdcIds.join(', ')} or another of its branches`
      : `${sdcIds.slice(0, -1).join(', ')} or ${sdcIds[sdcIds.length - 1]!}`;
    instead = `Send X-SdcId with the SDC id of one of the merchant's initialised branches: ${listed}. ${branches}`;
  }
  return unauthenticated(`${problem} ${instead}`);
}

/** The authority whose till dialect /zm/api speaks. */
const COMPAT_AUTHORITY = 'zra';

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
    throw unauthenticated(
      `X-Api-Key takes a fiscalisation key (pk_…), not a tenant token: ${LEGACY_DIALECT}. With a tenant token, send Authorization: Bearer <token> to POST /api/v1/sales.`,
    );
  }
  if (kind?.kind !== 'fiscalisation_key' || !hasValidChecksum(secret, kind.prefix))
    throw unauthenticated('The X-Api-Key is invalid: send a fiscalisation key (pk_…).');
  const key = await findFiscalisationKey(ctx.db, secret, ctx.clock.now(), countedBucket(ctx, 'till'));
  if (!key) throw unauthenticated('The X-Api-Key is invalid or has been revoked.');
  if (key.tenant.authority !== COMPAT_AUTHORITY) {
    throw new ApiError(
      'not_this_dialect',
      `/zm/api is Zambia's till dialect (ZRA's Smart Invoice); this key's merchant files with ${key.tenant.authority.toUpperCase()}. File its sales through POST /api/v1/sales with a tenant token (Authorization: Bearer …).`,
    );
  }
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

function authenticateAdmin(
  ctx: AppContext,
  request: FastifyRequest,
  auth: Extract<RouteAuth, { surface: 'admin' }>,
): Principal | undefined {
  const absent = auth.absentBecause?.();
  if (absent !== undefined) throw new NotFoundError(absent);
  const expected = ctx.config.adminToken;
  if (!expected && auth.withoutToken === 'open') return undefined;
  const secret = bearer(request);
  if (!expected || !secret || !safeEqual(secret, expected))
    throw unauthenticated(auth.refusal ?? 'The operator token is missing or wrong.');
  return { kind: 'admin' };
}

export function authenticate(ctx: AppContext, request: FastifyRequest, auth: RouteAuth): Promise<Principal> | Principal | undefined {
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
