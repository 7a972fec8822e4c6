import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

// AES-256-GCM with a random 96-bit nonce per secret; the AAD binds a ciphertext to the row
// it belongs to, so a ciphertext copied onto another key's row does not decrypt.
// Stored as "v1.<nonce b64>.<ciphertext b64>.<tag b64>".

export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = createHash('sha256').update(`fiscal-gateway:secret-box:${secretKey}`, 'utf8').digest();
  }

  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce.toString('base64'), ciphertext.toString('base64'), cipher.getAuthTag().toString('base64')].join('.');
  }

  open(sealed: string, aad: string): string {
    const [version, nonce, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || !nonce || !ciphertext || !tag) throw new Error('unrecognised sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
  }
}

/**
 * SECRET_KEY, or in development a key generated once and kept beside the data directory,
 * so that read-back keeps working across restarts without configuration.
 */
export function resolveSecretKey(secretKey: string | undefined, dataDir: string): string {
  if (secretKey) return secretKey;
  const abs = resolve(dataDir);
  const path = join(dirname(abs), `.${basename(abs)}.secret-key`);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const generated = randomBytes(32).toString('hex');
  mkdirSync(dirname(path), { recursive: true }); // with DATABASE_URL nothing else made it
  writeFileSync(path, generated + '\n', { mode: 0o600, flag: 'wx' });
  return generated;
}
