import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../domain/kernel/context.ts';
import { registerAuth } from '../domain/kernel/http-access/hook.ts';
import { registerErrorHandling } from '../platform/http/error-handler.ts';
import { registerRequestLog, requestId } from '../platform/http/request-log.ts';

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

/**
 * The listener of METRICS_PORT: the same `GET /metrics` (same registry, same credential rule)
 * and `GET /healthz`, nothing else, so a `--workers-only` process, which serves no API, can be
 * scraped. Errors in the API's shapes (a 404 for any other route).
 */
export async function buildMetricsApp(ctx: AppContext): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = ctx.log;
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    requestIdHeader: false,
    trustProxy: false,
  });
  registerErrorHandling(app);
  registerRequestLog(app);
  registerAuth(app, ctx);
  registerObservability(app, ctx);
  app.get('/healthz', { schema: { hide: true }, config: { auth: { surface: 'public' } } }, async () => ({ status: 'ok' }));
  await app.ready();
  return app;
}
