// What a route declares (RouteAuth) and who the hook found (the request's Principal), with the
// accessors routes and services read it through. The hook: hook.ts; each surface's credential:
// authenticate.ts; the rate limit: rate-limits.ts.
import type { FastifyRequest } from 'fastify';
import type { ResolvedFiscalisationKey, ResolvedPartnerKey, CompatDevice } from '../../../credentials/key-lookup.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import type { ResolvedTenantToken } from '../../../credentials/tenant-token-lookup.ts';
import type { SessionUser } from '../../../credentials/user-session.ts';
import type { UserRole } from '../../../platform/db/tables/accounts.ts';
import { unauthenticated } from '../../../platform/errors/errors.ts';
import type { ErrorCode } from '../../../platform/errors/codes.ts';
import type { RateLimitDecision } from '../../../platform/http/rate-limit.ts';
import type { Scope, Ability } from '../../../credentials/abilities.ts';

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

export type Principal =
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
    /** The coded errors the handler can answer beyond those `auth` implies (kernel/http-access/route-errors.ts). */
    errors?: readonly ErrorCode[];
  }
  interface FastifyRequest {
    principal?: Principal;
    rateLimit?: RateLimitDecision;
  }
}

export const unauthenticatedSession = () => unauthenticated('The session has ended (signed out, expired or revoked). Sign in again.');

/** The tenant behind a merchant or compat principal, if any (for routes and the request log). */
export function principalTenant(principal: Principal | undefined): TenantAccount | undefined {
  if (principal?.kind === 'tenant' || principal?.kind === 'fiscalisation_key' || principal?.kind === 'member') return principal.tenant;
  return undefined;
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
export const roleAtLeast = (role: UserRole, least: UserRole): boolean => ROLE_RANK[role] >= ROLE_RANK[least];

export function requirePartner(request: FastifyRequest): ResolvedPartnerKey {
  if (request.principal?.kind !== 'partner') throw unauthenticated();
  return request.principal.key;
}

/** The partner key acting, as the audit log and the services name it. */
export function partnerActor(request: FastifyRequest): { type: 'partner_key'; keyId: number; partnerId: number } {
  const { keyId, partner } = requirePartner(request);
  return { type: 'partner_key', keyId, partnerId: partner.id };
}
