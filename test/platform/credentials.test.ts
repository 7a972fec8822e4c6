import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decoyHash, hashPassword, verifyPassword } from '../../src/credentials/passwords.ts';
import { SecretBox } from '../../src/credentials/secret-box.ts';
import { PREFIXES, hasValidChecksum, hashSecret, kindOf, mintSecret } from '../../src/credentials/secret-format.ts';

describe('credential formats', () => {
  test('every minted secret carries its prefix, ≥ 32 bytes of entropy and a valid checksum', () => {
    for (const prefix of Object.values(PREFIXES)) {
      const secret = mintSecret(prefix);
      assert.ok(secret.startsWith(prefix));
      assert.equal(secret.length, prefix.length + 43 + 6); // 43 base62 chars ≈ 256 bits
      assert.ok(hasValidChecksum(secret, prefix));
    }
    assert.notEqual(mintSecret('pk_'), mintSecret('pk_'));
  });

  test('any single-character change breaks the checksum, so typos never reach the database', () => {
    const secret = mintSecret(PREFIXES.partnerLive);
    fc.assert(
      fc.property(
        fc.integer({ min: PREFIXES.partnerLive.length, max: secret.length - 1 }),
        fc.constantFrom(...'0123456789ABCDEFabcdefXYZxyz'),
        (i, ch) => {
          fc.pre(secret[i] !== ch);
          const mutated = secret.slice(0, i) + ch + secret.slice(i + 1);
          return !hasValidChecksum(mutated, PREFIXES.partnerLive);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('wrong lengths, alphabets and prefixes are refused', () => {
    const secret = mintSecret(PREFIXES.tenantToken);
    assert.equal(hasValidChecksum(secret.slice(0, -1), PREFIXES.tenantToken), false);
    assert.equal(hasValidChecksum(secret + 'a', PREFIXES.tenantToken), false);
    assert.equal(hasValidChecksum(secret.replace(/.$/, '-'), PREFIXES.tenantToken), false);
    assert.equal(hasValidChecksum(secret, PREFIXES.fiscalisationKey), false);
  });

  test('prefixes identify the credential kind', () => {
    assert.equal(kindOf(mintSecret('sk_live_'))?.kind, 'partner_key');
    assert.equal(kindOf(mintSecret('sk_test_'))?.kind, 'partner_key');
    assert.equal(kindOf(mintSecret('tt_'))?.kind, 'tenant_token');
    assert.equal(kindOf(mintSecret('pk_'))?.kind, 'fiscalisation_key');
    assert.equal(kindOf('Basic abc'), undefined);
  });

  test('secrets minted before CRC32 moved to zlib.crc32 still verify (fixed checksums)', () => {
    // Minted with the hand-written CRC32 table this module used until issue 16: the checksum of
    // every key already handed out must stay what it was.
    const minted: Array<[string, string]> = [
      [PREFIXES.partnerLive, 'sk_live_TDVS7gYPOLRy8BzgwpxvlABKEAGKCUrEMsMLxAPzReP3qriIf'],
      [PREFIXES.partnerTest, 'sk_test_gRsQNUK5tUKauz3k5wfSgmpGSY5GkVDvFoWaAyMGdcR1v0Y0H'],
      [PREFIXES.tenantToken, 'tt_3c9WCe1E7u36mcwB32kJ7opRgTCod5DyPKqhNgoOTTV1Un6tl'],
      [PREFIXES.fiscalisationKey, 'pk_vkTnFUvt9NfADeXGVePhrkpmziHjwCkLmcx94Dz4YJK3aI0CD'],
      [PREFIXES.webhookSecret, 'whsec_KxpdH3COrjLq8Q6e8im3agArkftUKcPJQwezXEy6ZiE0E6P0d'],
      // checksums that start with zeros (left-padded Base62)
      [PREFIXES.tenantToken, 'tt_F6adwTSGAlrGIvnzxQtcR7RiHx3hAPVAy98PXzko5Vp00qpxz'],
      [PREFIXES.tenantToken, 'tt_mg5j4q7nJ9QqbKUUg0xbFtKtKiASudbge5c5sKVC7tW00u5Aj'],
    ];
    for (const [prefix, secret] of minted) {
      assert.ok(hasValidChecksum(secret, prefix), secret);
      assert.equal(hasValidChecksum(secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a'), prefix), false, secret);
    }
  });

  test('secrets are stored as SHA-256 hex, never as themselves', () => {
    const secret = mintSecret('pk_');
    const hash = hashSecret(secret);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.ok(!hash.includes(secret));
  });
});

describe('sealed partner secrets (AES-256-GCM)', () => {
  const box = new SecretBox('k'.repeat(40));

  test('round-trips, with a fresh nonce each time', () => {
    const a = box.seal('sk_live_abc', 'partner_key:1:partner:1');
    const b = box.seal('sk_live_abc', 'partner_key:1:partner:1');
    assert.notEqual(a, b);
    assert.equal(box.open(a, 'partner_key:1:partner:1'), 'sk_live_abc');
  });

  test('a ciphertext moved to another row (other AAD), or tampered with, does not open', () => {
    const sealed = box.seal('sk_live_abc', 'partner_key:1:partner:1');
    assert.throws(() => box.open(sealed, 'partner_key:2:partner:1'));
    const parts = sealed.split('.');
    parts[2] = Buffer.from('tampered!!!').toString('base64');
    assert.throws(() => box.open(parts.join('.'), 'partner_key:1:partner:1'));
    assert.throws(() => new SecretBox('x'.repeat(40)).open(sealed, 'partner_key:1:partner:1'));
  });
});

describe('passwords', () => {
  test('hashes stored before passwords had one home still verify, each at the cost it carries', async () => {
    // Made by the till logins' module (N = 2^14) and the merchant accounts' module (N = 2^15).
    const till = 'scrypt$16384$8$1$lAIGpbtpwez8-BNokYrp7Q$eFcYBMTBr9r8v6gxwGRMlbQbgALBG9sMsSi-wRJmUVI';
    const account = 'scrypt$32768$8$1$jyUxY2_7bTty654R-moKfw$RFsgz4eKJAP1_DZJofLGJU1ffiaHeBFxZrLhiWvnNJ4';
    assert.equal(await verifyPassword('till password 2024', till), true);
    assert.equal(await verifyPassword('till password 2025', till), false);
    assert.equal(await verifyPassword('merchant password 2024', account), true);
    assert.equal(await verifyPassword('till password 2024', account), false);
  });

  test('a new hash names its cost and verifies; a malformed one and the decoy match nothing', async () => {
    const hash = await hashPassword('Zafi\u0301ra tills', 10);
    assert.match(hash, /^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.equal(await verifyPassword('Zafíra tills', hash), true, 'compared in NFC');
    for (const malformed of ['', 'bcrypt$1024$8$1$a$b', 'scrypt$x$8$1$a$b', hash.split('$').slice(0, 5).join('$')])
      assert.equal(await verifyPassword('Zafíra tills', malformed), false, malformed);
    assert.equal(await decoyHash(10), await decoyHash(10), 'made once per cost');
    assert.equal(await verifyPassword('', await decoyHash(10)), false);
  });
});
