// The token of KRA's API gateway (GavaConnect) for a device that carries a client credential:
// `GET {tokenUrl}?grant_type=client_credentials` with Basic auth, answered `{access_token,
// expires_in}`, kept until shortly before it expires. The secret and the token are never put in
// a message.
import { request } from 'undici';
import type { AuthorityDevice } from '../port/device.ts';
import type { UnreachableOutcome } from '../outcome.ts';
import { unreachable } from '../transport.ts';

type Credential = NonNullable<AuthorityDevice['apiCredential']>;
type ClientCredential = Extract<Credential, { kind: 'client' }>;

type TokenOutcome = { kind: 'ok'; token: string } | { kind: 'rejected'; code: string; message: string } | UnreachableOutcome;

/** A token is used until this long before its expiry. */
const EXPIRY_MARGIN_MS = 60_000;
/** When the token endpoint gives no lifetime. */
const DEFAULT_LIFETIME_S = 3_600;

function tokenRequestUrl(tokenUrl: string): string {
  const url = new URL(tokenUrl);
  if (!url.searchParams.has('grant_type')) url.searchParams.set('grant_type', 'client_credentials');
  return url.toString();
}

export interface TokenCache {
  /** The `Authorization` header value for the device's credential. */
  authorization(credential: Credential, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<TokenOutcome>;
  /** Forgets the token of a credential the gateway refused. */
  forget(credential: Credential): void;
}

export function createTokenCache(now: () => number = Date.now): TokenCache {
  const cached = new Map<string, { token: string; expiresAt: number }>();
  const inFlight = new Map<string, Promise<TokenOutcome>>();
  const keyOf = (c: ClientCredential): string => `${c.tokenUrl}\u0000${c.clientId}`;

  async function fetchToken(credential: ClientCredential, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<TokenOutcome> {
    let url: string;
    try {
      url = tokenRequestUrl(credential.tokenUrl);
    } catch {
      return { kind: 'rejected', code: 'token', message: 'the API credential has a token URL that is not a URL' };
    }
    const basic = Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64');
    const timeoutMs = options.timeoutMs ?? 20_000;
    const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];
    try {
      const response = await request(url, {
        method: 'GET',
        headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
        signal: AbortSignal.any(signals),
      });
      const text = await response.body.text();
      if (response.statusCode >= 500 || response.statusCode === 429)
        return unreachable('http_error', `the token endpoint answered HTTP ${response.statusCode}`, { httpStatus: response.statusCode });
      if (response.statusCode >= 400)
        return {
          kind: 'rejected',
          code: `HTTP ${response.statusCode}`,
          message: `the token endpoint refused the device's client credentials (HTTP ${response.statusCode})`,
        };
      let body: { access_token?: unknown; expires_in?: unknown };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return unreachable('not_an_envelope', 'the token endpoint did not answer JSON');
      }
      if (typeof body.access_token !== 'string' || body.access_token === '')
        return unreachable('bad_success_body', 'the token endpoint answered without access_token');
      const lifetime = Number(body.expires_in);
      const seconds = Number.isFinite(lifetime) && lifetime > 0 ? lifetime : DEFAULT_LIFETIME_S;
      cached.set(keyOf(credential), { token: body.access_token, expiresAt: now() + seconds * 1000 - EXPIRY_MARGIN_MS });
      return { kind: 'ok', token: body.access_token };
    } catch (err) {
      if (options.signal?.aborted) return unreachable('aborted', 'the caller cancelled the call');
      const name = err instanceof Error ? err.name : '';
      if (name === 'TimeoutError') return unreachable('timeout', 'no reply from the token endpoint within the timeout');
      return unreachable('network_error', `the token endpoint did not answer (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  return {
    async authorization(credential, options = {}) {
      if (credential.kind === 'bearer') return { kind: 'ok', token: `Bearer ${credential.token}` };
      const key = keyOf(credential);
      const hit = cached.get(key);
      if (hit && hit.expiresAt > now()) return { kind: 'ok', token: `Bearer ${hit.token}` };
      let pending = inFlight.get(key);
      if (!pending) {
        pending = fetchToken(credential, options).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const outcome = await pending;
      return outcome.kind === 'ok' ? { kind: 'ok', token: `Bearer ${outcome.token}` } : outcome;
    },
    forget(credential) {
      if (credential.kind === 'client') cached.delete(keyOf(credential));
    },
  };
}
