import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildApp } from '../../src/app/app.ts';
import { closeContext, createContext } from '../../src/domain/kernel/context.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createTestDatabase, engineName } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';

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

  test('readiness is 503 not_ready when the database is unreachable: nothing listening, a server that never answers, a database closed under the app', async () => {
    const expectNotReady = async (inject: TestApp['inject']) => {
      const res = await inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503, res.body);
      assert.deepEqual(res.json(), { error: { code: 'not_ready', message: 'The database is unreachable.' } });
      assert.equal((await inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is up');
    };
    // Nothing listens on port 1: the pool's connection is refused (opening it connects to nothing yet).
    const nowhere = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', migrate: false });
    const lost = createContext(testConfig(), nowhere);
    const lostApp = await buildApp(lost);
    try {
      await expectNotReady((o) => lostApp.inject(o));
    } finally {
      await lostApp.close();
      await closeContext(lost);
      await nowhere.close();
    }
    // A server that accepts the connection and never answers: the probe still answers, in time.
    const held = new Set<Socket>();
    const silent = createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const mute = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/none`,
      migrate: false,
    });
    const muted = createContext({ ...testConfig(), readinessTimeoutMs: 100 }, mute);
    const mutedApp = await buildApp(muted);
    try {
      const res = await mutedApp.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503, res.body);
      assert.deepEqual(res.json(), { error: { code: 'not_ready', message: 'The database did not answer within 100 ms.' } });
    } finally {
      await mutedApp.close();
      await closeContext(muted);
      held.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
      void mute.close().catch(() => {});
    }
    // This run's engine, whose database goes away after the app started.
    const testDb = await createTestDatabase();
    const ctx = createContext(testConfig(), testDb.database);
    const app = await buildApp(ctx);
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      await testDb.database.close();
      await expectNotReady((o) => app.inject(o));
    } finally {
      await app.close();
      await closeContext(ctx).catch(() => {});
      await testDb.close().catch(() => {});
    }
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
