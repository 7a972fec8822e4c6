import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A caller's X-Request-Id is kept when it is safe to echo; otherwise we mint one. */
export function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request, for its log line (set by the auth hook: ids only, never secrets). */
    logWho?: Record<string, number | string>;
  }
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
        ...request.logWho,
      },
      'request',
    );
    done();
  });
}
