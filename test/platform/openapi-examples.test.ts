// test-database: embedded only (scripts/run-tests.mjs): the examples' routes run on both engines in their own tests.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { provisionDemo, type DemoCredentials } from '../../src/app/dev/demo.ts';
import { syncCatalogue } from '../../src/domain/kernel/catalogue/service.ts';
import { filingWorker } from '../../src/domain/fiscal/filing/worker.ts';
import { pullDueBranches } from '../../src/domain/feeds/imports/service.ts';
import { pullDuePurchaseBranches } from '../../src/domain/feeds/purchases/service.ts';
import { runToCompletion } from '../../src/domain/fiscal/reconciliation/service.ts';
import { startWorkers } from '../../src/platform/workers/index.ts';
import { TEST_ADMIN_TOKEN, bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { engineName } from '../helpers/db.ts';
import { fillPath, operationsOf, requestExample, servedDocument, type DocumentedOperation } from '../helpers/openapi.ts';
import { eventually } from '../helpers/poll.ts';

// The reference page's "Try it out" sends an operation's examples as they are. Against the
// development start (`npm start`: a demo partner, its merchant with branch 000 initialised on the
// built-in simulator, a tenant token), each request example must succeed. This test starts from
// the same provisioning (provisionDemo, on an empty database) and sends every request example,
// with its path and header parameter examples and the credential its security requirement names.

interface Step {
  operationId: string;
  /** Path parameters that have no example, and why none can be given. */
  path?: () => Record<string, string | number>;
  /** What the operation needs that no example can give. */
  prepare?: () => Promise<void>;
  /** The body to send instead of the example, from it: a one-time link's token cannot be an example. */
  body?: (example: Record<string, unknown>) => Record<string, unknown>;
  /** What a later step takes from the answer. */
  then?: (res: LightMyRequestResponse) => Promise<void> | void;
}

describe(`every request example succeeds against the demo provisioning (${engineName})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-openapi-examples-'));
  let sim: Simulator;
  let t: TestApp;
  let workers: ReturnType<typeof startWorkers>;
  let demo: DemoCredentials;
  let ops: DocumentedOperation[];
  const state: {
    session?: Record<string, string>;
    apiKey?: string;
    sdcId?: string;
    importItems?: number[];
    purchases?: number[];
    failedSales?: number[];
  } = {};

  before(async () => {
    sim = await startSimulator({ port: 0 });
    // dataDir: provisionDemo keeps the demo credentials beside it, as the development start does.
    t = await startTestApp({ config: { dataDir: join(dataDir, 'data'), saleWaitMs: 3_000, filingRetryMs: 50, vsdcTimeoutMs: 10_000 } });
    demo = await provisionDemo(t.ctx, sim.url, join(dataDir, 'demo.json'));
    // The examples' path parameters name the demo merchant as a fresh development start numbers it.
    assert.deepEqual({ partnerId: demo.partnerId, tenantId: demo.tenantId }, { partnerId: 1, tenantId: 1 });
    await eventually(
      async () =>
        (await syncCatalogue(t.ctx)) && Boolean(await t.ctx.db.selectFrom('item_classes').select('code').limit(1).executeTakeFirst()),
      'the catalogue',
    );
    // Sales must reach the authority (a note needs the sale's receipt); nothing else runs, so no
    // webhook is sent to the example's receiver.
    workers = startWorkers(t.ctx, [filingWorker]);
    ops = operationsOf(await servedDocument(t.app), t.app);
  });
  after(async () => {
    await workers?.stop();
    await t?.close();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const tenantToken = () => bearer(demo.tenantToken);
  /** A sale the authority refused: what reissue and resolve act on. */
  const failedSale = async (): Promise<number> => {
    sim.control.setFaults(demo.tpin, demo.branch, { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/sales',
      headers: tenantToken(),
      payload: { items: [{ name: 'Refused', classificationCode: '50221200', quantity: 1, price: 10 }] },
    });
    const id = created.json().data.id as number;
    await eventually(
      async () => (await t.inject({ method: 'GET', url: `/api/v1/sales/${id}`, headers: tenantToken() })).json().data.status === 'failed',
      'the sale refused',
    );
    return id;
  };
  const outboxToken = (kind: string) =>
    t.ctx.mailer
      .outboxMails()
      .find((m) => m.kind === kind)!
      .link!.split('#token=')[1]!;
  const finishReconciliation = async (res: LightMyRequestResponse) => {
    const run = await runToCompletion(
      t.ctx,
      res.json().data.id as number,
      'openapi-examples',
      new AbortController().signal,
      () => undefined,
    );
    assert.equal(run.status, 'completed', JSON.stringify(run));
  };

  /** In the order a developer would try them: each step may use what an earlier one created. */
  const steps: Step[] = [
    { operationId: 'createTenant' },
    { operationId: 'updateTenant' },
    { operationId: 'registerDevice' },
    // The demo's branch 000 is initialised (no longer correctable): the one just registered is not.
    { operationId: 'updateDevice', path: () => ({ tenant: demo.tenantId, branch: '001' }) },
    {
      operationId: 'handOverDevice',
      // A unit initialised elsewhere: registered here (on the test's simulator), not initialised.
      prepare: async () => {
        const res = await t.inject({
          method: 'POST',
          url: `/api/v1/tenants/${demo.tenantId}/devices`,
          headers: bearer(demo.partnerKey),
          payload: { deviceSerial: 'HANDED-OVER-0003', branch: '002', vsdcBaseUrl: sim.url },
        });
        assert.equal(res.statusCode, 201, res.body);
      },
      path: () => ({ tenant: demo.tenantId, branch: '002' }),
    },
    { operationId: 'createTenantToken' },
    {
      operationId: 'createFiscalisationKey',
      then: (res) => {
        state.apiKey = res.json().data.key;
      },
    },
    { operationId: 'createPartnerKey' },
    { operationId: 'createWebhookEndpoint' },
    {
      operationId: 'createSale',
      then: async (res) => {
        const id = res.json().data.id as number;
        await eventually(
          async () =>
            (await t.inject({ method: 'GET', url: `/api/v1/sales/${id}`, headers: tenantToken() })).json().data.status === 'uploaded',
          'the sale uploaded',
        );
      },
    },
    { operationId: 'createCreditNote' },
    { operationId: 'createDebitNote' },
    {
      operationId: 'reissueSale',
      prepare: async () => {
        state.failedSales = [await failedSale(), await failedSale(), await failedSale(), await failedSale()];
      },
      path: () => ({ sale: state.failedSales![0]! }),
    },
    { operationId: 'resolveSale', path: () => ({ sale: state.failedSales![1]! }) },
    { operationId: 'reissueTenantSale', path: () => ({ tenant: demo.tenantId, sale: state.failedSales![2]! }) },
    { operationId: 'resolveTenantSale', path: () => ({ tenant: demo.tenantId, sale: state.failedSales![3]! }) },
    { operationId: 'createCustomer' },
    {
      operationId: 'createItem',
      then: (res) => assert.equal(res.json().data.itemCode, 'ZM2NTU0000001', 'the code the import approval example names'),
    },
    { operationId: 'updateItem' },
    {
      operationId: 'setItemComposition',
      // The example's component: the merchant's second item (its generated code ZM2NTU0000002).
      prepare: async () => {
        const created = await t.inject({
          method: 'POST',
          url: '/api/v1/items',
          headers: tenantToken(),
          payload: { name: 'Maize bran 50kg', itemClsCd: '50221200' },
        });
        assert.equal(created.json().data.itemCode, 'ZM2NTU0000002', created.body);
      },
      then: (res) => assert.equal(res.json().data.composition[0].state, 'registered', res.body),
    },
    { operationId: 'createStockAdjustment' },
    { operationId: 'updateStockSettings' },
    {
      operationId: 'approveImportItem',
      // No endpoint creates import items: the authority sends them (here through the simulator's
      // control API) and the gateway pulls them; their ids come from the list.
      prepare: async () => {
        sim.control.feedImports(demo.tpin, demo.branch, [
          { itemNm: 'Maize meal 25kg', qty: 40 },
          { itemNm: 'Cooking oil 20L', qty: 12 },
        ]);
        await pullDueBranches(t.ctx, 3_600_000);
        const list = await t.inject({ method: 'GET', url: '/api/v1/import-items', headers: tenantToken() });
        state.importItems = (list.json().data as Array<{ id: number }>).map((line) => line.id).sort((a, b) => a - b);
        assert.equal(state.importItems.length, 2, list.body);
      },
      path: () => ({ importItem: state.importItems![0]! }),
    },
    { operationId: 'rejectImportItem', path: () => ({ importItem: state.importItems![1]! }) },
    {
      operationId: 'acceptPurchase',
      // As import items: the authority sends purchases (here seeded through the simulator) and
      // the gateway pulls them; their ids come from the list.
      prepare: async () => {
        sim.control.feedPurchases(demo.tpin, demo.branch, [{ spplrInvcNo: 301 }, { spplrInvcNo: 302 }]);
        await pullDuePurchaseBranches(t.ctx, 3_600_000);
        const list = await t.inject({ method: 'GET', url: '/api/v1/purchases', headers: tenantToken() });
        state.purchases = (list.json().data as Array<{ id: number }>).map((p) => p.id).sort((a, b) => a - b);
        assert.equal(state.purchases.length, 2, list.body);
      },
      path: () => ({ purchase: state.purchases![0]! }),
    },
    { operationId: 'rejectPurchase', path: () => ({ purchase: state.purchases![1]! }) },
    // A purchase captured by hand: its example names the item the createItem example made.
    { operationId: 'capturePurchase', then: (res) => assert.equal(res.json().data.filing.state, 'accepted', res.body) },
    { operationId: 'closeDay' },
    { operationId: 'closeTenantDay', path: () => ({ tenant: demo.tenantId }) },
    // One open reconciliation per branch: each run is finished before the next example starts one.
    { operationId: 'createReconciliation', then: finishReconciliation },
    { operationId: 'createTenantReconciliation', path: () => ({ tenant: demo.tenantId }), then: finishReconciliation },
    { operationId: 'adminCreateReconciliation', path: () => ({ tenant: demo.tenantId }), then: finishReconciliation },
    { operationId: 'createTillLogin' },
    { operationId: 'legacyGetActiveKey' },
    {
      operationId: 'legacyCreateInvoice',
      // The fiscalisation key and SDC id are credentials, not examples: the key the
      // createFiscalisationKey example minted, and the demo branch's SDC id (GET /api/v1/me).
      prepare: async () => {
        const me = await t.inject({ method: 'GET', url: '/api/v1/me', headers: tenantToken() });
        state.sdcId = (me.json().data.devices as Array<{ branch: string; sdcId: string }>).find((d) => d.branch === demo.branch)!.sdcId;
      },
    },
    { operationId: 'adminCreatePartner' },
    // Merchant accounts: the links' tokens come from the development outbox, as a reader reads them.
    { operationId: 'signUp' },
    { operationId: 'resendVerification' },
    { operationId: 'verifyEmail', body: (example) => ({ ...example, token: outboxToken('verify_email') }) },
    {
      operationId: 'signIn',
      then: (res) => {
        const cookie = /^fg_session=[^;]+/.exec(String(res.headers['set-cookie']))![0];
        state.session = { cookie, 'x-csrf-token': res.json().data.csrfToken as string };
      },
    },
    // The developer screen, for the merchant just signed up (no branch yet: a key of the merchant).
    { operationId: 'createAccountToken' },
    { operationId: 'createAccountApiKey' },
    // The signed-up merchant's own devices: it has none yet.
    { operationId: 'registerAccountDevice' },
    { operationId: 'updateAccountDevice', path: () => ({ branch: '001' }) },
    { operationId: 'inviteAccountUser' },
    { operationId: 'acceptInvitation', body: (example) => ({ ...example, token: outboxToken('invitation') }) },
    { operationId: 'changePassword' },
    { operationId: 'requestPasswordReset' },
    { operationId: 'confirmPasswordReset', body: (example) => ({ ...example, token: outboxToken('password_reset') }) },
    { operationId: 'inviteTenantOwner' },
    // The id parameter names partner keys, tokens and keys too, where any suggested id could
    // revoke the demo's own credential: it has no example. Here it is the demo merchant.
    { operationId: 'adminUpdateTenant', path: () => ({ id: demo.tenantId }) },
  ];

  function credentialFor(op: DocumentedOperation): Record<string, string> {
    const requirement = op.operation.security?.[0] ?? {};
    if ('tenantToken' in requirement) return tenantToken();
    if ('partnerKey' in requirement) return bearer(demo.partnerKey);
    if ('adminToken' in requirement) return bearer(TEST_ADMIN_TOKEN);
    if ('sessionCookie' in requirement) return state.session!;
    if ('fiscalisationKey' in requirement)
      return { 'x-api-key': state.apiKey!, ...('sdcId' in requirement ? { 'x-sdcid': state.sdcId! } : {}) };
    return {};
  }

  test('every operation with a request body has a step here', () => {
    const withBodies = ops.filter((op) => op.operation.requestBody).map((op) => op.operation.operationId!);
    assert.deepEqual(steps.map((s) => s.operationId).sort(), withBodies.sort());
  });

  test('each example, sent as "Try it out" sends it, is answered 2xx', async () => {
    for (const step of steps) {
      const op = ops.find((o) => o.operation.operationId === step.operationId);
      assert.ok(op, step.operationId);
      await step.prepare?.();
      const headerExamples = Object.fromEntries(
        (op.operation.parameters ?? []).filter((p) => p.in === 'header' && p.example !== undefined).map((p) => [p.name, String(p.example)]),
      );
      const res = await t.inject({
        method: op.method as InjectOptions['method'],
        url: fillPath(op, step.path?.()),
        headers: { ...headerExamples, ...credentialFor(op), 'content-type': 'application/json' },
        payload: JSON.stringify(
          step.body ? step.body(requestExample(op.operation) as Record<string, unknown>) : requestExample(op.operation),
        ),
      });
      assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${step.operationId} (${op.name}) answered ${res.statusCode}: ${res.body}`);
      await step.then?.(res);
    }
  });
});
