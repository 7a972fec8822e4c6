import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ApiError } from '../platform/errors/errors.ts';

// AES-256-GCM with a random 96-bit nonce per secret; the AAD binds a ciphertext to the row
// it belongs to, so a ciphertext copied onto another key's row does not decrypt.
// Stored as "v1.<nonce b64>.<ciphertext b64>.<tag b64>".
// A secret that does not open (sealed with another SECRET_KEY) is 503 `secret_unreadable`, never
// a bare 500; the database records which key seals its secrets (`fingerprint`, src/app/secret-key.ts).

export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = createHash('sha256').update(`fiscal-gateway:secret-box:${secretKey}`, 'utf8').digest();
  }

  /**
   * Tells this key from another without revealing it: HMAC-SHA256 of a fixed label under the
   * derived key, hex. Stored in the database (table `secret_key`) by the first process that seals.
   */
  get fingerprint(): string {
    return createHmac('sha256', this.key).update('fiscal-gateway:secret-key-fingerprint:v1', 'utf8').digest('hex');
  }

  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce.toString('base64'), ciphertext.toString('base64'), cipher.getAuthTag().toString('base64')].join('.');
  }

  /** The plaintext; 503 `secret_unreadable` when this key does not open it. */
  open(sealed: string, aad: string): string {
    const opened = this.tryOpen(sealed, aad);
    if (opened === undefined) throw new ApiError('secret_unreadable', UNREADABLE);
    return opened;
  }

  /** The plaintext, or undefined when this key does not open it (another key, another row, not a sealed secret). */
  tryOpen(sealed: string, aad: string): string | undefined {
    const [version, nonce, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || !nonce || !ciphertext || !tag) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64'));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

const UNREADABLE =
  'The gateway cannot open this sealed secret: it was sealed with another SECRET_KEY than the one the gateway runs with. Its operator must start the gateway with the SECRET_KEY that sealed it (docs/deployment.md#secret_key); nothing was changed.';

/** Where the development key is kept: beside the data directory, `.<name>.secret-key`. */
export function developmentKeyFile(dataDir: string): string {
  const abs = resolve(dataDir);
  return join(dirname(abs), `.${basename(abs)}.secret-key`);
}

/** The development key file's key, when the file exists (it is never created here). */
export function readDevelopmentKey(dataDir: string): string | undefined {
  const path = developmentKeyFile(dataDir);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/**
 * The development key file, among those beside `dataDir` and in the working directory, whose key
 * `fits` (seals what a database holds): the one to copy beside a data directory restored or
 * copied from another DATA_DIR.
 */
export function findDevelopmentKeyFile(dataDir: string, fits: (box: SecretBox) => boolean): string | undefined {
  const places = [...new Set([resolve(process.cwd()), dirname(resolve(dataDir))])];
  for (const place of places) {
    let names: string[];
    try {
      names = readdirSync(place);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => /^\..+\.secret-key$/.test(n)).sort()) {
      const path = join(place, name);
      try {
        const key = readFileSync(path, 'utf8').trim();
        if (key !== '' && fits(new SecretBox(key))) return path;
      } catch {
        /* unreadable: not this one */
      }
    }
  }
  return undefined;
}

/**
 * SECRET_KEY, or in development a key generated once and kept beside the data directory,
 * so that read-back keeps working across restarts without configuration.
 */
export function resolveSecretKey(secretKey: string | undefined, dataDir: string): string {
  if (secretKey) return secretKey;
  const existing = readDevelopmentKey(dataDir);
  if (existing !== undefined) return existing;
  const path = developmentKeyFile(dataDir);
  const generated = randomBytes(32).toString('hex');
  mkdirSync(dirname(path), { recursive: true }); // with DATABASE_URL nothing else made it
  writeFileSync(path, generated + '\n', { mode: 0o600, flag: 'wx' });
  return generated;
}
