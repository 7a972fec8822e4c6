import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { signatureHeader } from '../../../src/domain/partner/webhooks/signature.ts';
import { verifyWebhook } from '../../../packages/client/src/webhooks.ts';

// The published test vector (docs/webhooks.md): the gateway's signing (signature.ts) and the
// client package's check (packages/client) agree on it.
const SECRET = 'whsec_test_secret';
const T = 1700000000;
const BODY = '{"id":"01HZX0TESTEVENT00000000000","event":"invoice.fiscalised"}';
const HEADER = 't=1700000000,v1=c1829592ca97aa16caafd7d88339c5ed0b051b6a0fcfc05b811e06d05b3e871a';
const AT_T = new Date(T * 1000);

describe('webhook signature verification', () => {
  test('the published test vector is what the sender produces and what verifyWebhook accepts', () => {
    assert.equal(signatureHeader(SECRET, T, BODY), HEADER);
    assert.deepEqual(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: AT_T }), { ok: true, timestamp: T });
    assert.equal(verifyWebhook({ payload: Buffer.from(BODY), header: HEADER, secret: SECRET, now: AT_T }).ok, true);
    const bytes = new TextEncoder().encode(BODY);
    assert.equal(verifyWebhook({ payload: bytes, header: HEADER, secret: SECRET, now: AT_T }).ok, true, 'a Uint8Array');
    assert.equal(
      verifyWebhook({ payload: bytes.buffer, header: HEADER, secret: SECRET, now: AT_T }).ok,
      true,
      'an ArrayBuffer (fetch-style request.arrayBuffer())',
    );
  });

  test('a changed body, secret or timestamp fails', () => {
    assert.deepEqual(verifyWebhook({ payload: BODY.replace('fiscalised', 'failed'), header: HEADER, secret: SECRET, now: AT_T }), {
      ok: false,
      reason: 'signature_mismatch',
    });
    assert.equal(verifyWebhook({ payload: BODY, header: HEADER, secret: 'whsec_other', now: AT_T }).ok, false);
    assert.equal(
      verifyWebhook({ payload: BODY, header: HEADER.replace('t=1700000000', 't=1700000001'), secret: SECRET, now: AT_T }).ok,
      false,
    );
    assert.equal(
      verifyWebhook({ payload: ` ${BODY}`, header: HEADER, secret: SECRET, now: AT_T }).ok,
      false,
      're-serialised JSON is not the raw body',
    );
  });

  test('the 300 s tolerance applies in both directions', () => {
    const at = (offsetSec: number) => new Date((T + offsetSec) * 1000);
    assert.equal(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: at(300) }).ok, true);
    assert.equal(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: at(-300) }).ok, true);
    assert.deepEqual(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: at(301) }), {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    assert.deepEqual(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: at(-301) }), {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    assert.equal(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: at(1000), toleranceSec: 1000 }).ok, true);
  });

  test('now may be given as unix seconds as well as a Date', () => {
    assert.deepEqual(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: T }), { ok: true, timestamp: T });
    assert.equal(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: T + 300 }).ok, true);
    assert.deepEqual(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: T + 301 }), {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    assert.deepEqual(verifyWebhook({ payload: BODY, header: HEADER, secret: SECRET, now: T - 301 }), {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  test('arguments a JavaScript caller gets wrong are results that say so, never exceptions nor a pass', () => {
    const check = (options: unknown) => verifyWebhook(options as Parameters<typeof verifyWebhook>[0]);
    assert.deepEqual(
      check({ payload: JSON.parse(BODY), header: HEADER, secret: SECRET, now: AT_T }),
      { ok: false, reason: 'payload_not_raw' },
      'a parsed body',
    );
    assert.deepEqual(
      check({ payload: BODY, header: HEADER, secret: undefined, now: AT_T }),
      { ok: false, reason: 'missing_secret' },
      'an unset secret',
    );
    assert.deepEqual(check({ payload: BODY, header: HEADER, secret: '', now: AT_T }), { ok: false, reason: 'missing_secret' });
    // An unusable clock or tolerance must not switch the timestamp check off.
    assert.deepEqual(check({ payload: BODY, header: HEADER, secret: SECRET, now: new Date('not a date') }), {
      ok: false,
      reason: 'invalid_options',
    });
    assert.deepEqual(check({ payload: BODY, header: HEADER, secret: SECRET, now: Number.NaN }), { ok: false, reason: 'invalid_options' });
    assert.deepEqual(check({ payload: BODY, header: HEADER, secret: SECRET, now: String(T) }), { ok: false, reason: 'invalid_options' });
    assert.deepEqual(check({ payload: BODY, header: HEADER, secret: SECRET, now: AT_T, toleranceSec: Number.NaN }), {
      ok: false,
      reason: 'invalid_options',
    });
    assert.deepEqual(check({ payload: BODY, header: HEADER, secret: SECRET, now: AT_T, toleranceSec: -1 }), {
      ok: false,
      reason: 'invalid_options',
    });
    assert.deepEqual(check({ payload: BODY, header: 1700000000, secret: SECRET, now: AT_T }), { ok: false, reason: 'malformed_header' });
    assert.deepEqual(check({ payload: BODY, header: null, secret: SECRET, now: AT_T }), { ok: false, reason: 'missing_header' });
    assert.deepEqual(check({ payload: BODY, header: [], secret: SECRET, now: AT_T }), { ok: false, reason: 'missing_header' });
    for (const options of [undefined, null, {}, [], 'x', 0]) assert.equal(check(options).ok, false, JSON.stringify(options));
  });

  test('missing or malformed headers fail without throwing', () => {
    assert.deepEqual(verifyWebhook({ payload: BODY, header: undefined, secret: SECRET, now: AT_T }), {
      ok: false,
      reason: 'missing_header',
    });
    for (const header of ['', 'garbage', 't=abc,v1=00', `v1=${'a'.repeat(64)}`, 't=1700000000', 't=1700000000,v1=XYZ']) {
      const result = verifyWebhook({ payload: BODY, header, secret: SECRET, now: AT_T });
      assert.equal(result.ok, false, header);
    }
  });

  test('any one of several v1 signatures may match, and unknown schemes are ignored (room for secret rotation)', () => {
    const other = 'b'.repeat(64);
    const multi = `t=${T},v0=zzz,v1=${other},v1=${HEADER.split('v1=')[1]}`;
    assert.equal(verifyWebhook({ payload: BODY, header: multi, secret: SECRET, now: AT_T }).ok, true);
    assert.equal(verifyWebhook({ payload: BODY, header: [HEADER], secret: SECRET, now: AT_T }).ok, true);
  });
});
