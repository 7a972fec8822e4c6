// Real gateway processes (`serve --workers-only`) draining a backlog: killed with SIGKILL in the
// middle, restarted, and (on PostgreSQL) two of them at once. Nothing lost, nothing filed
// twice, every branch's documents in invoice order.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { buildApp, type App } from '../../../src/app/app.ts';
import { closeContext, createContext, type AppContext } from '../../../src/domain/kernel/context.ts';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { syncCatalogue } from '../../../src/domain/kernel/catalogue/service.ts';
import { updateTenantAccount } from '../../../src/domain/partner/provisioning/partners-service.ts';
import { bearer, seedMerchant, seedPartner, TEST_SECRET_KEY, testConfig } from '../../helpers/app.ts';
import { createTestDatabase, engineName, onPostgres, type TestDatabase } from '../../helpers/db.ts';
import { baseEnv, spawnGateway, type SpawnedGateway } from '../../helpers/process.ts';
import { saleBody } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

const VSDC_TIMEOUT_MS = 1_000;

interface Backlog {
  tpin: string;
  branches: string[];
  perBranch: number;
}

/** A merchant with initialised branches and `perBranch` pending documents on each, stored through the API. */
async function seedBacklog(ctx: AppContext, sim: Simulator, branches: string[], perBranch: number): Promise<Backlog> {
  const app: App = await buildApp(ctx, { logger: false });
  try {
    const partner = await seedPartner(ctx);
    const merchant = await seedMerchant(ctx, partner);
    await updateTenantAccount(ctx.db, { type: 'cli' }, merchant.tenant.id, { rateLimitPerMinute: 1_000_000 });
    for (const branch of branches) {
      const auth = bearer(partner.secret);
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
    await syncCatalogue(ctx);
    for (let i = 0; i < perBranch; i += 25) {
      await Promise.all(
        branches.flatMap((branch) =>
          Array.from({ length: Math.min(25, perBranch - i) }, (_, k) =>
            app.inject({
              method: 'POST',
              url: '/api/v1/sales',
              headers: { ...bearer(merchant.token), 'x-branch': branch },
              payload: saleBody({}, [{ price: 1 + i + k }]),
            }),
          ),
        ),
      );
    }
    return { tpin: merchant.tenant.tpin, branches, perBranch };
  } finally {
    await app.close();
  }
}

function filedCount(sim: Simulator, backlog: Backlog): number {
  return backlog.branches.reduce((n, b) => n + sim.control.documents(backlog.tpin, b, { filedOnly: true }).length, 0);
}

/** Every document uploaded once, with the receipt the VSDC issued, in invoice order per branch. */
async function assertDrainedOnceInOrder(ctx: AppContext, sim: Simulator, backlog: Backlog): Promise<void> {
  const rows = await ctx.db
    .selectFrom('sales')
    .select(['id', 'branch', 'invoice_no', 'status', 'receipt_no'])
    .orderBy('invoice_no')
    .execute();
  assert.equal(rows.length, backlog.branches.length * backlog.perBranch, 'nothing lost');
  for (const branch of backlog.branches) {
    const mine = rows.filter((r) => r.branch === branch);
    assert.deepEqual(
      mine.map((r) => Number(r.invoice_no)),
      Array.from({ length: backlog.perBranch }, (_, i) => i + 1),
      `branch ${branch}: gap-free`,
    );
    assert.ok(
      mine.every((r) => r.status === 'uploaded'),
      `branch ${branch}: all uploaded`,
    );
    const filed = sim.control.documents(backlog.tpin, branch, { filedOnly: true });
    assert.deepEqual(
      filed.map((d) => Number(d.cisInvcNo)),
      mine.map((r) => Number(r.invoice_no)),
      `branch ${branch}: each filed once, in order`,
    );
    const receipts = new Map(filed.map((d) => [Number(d.cisInvcNo), d.receipt!.rcptNo]));
    for (const r of mine)
      assert.equal(Number(r.receipt_no), receipts.get(Number(r.invoice_no)), `invoice ${r.invoice_no} holds the VSDC's receipt`);
    const arrivals = sim.control.documents(backlog.tpin, branch).map((d) => ({ no: Number(d.cisInvcNo), code: d.resultCd }));
    for (let i = 1; i < arrivals.length; i++) {
      const [prev, cur] = [arrivals[i - 1]!, arrivals[i]!];
      // Only the document in flight when a process died may arrive again, answered 924.
      assert.ok(
        cur.no > prev.no || (cur.no === prev.no && cur.code === '924'),
        `branch ${branch}: ${cur.no} (${cur.code}) arrived after ${prev.no}`,
      );
    }
  }
  const events = await ctx.db.selectFrom('webhook_events').select(['type', 'body']).execute();
  const perSale = new Map<number, number>();
  for (const e of events) {
    assert.equal(e.type, 'invoice.fiscalised');
    const id = (JSON.parse(e.body) as { data: { invoice: { id: number } } }).data.invoice.id;
    perSale.set(id, (perSale.get(id) ?? 0) + 1);
  }
  assert.equal(perSale.size, rows.length, 'an event for every document');
  assert.ok(
    [...perSale.values()].every((n) => n === 1),
    'exactly one event each',
  );
}

function childEnv(database: { url?: string | undefined; dataDir?: string }): NodeJS.ProcessEnv {
  return baseEnv({
    GATEWAY_ENV: 'production',
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'warn',
    VSDC_TIMEOUT_MS: String(VSDC_TIMEOUT_MS),
    FILING_RETRY_MS: '50',
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
  });
}

describe(`gateway processes draining a backlog (${engineName})`, () => {
  let sim: Simulator;
  const children: SpawnedGateway[] = [];
  before(async () => {
    sim = await startSimulator({ port: 0 });
  });
  after(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await sim.close();
  });

  test('SIGKILL in the middle of draining, then a restart: nothing lost, nothing filed twice, order kept', async () => {
    const branches = ['000', '001'];
    const perBranch = 120;
    let dataDir: string | undefined;
    let testDb: TestDatabase | undefined;
    let backlog: Backlog;
    // Embedded: the database lives in a directory only one process may hold at a time.
    if (onPostgres) {
      testDb = await createTestDatabase();
      const ctx = createContext(testConfig({ saleWaitMs: 0 }), testDb.database);
      backlog = await seedBacklog(ctx, sim, branches, perBranch);
      await closeContext(ctx);
    } else {
      dataDir = mkdtempSync(join(tmpdir(), 'fg-kill-'));
      const database = await openDatabase({ dataDir });
      const ctx = createContext(testConfig({ dataDir, saleWaitMs: 0 }), database);
      backlog = await seedBacklog(ctx, sim, branches, perBranch);
      await closeContext(ctx);
      await database.close();
    }
    try {
      for (const branch of branches) sim.control.setFaults(backlog.tpin, branch, { delayMs: 15 });
      const env = childEnv({ url: testDb?.url, ...(dataDir ? { dataDir } : {}) });
      const first = await spawnGateway(env, ['--workers-only']);
      children.push(first);
      await eventually(() => (filedCount(sim, backlog) >= 60 ? true : undefined), 'the first process to file part of the backlog', 60_000);
      await first.kill('SIGKILL');
      const filedAtKill = filedCount(sim, backlog);
      assert.ok(filedAtKill < branches.length * perBranch, 'killed in the middle');

      for (const branch of branches) sim.control.setFaults(backlog.tpin, branch, { delayMs: 0 });
      const second = await spawnGateway(env, ['--workers-only']);
      children.push(second);
      await eventually(
        () => (filedCount(sim, backlog) === branches.length * perBranch ? true : undefined),
        'the restarted process to finish',
        90_000,
      );
      const verify = async (ctx: AppContext) =>
        eventually(async () => {
          const pending = await ctx.db.selectFrom('sales').select('id').where('status', '=', 'pending').limit(1).executeTakeFirst();
          return pending ? undefined : true;
        }, 'no document left pending');
      if (testDb) {
        const ctx = createContext(testConfig({ saleWaitMs: 0 }), testDb.database);
        await verify(ctx);
        await second.kill('SIGTERM');
        await assertDrainedOnceInOrder(ctx, sim, backlog);
        await closeContext(ctx);
      } else {
        // No pause for the last outcome: a graceful stop finishes the call in hand and records
        // its outcome before the process exits, which `verify` then checks.
        assert.equal(await second.kill('SIGTERM'), 0, second.output());
        const database = await openDatabase({ dataDir: dataDir! });
        const ctx = createContext(testConfig({ dataDir: dataDir!, saleWaitMs: 0 }), database);
        try {
          await verify(ctx);
          await assertDrainedOnceInOrder(ctx, sim, backlog);
        } finally {
          await closeContext(ctx);
          await database.close();
        }
      }
    } finally {
      await testDb?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test(
    'two processes on one PostgreSQL drain the same branches, one dies: the same guarantees',
    { skip: onPostgres ? false : 'needs PostgreSQL: set TEST_DATABASE_URL (the embedded database is single-process by design)' },
    async () => {
      const testDb = await createTestDatabase();
      const ctx = createContext(testConfig({ saleWaitMs: 0 }), testDb.database);
      try {
        const backlog = await seedBacklog(ctx, sim, ['000', '001', '002', '003'], 60);
        for (const branch of backlog.branches) sim.control.setFaults(backlog.tpin, branch, { delayMs: 10 });
        const env = childEnv({ url: testDb.url });
        const [a, b] = await Promise.all([spawnGateway(env, ['--workers-only']), spawnGateway(env, ['--workers-only'])]);
        children.push(a!, b!);
        await eventually(() => (filedCount(sim, backlog) >= 80 ? true : undefined), 'both processes to file part of the backlog', 60_000);
        await a!.kill('SIGKILL');
        await eventually(() => (filedCount(sim, backlog) === 240 ? true : undefined), 'the survivor to finish every branch', 90_000);
        await eventually(
          async () =>
            (await ctx.db.selectFrom('sales').select('id').where('status', '=', 'pending').limit(1).executeTakeFirst()) ? undefined : true,
          'no document left pending',
        );
        await b!.kill('SIGTERM');
        await assertDrainedOnceInOrder(ctx, sim, backlog);
      } finally {
        await closeContext(ctx);
        await testDb.close();
      }
    },
  );
});
