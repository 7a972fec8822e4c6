import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../helpers/db.ts';
import { bearer, seedPartner, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`error shapes (${engineName})`, () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = (await seedPartner(t.ctx)).secret;
  });
  after(() => t.close());

  const post = (payload: string | undefined, contentType = 'application/json') =>
    t.inject({ method: 'POST', url: '/api/v1/tenants', headers: { ...bearer(key), 'content-type': contentType }, payload });

  test('schema failures are 422 {message, errors: {field: [...]}} naming every field', async () => {
    const res = await post(JSON.stringify({ tpin: '12', plan: 'platinum', email: 'nope' }));
    assert.equal(res.statusCode, 422);
    const body = res.json();
    assert.equal(typeof body.message, 'string');
    assert.deepEqual(Object.keys(body.errors).sort(), ['email', 'name', 'plan', 'tpin']);
    assert.deepEqual(body.errors.name, ['The name field is required.']);
  });

  test('a number is never coerced from a string in a body', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v1/partner/keys', headers: bearer(key), payload: { name: 1, scopes: 'tenants:read' } });
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.name && res.json().errors.scopes);
  });

  test('malformed JSON is a coded 400; a wrong content type 415; an oversized body 413', async () => {
    const bad = await post('{"name":');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_json');
    const media = await post('name=x', 'application/x-www-form-urlencoded');
    assert.equal(media.statusCode, 415);
    assert.equal(media.json().error.code, 'unsupported_media_type');
    const text = await post('{"name":"x"}', 'text/plain');
    assert.equal(text.statusCode, 415, 'text/plain is not JSON either (it was a 422 about the body)');
    assert.equal(text.json().error.code, 'unsupported_media_type');
    const big = await post(JSON.stringify({ name: 'x'.repeat(1_100_000) }));
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().error.code, 'payload_too_large');
  });

  test('an empty JSON body counts as no body', async () => {
    const res = await post('');
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.body);
  });

  test('NUL characters are refused with the field named, in bodies and query strings', async () => {
    const res = await post(JSON.stringify({ name: 'a\u0000b', tpin: '1234567890' }));
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.name);
    const q = await t.inject({ method: 'GET', url: '/api/v1/tenants?page=%00', headers: bearer(key) });
    assert.equal(q.statusCode, 422);
  });

  test('a path id that cannot exist is a plain 404', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/tenants/abc', headers: bearer(key) });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()), ['message']);
    const huge = await t.inject({ method: 'GET', url: '/api/v1/tenants/99999999999999999999', headers: bearer(key) });
    assert.equal(huge.statusCode, 404);
  });

  test('a bad page number is a 422 naming page', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/tenants?page=0', headers: bearer(key) });
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.page);
  });
});

describe('requests the HTTP parser refuses', () => {
  test('a malformed request line or header still gets a coded JSON body', async () => {
    const t = await startTestApp();
    try {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = new URL(address);
      const { connect } = await import('node:net');
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('POST /api/v1/tenants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n(sign in)\r\n\r\n'));
        let data = '';
        socket.on('data', (d) => (data += d));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      assert.match(raw, /^HTTP\/1\.1 400/);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'bad_request');
    } finally {
      await t.close();
    }
  });
});
