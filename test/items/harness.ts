// What the customers, items, imports and catalogue tests start from: a gateway on the test
// database, the real VSDC simulator over a socket, merchants whose branch 000 was registered and
// initialised through the partner API, and (when asked) this issue's workers with short waits.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config.ts';
import { customerRetryWorker } from '../../src/modules/customers/worker.ts';
import { importFilingWorker, importPullWorker } from '../../src/modules/imports/worker.ts';
import { itemRetryWorker } from '../../src/modules/items/worker.ts';
import { updateTenantAccount } from '../../src/modules/provisioning/partners.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { startWorkers } from '../../src/workers/index.ts';
import { bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from '../helpers/app.ts';

/** A classification the simulator's catalogue always holds. */
export const CLASS_CODE = '50221200';

export interface Merchant {
  tenantId: number;
  tpin: string;
  token: string;
  partnerSecret: string;
}

export interface Client {
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  patch(url: string, body: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface Harness {
  t: TestApp;
  sim: Simulator;
  merchant: Merchant;
  /** A new merchant; its branch 000 is registered on `vsdcBaseUrl` (default: the simulator) and initialised. */
  addMerchant(options?: { vsdcBaseUrl?: string; branches?: string[]; initialize?: boolean }): Promise<Merchant>;
  as(merchant: Merchant): Client;
  /** Starts the retry workers (and, with `pullIntervalMs`, the customs pull) in this process. */
  startWorkers(options?: { pullIntervalMs?: number }): void;
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(options: { config?: Partial<Config> } = {}): Promise<Harness> {
  const sim = await startSimulator({ port: 0 });
  const t = await startTestApp({ config: { vsdcTimeoutMs: 2_000, filingRetryMs: 50, ...options.config } });
  let workers: ReturnType<typeof startWorkers> | undefined;

  const harness: Harness = {
    t,
    sim,
    merchant: undefined as unknown as Merchant,
    async addMerchant({ vsdcBaseUrl = sim.url, branches = ['000'], initialize = true } = {}) {
      const partner = await seedPartner(t.ctx);
      const seeded = await seedMerchant(t.ctx, partner);
      await updateTenantAccount(t.ctx.db, { type: 'cli' }, seeded.tenant.id, { rateLimitPerMinute: 1_000_000 });
      for (const branch of branches) {
        const auth = bearer(partner.secret);
        const device = await t.inject({
          method: 'POST',
          url: `/api/v1/tenants/${seeded.tenant.id}/devices`,
          headers: auth,
          payload: { deviceSerial: `SN-${seeded.tenant.tpin}-${branch}`, branch, vsdcBaseUrl },
        });
        assert.equal(device.statusCode, 201, device.body);
        if (!initialize) continue;
        const init = await t.inject({ method: 'POST', url: `/api/v1/tenants/${seeded.tenant.id}/devices/${branch}/initialize`, headers: auth });
        assert.equal(init.statusCode, 200, init.body);
      }
      return { tenantId: seeded.tenant.id, tpin: seeded.tenant.tpin, token: seeded.token, partnerSecret: partner.secret };
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
    startWorkers({ pullIntervalMs } = {}) {
      if (workers) return;
      const factories = [
        (ctx: typeof t.ctx) => customerRetryWorker(ctx, { pollMs: 50 }),
        (ctx: typeof t.ctx) => itemRetryWorker(ctx, { pollMs: 50 }),
        (ctx: typeof t.ctx) => importFilingWorker(ctx, { pollMs: 50 }),
        ...(pullIntervalMs === undefined ? [] : [(ctx: typeof t.ctx) => importPullWorker(ctx, { intervalMs: pullIntervalMs })]),
      ];
      workers = startWorkers(t.ctx, factories);
    },
    async stopWorkers() {
      await workers?.stop();
      workers = undefined;
    },
    async close() {
      await workers?.stop();
      await t.close();
      await sim.close();
    },
  };
  harness.merchant = await harness.addMerchant();
  return harness;
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

/** Polls until `check` returns a value (not undefined); fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
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
