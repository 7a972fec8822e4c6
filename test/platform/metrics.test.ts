import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { engineName } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`Prometheus metrics (${engineName})`, () => {
  let t: TestApp;
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({ port: 0 });
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
    await sim.close();
  });

  const scrape = async () => {
    const res = await t.inject({ method: 'GET', url: '/metrics', headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/plain/);
    return res.body;
  };

  test('with ADMIN_TOKEN set, /metrics needs it', async () => {
    for (const headers of [{}, bearer('wrong-admin-token-000000')]) {
      const res = await t.inject({ method: 'GET', url: '/metrics', headers });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), { error: { code: 'unauthenticated', message: 'GET /metrics needs Authorization: Bearer <ADMIN_TOKEN>.' } });
    }
  });

  test('without ADMIN_TOKEN (development), /metrics is open', async () => {
    const open = await startTestApp({ config: { adminToken: undefined } });
    try {
      assert.equal((await open.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
      assert.equal((await open.inject({ method: 'GET', url: '/metrics', headers: bearer('anything-at-all') })).statusCode, 200);
    } finally {
      await open.close();
    }
  });

  test('requests are counted by route pattern and status, with latency histograms', async () => {
    await t.inject({ method: 'GET', url: '/healthz' });
    await t.inject({ method: 'GET', url: '/api/v1/tenants/123' });
    const text = await scrape();
    assert.match(text, /fiscal_gateway_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    assert.match(text, /fiscal_gateway_http_requests_total\{method="GET",route="\/api\/v1\/tenants\/:tenant",status="401"\} \d+/);
    assert.match(text, /fiscal_gateway_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz"\}/);
  });

  test('VSDC calls are measured by endpoint and outcome; documents, backlog and deliveries are reported', async () => {
    const m = await seedMerchant(t.ctx);
    await t.inject({ method: 'POST', url: `/api/v1/tenants/${m.tenant.id}/devices`, headers: bearer(m.partner.secret), payload: { deviceSerial: 'MET-1', branch: '000', vsdcBaseUrl: sim.url } });
    assert.equal((await t.inject({ method: 'POST', url: `/api/v1/tenants/${m.tenant.id}/devices/000/initialize`, headers: bearer(m.partner.secret) })).statusCode, 200);
    const text = await scrape();
    assert.match(text, /fiscal_gateway_vsdc_calls_total\{endpoint="selectInitInfo",outcome="ok"\} 1/);
    assert.match(text, /fiscal_gateway_vsdc_call_duration_seconds_count\{endpoint="selectInitInfo"\} 1/);
    assert.match(text, /fiscal_gateway_documents\{status="pending"\} \d+/);
    assert.match(text, /fiscal_gateway_webhook_deliveries\{status="failed"\} \d+/);
    assert.match(text, /fiscal_gateway_process_/);
  });
});
