import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../domain/kernel/context.ts';
import { ping } from '../platform/db/database.ts';
import { registerApiReference } from './api-reference.ts';
import { registerAuth } from '../domain/kernel/http-access/hook.ts';
import { registerActsOn } from '../domain/kernel/http-access/acts-on.ts';
import { ApiError } from '../platform/errors/errors.ts';
import { registerEarlyAnswers } from '../platform/http/early-answers.ts';
import { registerErrorHandling } from '../platform/http/error-handler.ts';
import { registerJsonBodyParser } from '../platform/http/json-body.ts';
import { registerRequestLog, requestId } from '../platform/http/request-log.ts';
import { lazySerializers } from '../platform/http/serialization.ts';
import { registerStrictQueryStrings, validatorCompiler } from '../platform/http/validation.ts';
import { registerStorageFloor } from '../platform/http/storage-floor.ts';
import { adminRoutes } from '../domain/partner/admin/routes.ts';
import { moduleRoutes, provideModuleMembers } from './modules.ts';
import { createLogger } from '../platform/observability/log.ts';
import { registerObservability } from './observability-routes.ts';
import { registerBackupRoute } from './backup-routes.ts';

export const INTERFACE_VERSION = '1.10.0';
const BODY_LIMIT = 1_048_576;
/** The modern API: strict query strings, 405 for a method a path does not take, "did you mean" for a route (the legacy till dialect keeps its own rules). */
const MODERN_API_PREFIXES = ['/api/v1/', '/admin/v1/'];

export type App = FastifyInstance;

interface BuildOptions {
  /**
   * Request logs go through the context's logger (`ctx.log`); tests may give a level and a
   * stream to write to instead, or false for no request logs.
   */
  logger?: false | { level: string; stream: { write(line: string): void } };
}

/** A request Node's HTTP parser refuses (e.g. a newline inside a header) still gets our coded shape. */
function answerMalformedRequest(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({
    error: tooLarge
      ? { code: 'headers_too_large', message: 'The request headers are too large.' }
      : { code: 'bad_request', message: 'The HTTP request is malformed (check for line breaks inside header values).' },
  });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  provideModuleMembers(ctx); // e.g. the sale signals hear other processes before the first sale waits
  const logger: FastifyBaseLogger | false =
    options.logger === undefined ? ctx.log : options.logger && createLogger(options.logger.level, options.logger.stream);
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : {}),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    trustProxy: false,
    clientErrorHandler: answerMalformedRequest,
    ajv: { customOptions: {} },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  registerStrictQueryStrings(app, MODERN_API_PREFIXES);

  registerJsonBodyParser(app, BODY_LIMIT);

  registerErrorHandling(app, { modernPrefixes: MODERN_API_PREFIXES });
  registerEarlyAnswers(app);
  registerRequestLog(app);
  registerAuth(app, ctx);
  registerStorageFloor(app, ctx.database.storage);
  registerActsOn(app, ctx);
  registerObservability(app, ctx);

  await registerApiReference(app, {
    version: INTERFACE_VERSION,
    description:
      "Fiscalises merchants' sales with the tax authority through VSDCs. Merchant endpoints take a tenant token, partner endpoints a partner secret key, /zm/api a fiscalisation key.\n\n" +
      "The authority's item classification catalogue can be downloaded without a credential as a gzip-compressed CSV: [/docs/item-classes.csv.gz](/docs/item-classes.csv.gz).",
  });

  app.get('/healthz', { schema: { hide: true }, config: { auth: { surface: 'public' } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, config: { auth: { surface: 'public' }, errors: ['not_ready'] } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<'silent'>((resolve) => (timer = setTimeout(resolve, ctx.config.readinessTimeoutMs, 'silent')));
    try {
      const answer = await Promise.race([ping(ctx.db), silent]);
      if (answer === 'silent') throw new ApiError('not_ready', `The database did not answer within ${ctx.config.readinessTimeoutMs} ms.`);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError('not_ready', 'The database is unreachable.');
    } finally {
      clearTimeout(timer);
    }
    if (ctx.database.storage?.refusing) throw new ApiError('not_ready', ctx.database.storage.notReady());
    return { status: 'ready', database: ctx.database.kind };
  });

  for (const routes of moduleRoutes) await app.register(routes(ctx));
  if (ctx.config.adminToken) await app.register(adminRoutes(ctx), { prefix: '/admin/v1' });
  registerBackupRoute(app, ctx);

  return app;
}
