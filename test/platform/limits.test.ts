import assert from 'node:assert/strict';
import { seedSignedInUser } from '../helpers/accounts.ts';
import { after, before, describe, mock, test } from 'node:test';
import { Redis } from 'ioredis';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { buildApp, type App } from '../../src/app/app.ts';
import { tenantCommand } from '../../src/app/cli/accounts.ts';
import { closeContext, createContext, type AppContext } from '../../src/domain/kernel/context.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import type { DB } from '../../src/platform/db/schema.ts';
import { RateLimiter } from '../../src/platform/http/rate-limit.ts';
import { kindOf, mintSecret } from '../../src/credentials/secret-format.ts';
import { engineName, onPostgres } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, testConfig, type TestApp } from '../helpers/app.ts';

describe(`account states and rate limits (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const patchTenant = (id: number, body: object) =>
    t.inject({ method: 'PATCH', url: `/admin/v1/tenants/${id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: body });
  const me = (token: string, app: { inject: TestApp['inject'] } = t) =>
    app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(token) });

  test('blocked subscription → 402, exhausted quota → 402, suspended tenant → 403, each coded', async () => {
    const m = await seedMerchant(t.ctx);
    assert.equal((await me(m.token)).statusCode, 200);
    await patchTenant(m.tenant.id, { subscription: 'blocked' });
    let res = await me(m.token);
    assert.equal(res.statusCode, 402);
    assert.equal(res.json().error.code, 'subscription_blocked');
    await patchTenant(m.tenant.id, { subscription: 'active', monthlyQuota: 0 });
    res = await me(m.token);
    assert.equal(res.statusCode, 402);
    assert.equal(res.json().error.code, 'quota_exhausted');
    await patchTenant(m.tenant.id, { monthlyQuota: null, status: 'suspended' });
    res = await me(m.token);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'tenant_suspended');
    await patchTenant(m.tenant.id, { status: 'active' });
    assert.equal((await me(m.token)).statusCode, 200);
  });

  test('a revoked tenant token fails on the very next request', async () => {
    const m = await seedMerchant(t.ctx);
    assert.equal((await me(m.token)).statusCode, 200);
    const revoke = await t.inject({
      method: 'DELETE',
      url: `/api/v1/tenants/${m.tenant.id}/tokens/${m.tokenId}`,
      headers: bearer(m.partner.secret),
    });
    assert.equal(revoke.statusCode, 200);
    assert.equal((await me(m.token)).statusCode, 401);
  });

  test('plan limits appear in X-RateLimit-* on every limited response', async () => {
    const m = await seedMerchant(t.ctx);
    const limitOf = async () => Number((await me(m.token)).headers['x-ratelimit-limit']);
    assert.equal(await limitOf(), 120, 'no plan: 120/min on /api/v1');
    for (const [plan, limit] of [
      ['free_trial', 60],
      ['starter', 120],
      ['growth', 300],
      ['enterprise', 600],
    ] as const) {
      await patchTenant(m.tenant.id, { plan });
      assert.equal(await limitOf(), limit, plan);
    }
    const partner = await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(m.partner.secret) });
    assert.ok(Number(partner.headers['x-ratelimit-limit']) > 0);
  });

  test("the CLI's tenant plan, rate-limit, suspend, resume and unblock each change what the API enforces and print the account", async () => {
    const m = await seedMerchant(t.ctx);
    const tenant = async (...args: string[]): Promise<string> => {
      const printed = mock.method(process.stdout, 'write', () => true);
      try {
        await tenantCommand(args, false, (_command, run) => run(t.ctx));
        return printed.mock.calls.map((call) => String(call.arguments[0])).join('');
      } finally {
        printed.mock.restore();
      }
    };
    const id = String(m.tenant.id);
    const limitOf = async () => Number((await me(m.token)).headers['x-ratelimit-limit']);
    const line = (account: string) => `tenant ${id}: ${account}\n`;

    assert.equal(
      await tenant('plan', id, 'growth'),
      line('plan growth, subscription active, status active, quota none, rate limit plan default'),
    );
    assert.equal(await limitOf(), 300, "the growth plan's limit");
    assert.equal(await tenant('rate-limit', id, '7'), line('plan growth, subscription active, status active, quota none, rate limit 7'));
    assert.equal(await limitOf(), 7, "its own limit over the plan's");
    assert.equal(
      await tenant('rate-limit', id, 'none'),
      line('plan growth, subscription active, status active, quota none, rate limit plan default'),
    );
    assert.equal(await limitOf(), 300);

    assert.equal(
      await tenant('suspend', id),
      line('plan growth, subscription active, status suspended, quota none, rate limit plan default'),
    );
    assert.equal((await me(m.token)).json().error?.code, 'tenant_suspended');
    assert.equal(await tenant('resume', id), line('plan growth, subscription active, status active, quota none, rate limit plan default'));
    assert.equal((await me(m.token)).statusCode, 200);

    await patchTenant(m.tenant.id, { subscription: 'blocked' });
    assert.equal((await me(m.token)).json().error?.code, 'subscription_blocked');
    assert.equal(await tenant('unblock', id), line('plan growth, subscription active, status active, quota none, rate limit plan default'));
    assert.equal((await me(m.token)).statusCode, 200);

    const audited = await t.ctx.db
      .selectFrom('audit_log')
      .select('action')
      .where('tenant_id', '=', m.tenant.id)
      .where('actor_type', '=', 'cli')
      .execute();
    assert.deepEqual(
      audited.map((row) => row.action),
      Array<string>(6).fill('tenant.account_updated'),
      "each CLI change is in the audit trail as the CLI's",
    );
  });

  test('past the limit: 429 coded rate_limited with Retry-After equal to X-RateLimit-Reset', async () => {
    const m = await seedMerchant(t.ctx);
    await patchTenant(m.tenant.id, { rateLimitPerMinute: 3 });
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await me(m.token);
      assert.equal(res.statusCode, 200);
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
      assert.ok(Number(res.headers['x-ratelimit-reset']) > 0);
    }
    assert.deepEqual(remaining, [2, 1, 0]);
    const limited = await me(m.token);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error.code, 'rate_limited');
    assert.equal(limited.headers['retry-after'], limited.headers['x-ratelimit-reset']);
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const other = await seedMerchant(t.ctx, m.partner);
    assert.equal((await me(other.token)).statusCode, 200, 'the bucket is per tenant');
  });

  test('requests arriving together (one lookup statement on PostgreSQL) are each counted once, in their own bucket', async () => {
    const a = await seedMerchant(t.ctx);
    const b = await seedMerchant(t.ctx, a.partner);
    await patchTenant(a.tenant.id, { rateLimitPerMinute: 5 });
    await patchTenant(b.tenant.id, { rateLimitPerMinute: 7 });
    const suspended = await seedMerchant(t.ctx, a.partner);
    await patchTenant(suspended.tenant.id, { status: 'suspended' });
    const unknown = mintSecret(kindOf(a.token)!.prefix); // well formed, held by nobody
    const tokens = [...Array<string>(8).fill(a.token), ...Array<string>(8).fill(b.token), suspended.token, unknown];
    const answers = await Promise.all(tokens.map((token) => me(token)));
    const of = (token: string) => answers.filter((_, i) => tokens[i] === token);
    for (const [token, limit] of [
      [a.token, 5],
      [b.token, 7],
    ] as const) {
      const mine = of(token);
      assert.deepEqual(mine.map((r) => r.statusCode).sort(), [...Array<number>(limit).fill(200), ...Array<number>(8 - limit).fill(429)]);
      const remaining = mine.filter((r) => r.statusCode === 200).map((r) => Number(r.headers['x-ratelimit-remaining']));
      assert.deepEqual(
        remaining.sort((x, y) => y - x),
        Array.from({ length: limit }, (_, i) => limit - 1 - i),
        'each request its own count',
      );
    }
    assert.equal(of(suspended.token)[0]!.statusCode, 403);
    assert.equal(answers.at(-1)!.statusCode, 401, 'an unknown token among them');
    // The suspended merchant's request was not counted: restored, it has its whole minute.
    await patchTenant(suspended.tenant.id, { status: 'active', rateLimitPerMinute: 3 });
    assert.equal((await me(suspended.token)).headers['x-ratelimit-remaining'], '2');
  });

  for (const store of ['postgres', 'redis'] as const) {
    test(
      `two gateway instances on one PostgreSQL count one bucket per tenant (${store} store)`,
      { skip: !onPostgres && 'several processes share a bucket only on PostgreSQL' },
      async () => {
        const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
        const instances: Array<{ app: App; ctx: AppContext; database: Database }> = [];
        const rateLimitKeyPrefix = `rl-test-${process.pid}-${Date.now()}`;
        for (let i = 0; i < 2; i++) {
          const database = await openDatabase({ databaseUrl: t.testDb.url, poolSize: 2 });
          const ctx = createContext(testConfig(store === 'redis' ? { redisUrl } : {}), database, { rateLimitKeyPrefix });
          const app = await buildApp(ctx, { logger: false });
          instances.push({ app, ctx, database });
        }
        try {
          assert.equal(instances[0]!.ctx.rateLimiter.storeKind, store);
          const m = await seedMerchant(t.ctx);
          await patchTenant(m.tenant.id, { rateLimitPerMinute: 4 });
          const statuses: number[] = [];
          for (let i = 0; i < 6; i++) statuses.push((await me(m.token, { inject: (o) => instances[i % 2]!.app.inject(o) })).statusCode);
          assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
          // /zm/api has a bucket of its own, shared the same way (counted in the key's lookup with the table store).
          const compat: number[] = [];
          for (let i = 0; i < 6; i++)
            compat.push(
              (await instances[i % 2]!.app.inject({ method: 'GET', url: '/zm/api/Branches', headers: { 'x-api-key': m.apiKey } }))
                .statusCode,
            );
          assert.deepEqual(compat, [200, 200, 200, 200, 429, 429]);
        } finally {
          for (const { app, ctx, database } of instances) {
            await app.close();
            await closeContext(ctx);
            await database.close();
          }
        }
      },
    );
  }
});

// docs/decisions.md: "on a store outage the limiter falls back to per-process memory rather than
// refusing traffic". Each gateway instance here has a store that cannot be reached.
describe(`rate limits when the store is down (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** A gateway instance on the test database whose rate-limit store is `store`. */
  async function instance(store: RateLimiter): Promise<{ inject: TestApp['inject']; close(): Promise<void> }> {
    const ctx = createContext(testConfig(), t.testDb.database);
    await ctx.rateLimiter.close();
    ctx.rateLimiter = store;
    const app = await buildApp(ctx, { logger: false });
    return {
      inject: (o) => app.inject(o),
      async close() {
        await app.close();
        await closeContext(ctx);
      },
    };
  }

  /** Statuses of `n` requests to each instance in turn, with the merchant's limit at 3 a minute. */
  async function statuses(
    instances: Array<{ inject: TestApp['inject'] }>,
    send: (i: { inject: TestApp['inject'] }) => Promise<{ statusCode: number }>,
    n: number,
  ) {
    const out: number[][] = [];
    for (const i of instances) {
      const seen: number[] = [];
      for (let k = 0; k < n; k++) seen.push((await send(i)).statusCode);
      out.push(seen);
    }
    return out;
  }

  test('Redis unreachable: requests are served and limited in each process', async () => {
    const deadRedis = () => {
      // As the context connects (src/domain/kernel/context.ts), to a port nothing listens on.
      const redis = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
      redis.on('error', () => {}); // ioredis would print every failed reconnect
      return new RateLimiter('redis', { redis });
    };
    const instances = [await instance(deadRedis()), await instance(deadRedis())];
    try {
      const m = await seedMerchant(t.ctx);
      await t.inject({
        method: 'PATCH',
        url: `/admin/v1/tenants/${m.tenant.id}`,
        headers: bearer(TEST_ADMIN_TOKEN),
        payload: { rateLimitPerMinute: 3 },
      });
      const seen = await statuses(instances, (i) => i.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(m.token) }), 4);
      assert.deepEqual(
        seen,
        [
          [200, 200, 200, 429],
          [200, 200, 200, 429],
        ],
        'each process counts its own bucket',
      );
    } finally {
      for (const i of instances) await i.close();
    }
  });

  test('rate-limit table unreachable: requests are served and limited in each process', async () => {
    // The table store on a server that refuses connections. (Requests whose credential lookup
    // counts them in the same statement need that database anyway — tenant tokens, partner keys,
    // fiscalisation keys; a merchant user's session counts separately.)
    const pools: pg.Pool[] = [];
    const deadTable = () => {
      const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 5_000 });
      pools.push(pool);
      return new RateLimiter('postgres', { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }) });
    };
    const instances = [await instance(deadTable()), await instance(deadTable())];
    try {
      const m = await seedMerchant(t.ctx);
      await t.inject({
        method: 'PATCH',
        url: `/admin/v1/tenants/${m.tenant.id}`,
        headers: bearer(TEST_ADMIN_TOKEN),
        payload: { rateLimitPerMinute: 3 },
      });
      const user = await seedSignedInUser(t.ctx, m.tenant.id);
      const seen = await statuses(instances, (i) => i.inject({ method: 'GET', url: '/api/v1/account/me', headers: user.headers }), 4);
      assert.deepEqual(
        seen,
        [
          [200, 200, 200, 429],
          [200, 200, 200, 429],
        ],
        'each process counts its own bucket',
      );
    } finally {
      for (const i of instances) await i.close();
      for (const pool of pools) await pool.end();
    }
  });
});
