// A reconciliation run in a real gateway process killed with SIGKILL mid-run, then continued by
// `fiscal-gateway reconcile` (the CLI): it finishes, and each document is checked exactly once.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { buildApp } from '../../../src/app/app.ts';
import { closeContext, createContext, type AppContext } from '../../../src/domain/kernel/context.ts';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { syncCatalogue } from '../../../src/domain/kernel/catalogue/service.ts';
import { filingWorker } from '../../../src/domain/fiscal/filing/worker.ts';
import { updateTenantAccount } from '../../../src/domain/partner/provisioning/partners-service.ts';
import { createRun } from '../../../src/domain/fiscal/reconciliation/service.ts';
import { startWorkers } from '../../../src/platform/workers/index.ts';
import { bearer, seedMerchant, seedPartner, TEST_SECRET_KEY, testConfig } from '../../helpers/app.ts';
import { createTestDatabase, embeddedTemplate, engineName, onPostgres, type TestDatabase } from '../../helpers/db.ts';
import { saleBody } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { baseEnv, runCli, spawnGateway, type SpawnedGateway } from '../../helpers/process.ts';

const DOCUMENTS = 30;
const TODAY = new Date().toISOString().slice(0, 10);

/** A merchant whose branch 000 filed DOCUMENTS documents, and a reconciliation of them, queued. */
async function seed(ctx: AppContext, sim: Simulator): Promise<{ tenantId: number; tpin: string; runId: number }> {
  const app = await buildApp(ctx, { logger: false });
  const workers = startWorkers(ctx, [filingWorker]);
  try {
    const partner = await seedPartner(ctx);
    const merchant = await seedMerchant(ctx, partner);
    await updateTenantAccount(ctx.db, { type: 'cli' }, merchant.tenant.id, { rateLimitPerMinute: 1_000_000 });
    const url = `/api/v1/tenants/${merchant.tenant.id}/devices`;
    const auth = bearer(partner.secret);
    assert.equal(
      (
        await app.inject({
          method: 'POST',
          url,
          headers: auth,
          payload: { deviceSerial: `SN-${merchant.tenant.tpin}`, branch: '000', vsdcBaseUrl: sim.url },
        })
      ).statusCode,
      201,
    );
    assert.equal((await app.inject({ method: 'POST', url: `${url}/000/initialize`, headers: auth })).statusCode, 200);
    await syncCatalogue(ctx);
    await Promise.all(
      Array.from({ length: DOCUMENTS }, (_, i) =>
        app.inject({ method: 'POST', url: '/api/v1/sales', headers: bearer(merchant.token), payload: saleBody({}, [{ price: 10 + i }]) }),
      ),
    );
    await eventually(async () => {
      const left = await ctx.db
        .selectFrom('sales')
        .select('id')
        .where('tenant_id', '=', merchant.tenant.id)
        .where('status', '<>', 'uploaded')
        .executeTakeFirst();
      return left === undefined ? true : undefined;
    }, 'the documents to be filed');
    const run = await createRun(ctx, merchant.tenant.id, { branch: '000', from: TODAY, to: TODAY }, 'merchant', { type: 'cli' });
    return { tenantId: merchant.tenant.id, tpin: merchant.tenant.tpin, runId: run.id };
  } finally {
    await workers.stop();
    await app.close();
  }
}

describe(`a reconciliation killed mid-run (${engineName})`, () => {
  let sim: Simulator;
  let child: SpawnedGateway | undefined;
  before(async () => {
    sim = await startSimulator({ port: 0 });
  });
  after(async () => {
    await child?.kill('SIGKILL');
    await sim.close();
  });

  test('SIGKILL, then the CLI continues the run: it completes with each document checked once', async () => {
    let testDb: TestDatabase | undefined;
    let dataDir: string | undefined;
    let seeded: Awaited<ReturnType<typeof seed>>;
    const open = async () => {
      if (onPostgres) return { ctx: createContext(testConfig({ saleWaitMs: 0 }), testDb!.database), close: async () => {} };
      // The first open copies the migrated template into the directory (migrating a fresh one takes long).
      const fresh = !existsSync(join(dataDir!, 'PG_VERSION'));
      const database = await openDatabase({ dataDir: dataDir!, ...(fresh ? { loadDataDir: await embeddedTemplate() } : {}) });
      return { ctx: createContext(testConfig({ dataDir: dataDir!, saleWaitMs: 0 }), database), close: () => database.close() };
    };
    if (onPostgres) testDb = await createTestDatabase();
    else dataDir = mkdtempSync(join(tmpdir(), 'fg-recon-'));
    try {
      {
        const { ctx, close } = await open();
        seeded = await seed(ctx, sim);
        await closeContext(ctx);
        await close();
      }
      const env = baseEnv({
        GATEWAY_ENV: 'production',
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'warn',
        VSDC_TIMEOUT_MS: '1000',
        RECONCILE_PACE_MS: '40',
        DATABASE_URL: testDb?.url,
        DATA_DIR: dataDir,
      });
      const lookups = () => sim.control.calls(seeded.tpin, '000', 'selectInvoice').length;
      child = await spawnGateway(env, ['--workers-only']);
      await eventually(() => (lookups() >= 8 ? true : undefined), 'the process to check part of the run', 30_000);
      await child.kill('SIGKILL');
      child = undefined;
      const before = lookups();
      assert.ok(before < DOCUMENTS, `killed mid-run (${before} of ${DOCUMENTS} looked up)`);

      const cli = await runCli(['reconcile', '--tenant', String(seeded.tenantId), '--branch', '000', '--from', TODAY, '--to', TODAY], env);
      assert.equal(cli.code, 0, `${cli.stdout}\n${cli.stderr}`);
      assert.match(cli.stdout, new RegExp(`run ${seeded.runId} .*continuing it`));
      assert.match(cli.stdout, new RegExp(`done: ${DOCUMENTS} match, 0 mismatch, 0 unknown to the VSDC`));
      // The document in flight at the kill may have been looked up twice; no other.
      assert.ok(lookups() <= DOCUMENTS + 1, `${lookups()} lookups for ${DOCUMENTS} documents`);
      assert.match(cli.stdout, new RegExp(`run ${seeded.runId} completed: checked ${DOCUMENTS}/${DOCUMENTS} · ${DOCUMENTS} match`));

      // A result's counters move only when its row goes from unchecked to checked: checked = total
      // means every listed document was checked, once. The rows themselves, where another
      // process may read them at once (PostgreSQL; the embedded database is shut for the CLI's sake).
      if (onPostgres) {
        const { ctx, close } = await open();
        try {
          const run = await ctx.db.selectFrom('reconciliation_runs').selectAll().where('id', '=', seeded.runId).executeTakeFirstOrThrow();
          assert.equal(run.status, 'completed');
          assert.equal(run.total, DOCUMENTS);
          assert.equal(run.checked, DOCUMENTS);
          assert.equal(run.matches, DOCUMENTS);
          const results = await ctx.db
            .selectFrom('reconciliation_results')
            .select(['sale_id', 'outcome'])
            .where('run_id', '=', seeded.runId)
            .execute();
          assert.equal(results.length, DOCUMENTS);
          assert.equal(new Set(results.map((r) => Number(r.sale_id))).size, DOCUMENTS);
          assert.ok(results.every((r) => r.outcome === 'match'));
        } finally {
          await closeContext(ctx);
          await close();
        }
      }
    } finally {
      await testDb?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
