import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalTenant } from '../../domain/kernel/access/auth.ts';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A caller's X-Request-Id is kept when it is safe to echo; otherwise we mint one. */
export function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

function who(request: FastifyRequest): Record<string, number | string> {
  const p = request.principal;
  if (!p) return {};
  if (p.kind === 'partner') return { partner: p.key.partner.id, key: p.key.keyId };
  if (p.kind === 'admin') return { actor: 'admin' };
  if (p.kind === 'member' || p.kind === 'user') return { tenant: p.user.tenant.id, user: p.user.userId };
  const tenant = principalTenant(p);
  return tenant ? { tenant: tenant.id } : {};
}

/**
 * One structured line per request, without headers or bodies (so no secrets). The hooks take
 * callbacks rather than being async: no promise per request for work that never waits.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...who(request),
      },
      'request',
    );
    done();
  });
}
