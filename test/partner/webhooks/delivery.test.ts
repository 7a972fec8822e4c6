import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LookupAddress } from 'node:dns';
import { createDeliveryWorker } from '../../../src/domain/partner/webhooks/delivery-worker.ts';
import { verifyWebhook } from '../../../packages/client/src/webhooks.ts';
import type { Worker } from '../../../src/platform/workers/index.ts';
import { bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { FAST_DELIVERY, Receiver, answer, deliveryRows, fireInvoiceEvent, neverAnswer, registerEndpoint } from './helpers.ts';
import { eventually } from '../../helpers/poll.ts';

// Names the injected resolver answers for, as a DNS server would.
const DNS: Record<string, string[] | { code: string }> = {
  'receiver.localhost': ['127.0.0.1'],
  'private.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
  'gone.example.com': { code: 'ENOTFOUND' },
  'flaky.example.com': { code: 'EAI_AGAIN' },
};
async function testResolver(hostname: string): Promise<LookupAddress[]> {
  const answer = DNS[hostname];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  if (!Array.isArray(answer)) throw Object.assign(new Error(`getaddrinfo ${answer.code} ${hostname}`), { code: answer.code });
  return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

describe(`webhook delivery (${engineName})`, () => {
  let t: TestApp;
  let worker: Worker;
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  };

  before(async () => {
    t = await startTestApp({ config: FAST_DELIVERY });
    worker = createDeliveryWorker(t.ctx, { pollIntervalMs: 50, jitter: 0, resolver: testResolver });
    worker.start();
  });
  after(async () => {
    await worker.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await t.close();
  });

  async function deliveryLog(secret: string, endpointId: number) {
    const res = await t.inject({ method: 'GET', url: `/api/v1/webhooks/${endpointId}/deliveries`, headers: bearer(secret) });
    assert.equal(res.statusCode, 200);
    return res.json() as {
      data: Array<Record<string, unknown> & { id: number; status: string; attempts: number }>;
      meta: { total: number };
    };
  }

  test('an event reaches the endpoint signed, with the documented headers and envelope, and is logged as delivered', async () => {
    const r = await receiver();
    const merchant = await seedMerchant(t.ctx);
    const { secret, endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: `${r.url}/hooks` });
    const { eventId } = await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 41);

    const [req] = await eventually(() => r.requests.length > 0 && r.requests, 'the delivery');
    assert.ok(req);
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/hooks');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.match(String(req.headers['user-agent']), /fiscal-gateway/);
    assert.equal(req.headers['x-webhook-event'], 'invoice.fiscalised');
    assert.equal(req.headers['x-webhook-id'], eventId);
    assert.deepEqual(verifyWebhook({ payload: req.body, header: req.headers['x-service-signature'], secret }).ok, true);
    assert.equal(verifyWebhook({ payload: req.body, header: req.headers['x-service-signature'], secret: 'whsec_wrong' }).ok, false);

    const envelope = JSON.parse(req.body);
    assert.deepEqual(Object.keys(envelope), ['id', 'event', 'created', 'data']);
    assert.equal(envelope.id, eventId);
    assert.equal(envelope.event, 'invoice.fiscalised');
    assert.ok(!Number.isNaN(Date.parse(envelope.created)));
    assert.equal(envelope.data.invoice.id, 41);

    const log = await eventually(async () => {
      const l = await deliveryLog(merchant.partner.secret, endpoint.id);
      return l.data[0]?.status === 'delivered' && l;
    }, 'the log to say delivered');
    const row = log.data[0]!;
    assert.equal(String(row.id), req.headers['x-webhook-delivery']);
    assert.equal(row.attempts, 1);
    assert.equal(row.responseStatus, 200);
    assert.equal(row.error, null);
    assert.equal(row.nextRetryAt, null);
    assert.equal(row.eventId, eventId);
    assert.equal(row.eventType, 'invoice.fiscalised');
  });

  test('one endpoint receives the events of every merchant of its partner, and only the kinds it subscribed to', async () => {
    const partner = await seedPartner(t.ctx);
    const first = await seedMerchant(t.ctx, partner);
    const second = await seedMerchant(t.ctx, partner);
    const stranger = await seedMerchant(t.ctx);
    const all = await receiver();
    const failedOnly = await receiver();
    await registerEndpoint(t, partner.secret, { url: all.url });
    await registerEndpoint(t, partner.secret, { url: failedOnly.url, events: ['invoice.failed'] });

    await fireInvoiceEvent(t.ctx, partner.partnerId, first.tenant.id, 1);
    await fireInvoiceEvent(t.ctx, partner.partnerId, second.tenant.id, 2, 'invoice.failed');
    await fireInvoiceEvent(t.ctx, stranger.partner.partnerId, stranger.tenant.id, 3);
    const ownTenant = await fireInvoiceEvent(t.ctx, null, stranger.tenant.id, 4);
    assert.equal(ownTenant.deliveries, 0);

    await eventually(() => all.requests.length === 2, 'both events at the all-events endpoint');
    await eventually(() => failedOnly.requests.length === 1, 'the failed event at the failed-only endpoint');
    assert.deepEqual(all.requests.map((q) => JSON.parse(q.body).data.invoice.id).sort(), [1, 2]);
    assert.equal(JSON.parse(failedOnly.requests[0]!.body).event, 'invoice.failed');
    assert.ok(
      await t.ctx.db.selectFrom('webhook_events').select('id').where('id', '=', ownTenant.eventId).executeTakeFirst(),
      'the partnerless event is stored',
    );
  });

  test('a failing receiver gets the whole schedule, 6 attempts of identical bytes with fresh signatures, then the delivery is failed', async () => {
    const r = await receiver();
    r.behaviour = answer(500);
    const merchant = await seedMerchant(t.ctx);
    const { secret, endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 7);

    const log = await eventually(async () => {
      const l = await deliveryLog(merchant.partner.secret, endpoint.id);
      return l.data[0]?.status === 'failed' && l;
    }, 'the delivery to fail');
    const row = log.data[0]!;
    assert.equal(row.attempts, 6);
    assert.equal(row.responseStatus, 500);
    assert.match(String(row.error), /500/);
    assert.equal(row.nextRetryAt, null);
    const attempts = r.requestsFor(row.id);
    assert.equal(attempts.length, 6);
    assert.equal(new Set(attempts.map((a) => a.body)).size, 1, 'every attempt sends the same bytes');
    assert.equal(new Set(attempts.map((a) => a.headers['x-webhook-id'])).size, 1);
    for (const a of attempts) assert.equal(verifyWebhook({ payload: a.body, header: a.headers['x-service-signature'], secret }).ok, true);
    const ep = (await t.inject({ method: 'GET', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(merchant.partner.secret) })).json()
      .data;
    assert.ok(ep.lastFailureAt);
    assert.equal(ep.status, 'enabled');
  });

  test('a redirect is a failure and is never followed', async () => {
    const target = await receiver();
    const r = await receiver();
    r.behaviour = answer(302, { location: `${target.url}/internal` });
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 8);

    const log = await eventually(async () => {
      const l = await deliveryLog(merchant.partner.secret, endpoint.id);
      return l.data[0]?.status === 'failed' && l;
    }, 'the delivery to fail');
    assert.equal(log.data[0]!.responseStatus, 302);
    assert.match(String(log.data[0]!.error), /redirect/);
    assert.equal(r.requests.length, 6);
    assert.equal(target.requests.length, 0);
  });

  test('resend restarts a delivery: attempts reset, same event and bytes, delivered once the receiver recovers', async () => {
    const r = await receiver();
    r.behaviour = answer(503);
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 10);
    const failed = await eventually(async () => {
      const l = await deliveryLog(merchant.partner.secret, endpoint.id);
      return l.data[0]?.status === 'failed' && l.data[0];
    }, 'the delivery to fail');

    r.behaviour = answer(204);
    const resent = await t.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${failed.id}/resend`,
      headers: bearer(merchant.partner.secret),
    });
    assert.equal(resent.statusCode, 202);
    assert.equal(resent.json().data.status, 'pending');
    assert.equal(resent.json().data.attempts, 0);

    const delivered = await eventually(async () => {
      const l = await deliveryLog(merchant.partner.secret, endpoint.id);
      return l.data[0]?.status === 'delivered' && l.data[0];
    }, 'the redelivery');
    assert.equal(delivered.id, failed.id);
    assert.equal(delivered.attempts, 1);
    assert.equal(delivered.responseStatus, 204);
    assert.equal(delivered.error, null);
    const sent = r.requestsFor(failed.id);
    assert.equal(sent.length, 7);
    assert.equal(new Set(sent.map((s) => s.body)).size, 1);

    const again = await t.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${failed.id}/resend`,
      headers: bearer(merchant.partner.secret),
    });
    assert.equal(again.statusCode, 202, 'a delivered delivery can be resent too');
    await eventually(() => r.requestsFor(failed.id).length === 8, 'the second redelivery');
  });

  test('10 consecutive failed deliveries disable the endpoint; events meanwhile are not queued; enable restores it with the same secret', async () => {
    const r = await receiver();
    r.behaviour = answer(500);
    const merchant = await seedMerchant(t.ctx);
    const partnerKey = merchant.partner.secret;
    const { secret, endpoint } = await registerEndpoint(t, partnerKey, { url: r.url });
    for (let i = 0; i < 10; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 100 + i);

    const disabled = await eventually(async () => {
      const ep = (await t.inject({ method: 'GET', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(partnerKey) })).json().data;
      return ep.status === 'disabled' && ep;
    }, 'the endpoint to be disabled');
    assert.ok(disabled.disabledAt);
    const rows = await deliveryRows(t.ctx, endpoint.id);
    assert.deepEqual(
      rows.map((row) => row.status),
      Array(10).fill('failed'),
    );

    const whileDisabled = await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 200);
    assert.equal(whileDisabled.deliveries, 0);
    assert.equal((await deliveryLog(partnerKey, endpoint.id)).meta.total, 10);
    const resend = await t.inject({
      method: 'POST',
      url: `/api/v1/webhooks/deliveries/${rows[0]!.id}/resend`,
      headers: bearer(partnerKey),
    });
    assert.equal(resend.statusCode, 409);
    assert.equal(resend.json().error.code, 'endpoint_disabled');

    r.behaviour = answer(200);
    const enabled = await t.inject({ method: 'POST', url: `/api/v1/webhooks/${endpoint.id}/enable`, headers: bearer(partnerKey) });
    assert.equal(enabled.statusCode, 200);
    assert.equal(enabled.json().data.status, 'enabled');
    assert.equal(enabled.json().data.disabledAt, null);
    const row = await t.ctx.db
      .selectFrom('webhook_endpoints')
      .select('failure_streak')
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.failure_streak, 0);

    const after = await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 201);
    assert.equal(after.deliveries, 1);
    const req = await eventually(() => r.requests.find((q) => q.headers['x-webhook-id'] === after.eventId), 'the delivery after enabling');
    assert.equal(verifyWebhook({ payload: req.body, header: req.headers['x-service-signature'], secret }).ok, true, 'same signing secret');
    assert.ok(!r.requests.some((q) => JSON.parse(q.body).data.invoice.id === 200), 'the event fired while disabled never arrives');
  });

  test('a success between failed deliveries resets the streak', async () => {
    const r = await receiver();
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    const fire = async (n: number, status: number) => {
      r.behaviour = answer(status);
      const before = (await deliveryRows(t.ctx, endpoint.id)).length;
      for (let i = 0; i < n; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 300 + i);
      await eventually(async () => {
        const rows = await deliveryRows(t.ctx, endpoint.id);
        return rows.length === before + n && rows.every((row) => row.status !== 'pending');
      }, `${n} deliveries to settle`);
    };
    await fire(9, 500);
    await fire(1, 200);
    await fire(9, 500);
    const ep = (await t.inject({ method: 'GET', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(merchant.partner.secret) })).json()
      .data;
    assert.equal(ep.status, 'enabled');
  });

  test('the delivery log is paginated 20 a page, newest first', async () => {
    const r = await receiver();
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    for (let i = 0; i < 23; i++) await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 400 + i);
    const first = await deliveryLog(merchant.partner.secret, endpoint.id);
    assert.equal(first.data.length, 20);
    assert.deepEqual(first.meta, { page: 1, perPage: 20, total: 23, lastPage: 2 });
    const ids = first.data.map((d) => d.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    const second = (
      await t.inject({ method: 'GET', url: `/api/v1/webhooks/${endpoint.id}/deliveries?page=2`, headers: bearer(merchant.partner.secret) })
    ).json();
    assert.equal(second.data.length, 3);
    assert.ok(second.data[0].id < ids[19]!);
  });

  test('the connection goes to the address the guard checked, with the Host header kept on the name', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    const merchant = await seedMerchant(t.ctx);
    await registerEndpoint(t, merchant.partner.secret, { url: `http://receiver.localhost:${port}/pinned` });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 500);
    const req = await eventually(() => r.requests[0], 'the pinned delivery');
    assert.equal(req.headers.host, `receiver.localhost:${port}`);
  });

  for (const [host, expectation] of [
    ['private.example.com', /private/],
    ['mixed.example.com', /192\.168\.1\.10/],
    ['gone.example.com', /^Address guard: the hostname gone\.example\.com does not resolve \(ENOTFOUND\)$/],
  ] as const) {
    test(`the address guard refuses ${host} on the first attempt, terminally, and it counts as a failed delivery`, async () => {
      const merchant = await seedMerchant(t.ctx);
      const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: `http://${host}/hook` });
      await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 600);
      const row = await eventually(async () => {
        const [d] = await deliveryRows(t.ctx, endpoint.id);
        return d?.status === 'failed' && d;
      }, 'the refusal');
      assert.equal(row.attempts, 1);
      assert.match(String(row.error), expectation);
      const ep = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
      assert.equal(ep.failure_streak, 1);
      assert.ok(ep.last_failure_at);
    });
  }

  test('a receiver whose name stops resolving after deliveries reached it: "no longer resolves"', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    DNS['moving.localhost'] = ['127.0.0.1'];
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: `http://moving.localhost:${port}/hook` });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 650);
    await eventually(async () => (await deliveryRows(t.ctx, endpoint.id))[0]?.status === 'delivered', 'the first delivery');

    DNS['moving.localhost'] = { code: 'ENOTFOUND' };
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 651);
    const refused = await eventually(
      async () => (await deliveryRows(t.ctx, endpoint.id)).find((d) => d.status === 'failed'),
      'the refusal',
    );
    assert.equal(
      refused.error,
      'Address guard: the hostname moving.localhost no longer resolves (ENOTFOUND); earlier deliveries reached a receiver there',
    );
  });

  test('a transient resolver failure is an ordinary, retried failure', async () => {
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: 'http://flaky.example.com/hook' });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 700);
    const row = await eventually(async () => {
      const [d] = await deliveryRows(t.ctx, endpoint.id);
      return d?.status === 'failed' && d;
    }, 'the schedule to run out');
    assert.equal(row.attempts, 6);
    assert.match(String(row.error), /EAI_AGAIN/);
  });

  test('deleting an endpoint deletes its queued deliveries; nothing more is sent to it', async () => {
    const r = await receiver();
    r.behaviour = answer(500);
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 800);
    await eventually(() => r.requests.length >= 1, 'a first attempt');
    const del = await t.inject({ method: 'DELETE', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(merchant.partner.secret) });
    assert.equal(del.statusCode, 200);
    assert.equal((await deliveryRows(t.ctx, endpoint.id)).length, 0);
  });
});

describe(`webhook delivery timeouts (${engineName})`, () => {
  let t: TestApp;
  let worker: Worker;
  let r: Receiver;
  before(async () => {
    t = await startTestApp({ config: { ...FAST_DELIVERY, webhookTimeoutMs: 300 } });
    r = await new Receiver().start();
    worker = createDeliveryWorker(t.ctx, { pollIntervalMs: 50, jitter: 0 });
    worker.start();
  });
  after(async () => {
    await worker.stop();
    await r.close();
    await t.close();
  });

  test('a receiver that does not answer within the timeout fails each attempt, through the whole schedule', async () => {
    r.behaviour = neverAnswer;
    const merchant = await seedMerchant(t.ctx);
    const { endpoint } = await registerEndpoint(t, merchant.partner.secret, { url: r.url });
    await fireInvoiceEvent(t.ctx, merchant.partner.partnerId, merchant.tenant.id, 9);

    const row = await eventually(async () => {
      const [d] = await deliveryRows(t.ctx, endpoint.id);
      return d?.status === 'failed' && d;
    }, 'the delivery to fail');
    assert.equal(row.attempts, 6);
    assert.equal(row.response_status, null);
    assert.match(String(row.error), /Timed out/);
    assert.ok(r.requests.length >= 1 && r.requests.length <= 6);
  });
});
