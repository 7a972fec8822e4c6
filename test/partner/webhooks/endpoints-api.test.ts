import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { fireInvoiceEvent, registerEndpoint } from './helpers.ts';

describe(`webhook endpoints API (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('registration returns the whsec_ secret once, with the endpoint and a message; events default to both invoice events', async () => {
    const partner = await seedPartner(t.ctx);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(partner.secret),
      payload: { url: 'https://hooks.example.com/fiscal', description: 'ERP' },
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.json();
    assert.match(body.secret, /^whsec_[0-9A-Za-z]{49}$/);
    assert.equal(typeof body.message, 'string');
    assert.deepEqual(
      { ...body.endpoint, id: 0, createdAt: '' },
      {
        id: 0,
        url: 'https://hooks.example.com/fiscal',
        description: 'ERP',
        events: ['invoice.fiscalised', 'invoice.failed'],
        status: 'enabled',
        createdAt: '',
        lastFailureAt: null,
        disabledAt: null,
      },
    );

    const one = await t.inject({ method: 'GET', url: `/api/v1/webhooks/${body.endpoint.id}`, headers: bearer(partner.secret) });
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json().data, body.endpoint);
    assert.ok(!one.body.includes(body.secret), 'the secret is never shown again');
    const list = await t.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(partner.secret) });
    assert.deepEqual(list.json().data, [body.endpoint]);
    assert.ok(!list.body.includes('whsec_'));
  });

  test('the signing secret is stored sealed, not in plaintext', async () => {
    const partner = await seedPartner(t.ctx);
    const { secret, endpoint } = await registerEndpoint(t, partner.secret, { url: 'https://hooks.example.com/sealed' });
    const row = await t.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(secret));
  });

  test('a subset of events can be chosen; unknown event names are a 422 validation error', async () => {
    const partner = await seedPartner(t.ctx);
    const { endpoint } = await registerEndpoint(t, partner.secret, { url: 'https://hooks.example.com/f', events: ['invoice.failed'] });
    assert.deepEqual(endpoint.events, ['invoice.failed']);
    const bad = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(partner.secret),
      payload: { url: 'https://hooks.example.com/f', events: ['invoice.created'] },
    });
    assert.equal(bad.statusCode, 422);
    assert.ok(bad.json().errors);
  });

  test('a URL that breaks the rules is a 422 naming the url field', async () => {
    const partner = await seedPartner(t.ctx);
    for (const url of [
      'ftp://hooks.example.com/x',
      'https://user:pass@hooks.example.com/x',
      'https://10.0.0.5/x',
      'https://hooks.example.com./x',
      'https://hooks.example.com:9000/x',
      'not a url',
      'http://intranet/x',
    ]) {
      const res = await t.inject({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(partner.secret), payload: { url } });
      assert.equal(res.statusCode, 422, url);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assert.ok(Array.isArray(body.errors.url) && body.errors.url.length > 0, url);
    }
  });

  test('development accepts http and loopback receivers on any port', async () => {
    const partner = await seedPartner(t.ctx);
    for (const url of ['http://127.0.0.1:39999/hook', 'http://localhost:3000/hook', 'http://[::1]:4000/hook']) {
      await registerEndpoint(t, partner.secret, { url });
    }
  });

  test('delete removes the endpoint; enable answers the endpoint; unknown ids are 404', async () => {
    const partner = await seedPartner(t.ctx);
    const { endpoint } = await registerEndpoint(t, partner.secret, { url: 'https://hooks.example.com/d' });
    const enabled = await t.inject({ method: 'POST', url: `/api/v1/webhooks/${endpoint.id}/enable`, headers: bearer(partner.secret) });
    assert.equal(enabled.statusCode, 200);
    assert.equal(enabled.json().data.status, 'enabled');
    const del = await t.inject({ method: 'DELETE', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(partner.secret) });
    assert.deepEqual(del.json(), { deleted: true, id: endpoint.id });
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/${endpoint.id}`],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/enable`],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries`],
      ['POST', '/api/v1/webhooks/deliveries/999999/resend'],
    ] as const) {
      const res = await t.inject({ method, url, headers: bearer(partner.secret) });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.deepEqual(Object.keys(res.json()), ['message']);
    }
  });

  test("partners are isolated: another partner's endpoints and deliveries are 404, never listed", async () => {
    const a = await seedPartner(t.ctx, { name: 'A' });
    const b = await seedPartner(t.ctx, { name: 'B' });
    const merchantOfA = await seedMerchant(t.ctx, a);
    const { endpoint } = await registerEndpoint(t, a.secret, { url: 'https://hooks.example.com/a' });
    await fireInvoiceEvent(t.ctx, a.partnerId, merchantOfA.tenant.id, 1);
    const [delivery] = await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.id).execute();
    assert.ok(delivery);

    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/${endpoint.id}`],
      ['DELETE', `/api/v1/webhooks/${endpoint.id}`],
      ['POST', `/api/v1/webhooks/${endpoint.id}/enable`],
      ['GET', `/api/v1/webhooks/${endpoint.id}/deliveries`],
      ['POST', `/api/v1/webhooks/deliveries/${delivery.id}/resend`],
    ] as const) {
      const res = await t.inject({ method, url, headers: bearer(b.secret) });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
    }
    const listB = await t.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(b.secret) });
    assert.deepEqual(listB.json().data, []);
    const stillThere = await t.inject({ method: 'GET', url: `/api/v1/webhooks/${endpoint.id}`, headers: bearer(a.secret) });
    assert.equal(stillThere.statusCode, 200);
  });

  test('a tenant token or a fiscalisation key is 401 on every webhook route; a key without the scope is 403', async () => {
    const merchant = await seedMerchant(t.ctx);
    const readOnly = await seedPartner(t.ctx, { scopes: ['webhooks:read'] });
    const routes = [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks'],
      ['GET', '/api/v1/webhooks/1'],
      ['DELETE', '/api/v1/webhooks/1'],
      ['POST', '/api/v1/webhooks/1/enable'],
      ['GET', '/api/v1/webhooks/1/deliveries'],
      ['POST', '/api/v1/webhooks/deliveries/1/resend'],
    ] as const;
    for (const [method, url] of routes) {
      const payload = method === 'POST' && url === '/api/v1/webhooks' ? { url: 'https://hooks.example.com/x' } : undefined;
      const asTenant = await t.inject({ method, url, headers: bearer(merchant.token), ...(payload ? { payload } : {}) });
      assert.equal(asTenant.statusCode, 401, `tenant token ${method} ${url}`);
      const asKey = await t.inject({ method, url, headers: bearer(merchant.apiKey), ...(payload ? { payload } : {}) });
      assert.equal(asKey.statusCode, 401, `pk_ key ${method} ${url}`);
    }
    const write = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(readOnly.secret),
      payload: { url: 'https://hooks.example.com/x' },
    });
    assert.equal(write.statusCode, 403);
    const readable = await t.inject({ method: 'GET', url: '/api/v1/webhooks', headers: bearer(readOnly.secret) });
    assert.equal(readable.statusCode, 200);
  });

  test('a partner may hold at most 20 endpoints', async () => {
    const partner = await seedPartner(t.ctx);
    for (let i = 0; i < 20; i++) await registerEndpoint(t, partner.secret, { url: `https://hooks.example.com/${i}` });
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(partner.secret),
      payload: { url: 'https://hooks.example.com/21' },
    });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.code, 'webhook_endpoint_limit');
  });

  test('the routes and their response schemas are in the OpenAPI document', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    assert.ok(doc.paths['/api/v1/webhooks'].post.responses['201'].content['application/json'].schema.properties.secret);
    assert.ok(doc.paths['/api/v1/webhooks/{id}/deliveries'].get.responses['200']);
    assert.ok(doc.paths['/api/v1/webhooks/deliveries/{id}/resend'].post.responses['202']);
  });
});

describe(`webhook URL rules in production (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { env: 'production' } });
  });
  after(() => t.close());

  test('production refuses http, loopback, IP literals (in any notation), trailing dots and other ports; accepts a public https name on 443 or 8443', async () => {
    const partner = await seedPartner(t.ctx);
    const refused = [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://2130706433/x',
      'https://0x7f000001/x',
      'https://0177.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://8.8.8.8/x',
      'https://localhost/x',
      'https://api.localhost/x',
      'https://hooks.example.com./x',
      'https://hooks.example.com:3000/x',
      'https://metadata.internal/x',
    ];
    for (const url of refused) {
      const res = await t.inject({ method: 'POST', url: '/api/v1/webhooks', headers: bearer(partner.secret), payload: { url } });
      assert.equal(res.statusCode, 422, url);
      assert.ok(res.json().errors.url.length > 0, url);
    }
    await registerEndpoint(t, partner.secret, { url: 'https://hooks.example.com/x' });
    await registerEndpoint(t, partner.secret, { url: 'https://hooks.example.com:8443/x' });
  });
});
