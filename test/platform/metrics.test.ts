import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { sql } from 'kysely';
import { engineName } from '../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../helpers/harness.ts';
import { eventually } from '../helpers/poll.ts';
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
      assert.deepEqual(res.json(), {
        error: { code: 'unauthenticated', message: 'GET /metrics needs Authorization: Bearer <ADMIN_TOKEN>.' },
      });
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
    await t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${m.tenant.id}/devices`,
      headers: bearer(m.partner.secret),
      payload: { deviceSerial: 'MET-1', branch: '000', vsdcBaseUrl: sim.url },
    });
    assert.equal(
      (await t.inject({ method: 'POST', url: `/api/v1/tenants/${m.tenant.id}/devices/000/initialize`, headers: bearer(m.partner.secret) }))
        .statusCode,
      200,
    );
    const text = await scrape();
    assert.match(text, /fiscal_gateway_vsdc_calls_total\{endpoint="selectInitInfo",outcome="ok"\} 1/);
    assert.match(text, /fiscal_gateway_vsdc_call_duration_seconds_count\{endpoint="selectInitInfo"\} 1/);
    assert.match(text, /fiscal_gateway_documents\{status="pending"\} \d+/);
    assert.match(text, /fiscal_gateway_webhook_deliveries\{status="failed"\} \d+/);
    assert.match(text, /fiscal_gateway_process_/);
  });
});

describe(`the fiscal gauges' values (${engineName})`, () => {
  let h: Harness;
  // The app's clock runs this far ahead of the system's: the gauges' cache ages by it.
  let aheadMs = 0;
  before(async () => {
    // Sales answer at once; a VSDC that does not answer is retried only after the test.
    h = await startHarness({
      branches: ['000', '001'],
      config: { saleWaitMs: 0, filingRetryMs: 300_000, vsdcProbeMs: 300_000 },
      clock: { now: () => new Date(Date.now() + aheadMs) },
    });
  });
  after(() => h.close());

  const gauge = (text: string, name: string, labels: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  test('documents by status, and per branch the backlog and the age of its oldest pending document', async () => {
    const sale = async (branch: string) => {
      const res = await h.post('/api/v1/sales', saleBody(), { 'x-branch': branch });
      assert.ok(res.statusCode === 201 || res.statusCode === 202, res.body);
      return res.json().data.id as number;
    };
    const statusOf = async (id: number) =>
      (await h.ctx.db.selectFrom('sales').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const filed = await sale('000');
    await eventually(async () => ((await statusOf(filed)) === 'uploaded' ? true : undefined), 'the first sale to be filed');
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    const refused = await sale('000');
    await eventually(async () => ((await statusOf(refused)) === 'failed' ? true : undefined), 'the refused sale to fail');

    // The VSDCs of both branches go down: three sales wait on 000, two on 001.
    for (const branch of ['000', '001']) h.sim.control.setFaults(h.merchant.tpin, branch, { down: true });
    const waiting = { '000': [await sale('000'), await sale('000'), await sale('000')], '001': [await sale('001'), await sale('001')] };
    // The oldest of 000 was stored ten minutes ago (the age is the database's now() less created_at).
    const agedAt = Date.now();
    await sql`update sales set created_at = now() - interval '600 seconds' where id = ${waiting['000'][0]!}`.execute(h.ctx.db);
    await sql`update sales set created_at = now() - interval '60 seconds' where id = ${waiting['001'][0]!}`.execute(h.ctx.db);

    const res = await h.t.inject({ method: 'GET', url: '/metrics', headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(res.statusCode, 200);
    const elapsed = (Date.now() - agedAt) / 1000 + 1;
    const text = res.body;
    assert.equal(gauge(text, 'fiscal_gateway_documents', 'status="pending"'), 5);
    assert.equal(gauge(text, 'fiscal_gateway_documents', 'status="failed"'), 1);
    assert.equal(gauge(text, 'fiscal_gateway_documents', 'status="uploaded"'), 1);
    assert.equal(gauge(text, 'fiscal_gateway_documents', 'status="resolved"'), 0);
    const tenant = `tenant="${h.merchant.tenantId}"`;
    assert.equal(gauge(text, 'fiscal_gateway_backlog_documents', `${tenant},branch="000"`), 3);
    assert.equal(gauge(text, 'fiscal_gateway_backlog_documents', `${tenant},branch="001"`), 2);
    const oldest000 = gauge(text, 'fiscal_gateway_backlog_oldest_age_seconds', `${tenant},branch="000"`)!;
    const oldest001 = gauge(text, 'fiscal_gateway_backlog_oldest_age_seconds', `${tenant},branch="001"`)!;
    assert.ok(oldest000 >= 600 && oldest000 < 600 + elapsed, `branch 000's oldest waits ~600 s, not ${oldest000}`);
    assert.ok(oldest001 >= 60 && oldest001 < 60 + elapsed, `branch 001's oldest waits ~60 s, not ${oldest001}`);
    assert.equal(
      text.split('\n').filter((l) => l.startsWith('fiscal_gateway_backlog_documents{')).length,
      2,
      'a branch with nothing pending has no backlog series',
    );

    // A sixth sale waits. Within 10 s a scrape answers from the last read; after them it still
    // answers at once with the last read, its ages grown by the time since, and reads the next
    // state in the background, which a following scrape shows.
    await sale('001');
    const scrape = async () => (await h.t.inject({ method: 'GET', url: '/metrics', headers: bearer(TEST_ADMIN_TOKEN) })).body;
    assert.equal(gauge(await scrape(), 'fiscal_gateway_documents', 'status="pending"'), 5, 'read at most once per 10 s');
    aheadMs = 11_000;
    const stale = await scrape();
    assert.equal(gauge(stale, 'fiscal_gateway_documents', 'status="pending"'), 5, 'the scrape did not wait for the next read');
    const aged = gauge(stale, 'fiscal_gateway_backlog_oldest_age_seconds', `${tenant},branch="000"`)!;
    assert.ok(
      aged >= oldest000 + 11 && aged < 611 + (Date.now() - agedAt) / 1000 + 1,
      `the age as of the scrape: ${oldest000} read, ${aged} 11 s later`,
    );
    const fresh = await eventually(async () => {
      const body = await scrape();
      return gauge(body, 'fiscal_gateway_documents', 'status="pending"') === 6 ? body : undefined;
    }, 'the background read to be answered');
    assert.equal(gauge(fresh, 'fiscal_gateway_backlog_documents', `${tenant},branch="001"`), 3);
  });
});
