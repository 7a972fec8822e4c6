import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// The prefixes and `kindOf` live in secret-prefixes.ts, free of Node modules, so the console can
// tell a pasted credential's kind too.
export { PREFIXES, kindOf } from './secret-prefixes.ts';

// Secret format: <prefix><body><checksum>. The body is 32 random bytes in Base62 (43 chars);
// the checksum is CRC32 of prefix+body in Base62, 6 chars (GitHub's token pattern). The
// checksum is verified before any database lookup, so garbage never costs a query.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;

function toBase62(bytes: Buffer, length: number): string {
  let n = BigInt('0x' + (bytes.toString('hex') || '0'));
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0').slice(-length);
}

function checksum(prefixAndBody: string): string {
  const buf = Buffer.alloc(4);
  buf.writeUInt32BE(crc32(Buffer.from(prefixAndBody, 'utf8')));
  return toBase62(buf, CHECKSUM_LENGTH);
}

export function mintSecret(prefix: string): string {
  const body = toBase62(randomBytes(32), BODY_LENGTH);
  return prefix + body + checksum(prefix + body);
}

/** True when the text has the prefix, the right length and alphabet, and a valid checksum. */
export function hasValidChecksum(secret: string, prefix: string): boolean {
  if (!secret.startsWith(prefix)) return false;
  const rest = secret.slice(prefix.length);
  if (rest.length !== BODY_LENGTH + CHECKSUM_LENGTH || !/^[0-9A-Za-z]+$/.test(rest)) return false;
  const body = rest.slice(0, BODY_LENGTH);
  const given = rest.slice(BODY_LENGTH);
  return safeEqual(given, checksum(prefix + body));
}

/** SHA-256 of the secret (hex): what is stored and looked up. High-entropy secrets need no KDF. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** The last four characters, for masked listings: `sk_live_…a1B2`. */
export function last4(secret: string): string {
  return secret.slice(-4);
}

export function masked(prefix: string, lastFour: string): string {
  return `${prefix}…${lastFour}`;
}
