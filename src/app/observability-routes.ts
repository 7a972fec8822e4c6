import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../domain/kernel/context.ts';

/**
 * `GET /metrics` in Prometheus text. With ADMIN_TOKEN set it needs that bearer token (it names
 * tenants and their backlogs); without one (development) it is open. The auth hook checks it.
 */
export function registerObservability(app: FastifyInstance, ctx: AppContext): void {
  const { metrics } = ctx;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });

  const auth = { surface: 'admin', withoutToken: 'open', refusal: 'GET /metrics needs Authorization: Bearer <ADMIN_TOKEN>.' } as const;
  app.get('/metrics', { schema: { hide: true }, config: { auth } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
