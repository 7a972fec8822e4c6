// Crash safety of the stock chain with a real gateway process (`serve --workers-only`): a sale
// uploaded by a process that stopped before booking its stock; a process that books it and is
// killed with SIGKILL while the chain's replies are lost. After the restart the chain is sent,
// recorded once at the authority, and the sale is never filed again.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { buildApp } from '../../../src/app/app.ts';
import { closeContext, createContext, type AppContext } from '../../../src/domain/kernel/context.ts';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { syncCatalogue } from '../../../src/domain/kernel/catalogue/service.ts';
import { filingWorker } from '../../../src/domain/fiscal/filing/worker.ts';
import { provideModuleMembers } from '../../../src/app/modules.ts';
import { stockWorker } from '../../../src/domain/fiscal/stock/worker.ts';
import { startWorkers } from '../../../src/platform/workers/index.ts';
import { bearer, seedMerchant, seedPartner, TEST_SECRET_KEY, testConfig } from '../../helpers/app.ts';
import { createTestDatabase, embeddedTemplate, engineName, onPostgres, type TestDatabase } from '../../helpers/db.ts';
import { CLASS_CODE } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { baseEnv, spawnGateway, type SpawnedGateway } from '../../helpers/process.ts';

const ITEM = 'GOODS-KILL';

/** A merchant with one goods item and one uploaded sale of 4 of it; no stock worker ever ran. */
async function seedUploadedSale(ctx: AppContext, sim: Simulator): Promise<{ tpin: string; saleId: number; invoiceNo: number }> {
  const app = await buildApp(ctx, { logger: false });
  const workers = startWorkers(ctx, [filingWorker]);
  try {
    const partner = await seedPartner(ctx);
    const merchant = await seedMerchant(ctx, partner);
    const devices = `/api/v1/tenants/${merchant.tenant.id}/devices`;
    assert.equal(
      (
        await app.inject({
          method: 'POST',
          url: devices,
          headers: bearer(partner.secret),
          payload: { deviceSerial: 'SN-KILL', branch: '000', vsdcBaseUrl: sim.url },
        })
      ).statusCode,
      201,
    );
    assert.equal((await app.inject({ method: 'POST', url: `${devices}/000/initialize`, headers: bearer(partner.secret) })).statusCode, 200);
    await syncCatalogue(ctx);
    const auth = bearer(merchant.token);
    const item = await app.inject({
      method: 'POST',
      url: '/api/v1/items',
      headers: auth,
      payload: { name: 'Cement 50kg', itemClsCd: CLASS_CODE, itemCode: ITEM },
    });
    assert.equal(item.statusCode, 201, item.body);
    const sale = await app.inject({
      method: 'POST',
      url: '/api/v1/sales',
      headers: auth,
      payload: { items: [{ name: 'Cement 50kg', classificationCode: CLASS_CODE, itemCode: ITEM, quantity: 4, price: 120 }] },
    });
    assert.equal(sale.statusCode, 201, sale.body);
    const { id, invoiceNo } = sale.json().data as { id: number; invoiceNo: number };
    await eventually(
      async () => (await ctx.db.selectFrom('sales').select('status').where('id', '=', id).executeTakeFirst())?.status === 'uploaded',
      'the sale uploaded',
    );
    return { tpin: merchant.tenant.tpin, saleId: id, invoiceNo };
  } finally {
    await workers.stop();
    await app.close();
  }
}

describe(`the stock chain across a SIGKILL (${engineName})`, () => {
  let sim: Simulator;
  const children: SpawnedGateway[] = [];
  before(async () => {
    sim = await startSimulator({ port: 0 });
  });
  after(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await sim.close();
  });

  test('a sale uploaded before a crash gets its chain after the restart, recorded once; the sale is not resent', async () => {
    let dataDir: string | undefined;
    let testDb: TestDatabase | undefined;
    let seeded: Awaited<ReturnType<typeof seedUploadedSale>>;
    /** Runs `use` on a context of the test's database (the embedded one only while no child holds it). */
    let fresh = true;
    const withContext = async <T>(use: (ctx: AppContext) => Promise<T>): Promise<T> => {
      if (testDb) {
        const ctx = createContext(testConfig({ saleWaitMs: 0 }), testDb.database);
        try {
          return await use(ctx);
        } finally {
          await closeContext(ctx);
        }
      }
      // The first open starts from the migrated template, as the tests' databases do.
      const database = await openDatabase({ dataDir: dataDir!, ...(fresh ? { loadDataDir: await embeddedTemplate() } : {}) });
      fresh = false;
      const ctx = createContext(testConfig({ dataDir: dataDir!, saleWaitMs: 0 }), database);
      try {
        return await use(ctx);
      } finally {
        await closeContext(ctx);
        await database.close();
      }
    };
    if (onPostgres) testDb = await createTestDatabase();
    else dataDir = mkdtempSync(join(tmpdir(), 'fg-stock-kill-'));
    try {
      seeded = await withContext((ctx) => seedUploadedSale(ctx, sim));
      const device = () => sim.control.getDevice(seeded.tpin, '000')!;
      assert.equal(device().stockMovements.length, 0, 'no chain before the crash');

      // The first process books the sale and sends saveStockItems, whose replies are lost; it dies.
      sim.control.setFaults(seeded.tpin, '000', { loseReplies: { count: 'all', endpoints: ['saveStockItems'] } });
      const env = baseEnv({
        GATEWAY_ENV: 'production',
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'warn',
        VSDC_TIMEOUT_MS: '1000',
        FILING_RETRY_MS: '50',
        DATABASE_URL: testDb?.url,
        DATA_DIR: dataDir,
      });
      const first = await spawnGateway(env, ['--workers-only']);
      children.push(first);
      await eventually(() => (device().stockMovements.length > 0 ? true : undefined), 'the first process to send saveStockItems');
      await first.kill('SIGKILL');
      assert.equal(Object.keys(device().stockLevels).length, 0, 'no master before the kill');

      // The restart: this process's stock worker takes over (a dead process's lease would run out;
      // the embedded database clears leases at start, PostgreSQL's is expired here).
      sim.control.clearFaults(seeded.tpin, '000');
      await withContext(async (ctx) => {
        if (testDb)
          await ctx.db
            .updateTable('stock_branches')
            .set({ lease_until: sql<Date>`now()` })
            .where('lease_owner', 'is not', null)
            .execute();
        provideModuleMembers(ctx);
        const workers = startWorkers(ctx, [(c) => stockWorker(c)]);
        try {
          await eventually(() => (device().stockLevels[ITEM] ? true : undefined), 'the restarted worker to send saveStockMaster');
        } finally {
          await workers.stop();
        }
      });

      assert.deepEqual(
        device().stockMovements.map((m) => [m.sarNo, m.sarTyCd]),
        [[1, '11']],
        'one movement at the authority (a resend with the same sarNo replaces it)',
      );
      assert.equal(device().stockLevels[ITEM]!.rsdQty, -4);
      const filings = sim.control.calls(seeded.tpin, '000', 'saveSales').filter((c) => c.request.cisInvcNo === String(seeded.invoiceNo));
      assert.equal(filings.length, 1, 'the sale filed once');
      await withContext(async (ctx) => {
        const movements = await ctx.db.selectFrom('stock_movements').select(['source_id', 'state', 'sar_no']).execute();
        assert.deepEqual(
          movements.map((m) => [Number(m.source_id), m.state, m.sar_no]),
          [[seeded.saleId, 'sent', 1]],
          'booked once, sent',
        );
        const level = await ctx.db
          .selectFrom('stock_levels')
          .select(sql`quantity::text`.as('quantity'))
          .where('item_code', '=', ITEM)
          .executeTakeFirstOrThrow();
        assert.equal(Number(level.quantity), -4);
      });
    } finally {
      await testDb?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
