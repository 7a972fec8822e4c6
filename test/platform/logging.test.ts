import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { buildApp } from '../../src/app/app.ts';
import { closeContext, createContext, type AppContext } from '../../src/domain/kernel/context.ts';
import type { DB } from '../../src/platform/db/schema.ts';
import { moduleWorkers, provideModuleMembers } from '../../src/app/modules.ts';
import { createLogger } from '../../src/platform/observability/log.ts';
import { startWorkers } from '../../src/platform/workers/index.ts';
import { createTestDatabase, engineName } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/poll.ts';

/** The bounded contexts of src/domain (docs/architecture.md). */
const CONTEXTS = readdirSync(new URL('../../src/domain/', import.meta.url));

describe(`request logs (${engineName})`, () => {
  let t: TestApp;
  const lines: string[] = [];
  before(async () => {
    t = await startTestApp({ logLines: lines });
  });
  after(() => t.close());

  test('one structured line per request, with the request id, and never a secret', async () => {
    const m = await seedMerchant(t.ctx);
    lines.length = 0;
    const secrets = [m.partner.secret, m.token, m.apiKey, TEST_ADMIN_TOKEN];
    const minted = await t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${m.tenant.id}/tokens`,
      headers: { ...bearer(m.partner.secret), 'x-request-id': 'log-test-1' },
      payload: { name: 'logged?' },
    });
    assert.equal(minted.statusCode, 201);
    secrets.push(minted.json().data.token);
    await t.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(m.token) });
    await t.inject({ method: 'GET', url: '/admin/v1/partners', headers: bearer(TEST_ADMIN_TOKEN) });
    await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(m.apiKey) });
    await t.inject({ method: 'GET', url: `/api/v1/partner/keys/${m.partner.keyId}/secret`, headers: bearer(m.partner.secret) });

    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    assert.equal(requests.length, 5, 'exactly one line per request');
    const first = requests[0]!;
    assert.deepEqual(
      [first.reqId, first.method, first.route, first.status, first.partner],
      ['log-test-1', 'POST', '/api/v1/tenants/:tenant/tokens', 201, m.partner.partnerId],
    );
    assert.equal(typeof first.ms, 'number');
    const all = lines.join('\n');
    for (const secret of secrets) assert.ok(!all.includes(secret), 'no secret reaches the log');
    assert.ok(!/authorization/i.test(all), 'no headers are logged');
  });
});

/** A database that refuses every query: each worker's first pass fails at once. */
function unreachableDb(): Kysely<DB> {
  const down = async (): Promise<never> => {
    throw new Error('database down (test)');
  };
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => ({
        init: async () => {},
        acquireConnection: down,
        beginTransaction: down,
        commitTransaction: down,
        rollbackTransaction: down,
        releaseConnection: async () => {},
        destroy: async () => {},
      }),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

describe(`one logger on the context (${engineName})`, () => {
  test('requests log through ctx.log when the app is given no logger of its own', async () => {
    const testDb = await createTestDatabase();
    const lines: string[] = [];
    const ctx = createContext(testConfig(), testDb.database, { log: createLogger('info', { write: (line) => void lines.push(line) }) });
    const app = await buildApp(ctx);
    try {
      await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'ctx-log-1' } });
      const request = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request');
      assert.deepEqual([request?.reqId, request?.route, request?.status], ['ctx-log-1', '/healthz', 200]);
    } finally {
      await app.close();
      await closeContext(ctx);
      await testDb.close();
    }
  });

  test('every worker is named module.job and logs its failures through ctx.log, with its name and the stack', async () => {
    const testDb = await createTestDatabase();
    const lines: string[] = [];
    const real = createContext(testConfig(), testDb.database, { log: createLogger('error', { write: (line) => void lines.push(line) }) });
    const ctx: AppContext = { ...real, db: unreachableDb() };
    provideModuleMembers(ctx);
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    const workers = startWorkers(ctx, moduleWorkers);
    try {
      const names = workers.workers.map((w) => w.name);
      for (const name of names) {
        const module = /^([a-z]+(?:-[a-z]+)*)\.[a-z]+$/.exec(name)?.[1];
        assert.ok(
          module && CONTEXTS.some((context) => existsSync(new URL(`../../src/domain/${context}/${module}`, import.meta.url))),
          `${name}: module.job, after a module of src/domain`,
        );
      }
      assert.equal(new Set(names).size, names.length, 'no two workers share a name');
      const failures = await eventually(
        () => {
          const logged = lines.map(
            (l) => JSON.parse(l) as { level: number; worker?: string; msg: string; err?: { type: string; message: string; stack: string } },
          );
          return names.every((name) => logged.some((l) => l.worker === name)) ? logged : undefined;
        },
        `a failure line from each of ${names.join(', ')}`,
        10_000,
      );
      for (const line of failures) {
        assert.equal(line.level, 50, line.msg);
        assert.ok(names.includes(line.worker!), `${line.msg}: from a worker`);
        assert.match(line.err?.stack ?? '', /database down \(test\)\n\s+at /, `${line.worker}: ${line.msg} carries the error's stack`);
      }
    } finally {
      await workers.stop();
      process.stderr.write = write;
      await closeContext(ctx);
      await testDb.close();
    }
    assert.deepEqual(stderr, [], 'workers write nothing to stderr themselves');
  });
});
