// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, afterEach, before, describe, test } from 'node:test';
import { closeContext, createContext, type AppContext } from '../../../src/domain/kernel/context.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { claimDueDeliveries } from '../../../src/domain/partner/webhooks/delivery-queue.ts';
import { createDeliveryWorker } from '../../../src/domain/partner/webhooks/delivery-worker.ts';
import { secretAad } from '../../../src/domain/partner/webhooks/service.ts';
import { WebhookSender } from '../../../src/domain/partner/webhooks/sender.ts';
import type { Worker } from '../../../src/platform/workers/index.ts';
import { ManualClock, TEST_SECRET_KEY, seedMerchant, startTestApp, testConfig, type TestApp } from '../../helpers/app.ts';
import { engineName, onPostgres } from '../../helpers/db.ts';
import { baseEnv, spawnGateway } from '../../helpers/process.ts';
import { FAST_DELIVERY, Receiver, answer, deliveryRows, fireInvoiceEvent, registerEndpoint } from './helpers.ts';
import { eventually } from '../../helpers/poll.ts';

/** Holds every request open until `release()`: a receiver that has stopped answering. */
function holdingReceiver(r: Receiver) {
  const held: ServerResponse[] = [];
  r.behaviour = (_req, res) => held.push(res);
  return {
    held,
    release() {
      r.behaviour = answer(200);
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
  };
}

describe(`webhook delivery under concurrency and crashes (${engineName})`, () => {
  const receivers: Receiver[] = [];
  const workers: Worker[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  const receiver = async () => {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  };
  const startWorker = (ctx: AppContext, options: Parameters<typeof createDeliveryWorker>[1] = {}) => {
    const w = createDeliveryWorker(ctx, { pollIntervalMs: 50, jitter: 0, ...options });
    w.start();
    workers.push(w);
    return w;
  };
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  test("a receiver that stops answering holds at most WEBHOOK_ENDPOINT_CONCURRENCY attempts, and no slot of the process: the partner's other endpoint is never delayed", async () => {
    // Two slots for the process, six attempts per endpoint, a minute's timeout: were a stalled
    // attempt to keep its slot, the healthy endpoint would wait for the stalled ones to time out.
    const t = await startTestApp({ config: { webhookTimeoutMs: 60_000, webhookEndpointConcurrency: 6 } });
    cleanups.push(() => t.close());
    const stalled = await receiver();
    const healthy = await receiver();
    const hold = holdingReceiver(stalled);
    const merchant = await seedMerchant(t.ctx);
    const { endpoint: stalledEndpoint } = await registerEndpoint(t, merchant.partner.secret, { url: stalled.url });
    const { endpoint: healthyEndpoint } = await registerEndpoint(t, merchant.partner.secret, { url: healthy.url });
    startWorker(t.ctx, { maxInFlight: 2 });

    for (let i = 0; i < 40; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, i);
    await eventually(async () => {
      const rows = await deliveryRows(t.ctx, healthyEndpoint.id);
      return rows.length === 40 && rows.every((row) => row.status === 'delivered');
    }, 'every delivery to the healthy endpoint');
    await eventually(() => stalled.requests.length === 6, 'the stalled endpoint to hold its 6 slots');
    assert.equal(stalled.requests.length, 6, 'attempts in flight to the stalled endpoint: WEBHOOK_ENDPOINT_CONCURRENCY, no more');
    assert.ok((await deliveryRows(t.ctx, stalledEndpoint.id)).every((row) => row.status === 'pending'));

    hold.release();
    await eventually(
      async () => (await deliveryRows(t.ctx, stalledEndpoint.id)).every((row) => row.status === 'delivered'),
      'the stalled endpoint to catch up',
    );
  });

  test('two workers (separate connection pools) never send one delivery twice at once, and every request received is a recorded attempt', async () => {
    // A timeout long enough that no attempt is abandoned on a loaded machine: an abandoned attempt
    // may still look open at the receiver when its retry arrives, which is not a delivery sent twice.
    const config = { ...FAST_DELIVERY, webhookTimeoutMs: 15_000 };
    const t = await startTestApp({ config });
    cleanups.push(() => t.close());
    let second: { ctx: AppContext; database: Database } | undefined;
    if (onPostgres) {
      const database = await openDatabase({ databaseUrl: t.testDb.url, migrate: false, poolSize: 5 });
      const ctx = createContext(testConfig(config), database);
      second = { ctx, database };
      cleanups.push(async () => {
        await closeContext(ctx);
        await database.close();
      });
    }

    const r = await receiver();
    // Some first attempts fail, so that retries are in the mix; answers come after a short pause.
    r.behaviour = (req, res) => {
      const fail =
        Number(req.headers['x-webhook-delivery']) % 3 === 0 && r.requestsFor(String(req.headers['x-webhook-delivery'])).length === 1;
      setTimeout(() => res.writeHead(fail ? 500 : 200).end(), Number(req.headers['x-webhook-delivery']) % 7);
    };
    const endpoints: number[] = [];
    const merchant = await seedMerchant(t.ctx);
    for (let i = 0; i < 3; i++) endpoints.push((await registerEndpoint(t, merchant.partner.secret, { url: `${r.url}/${i}` })).endpoint.id);
    startWorker(t.ctx);
    startWorker(second?.ctx ?? t.ctx);

    for (let i = 0; i < 60; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, i);
    const rows = await eventually(async () => {
      const all = (await Promise.all(endpoints.map((id) => deliveryRows(t.ctx, id)))).flat();
      return all.length === 180 && all.every((row) => row.status === 'delivered') && all;
    }, 'all 180 deliveries');
    assert.deepEqual(r.concurrentDuplicates, []);
    // An attempt can fail before reaching the receiver (a reset keep-alive connection), never the reverse.
    for (const row of rows)
      assert.ok(
        r.requestsFor(row.id).length <= row.attempts,
        `delivery ${row.id}: ${r.requestsFor(row.id).length} requests, ${row.attempts} attempts recorded`,
      );
    assert.ok(
      rows.some((row) => row.attempts === 2),
      'retries happened',
    );
  });

  test('a worker that dies after claiming, before or after sending, loses nothing: another worker delivers every delivery once the lease expires', async () => {
    const t = await startTestApp({ config: FAST_DELIVERY });
    cleanups.push(() => t.close());
    const r = await receiver();
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    for (let i = 0; i < 4; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, i);

    // What a crashed worker leaves: live claims nobody will finish; two of them already sent.
    const abandoned = await claimDueDeliveries(t.ctx.db, t.ctx.clock.now(), { batch: 10, perEndpoint: 4, leaseMs: 300 });
    assert.equal(abandoned.length, 4);
    const sender = new WebhookSender({ env: 'development', timeoutMs: 1_000 });
    for (const claim of abandoned.slice(0, 2)) {
      const secret = t.ctx.secretBox.open(claim.secretCiphertext, secretAad(claim.endpointId, claim.partnerId));
      await sender.send(
        { deliveryId: claim.id, eventId: claim.eventId, eventType: claim.eventType, url: claim.url, secret, body: claim.body },
        new Date(),
      );
    }
    await sender.close();

    startWorker(t.ctx);
    const rows = await eventually(async () => {
      const all = await deliveryRows(t.ctx, endpoint.id);
      return all.every((row) => row.status === 'delivered') && all;
    }, 'every delivery after the lease expired');
    for (const row of rows) assert.equal(row.attempts, 1);
    const received = new Map<string, number>();
    for (const q of r.requests) received.set(String(q.headers['x-webhook-id']), (received.get(String(q.headers['x-webhook-id'])) ?? 0) + 1);
    assert.equal(received.size, 4, 'every event arrived');
    assert.deepEqual(
      [...received.values()].sort(),
      [1, 1, 2, 2],
      'the two sent before the crash arrive again: at least once, same X-Webhook-Id',
    );
  });

  test(
    'a gateway process killed mid-delivery (SIGKILL) loses nothing: another worker takes over after its lease',
    { skip: onPostgres ? false : 'needs PostgreSQL: two processes cannot share the embedded database' },
    async () => {
      const clock = new ManualClock();
      const t = await startTestApp({ config: FAST_DELIVERY, clock });
      cleanups.push(() => t.close());
      const r = await receiver();
      const hold = holdingReceiver(r);
      const merchant = await seedMerchant(t.ctx);
      const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
      for (let i = 0; i < 12; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, i);

      const gateway = await spawnGateway(
        baseEnv({
          DATABASE_URL: t.testDb.url,
          SECRET_KEY: TEST_SECRET_KEY,
          GATEWAY_ENV: 'development',
          WEBHOOK_TIMEOUT_MS: '5000',
          WEBHOOK_ENDPOINT_CONCURRENCY: '4',
        }),
        ['--workers-only'],
      );
      cleanups.push(() => gateway.kill());
      await eventually(() => hold.held.length >= 4, 'the other process to have deliveries in flight');
      await gateway.kill('SIGKILL');
      hold.release();
      const leased = (await deliveryRows(t.ctx, endpoint.id)).filter((row) => row.lease_token !== null);
      assert.equal(leased.length, 4, 'the dead process still holds its claims: WEBHOOK_ENDPOINT_CONCURRENCY of them');

      clock.advance(60_000); // past the dead process's leases (timeout + 30 s)
      startWorker(t.ctx);
      await eventually(async () => (await deliveryRows(t.ctx, endpoint.id)).every((row) => row.status === 'delivered'), 'every delivery');
      const ids = new Set(r.requests.map((q) => q.headers['x-webhook-id']));
      assert.equal(ids.size, 12);
    },
  );
});

describe(`delivery claims (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: FAST_DELIVERY });
  });
  after(() => t.close());

  test('a delivery claimed by one worker is not claimable by another until its lease ends', async () => {
    const merchant = await seedMerchant(t.ctx);
    await registerEndpoint(t, merchant.partner.secret, { url: 'http://127.0.0.1:9/never' });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 1);
    const now = t.ctx.clock.now();
    const first = await claimDueDeliveries(t.ctx.db, now, { batch: 10, perEndpoint: 4, leaseMs: 60_000 });
    assert.equal(first.length, 1);
    assert.deepEqual(await claimDueDeliveries(t.ctx.db, now, { batch: 10, perEndpoint: 4, leaseMs: 60_000 }), []);
    const later = await claimDueDeliveries(t.ctx.db, new Date(now.getTime() + 61_000), { batch: 10, perEndpoint: 4, leaseMs: 60_000 });
    assert.deepEqual(
      later.map((c) => c.id),
      first.map((c) => c.id),
    );
    assert.notEqual(later[0]!.leaseToken, first[0]!.leaseToken);
  });
});
