// What a receiver runs on each delivery (also exported to partners as `src/sdk/webhooks.ts`).
import { timingSafeEqual } from 'node:crypto';
import { computeSignature } from './signature.ts';

export interface VerifyOptions {
  /** The raw request body, exactly as received (before any JSON parsing). */
  payload: string | Buffer | Uint8Array;
  /** The `X-Service-Signature` header value. */
  header: string | string[] | undefined;
  /** The endpoint's `whsec_…` signing secret. */
  secret: string;
  /** Accepted distance between `t` and now, in seconds, in both directions. */
  toleranceSec?: number;
  /** Now, for tests; defaults to the system clock. */
  now?: Date;
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' };

/**
 * Checks a delivery's signature without throwing. Accepts a header carrying several `v1=`
 * entries (any one may match) and ignores unknown schemes, so secret rotation with two
 * signatures can be added later without breaking receivers.
 */
export function verifyWebhook({ payload, header, secret, toleranceSec = 300, now = new Date() }: VerifyOptions): VerifyResult {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return { ok: false, reason: 'missing_header' };

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
  if (timestamp === undefined || candidates.length === 0) return { ok: false, reason: 'malformed_header' };

  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSec) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const expected = Buffer.from(computeSignature(secret, timestamp, payload), 'hex');
  const matched = candidates.some((candidate) => timingSafeEqual(expected, Buffer.from(candidate, 'hex')));
  return matched ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' };
}
