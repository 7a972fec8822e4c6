// The client package (packages/client, its source) against a gateway listening on a real port,
// the real simulator and a real webhook receiver: what a partner and a merchant do with it.
// test-database: embedded only (scripts/run-tests.mjs): what the typed client does does not depend on the engine; every route it calls runs on both in its own tests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createFiscalisationClient,
  createPartnerClient,
  createTenantClient,
  verifyWebhook,
  type GatewayClient,
} from '../../packages/client/src/index.ts';
import { uniqueTpin } from '../helpers/app.ts';
import { engineName } from '../helpers/db.ts';
import { CLASS_CODE, startHarness, type Harness } from '../helpers/harness.ts';
import { eventually } from '../helpers/poll.ts';
import { Receiver } from '../partner/webhooks/helpers.ts';

describe(`the client package against a running gateway (${engineName})`, () => {
  let h: Harness;
  let baseUrl: string;
  let partner: GatewayClient;
  let receiver: Receiver;

  before(async () => {
    h = await startHarness();
    baseUrl = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    partner = createPartnerClient({ baseUrl, secretKey: h.merchant.partnerSecret });
    receiver = await new Receiver().start();
  });
  after(async () => {
    await receiver?.close();
    await h?.close();
  });

  /** A partner takes a new merchant from nothing to selling, through the package only. */
  async function provision() {
    const tenant = await partner.POST('/api/v1/tenants', { body: { name: 'Chilenje Hardware', tpin: uniqueTpin() } });
    assert.equal(tenant.response.status, 201, JSON.stringify(tenant.error));
    const path = { tenant: tenant.data!.data.id };

    const device = await partner.POST('/api/v1/tenants/{tenant}/devices', {
      params: { path },
      body: { deviceSerial: `SN-${tenant.data!.data.tpin}`, branch: '000', vsdcBaseUrl: h.sim.url },
    });
    assert.equal(device.response.status, 201, JSON.stringify(device.error));
    assert.equal(device.data!.data.initialized, false);

    const initialized = await partner.POST('/api/v1/tenants/{tenant}/devices/{branch}/initialize', {
      params: { path: { ...path, branch: '000' } },
    });
    assert.equal(initialized.response.status, 200, JSON.stringify(initialized.error));

    const token = await partner.POST('/api/v1/tenants/{tenant}/tokens', { params: { path }, body: { name: 'Till 1' } });
    assert.equal(token.response.status, 201, JSON.stringify(token.error));

    const apiKey = await partner.POST('/api/v1/tenants/{tenant}/api-keys', { params: { path }, body: { branch: '000' } });
    assert.equal(apiKey.response.status, 201, JSON.stringify(apiKey.error));

    return {
      tenantId: path.tenant,
      tpin: tenant.data!.data.tpin,
      device: initialized.data!.data,
      token: token.data!.data.token,
      apiKey: apiKey.data!.data,
    };
  }

  test('a partner provisions a tenant, its device, a tenant token and a fiscalisation key', async () => {
    const { tenantId, device, token, apiKey } = await provision();
    assert.equal(device.initialized, true);
    assert.match(String(device.sdcId), /\S/);
    assert.match(token, /^tt_/);
    assert.match(apiKey.key, /^pk_/);

    const listed = await partner.GET('/api/v1/tenants/{tenant}', { params: { path: { tenant: tenantId } } });
    assert.equal(listed.response.status, 200);
    assert.deepEqual(
      listed.data!.data.devices.map((d) => [d.branch, d.initialized]),
      [['000', true]],
    );

    // The merchant's own view, with the token the partner minted.
    const me = await createTenantClient({ baseUrl, token }).GET('/api/v1/me');
    assert.equal(me.response.status, 200, JSON.stringify(me.error));
    assert.equal(me.data!.data.id, tenantId);

    // A till on /zm/api with the fiscalisation key and the device's SdcId.
    const till = createFiscalisationClient({ baseUrl, apiKey: apiKey.key, sdcId: String(apiKey.sdcId) });
    const taxCodes = await till.GET('/zm/api/TaxCodes');
    assert.equal(taxCodes.response.status, 200, JSON.stringify(taxCodes.error));
    const branches = await createFiscalisationClient({ baseUrl, apiKey: apiKey.key }).GET('/zm/api/Branches');
    assert.equal(branches.response.status, 200, JSON.stringify(branches.error));
    assert.equal(JSON.stringify(branches.data).includes(String(apiKey.sdcId)), true, JSON.stringify(branches.data));
  });

  test('a merchant sells with an Idempotency-Key, a repeat is the same document, and reads it back', async () => {
    const { token, tpin } = await provision();
    const merchant = createTenantClient({ baseUrl, token });
    const body = { items: [{ name: 'Cement 50kg', classificationCode: CLASS_CODE, quantity: 2, price: 185 }] };
    const key = `till7-${Date.now()}`;

    const sold = await merchant.POST('/api/v1/sales', { body, params: { header: { 'idempotency-key': key } } });
    assert.equal(sold.response.status, 201, JSON.stringify(sold.error));
    const sale = sold.data!.data;
    assert.equal(sale.status, 'uploaded');
    assert.equal(sale.totals.total, 370);
    assert.equal(sold.response.headers.get('idempotent-replayed'), null);

    const repeated = await merchant.POST('/api/v1/sales', { body, params: { header: { 'idempotency-key': key } } });
    assert.equal(repeated.response.status, 201);
    assert.equal(repeated.data!.data.id, sale.id);
    assert.equal(repeated.response.headers.get('idempotent-replayed'), 'true');

    const read = await merchant.GET('/api/v1/sales/{sale}', { params: { path: { sale: sale.id } } });
    assert.equal(read.response.status, 200);
    assert.equal(read.data!.data.invoiceNo, sale.invoiceNo);
    assert.equal(read.data!.data.status, 'uploaded');

    const byReference = await merchant.GET('/api/v1/sales', { params: { query: { page: 1, reference: key } } });
    assert.deepEqual(
      byReference.data!.data.map((s) => s.id),
      [sale.id],
    );
    assert.equal(h.sim.control.documents(tpin, '000').length, 1, 'filed once');

    const refused = await merchant.POST('/api/v1/sales', { body: { items: [] } });
    assert.equal(refused.response.status, 422);
    assert.equal(refused.data, undefined);
  });

  test("a webhook receiver gets the sale's delivery and the package accepts it, and refuses a tampered or stale one", async () => {
    const endpoint = await partner.POST('/api/v1/webhooks', { body: { url: `${receiver.url}/hooks`, events: ['invoice.fiscalised'] } });
    assert.equal(endpoint.response.status, 201, JSON.stringify(endpoint.error));
    const secret = endpoint.data!.secret;

    const { token } = await provision();
    const sold = await createTenantClient({ baseUrl, token }).POST('/api/v1/sales', {
      body: { items: [{ name: 'Nails', classificationCode: CLASS_CODE, quantity: 1, price: 10 }] },
    });
    assert.equal(sold.response.status, 201, JSON.stringify(sold.error));
    const saleId = sold.data!.data.id;

    const delivery = await eventually(
      () => receiver.requests.find((r) => JSON.parse(r.body).data.invoice.id === saleId),
      'the delivery of the sale',
    );
    const header = delivery.headers['x-service-signature'];
    const accepted = verifyWebhook({ payload: delivery.body, header, secret });
    assert.equal(accepted.ok, true, JSON.stringify(accepted));
    assert.ok(accepted.ok);
    const t = accepted.timestamp;
    assert.deepEqual(
      verifyWebhook({ payload: Buffer.from(delivery.body), header, secret, now: t }),
      { ok: true, timestamp: t },
      'now as unix seconds',
    );

    const tampered = delivery.body.replace(`"id":${saleId}`, `"id":${saleId + 1}`);
    assert.notEqual(tampered, delivery.body);
    assert.deepEqual(verifyWebhook({ payload: tampered, header, secret }), { ok: false, reason: 'signature_mismatch' });
    assert.deepEqual(verifyWebhook({ payload: delivery.body, header, secret: 'whsec_someone_else' }), {
      ok: false,
      reason: 'signature_mismatch',
    });

    const stale = { ok: false, reason: 'timestamp_out_of_tolerance' };
    assert.deepEqual(verifyWebhook({ payload: delivery.body, header, secret, now: new Date((t + 301) * 1000) }), stale, 'now as a Date');
    assert.deepEqual(verifyWebhook({ payload: delivery.body, header, secret, now: t + 301 }), stale, 'now as unix seconds');
    assert.deepEqual(verifyWebhook({ payload: delivery.body, header, secret, now: t - 301 }), stale, 'from the future');
  });
});
