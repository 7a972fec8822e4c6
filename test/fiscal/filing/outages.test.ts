// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { assertWrappedFailure, invoiceBody, mintKey, nextNumber, postInvoice, sdcIdOf } from '../compat/helpers.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

// Outages as a till lives them: answered at once while the VSDC is known down, filing again
// within one probe interval of its return however long the outage was, and the offline policy
// that refuses instead of queueing.

interface Sale {
  id: number;
  invoiceNo: number;
  status: string;
}

async function queueOf(h: Harness, merchant: Merchant, branch = '000') {
  return h.ctx.db
    .selectFrom('filing_queues as q')
    .innerJoin('devices as d', 'd.id', 'q.device_id')
    .select(['q.retry_delay_ms', 'q.next_attempt_at', 'q.device_id'])
    .where('d.tenant_id', '=', merchant.tenantId)
    .where('d.branch', '=', branch)
    .executeTakeFirst();
}

/** Waits until the branch's last VSDC attempt has failed and it waits out a backoff. */
function knownDown(h: Harness, merchant: Merchant, branch = '000') {
  return eventually(
    async () => ((await queueOf(h, merchant, branch))?.retry_delay_ms != null ? true : undefined),
    `branch ${branch} in backoff`,
  );
}

async function statusOf(h: Harness, id: number, merchant: Merchant): Promise<string> {
  return (await h.get(`/api/v1/sales/${id}`, {}, merchant)).json().data.status;
}

function uploaded(h: Harness, id: number, merchant: Merchant, timeoutMs = 30_000): Promise<true> {
  return eventually(async () => ((await statusOf(h, id, merchant)) === 'uploaded' ? true : undefined), `sale ${id} uploaded`, timeoutMs);
}

describe(`outages: answered at once while known down, filed at once when back (${engineName})`, () => {
  let h: Harness;
  const SALE_WAIT_MS = 20_000;
  before(async () => {
    // A backoff as long as it gets after a long outage (5 minutes) from the first failure; a
    // probe interval short enough for a test. A sale that waited would wait 20 s.
    h = await startHarness({ config: { saleWaitMs: SALE_WAIT_MS, filingRetryMs: 300_000, vsdcProbeMs: 200 } });
  });
  after(() => h.close());

  test('once a branch is known down, sales are answered pending at once and cost no VSDC attempt; a healthy branch still waits for its filing', async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    await h.registerBranch(m, '001');
    h.sim.control.setFaults(m.tpin, '000', { forcedResult: '838' }); // answered (and logged), but no filing
    // The sale that finds the outage waits for its filing (answered once it is filed, at the end).
    const discovering = h.post('/api/v1/sales', saleBody(), {}, m);
    await knownDown(h, m);
    const attempts = h.sim.control.calls(m.tpin, '000', 'saveSales').length;

    const sales: Sale[] = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const res = await h.post('/api/v1/sales', saleBody({}, [{ price: 10 + i }]), {}, m);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().data.status, 'pending');
      // Loose on purpose (speed is measured in bench/): far below the 20 s a waiting sale would take.
      assert.ok(Date.now() - started < SALE_WAIT_MS / 4, `sale ${i} answered without waiting for its filing (${Date.now() - started} ms)`);
      sales.push(res.json().data);
    }
    assert.equal(
      h.sim.control.calls(m.tpin, '000', 'saveSales').length,
      attempts,
      'new sales on a backed-off branch trigger no filing attempt',
    );

    const healthy = await h.post('/api/v1/sales', saleBody(), { 'x-branch': '001' }, m);
    assert.equal(healthy.json().data.status, 'uploaded', 'a sale on a healthy branch waits for its filing');

    h.sim.control.clearFaults(m.tpin, '000');
    for (const sale of sales) await uploaded(h, sale.id, m, 10_000);
    const first = (await discovering).json().data;
    assert.equal(first.status, 'uploaded');
    const filed = h
      .received(m)
      .filter((d) => d.receipt)
      .map((d) => Number(d.cisInvcNo));
    assert.deepEqual(filed, [first.invoiceNo, ...sales.map((s) => s.invoiceNo)], 'each once, in invoice order');
  });

  test("after an outage that pushed the backoff to 5 minutes, the backlog files within seconds of the VSDC's return; probes are selects and file nothing", async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    h.sim.control.setFaults(m.tpin, '000', { forcedResult: '838' });
    const discovering = h.post('/api/v1/sales', saleBody({}, [{ price: 20 }]), {}, m); // waits for its filing
    await knownDown(h, m);
    const ids: number[] = [];
    for (let i = 1; i < 3; i++) ids.push((await h.post('/api/v1/sales', saleBody({}, [{ price: 20 + i }]), {}, m)).json().data.id);
    const queue = await queueOf(h, m);
    assert.ok(queue!.next_attempt_at.getTime() - Date.now() > 250_000, 'the branch would otherwise wait out its 5-minute backoff');

    // Probes keep asking while the VSDC cannot reach the authority: selects only.
    await eventually(() => (h.sim.control.calls(m.tpin, '000', 'selectCodes').length >= 2 ? true : undefined), 'two probes');
    assert.equal(h.sim.control.calls(m.tpin, '000', 'saveSales').length, 1, 'one filing attempt: the one that found the outage');

    h.sim.control.clearFaults(m.tpin, '000');
    for (const id of ids) await uploaded(h, id, m, 10_000);
    assert.equal((await discovering).json().data.status, 'uploaded');
    const filed = h
      .received(m)
      .filter((d) => d.receipt)
      .map((d) => Number(d.cisInvcNo));
    assert.deepEqual(filed, [1, 2, 3], 'each once, in invoice order');
  });
});

describe(`outages: a branch filing again wakes its neighbours (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    // No probe within the test: only a branch that files again can wake the other.
    h = await startHarness({ config: { saleWaitMs: 500, filingRetryMs: 300_000, vsdcProbeMs: 300_000 } });
  });
  after(() => h.close());

  test('a branch that files again wakes the other backed-off branches at the same VSDC address', async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    await h.registerBranch(m, '001');
    for (const branch of ['000', '001']) h.sim.control.setFaults(m.tpin, branch, { forcedResult: '838' });
    const a = (await h.post('/api/v1/sales', saleBody(), {}, m)).json().data;
    const b = (await h.post('/api/v1/sales', saleBody(), { 'x-branch': '001' }, m)).json().data;
    await knownDown(h, m, '000');
    await knownDown(h, m, '001');
    // Let 000's backoff pass: only 000 retries; 001 waits out its 5 minutes unless woken.
    for (const branch of ['000', '001']) h.sim.control.clearFaults(m.tpin, branch);
    const branch000 = await queueOf(h, m, '000');
    await sql`update filing_queues set next_attempt_at = now() where device_id = ${branch000!.device_id}`.execute(h.ctx.db);

    await uploaded(h, a.id, m, 10_000);
    await uploaded(h, b.id, m, 10_000);
    assert.ok((await queueOf(h, m, '001'))!.retry_delay_ms === null, 'branch 001 filed and left its backoff');
  });
});

describe(`outages: the offline policy "refuse" (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 2_000, filingRetryMs: 300_000, vsdcProbeMs: 200 } });
  });
  after(() => h.close());

  const setPolicy = (m: Merchant, offlinePolicy: unknown) =>
    h.t.inject({ method: 'PATCH', url: `/api/v1/tenants/${m.tenantId}`, headers: bearer(m.partnerSecret), payload: { offlinePolicy } });

  test('the partner sets it; the tenant shows it; anything but queue or refuse is a 422 naming the field', async () => {
    const m = await h.addMerchant();
    const shown = await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${m.tenantId}`, headers: bearer(m.partnerSecret) });
    assert.equal(shown.json().data.offlinePolicy, 'queue', 'queue by default');
    const set = await setPolicy(m, 'refuse');
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().data.offlinePolicy, 'refuse');
    const operatorsOnly = await h.t.inject({
      method: 'PATCH',
      url: `/api/v1/tenants/${m.tenantId}`,
      headers: bearer(m.partnerSecret),
      payload: { plan: 'enterprise' },
    });
    assert.equal(operatorsOnly.statusCode, 422, "the plan is the operator's: refused, not silently ignored");
    assert.match(operatorsOnly.json().errors.plan[0], /not accepted/);
    const bad = await setPolicy(m, 'sometimes');
    assert.equal(bad.statusCode, 422);
    assert.ok(bad.json().errors.offlinePolicy, bad.body);
    const foreign = await h.addMerchant();
    const other = await h.t.inject({
      method: 'PATCH',
      url: `/api/v1/tenants/${m.tenantId}`,
      headers: bearer(foreign.partnerSecret),
      payload: { offlinePolicy: 'queue' },
    });
    assert.equal(other.statusCode, 404, "another partner's merchant is not found");
  });

  test('refuse: while the branch is known down a sale is 503 vsdc_unavailable with Retry-After, nothing stored, no number used; pending documents still drain in order', async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    assert.equal((await setPolicy(m, 'refuse')).statusCode, 200);
    h.sim.control.setFaults(m.tpin, '000', { forcedResult: '838' });
    // The sale that finds the outage was stored before anyone knew: it is filed when the VSDC returns.
    const discovering = (await h.post('/api/v1/sales', saleBody(), {}, m)).json().data;
    assert.equal(discovering.status, 'pending');
    await knownDown(h, m);

    const count = async () =>
      Number(
        (
          await h.ctx.db
            .selectFrom('sales')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('tenant_id', '=', m.tenantId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (let i = 0; i < 3; i++) {
      const refused = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': `refused-${i}` }, m);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json().error.code, 'vsdc_unavailable');
      assert.match(refused.json().error.message, /Nothing was stored/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
    }
    assert.equal(await count(), before, 'nothing stored');

    h.sim.control.clearFaults(m.tpin, '000');
    await uploaded(h, discovering.id, m, 10_000);
    const after = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'refused-0' }, m);
    assert.equal(after.statusCode, 201, 'the refused request can be repeated as it was once the VSDC is back');
    assert.equal(after.json().data.invoiceNo, discovering.invoiceNo + 1, 'the refused sales used no invoice number');
    assert.equal(after.json().data.status, 'uploaded');
  });

  test("refuse on the legacy surface: 503 vsdc_unavailable in the till's dialect, bare and wrapped", async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    assert.equal((await setPolicy(m, 'refuse')).statusCode, 200);
    const sdcId = await sdcIdOf(h, m);
    const bare = { key: (await mintKey(h, m, { branch: '000' })).key, sdcId };
    const wrapped = { key: (await mintKey(h, m, { branch: '000', dialect: 'wrapped' })).key, sdcId };
    h.sim.control.setFaults(m.tpin, '000', { forcedResult: '838' });
    assert.equal((await postInvoice(h, bare, invoiceBody(nextNumber('OFF')))).statusCode, 201);
    await knownDown(h, m);

    const plain = await postInvoice(h, bare, invoiceBody(nextNumber('OFF')));
    assert.equal(plain.statusCode, 503, plain.body);
    assert.equal(plain.json().error.code, 'vsdc_unavailable');
    assert.ok(plain.headers['retry-after']);
    const enveloped = assertWrappedFailure(await postInvoice(h, wrapped, invoiceBody(nextNumber('OFF'))), 503);
    assert.deepEqual((enveloped.error as { code: string }).code, 'vsdc_unavailable');
    h.sim.control.clearFaults(m.tpin, '000');
  });

  test('queue (the default) keeps accepting while known down', async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    h.sim.control.setFaults(m.tpin, '000', { forcedResult: '838' });
    await h.post('/api/v1/sales', saleBody(), {}, m);
    await knownDown(h, m);
    const res = await h.post('/api/v1/sales', saleBody(), {}, m);
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().data.status, 'pending');
    h.sim.control.clearFaults(m.tpin, '000');
    await uploaded(h, res.json().data.id, m, 10_000);
  });
});
