import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../errors/codes.ts';
import { ApiError, NotFoundError, ValidationError, type ErrorBody } from '../errors/errors.ts';
import { toValidationError, type HttpPart } from './validation.ts';
import { editsIfSlip, namesInWords } from '../lib/did-you-mean.ts';
import { isDatabaseUnavailable } from '../db/availability.ts';
import { StorageFullError } from '../db/storage-floor.ts';
import { storageFull } from './storage-floor.ts';

// Every failure leaves in one of the spec's three shapes; nothing internal reaches a body.

interface Rendered {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

function coded(code: ErrorCode, message: string): Rendered {
  return { status: ERROR_CODES[code].status, body: { error: { code, message } } };
}

/**
 * The code for a 4xx that Fastify or Node raised without one of ours (a framework error this
 * handler does not name): the table's code that means that status, otherwise `bad_request`,
 * answered with the table's status (400) — a body's code and its status never disagree.
 */
const FRAMEWORK_4XX: Partial<Record<number, ErrorCode>> = {
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
  406: 'not_acceptable',
};
function codeOfFramework4xx(status: number): ErrorCode {
  return FRAMEWORK_4XX[status] ?? 'bad_request';
}

export function renderError(error: unknown, request: FastifyRequest): Rendered {
  // Coded errors are ours, 503s included (what is unavailable, and when to retry): their message
  // and headers (Retry-After) go out as written.
  if (error instanceof ApiError)
    return { status: error.status, body: { error: { code: error.code, message: error.message } }, headers: error.headers };
  // The embedded engine could not store a write for want of disk: rolled back, the engine usable.
  if (error instanceof StorageFullError) return renderError(storageFull(error.message), request);
  // A path parameter that cannot name anything (/tenants/abc) is simply not found.
  if ((error as { validationContext?: string }).validationContext === 'params') return { status: 404, body: { message: 'Not found.' } };
  if (error instanceof ValidationError) return { status: 422, body: { message: error.message, errors: error.errors } };
  if (error instanceof NotFoundError) return { status: 404, body: { message: error.message } };

  const fe = error as FastifyError & { validationContext?: string };
  if (fe.validation) {
    const ve = toValidationError(fe.validation as never, (fe.validationContext as HttpPart | undefined) ?? 'body');
    return { status: 422, body: { message: ve.message, errors: ve.errors } };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return coded('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return coded('payload_too_large', 'The request body is too large (the limit is 1 MiB).');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return coded('bad_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return coded('invalid_json', 'The request body is not valid JSON.');
  }
  if (error instanceof SyntaxError || fe.statusCode === 400) {
    return coded('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return { status: 404, body: { message: 'Not found.' } };
    return coded(codeOfFramework4xx(fe.statusCode), fe.message);
  }
  if (isDatabaseUnavailable(error)) return DATABASE_UNAVAILABLE;
  return coded('internal_error', internalMessage(request));
}

/** Seconds a client waits before repeating a request the database's absence refused. */
const DATABASE_RETRY_AFTER_S = 5;
const DATABASE_UNAVAILABLE: Rendered = {
  ...coded(
    'database_unavailable',
    `The gateway's database cannot be reached at the moment (it is restarting or failing over); try again in ${DATABASE_RETRY_AFTER_S} seconds. Repeat a write with the same Idempotency-Key: you get exactly one document whether or not this attempt stored it.`,
  ),
  headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
};

function internalMessage(request: FastifyRequest): string {
  return `Something went wrong on our side; nothing was changed by a half-finished step. Quote request id ${request.id} if you contact support.`;
}

function sendError(reply: FastifyReply, rendered: Rendered): FastifyReply {
  if (rendered.headers) for (const [name, value] of Object.entries(rendered.headers)) reply.header(name, value);
  return reply.code(rendered.status).type('application/json; charset=utf-8').send(rendered.body);
}

/** The methods a path may be asked with; HEAD is answered wherever GET is. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

interface KnownRoute {
  method: string;
  /** `/api/v1/tenants/:tenant`, split: a segment starting with `:` matches any value. */
  segments: string[];
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);
/** `/api/v1/sales/:sale` → `/api/v1/sales/{sale}`, as the reference at /docs writes it. */
const shownPath = (segments: string[]) => `/${segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;

/**
 * The route a mistyped path most likely meant: same number of segments, each fixed segment the
 * same or a slip of it (`/api/v1/sale` → `/api/v1/sales`, `/api/v1/tenants/7/devics` →
 * `/api/v1/tenants/{tenant}/devices`), the fewest edits first, the request's own method preferred.
 */
function closestRoute(method: string, path: string, routes: readonly KnownRoute[]): KnownRoute | undefined {
  const asked = segmentsOf(path);
  let best: { route: KnownRoute; score: number } | undefined;
  for (const route of routes) {
    if (route.segments.length !== asked.length) continue;
    let edits = 0;
    for (let i = 0; i < asked.length && edits !== Infinity; i++) {
      const known = route.segments[i]!;
      if (known.startsWith(':') || known === asked[i]) continue;
      edits += editsIfSlip(asked[i]!, known) ?? Infinity;
    }
    const score = edits + (route.method === method ? 0 : 0.5);
    if (edits !== Infinity && (!best || score < best.score)) best = { route, score };
  }
  return best?.route;
}

/**
 * Fastify answers a known path asked with another method as a 404, and a mistyped path says
 * nothing of the route meant. Under `modernPrefixes` (the modern API; the legacy till dialect
 * keeps its plain 404), a path that some route takes with other methods is a 405
 * `method_not_allowed` with `Allow`, and a path no route takes names the closest route, if any.
 */
export function registerErrorHandling(app: FastifyInstance, options: { modernPrefixes?: readonly string[] } = {}): void {
  const modernPrefixes = options.modernPrefixes ?? [];
  const isModern = (path: string) => modernPrefixes.some((prefix) => path.startsWith(prefix));
  const routes: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (!isModern(route.url)) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, segments: segmentsOf(route.url) });
  });
  app.setErrorHandler((error, request, reply) => {
    const rendered = renderError(error, request);
    // A database outage is written at debug (observability/log.ts) and said once by the context.
    if (rendered.status >= 500 && !(error instanceof ApiError) && !(error instanceof StorageFullError))
      request.log.error({ err: error }, 'request failed');
    return sendError(reply, rendered);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const route = `${request.method} ${path}`;
    if (!isModern(path)) return sendError(reply, { status: 404, body: { message: `The route ${route} does not exist.` } });
    const allowed = METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: path }));
    if (allowed.length > 0) {
      const named = allowed.filter((method) => method !== 'HEAD' && method !== 'OPTIONS');
      const message = `${path} does not take ${request.method}: use ${namesInWords(named, 'or')} (the Allow header lists the methods it takes).`;
      return sendError(reply, { ...coded('method_not_allowed', message), headers: { Allow: allowed.join(', ') } });
    }
    const closest = closestRoute(request.method, path, routes);
    const meant = closest ? ` Did you mean ${closest.method} ${shownPath(closest.segments)}?` : ' The reference at /docs lists the routes.';
    return sendError(reply, { status: 404, body: { message: `The route ${route} does not exist.${meant}` } });
  });
}
