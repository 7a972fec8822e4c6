// A gateway with the real simulator over a socket, a merchant with initialised branches, and
// the filing worker running: what every sales test starts from.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { syncCatalogue } from '../../src/modules/catalogue/service.ts';
import { moduleWorkers } from '../../src/modules/index.ts';
import { updateTenantAccount } from '../../src/modules/provisioning/partners.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { startWorkers } from '../../src/workers/index.ts';
import { bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from '../helpers/app.ts';

/** A code the simulator's catalogue always holds. */
export const CLASS_CODE = '50221200';

export interface SaleLine {
  name?: string;
  classificationCode?: string;
  quantity?: number;
  price?: number;
  vatCategory?: string;
}

export function saleBody(overrides: Record<string, unknown> = {}, lines: SaleLine[] = [{}]): Record<string, unknown> {
  return {
    items: lines.map((l, i) => ({ name: `Item ${i + 1}`, classificationCode: CLASS_CODE, quantity: 1, price: 116, ...l })),
    ...overrides,
  };
}

export interface Merchant {
  tenantId: number;
  tpin: string;
  token: string;
  partnerSecret: string;
  partnerId: number;
}

export interface SalesHarness {
  t: TestApp;
  ctx: AppContext;
  sim: Simulator;
  merchant: Merchant;
  /** Starts the filing (and other) workers in this process. */
  startWorkers(): void;
  stopWorkers(): Promise<void>;
  addMerchant(): Promise<Merchant>;
  registerBranch(merchant: Merchant, branch: string, options?: { initialize?: boolean }): Promise<void>;
  post(url: string, body: unknown, headers?: Record<string, string>, merchant?: Merchant): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>, merchant?: Merchant): Promise<LightMyRequestResponse>;
  /** Documents the simulator received for a branch, in arrival order. */
  received(merchant: Merchant, branch?: string): ReturnType<Simulator['control']['documents']>;
  close(): Promise<void>;
}

export async function startSalesHarness(
  options: { config?: Partial<Config>; branches?: string[]; workers?: boolean } = {},
): Promise<SalesHarness> {
  const sim = await startSimulator({ port: 0 });
  const t = await startTestApp({
    // A generous VSDC timeout: under load a spurious timeout would (correctly) resend a document,
    // which tests of exact arrival order must not see. Tests of timeouts lower it.
    config: { saleWaitMs: 3_000, filingRetryMs: 50, vsdcTimeoutMs: 10_000, ...options.config },
  });
  let workers: ReturnType<typeof startWorkers> | undefined;

  const harness: SalesHarness = {
    t,
    ctx: t.ctx,
    sim,
    merchant: undefined as unknown as Merchant,
    startWorkers() {
      workers ??= startWorkers(t.ctx, moduleWorkers);
    },
    async stopWorkers() {
      await workers?.stop();
      workers = undefined;
    },
    async addMerchant() {
      const partner = await seedPartner(t.ctx);
      const seeded = await seedMerchant(t.ctx, partner);
      // Tests post hundreds of documents a minute; the plan's rate limit is not what they test.
      await updateTenantAccount(t.ctx.db, { type: 'cli' }, seeded.tenant.id, { rateLimitPerMinute: 1_000_000 });
      return { tenantId: seeded.tenant.id, tpin: seeded.tenant.tpin, token: seeded.token, partnerSecret: partner.secret, partnerId: partner.partnerId };
    },
    async registerBranch(merchant, branch, { initialize = true } = {}) {
      const auth = bearer(merchant.partnerSecret);
      const registered = await t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${merchant.tenantId}/devices`,
        headers: auth,
        payload: { deviceSerial: `SN-${merchant.tpin}-${branch}`, branch, vsdcBaseUrl: sim.url },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      if (!initialize) return;
      const initialized = await t.inject({ method: 'POST', url: `/api/v1/tenants/${merchant.tenantId}/devices/${branch}/initialize`, headers: auth });
      assert.equal(initialized.statusCode, 200, initialized.body);
    },
    post(url, body, headers = {}, merchant = harness.merchant) {
      return t.inject({ method: 'POST', url, payload: body as object, headers: { ...bearer(merchant.token), ...headers } });
    },
    get(url, headers = {}, merchant = harness.merchant) {
      return t.inject({ method: 'GET', url, headers: { ...bearer(merchant.token), ...headers } });
    },
    received(merchant, branch = '000') {
      return sim.control.documents(merchant.tpin, branch);
    },
    async close() {
      await workers?.stop();
      await t.close();
      await sim.close();
    },
  };
  harness.merchant = await harness.addMerchant();
  for (const branch of options.branches ?? ['000']) await harness.registerBranch(harness.merchant, branch);
  // As a running gateway would have: the authority's catalogue, fetched through a VSDC.
  await eventually(async () => {
    await syncCatalogue(t.ctx);
    const row = await t.ctx.db.selectFrom('item_classes').select('code').limit(1).executeTakeFirst();
    return row ? true : undefined;
  }, 'the classification catalogue');
  if (options.workers !== false) harness.startWorkers();
  return harness;
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Invoice numbers in arrival order must never go back (a retry may repeat the last one). */
export function assertArrivalOrder(numbers: number[]): void {
  for (let i = 1; i < numbers.length; i++) {
    assert.ok(numbers[i]! >= numbers[i - 1]!, `invoice ${numbers[i]} arrived after ${numbers[i - 1]} (arrival order ${numbers.join(',')})`);
  }
}
