import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { safeEqual } from '../credentials/secret-format.ts';
import { unauthenticated } from '../http/errors.ts';

/**
 * `GET /metrics` in Prometheus text. With ADMIN_TOKEN set it needs that bearer token (it names
 * tenants and their backlogs); without one (development) it is open.
 */
export function registerObservability(app: FastifyInstance, ctx: AppContext): void {
  const { metrics } = ctx;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true }, config: { auth: { surface: 'public' } } }, async (request, reply) => {
    const expected = ctx.config.adminToken;
    if (expected) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!safeEqual(given, expected)) throw unauthenticated('GET /metrics needs Authorization: Bearer <ADMIN_TOKEN>.');
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
