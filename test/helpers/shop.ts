import assert from 'node:assert/strict';
import type { Simulator } from '@fiscal-gateway/simulator';
import { buildApp } from '../../src/app/app.ts';
import { closeContext, createContext } from '../../src/domain/kernel/context.ts';
import { syncCatalogue } from '../../src/domain/kernel/catalogue/service.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { bearer, seedMerchant, seedPartner, testConfig } from './app.ts';
import { embeddedTemplate } from './db.ts';
import { saleBody } from './harness.ts';

export interface Shop {
  tenantId: number;
  /** The merchant's tenant token. */
  token: string;
  partnerSecret: string;
}

/**
 * A new embedded data directory, from the migrated template (a directory migrated from nothing
 * takes seconds), holding a merchant whose branch 000 is initialised at `sim` and `sales`
 * documents sold through the API; closed again, for a `serve` a test spawns on it.
 */
export async function seedEmbeddedShop(dataDir: string, sim: Simulator, sales = 0): Promise<Shop> {
  const database = await openDatabase({ dataDir, loadDataDir: await embeddedTemplate() });
  const ctx = createContext(testConfig({ dataDir, saleWaitMs: 0 }), database);
  const app = await buildApp(ctx, { logger: false });
  try {
    const partner = await seedPartner(ctx);
    const merchant = await seedMerchant(ctx, partner);
    await updateTenantAccount(ctx.db, { type: 'cli' }, merchant.tenant.id, { rateLimitPerMinute: 1_000_000 });
    const url = `/api/v1/tenants/${merchant.tenant.id}/devices`;
    assert.equal(
      (
        await app.inject({
          method: 'POST',
          url,
          headers: bearer(partner.secret),
          payload: { deviceSerial: `SN-${merchant.tenant.tpin}`, branch: '000', vsdcBaseUrl: sim.url },
        })
      ).statusCode,
      201,
    );
    assert.equal((await app.inject({ method: 'POST', url: `${url}/000/initialize`, headers: bearer(partner.secret) })).statusCode, 200);
    await syncCatalogue(ctx);
    for (let i = 0; i < sales; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/sales',
        headers: { ...bearer(merchant.token), 'x-branch': '000' },
        payload: saleBody({}, [{ price: 10 + i }]),
      });
      assert.ok(res.statusCode < 300, res.body);
    }
    return { tenantId: merchant.tenant.id, token: merchant.token, partnerSecret: partner.secret };
  } finally {
    await app.close();
    await closeContext(ctx);
    await database.close();
  }
}

/** Every document of the merchant through its API (all branches, every page), by id. */
export async function listedDocuments(url: string, token: string): Promise<Array<{ id: number; invoiceNo: number }>> {
  const documents: Array<{ id: number; invoiceNo: number }> = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}/api/v1/sales?page=${page}`, { headers: bearer(token) });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { data: Array<{ id: number; invoiceNo: number }>; meta: { lastPage: number } };
    documents.push(...body.data.map(({ id, invoiceNo }) => ({ id, invoiceNo })));
    if (page >= body.meta.lastPage) break;
  }
  return documents.sort((a, b) => a.id - b.id);
}
