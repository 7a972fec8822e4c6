// The scaled-out deployment: two `serve --api-only` and two `serve --workers-only` processes on
// one PostgreSQL, with the real simulator and a real webhook receiver. Sales come in through
// both API processes; one worker process is killed with SIGKILL while filing. What must hold:
// one rate-limit bucket per tenant, gap-free numbers per branch, strictly ordered filing, each
// webhook delivered at least once and never twice at the same time, and nothing lost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { buildApp } from '../../src/app/app.ts';
import { closeContext, createContext, type AppContext } from '../../src/domain/kernel/context.ts';
import { syncCatalogue } from '../../src/domain/kernel/catalogue/service.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { bearer, seedMerchant, seedPartner, TEST_SECRET_KEY, testConfig } from '../helpers/app.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/db.ts';
import { baseEnv, spawnGateway, type SpawnedGateway } from '../helpers/process.ts';
import { saleBody } from '../helpers/harness.ts';
import { Receiver } from '../partner/webhooks/helpers.ts';
import { eventually } from '../helpers/poll.ts';

const BRANCHES = ['000', '001', '002'];
const PER_BRANCH = 40;
const RATE_LIMIT = 6;

interface Seeded {
  tenantId: number;
  tpin: string;
  token: string;
  /** A second merchant of the partner, with a small per-minute limit. */
  limitedToken: string;
}

async function seed(ctx: AppContext, sim: Simulator, receiverUrl: string): Promise<Seeded> {
  const app = await buildApp(ctx, { logger: false });
  try {
    const partner = await seedPartner(ctx);
    const merchant = await seedMerchant(ctx, partner);
    await updateTenantAccount(ctx.db, { type: 'cli' }, merchant.tenant.id, { rateLimitPerMinute: 1_000_000 });
    const auth = bearer(partner.secret);
    for (const branch of BRANCHES) {
      const url = `/api/v1/tenants/${merchant.tenant.id}/devices`;
      assert.equal(
        (
          await app.inject({
            method: 'POST',
            url,
            headers: auth,
            payload: { deviceSerial: `SN-${merchant.tenant.tpin}-${branch}`, branch, vsdcBaseUrl: sim.url },
          })
        ).statusCode,
        201,
      );
      assert.equal((await app.inject({ method: 'POST', url: `${url}/${branch}/initialize`, headers: auth })).statusCode, 200);
    }
    const hook = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload: { url: `${receiverUrl}/hooks` } });
    assert.equal(hook.statusCode, 201, hook.body);
    const limited = await seedMerchant(ctx, partner);
    await updateTenantAccount(ctx.db, { type: 'cli' }, limited.tenant.id, { rateLimitPerMinute: RATE_LIMIT });
    await syncCatalogue(ctx);
    return { tenantId: merchant.tenant.id, tpin: merchant.tenant.tpin, token: merchant.token, limitedToken: limited.token };
  } finally {
    await app.close();
  }
}

async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  token: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const res = await request(`${base}${path}`, {
    method,
    headers: { ...bearer(token), ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as { data: { invoiceNo: number; branch: string } } };
}

describe('scale-out: two API and two worker processes on one PostgreSQL', () => {
  let sim: Simulator;
  let receiver: Receiver;
  let testDb: TestDatabase | undefined;
  let ctx: AppContext | undefined;
  const children: SpawnedGateway[] = [];

  before(async () => {
    sim = await startSimulator({ port: 0 });
    receiver = await new Receiver().start();
    // A slow receiver keeps attempts in flight long enough for a duplicate to overlap if one could.
    receiver.behaviour = (_req, res) => void setTimeout(() => res.writeHead(200).end('ok'), 20);
  });
  after(async () => {
    for (const child of children) await child.kill('SIGKILL');
    if (ctx) await closeContext(ctx);
    await testDb?.close();
    await receiver.close();
    await sim.close();
  });

  test(
    'one bucket per tenant, gap-free and ordered filing, webhooks once at a time, nothing lost to SIGKILL',
    { skip: onPostgres ? false : 'needs PostgreSQL: set TEST_DATABASE_URL (the embedded database is one process by design)' },
    async () => {
      testDb = await createTestDatabase();
      ctx = createContext(testConfig(), testDb.database);
      const seeded = await seed(ctx, sim, receiver.url);
      for (const branch of BRANCHES) sim.control.setFaults(seeded.tpin, branch, { delayMs: 30 });

      const env = baseEnv({
        GATEWAY_ENV: 'development',
        SECRET_KEY: TEST_SECRET_KEY,
        DATABASE_URL: testDb.url,
        LOG_LEVEL: 'info',
        SALE_WAIT_MS: '0',
        VSDC_TIMEOUT_MS: '1000',
        FILING_RETRY_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
      });
      const [apiA, apiB, workerA, workerB] = await Promise.all([
        spawnGateway(env, ['--api-only']),
        spawnGateway(env, ['--api-only']),
        spawnGateway({ ...env, LOG_LEVEL: 'warn' }, ['--workers-only']),
        spawnGateway({ ...env, LOG_LEVEL: 'warn' }, ['--workers-only']),
      ]);
      children.push(apiA!, apiB!, workerA!, workerB!);
      const apis = [apiA!.url, apiB!.url];

      // One bucket: requests alternate between the API processes and are counted together.
      const limited = [];
      for (let i = 0; i < RATE_LIMIT + 2; i++) limited.push(await call(apis[i % 2]!, 'GET', '/api/v1/me', seeded.limitedToken));
      assert.deepEqual(
        limited.map((r) => r.status),
        [...Array<number>(RATE_LIMIT).fill(200), 429, 429],
      );
      assert.deepEqual(
        limited.slice(0, RATE_LIMIT).map((r) => Number(r.headers['x-ratelimit-remaining'])),
        Array.from({ length: RATE_LIMIT }, (_, i) => RATE_LIMIT - 1 - i),
      );

      // Sales through both API processes, concurrently, on every branch.
      const posts = Array.from({ length: BRANCHES.length * PER_BRANCH }, (_, i) => ({
        api: apis[i % 2]!,
        branch: BRANCHES[i % BRANCHES.length]!,
        price: 1 + i,
      }));
      const answers = [];
      for (let i = 0; i < posts.length; i += 12) {
        answers.push(
          ...(await Promise.all(
            posts
              .slice(i, i + 12)
              .map((p) => call(p.api, 'POST', '/api/v1/sales', seeded.token, { 'x-branch': p.branch }, saleBody({}, [{ price: p.price }]))),
          )),
        );
      }
      assert.ok(
        answers.every((a) => a.status === 201),
        'every sale stored',
      );
      const total = posts.length;
      const filed = () => BRANCHES.reduce((n, b) => n + sim.control.documents(seeded.tpin, b, { filedOnly: true }).length, 0);

      await eventually(() => (filed() >= total / 4 ? true : undefined), 'filing under way', 30_000);
      // Kill a worker while it holds a branch (lease owners are `host:pid:tag`); the other survives.
      const workers = [workerA!, workerB!];
      const holder = await eventually(
        async () => {
          const owners = await ctx!.db.selectFrom('filing_queues').select('lease_owner').where('lease_owner', 'is not', null).execute();
          return workers.find((w) => owners.some((o) => o.lease_owner!.includes(`:${w.proc.pid}:`)));
        },
        'a worker holding a branch',
        30_000,
      );
      await holder.kill('SIGKILL');
      assert.ok(filed() < total, 'killed while there was work left');
      for (const branch of BRANCHES) sim.control.setFaults(seeded.tpin, branch, { delayMs: 0 });
      await eventually(() => (filed() === total ? true : undefined), 'the surviving worker to file the rest', 30_000);

      const rows = await ctx.db
        .selectFrom('sales')
        .select(['id', 'branch', 'invoice_no', 'status'])
        .where('tenant_id', '=', seeded.tenantId)
        .orderBy('invoice_no')
        .execute();
      await eventually(
        async () =>
          (await ctx!.db.selectFrom('sales').select('id').where('status', '=', 'pending').limit(1).executeTakeFirst()) ? undefined : true,
        'no document left pending',
      );
      assert.equal(rows.length, total, 'nothing lost');
      for (const branch of BRANCHES) {
        const numbers = rows.filter((r) => r.branch === branch).map((r) => Number(r.invoice_no));
        assert.deepEqual(
          numbers,
          Array.from({ length: PER_BRANCH }, (_, i) => i + 1),
          `branch ${branch}: gap-free`,
        );
        const filedInOrder = sim.control.documents(seeded.tpin, branch, { filedOnly: true }).map((d) => Number(d.cisInvcNo));
        assert.deepEqual(filedInOrder, numbers, `branch ${branch}: each filed once, in order`);
        const arrivals = sim.control.documents(seeded.tpin, branch).map((d) => ({ no: Number(d.cisInvcNo), code: d.resultCd }));
        for (let i = 1; i < arrivals.length; i++) {
          const [prev, cur] = [arrivals[i - 1]!, arrivals[i]!];
          // Only the document in flight when its worker died may arrive again, answered 924.
          assert.ok(
            cur.no > prev.no || (cur.no === prev.no && cur.code === '924'),
            `branch ${branch}: ${cur.no} (${cur.code}) arrived after ${prev.no}`,
          );
        }
      }

      // Every event reached the receiver at least once, and never twice at the same time.
      const events = await ctx.db.selectFrom('webhook_events').select('id').where('tenant_id', '=', seeded.tenantId).execute();
      assert.equal(events.length, total, 'one event per document');
      await eventually(
        () => {
          const seen = new Set(receiver.requests.map((r) => String(r.headers['x-webhook-id'])));
          return events.every((e) => seen.has(e.id)) ? true : undefined;
        },
        "every event delivered (the killed worker's claims come back after their lease)",
        30_000,
      );
      assert.deepEqual(receiver.concurrentDuplicates, [], 'no delivery in flight twice at once');
    },
  );

  test(
    'an API process answers with the outcome a worker process recorded, exactly as stored',
    { skip: onPostgres ? false : 'needs PostgreSQL: set TEST_DATABASE_URL' },
    async () => {
      const db = await createTestDatabase();
      const local = createContext(testConfig(), db.database);
      try {
        const seeded = await seed(local, sim, receiver.url);
        const env = baseEnv({
          GATEWAY_ENV: 'development',
          SECRET_KEY: TEST_SECRET_KEY,
          DATABASE_URL: db.url,
          LOG_LEVEL: 'info',
          SALE_WAIT_MS: '10000',
          VSDC_TIMEOUT_MS: '2000',
        });
        const [api, worker] = await Promise.all([spawnGateway(env, ['--api-only']), spawnGateway(env, ['--workers-only'])]);
        children.push(api!, worker!);
        const read = async (id: number) =>
          (await request(`${api!.url}/api/v1/sales/${id}`, { headers: bearer(seeded.token) })).body.json() as Promise<{
            data: Record<string, unknown>;
          }>;

        const uploaded = (await call(
          api!.url,
          'POST',
          '/api/v1/sales',
          seeded.token,
          { 'x-branch': '000' },
          saleBody({}, [{ price: 12 }]),
        )) as unknown as { status: number; body: { data: Record<string, unknown> } };
        assert.equal(uploaded.status, 201);
        assert.equal(uploaded.body.data.status, 'uploaded');
        assert.deepEqual(uploaded.body.data, (await read(Number(uploaded.body.data.id))).data);

        // A refusal with a long message (6,000 bytes once encoded) still travels in the notification.
        const message = '€'.repeat(2_500);
        sim.control.setFaults(seeded.tpin, '001', { forcedResult: { code: '899', message, endpoints: ['saveSales'] } });
        const failed = (await call(
          api!.url,
          'POST',
          '/api/v1/sales',
          seeded.token,
          { 'x-branch': '001' },
          saleBody({}, [{ price: 13 }]),
        )) as unknown as { status: number; body: { data: Record<string, unknown> } };
        sim.control.setFaults(seeded.tpin, '001', { forcedResult: null });
        assert.equal(failed.body.data.status, 'failed');
        assert.equal((failed.body.data.lastError as string).length, 2_000);
        assert.deepEqual(failed.body.data, (await read(Number(failed.body.data.id))).data);
      } finally {
        await closeContext(local);
        await db.close();
      }
    },
  );
});
