// One onRequest hook authenticates every route according to the `auth` its route declares,
// then applies the account checks (402/403) and the rate limit (429), in that order, before
// the body is even parsed. Routes never see an unauthenticated request.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { principalTenant, type CatalogedRoute, type Principal, type RouteAuth } from './auth.ts';
import { authenticate } from './authenticate.ts';
import { setRateLimitHeaders } from './rate-limits.ts';

/** Who made the request, for its log line: ids only. */
function logWhoOf(p: Principal | undefined): Record<string, number | string> | undefined {
  if (!p) return undefined;
  if (p.kind === 'partner') return { partner: p.key.partner.id, key: p.key.keyId };
  if (p.kind === 'admin') return { actor: 'admin' };
  if (p.kind === 'member' || p.kind === 'user') return { tenant: p.user.tenant.id, user: p.user.userId };
  const tenant = principalTenant(p);
  return tenant ? { tenant: tenant.id } : undefined;
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
      catalog.push({
        method,
        url: route.url,
        auth: route.config.auth!,
        errors: route.config.errors ?? [],
        bodySchema: schema?.body,
        querySchema: schema?.querystring,
        headersSchema: schema?.headers,
      });
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
