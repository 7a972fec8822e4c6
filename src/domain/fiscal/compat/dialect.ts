// The bare/wrapped envelopes of the compat surface, in one place: an onSend hook on the compat
// plugin rewrites every serialised answer — the routes' own, and the framework's errors (422,
// 400, 413, 415, 404, 402, 429) — for a credential of the `wrapped` dialect. Status codes and
// headers never change. Routes only ever produce the bare form.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../kernel/context.ts';
import { findFiscalisationKey } from '../../../credentials/key-lookup.ts';
import { PREFIXES, hasValidChecksum } from '../../../credentials/secret-format.ts';
import type { Dialect } from './till-login-store.ts';

/** getactive's credential is in its body: the route names the login's dialect once it is proven. */
const provenLoginDialects = new WeakMap<FastifyRequest, Dialect>();

export function answerInDialect(request: FastifyRequest, dialect: Dialect): void {
  provenLoginDialects.set(request, dialect);
}

function apiKeyHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['x-api-key'];
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text : undefined;
}

/**
 * The dialect of the credential behind a request. When the auth hook refused a key it could
 * read (an X-SdcId it may not use, 402, 429), no principal was set, so the key is looked up
 * again; a key that cannot be read (missing, malformed, unknown, revoked) leaves the answer bare.
 */
async function dialectOf(ctx: AppContext, request: FastifyRequest, failed: boolean): Promise<Dialect> {
  const principal = request.principal;
  if (principal?.kind === 'fiscalisation_key') return principal.key.dialect;
  const proven = provenLoginDialects.get(request);
  if (proven) return proven;
  if (!failed || request.routeOptions.config?.auth?.surface !== 'compat') return 'bare';
  const secret = apiKeyHeader(request);
  if (!secret || !hasValidChecksum(secret, PREFIXES.fiscalisationKey)) return 'bare';
  // Best effort: an error answer must still go out if the database is what failed.
  const key = await findFiscalisationKey(ctx.db, secret, ctx.clock.now()).catch(() => undefined);
  return key?.dialect ?? 'bare';
}

/** `{success: true, message: "OK", data}` or `{success: false, httpCode, …every field of the bare error}`. */
function wrapPayload(statusCode: number, payload: string): string {
  if (statusCode < 400) return `{"success":true,"message":"OK","data":${payload === '' ? 'null' : payload}}`;
  const bare = payload === '' ? {} : (JSON.parse(payload) as Record<string, unknown>);
  return JSON.stringify({ success: false, httpCode: statusCode, ...bare });
}

/** Registers the envelope on an encapsulated plugin: it applies to that plugin's routes only. */
export function registerDialectEnvelope(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string') return payload;
    const failed = reply.statusCode >= 400;
    const dialect = await dialectOf(ctx, request, failed);
    return dialect === 'wrapped' ? wrapPayload(reply.statusCode, payload) : payload;
  });
}
