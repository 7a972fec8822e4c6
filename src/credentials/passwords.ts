// Password hashing with Node's scrypt (memory-hard), stored self-describing as
// `scrypt$N$r$p$salt$hash` (salt and hash base64url): a hash verifies at the cost it was made
// with, so a later change of cost still verifies the hashes made before it. The cost of new
// hashes (log2 of N) is the caller's: merchant accounts take it from the configuration, till
// logins have their own. What a password must look like is its owner's rule, not this file's.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // maxmem: 128·N·r bytes plus headroom (Node's default of 32 MiB is exactly N=2^15, r=8).
  const maxmem = 256 * (options.N ?? 1) * (options.r ?? R) + 1024 * 1024;
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const N = 2 ** log2N;
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const POSITIVE_INTEGER = /^[1-9]\d*$/;

/** True when `password` matches `stored`, compared in constant time; a malformed hash is false. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || ![n, r, p].every((v) => v !== undefined && POSITIVE_INTEGER.test(v)) || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return expected.length === key.length && timingSafeEqual(expected, key);
}

/**
 * A hash of a password nobody has, at the given cost: signing in as nobody checks against it, so
 * that the answer takes as long as for someone (made once per cost, on first use).
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
