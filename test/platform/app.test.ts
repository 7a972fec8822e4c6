import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { engineName } from '../helpers/db.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe(`platform basics (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('health and readiness answer, readiness names the database', async () => {
    assert.equal((await t.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().database, engineName);
  });

  test('an unknown route is a plain {message} 404 with a request id header', async () => {
    const res = await t.inject({ method: 'GET', url: '/nope' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()), ['message']);
    assert.ok(res.headers['x-request-id']);
  });

  test('a caller-supplied safe X-Request-Id is echoed; an unsafe one is replaced', async () => {
    const kept = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(kept.headers['x-request-id'], 'abc-123');
    const replaced = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\u0000<script>' } });
    assert.notEqual(replaced.headers['x-request-id'], 'bad id\u0000<script>');
  });

  test('the OpenAPI 3.1 document is valid, versioned 1.10.0 and lists the routes', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.10.0');
    assert.ok(doc.paths['/api/v1/tenants']);
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  test('/docs serves a readable reference page', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
  });
});
