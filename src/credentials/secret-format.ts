import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// Secret format: <prefix><body><checksum>. The body is 32 random bytes in Base62 (43 chars);
// the checksum is CRC32 of prefix+body in Base62, 6 chars (GitHub's token pattern). The
// checksum is verified before any database lookup, so garbage never costs a query.

export const PREFIXES = {
  partnerLive: 'sk_live_',
  partnerTest: 'sk_test_',
  tenantToken: 'tt_',
  fiscalisationKey: 'pk_',
  webhookSecret: 'whsec_',
} as const;

type SecretKind = 'partner_key' | 'tenant_token' | 'fiscalisation_key';

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

/** Which credential a bearer/api-key string claims to be, by prefix (checksum checked later). */
export function kindOf(secret: string): { kind: SecretKind; prefix: string } | undefined {
  if (secret.startsWith(PREFIXES.partnerLive)) return { kind: 'partner_key', prefix: PREFIXES.partnerLive };
  if (secret.startsWith(PREFIXES.partnerTest)) return { kind: 'partner_key', prefix: PREFIXES.partnerTest };
  if (secret.startsWith(PREFIXES.tenantToken)) return { kind: 'tenant_token', prefix: PREFIXES.tenantToken };
  if (secret.startsWith(PREFIXES.fiscalisationKey)) return { kind: 'fiscalisation_key', prefix: PREFIXES.fiscalisationKey };
  return undefined;
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
