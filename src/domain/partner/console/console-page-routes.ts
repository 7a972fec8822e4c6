import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, NotFoundError } from '../../../platform/errors/errors.ts';
import { CONSOLE_CSP, loadConsoleBundle, type ConsoleBundle, type ConsoleFile } from './static.ts';

function sendFile(reply: FastifyReply, request: FastifyRequest, file: ConsoleFile) {
  reply
    .header('content-type', file.contentType)
    .header('etag', file.etag)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
  if (file.contentType.startsWith('text/html')) reply.header('content-security-policy', CONSOLE_CSP).header('x-frame-options', 'DENY');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.send(file.body);
}

/** The console's single-page app and its assets (not in the API reference). */
export function consolePageRoutes(): FastifyPluginAsync {
  return async (app) => {
    // The single-page app. Loaded on first use, so a build made after start-up is picked up.
    let bundle: ConsoleBundle | undefined;
    const current = () => (bundle ??= loadConsoleBundle());
    const notBuilt = () =>
      new ApiError('console_not_built', 'The console has not been built: run `npm run build:console` (npm ci does it).');
    const page = { auth: { surface: 'public' } } as const;

    app.get('/console', { config: { ...page, errors: ['console_not_built'] }, schema: { hide: true } }, async (request, reply) => {
      const built = current();
      if (!built) throw notBuilt();
      return sendFile(reply, request, built.index);
    });
    app.get('/console/*', { config: { ...page, errors: ['console_not_built'] }, schema: { hide: true } }, async (request, reply) => {
      const built = current();
      if (!built) throw notBuilt();
      const path = (request.params as { '*': string })['*'];
      const file = built.files.get(path);
      if (file) return sendFile(reply, request, file);
      // Client-side routes have no extension; a missing asset is a real 404.
      if (path.includes('.')) throw new NotFoundError('Not found.');
      return sendFile(reply, request, built.index);
    });
  };
}
