// Which coded errors an operation can answer: what its declaration implies (the auth hook's
// refusals for its surface, the branch and merchant it acts on, the body Fastify reads for it)
// plus the codes the route lists itself (`config.errors`) for what its handler refuses. The
// OpenAPI document lists exactly these (src/app/openapi-errors.ts), and a test checks that every
// throw site's code is among those of the operations that reach it (test/platform/throw-sites.test.ts).
import type { ErrorCode } from '../../../platform/errors/codes.ts';
import { WRITE_METHODS } from '../../../platform/http/storage-floor.ts';
import type { RouteAuth } from './auth.ts';

/** Methods whose body Fastify parses (and so can refuse: 400, 413, 415, a reserved key 422). */
export const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Surfaces a merchant's own credential reaches: its account standing is checked on each request. */
const MERCHANT_CREDENTIALS = new Set<RouteAuth['surface']>(['merchant', 'compat', 'till_login']);
const STANDING: readonly ErrorCode[] = ['subscription_blocked', 'quota_exhausted'];

/** The codes an operation's declaration implies, in the order of the checks that answer them. */
function impliedErrors(method: string, auth: RouteAuth): ErrorCode[] {
  const codes: ErrorCode[] = ['internal_error', 'database_unavailable'];
  if (BODY_METHODS.has(method)) codes.push('bad_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type');
  if (WRITE_METHODS.has(method)) codes.push('storage_full');
  if (auth.surface !== 'public') codes.push('unauthenticated');
  if (auth.surface !== 'public' && auth.surface !== 'admin') codes.push('rate_limited');
  if (MERCHANT_CREDENTIALS.has(auth.surface)) codes.push(...STANDING, 'tenant_suspended');
  if (auth.surface === 'compat') codes.push('not_this_dialect');
  switch (auth.surface) {
    case 'partner':
      codes.push('api_key_expired', 'partner_suspended', 'missing_scope');
      if (auth.tenant === 'writable') codes.push(...STANDING);
      break;
    case 'merchant':
      codes.push('missing_ability');
      if (method !== 'GET') codes.push('csrf_token_invalid');
      if (auth.ability === 'invoices:write') codes.push('role_insufficient');
      if (auth.branch) codes.push('branch_not_found');
      if (auth.branch === 'write') codes.push('no_device', 'branch_required', 'branch_not_initialized');
      break;
    case 'account':
      if (method !== 'GET') codes.push('csrf_token_invalid');
      if (auth.role !== 'viewer') codes.push('role_insufficient');
      if (auth.tenant === 'writable') codes.push(...STANDING);
      break;
  }
  return [...new Set(codes)];
}

/** Every code the operation can answer: implied by its declaration, and listed by the route. */
export function errorsOfRoute(route: { method: string; auth: RouteAuth; errors?: readonly ErrorCode[] }): Set<ErrorCode> {
  return new Set([...impliedErrors(route.method, route.auth), ...(route.errors ?? [])]);
}
