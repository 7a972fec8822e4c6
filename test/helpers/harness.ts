// What the module tests start from: a gateway on the test database, the real VSDC simulator over
// a socket, a merchant whose branches were registered and initialised through the partner API,
// the authority's catalogue fetched through a VSDC, and (unless told otherwise) every module's
// workers running in this process.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import type { Config } from '../../src/platform/config.ts';
import type { AppContext, Clock } from '../../src/domain/kernel/context.ts';
import { syncCatalogue } from '../../src/domain/kernel/catalogue/service.ts';
import { moduleWorkers } from '../../src/app/modules.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { startWorkers, type WorkerFactory } from '../../src/platform/workers/index.ts';
import { bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from './app.ts';
import { eventually } from './poll.ts';

/** A code the simulator's catalogue always holds. */
export const CLASS_CODE = '50221200';

export interface SaleLine {
  name?: string;
  classificationCode?: string;
  quantity?: number;
  price?: number;
  vatCategory?: string;
  discount?: number;
  rrp?: number;
  levy?: string;
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

/** Requests with one merchant's tenant token. */
export interface Client {
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  patch(url: string, body: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface Harness {
  t: TestApp;
  ctx: AppContext;
  sim: Simulator;
  merchant: Merchant;
  /** Starts workers in this process (every module's unless `factories` are given); once until stopped. */
  startWorkers(factories?: Array<WorkerFactory<AppContext>>): void;
  stopWorkers(): Promise<void>;
  /** A new merchant (unlimited rate) with `branches` (default none) registered on `vsdcBaseUrl` (default: the simulator). */
  addMerchant(options?: { branches?: string[]; initialize?: boolean; vsdcBaseUrl?: string }): Promise<Merchant>;
  registerBranch(merchant: Merchant, branch: string, options?: { initialize?: boolean; vsdcBaseUrl?: string }): Promise<void>;
  as(merchant: Merchant): Client;
  /** `as(merchant)` for the harness's merchant unless another is given. */
  post(url: string, body: unknown, headers?: Record<string, string>, merchant?: Merchant): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>, merchant?: Merchant): Promise<LightMyRequestResponse>;
  /** Documents the simulator received for a branch, in arrival order. */
  received(merchant: Merchant, branch?: string): ReturnType<Simulator['control']['documents']>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Partial<Config>;
  /** Branches of the harness's merchant (default `['000']`). */
  branches?: string[];
  /** Start every module's workers at once (default true). */
  workers?: boolean;
  /** Fetch the classification catalogue before the test, as a running gateway would have (default true). */
  catalogue?: boolean;
  /** The app's clock (default the system's). */
  clock?: Clock;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ port: 0 });
  const t = await startTestApp({
    // A generous VSDC timeout: under load a spurious timeout would (correctly) resend a document,
    // which tests of exact arrival order must not see. Tests of timeouts lower it.
    config: { saleWaitMs: 3_000, filingRetryMs: 50, vsdcTimeoutMs: 10_000, ...options.config },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let workers: ReturnType<typeof startWorkers> | undefined;

  const harness: Harness = {
    t,
    ctx: t.ctx,
    sim,
    merchant: undefined as unknown as Merchant,
    startWorkers(factories = moduleWorkers) {
      workers ??= startWorkers(t.ctx, factories);
    },
    async stopWorkers() {
      await workers?.stop();
      workers = undefined;
    },
    async addMerchant({ branches = [], initialize = true, vsdcBaseUrl } = {}) {
      const partner = await seedPartner(t.ctx);
      const seeded = await seedMerchant(t.ctx, partner);
      // Tests post hundreds of documents a minute; the plan's rate limit is not what they test.
      await updateTenantAccount(t.ctx.db, { type: 'cli' }, seeded.tenant.id, { rateLimitPerMinute: 1_000_000 });
      const merchant = {
        tenantId: seeded.tenant.id,
        tpin: seeded.tenant.tpin,
        token: seeded.token,
        partnerSecret: partner.secret,
        partnerId: partner.partnerId,
      };
      for (const branch of branches)
        await harness.registerBranch(merchant, branch, { initialize, ...(vsdcBaseUrl ? { vsdcBaseUrl } : {}) });
      return merchant;
    },
    async registerBranch(merchant, branch, { initialize = true, vsdcBaseUrl = sim.url } = {}) {
      const auth = bearer(merchant.partnerSecret);
      const registered = await t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${merchant.tenantId}/devices`,
        headers: auth,
        payload: { deviceSerial: `SN-${merchant.tpin}-${branch}`, branch, vsdcBaseUrl },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      if (!initialize) return;
      const initialized = await t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${merchant.tenantId}/devices/${branch}/initialize`,
        headers: auth,
      });
      assert.equal(initialized.statusCode, 200, initialized.body);
    },
    as(merchant) {
      const auth = bearer(merchant.token);
      return {
        get: (url, headers = {}) => t.inject({ method: 'GET', url, headers: { ...auth, ...headers } }),
        post: (url, body, headers = {}) =>
          t.inject({ method: 'POST', url, headers: { ...auth, ...headers }, ...(body === undefined ? {} : { payload: body as object }) }),
        patch: (url, body, headers = {}) => t.inject({ method: 'PATCH', url, headers: { ...auth, ...headers }, payload: body as object }),
      };
    },
    post(url, body, headers = {}, merchant = harness.merchant) {
      return harness.as(merchant).post(url, body, headers);
    },
    get(url, headers = {}, merchant = harness.merchant) {
      return harness.as(merchant).get(url, headers);
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
  harness.merchant = await harness.addMerchant({ branches: options.branches ?? ['000'] });
  if (options.catalogue !== false) {
    await eventually(async () => {
      await syncCatalogue(t.ctx);
      return Boolean(await t.ctx.db.selectFrom('item_classes').select('code').limit(1).executeTakeFirst());
    }, 'the classification catalogue');
  }
  if (options.workers !== false) harness.startWorkers();
  return harness;
}

/** Invoice numbers in arrival order must never go back (a retry may repeat the last one). */
export function assertArrivalOrder(numbers: number[]): void {
  for (let i = 1; i < numbers.length; i++) {
    assert.ok(numbers[i]! >= numbers[i - 1]!, `invoice ${numbers[i]} arrived after ${numbers[i - 1]} (arrival order ${numbers.join(',')})`);
  }
}

/** Asserts the status and returns the parsed body. */
export function expectStatus(res: LightMyRequestResponse, status: number) {
  assert.equal(res.statusCode, status, res.body);
  return res.json();
}

/** Asserts a coded error `{error: {code, message}}`. */
export function expectCoded(res: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.error?.code, code, res.body);
  assert.equal(typeof body.error.message, 'string');
}

/** Asserts the validation shape `{message, errors: {field: [..]}}` naming `field`. */
export function expectInvalid(res: LightMyRequestResponse, field: string): void {
  assert.equal(res.statusCode, 422, res.body);
  const body = res.json();
  assert.equal(typeof body.message, 'string');
  assert.ok(Array.isArray(body.errors?.[field]) && body.errors[field].length > 0, `errors.${field} in ${res.body}`);
}
