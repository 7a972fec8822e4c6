// Session tokens and one-time link tokens: 32 random bytes (base64url), stored as their SHA-256.
// The CSRF token is derived from the session token, so it is bound to the session and needs no
// storage: whoever can compute it already holds the session cookie.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

export function csrfMatches(sessionToken: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
