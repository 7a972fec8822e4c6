// The receiver's side of the gateway's webhook signature (docs/webhooks.md "Verify every
// delivery"). The gateway signs in src/domain/partner/webhooks/signature.ts; the published test vector
// (test/partner/webhooks/verify.test.ts) holds the two sides to the same bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header each delivery carries its signature in. */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** The distance between a delivery's `t` and now that is accepted by default, in seconds. */
export const DEFAULT_TOLERANCE_SEC = 300;

export interface VerifyOptions {
  /** The raw request body, exactly as received, before any JSON parsing. */
  payload: string | Uint8Array | ArrayBuffer;
  /** The `X-Service-Signature` header value (Node's `req.headers['x-service-signature']` as it is). */
  header: string | string[] | null | undefined;
  /** The endpoint's `whsec_…` signing secret. */
  secret: string;
  /** Accepted distance between the header's `t` and now, in seconds, in both directions (default 300). */
  toleranceSec?: number;
  /** Now, as a Date or as unix seconds; defaults to the system clock. */
  now?: Date | number;
}

export type VerifyFailure =
  /** No signature header came with the request. */
  | 'missing_header'
  /** The header has no `t=<unix seconds>` or no `v1=<64 hex>` entry. */
  | 'malformed_header'
  /** `t` is further from now than the tolerance: a replay, or a clock that is off. */
  | 'timestamp_out_of_tolerance'
  /** No `v1` entry is the signature of this body with this secret. */
  | 'signature_mismatch'
  /** The payload is not the raw body (a string, Buffer, Uint8Array or ArrayBuffer), e.g. parsed JSON. */
  | 'payload_not_raw'
  /** The secret is not a non-empty string (e.g. an unset environment variable). */
  | 'missing_secret'
  /** `now` or `toleranceSec` is not a usable date or number. */
  | 'invalid_options';

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure };

/**
 * Checks a delivery's `X-Service-Signature`. Never throws, whatever it is given: every outcome
 * is a result, `{ ok: true, timestamp }` or `{ ok: false, reason }`. Answer a non-2xx on any
 * failure and do not act on the body.
 *
 * Accepts a header carrying several `v1=` entries (any one may match) and ignores other
 * schemes, so receivers already handle a secret rotation that sends two signatures.
 */
export function verifyWebhook(options: VerifyOptions): VerifyResult {
  const { payload, header, secret, toleranceSec = DEFAULT_TOLERANCE_SEC, now = new Date() } = options ?? ({} as Partial<VerifyOptions>);
  if (typeof secret !== 'string' || secret === '') return fail('missing_secret');
  const body = rawBytes(payload);
  if (!body) return fail('payload_not_raw');
  const nowSec = unixSeconds(now);
  if (nowSec === undefined || typeof toleranceSec !== 'number' || !(toleranceSec >= 0)) return fail('invalid_options');

  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === null || value === '') return fail('missing_header');
  if (typeof value !== 'string') return fail('malformed_header');

  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(val)) timestamp = Number(val);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(val)) candidates.push(val);
  }
  if (timestamp === undefined || candidates.length === 0) return fail('malformed_header');

  if (Math.abs(nowSec - timestamp) > toleranceSec) return fail('timestamp_out_of_tolerance');

  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(body).digest();
  const matched = candidates.some((candidate) => timingSafeEqual(expected, Buffer.from(candidate, 'hex')));
  return matched ? { ok: true, timestamp } : fail('signature_mismatch');
}

function fail(reason: VerifyFailure): VerifyResult {
  return { ok: false, reason };
}

function rawBytes(payload: unknown): Uint8Array | undefined {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return payload;
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  return undefined;
}

function unixSeconds(now: unknown): number | undefined {
  const sec = now instanceof Date ? Math.floor(now.getTime() / 1000) : now;
  return typeof sec === 'number' && Number.isFinite(sec) ? sec : undefined;
}
