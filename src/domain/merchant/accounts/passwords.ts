// Password hashing with Node's scrypt (memory-hard), stored self-describing as
// `scrypt$N$r$p$salt$hash` (salt and hash base64url) so that a later change of cost still
// verifies the hashes made before it.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { fieldError } from '../../../platform/errors/errors.ts';

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // maxmem: 128·N·r bytes plus headroom (Node's default of 32 MiB is exactly N=2^15, r=8).
  const maxmem = 256 * (options.N ?? 1) * (options.r ?? R) + 1024 * 1024;
  return new Promise((resolve, reject) => scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem }, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const N = 2 ** log2N;
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `stored`; always runs scrypt once (a malformed hash is false). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return expected.length === key.length && timingSafeEqual(expected, key);
}

/**
 * A hash of a password nobody has, at the current cost: signing in with an unknown email checks
 * against it, so that the answer takes as long as for a known one.
 */
const decoys = new Map<number, Promise<string>>();
export function decoyHash(log2N: number): Promise<string> {
  let decoy = decoys.get(log2N);
  if (!decoy) {
    decoy = hashPassword(randomBytes(18).toString('base64url'), log2N);
    decoys.set(log2N, decoy);
  }
  return decoy;
}

/** The password rules (422 on `field`). */
export function assertPasswordRules(password: string, field: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw fieldError(field, `The password must be at least ${PASSWORD_MIN} characters long; a few unrelated words make a good one.`);
  if (length > PASSWORD_MAX) throw fieldError(field, `The password must be at most ${PASSWORD_MAX} characters long.`);
  if (password.trim() === '') throw fieldError(field, 'The password must not be only spaces.');
}
