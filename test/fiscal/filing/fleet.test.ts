// test-runtime: long (scripts/run-tests.mjs starts it first)
// A fleet: many branches filed at once (as many as have work, up to FILING_CONCURRENCY), and the
// per VSDC host caps (VSDC_HOST_CONNECTIONS, VSDC_HOST_RATE). The simulator counts the calls it
// is answering at once; its latency switch holds every call until the test releases them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

const branchCode = (i: number) => String(i).padStart(3, '0');

/** A merchant with `count` branches, each registered and initialised at the harness's simulator. */
async function fleet(h: Harness, count: number): Promise<{ merchant: Merchant; branches: string[] }> {
  const merchant = await h.addMerchant();
  const branches = Array.from({ length: count }, (_, i) => branchCode(i));
  for (const branch of branches) await h.registerBranch(merchant, branch);
  return { merchant, branches };
}

/** One sale on each branch, answered pending (SALE_WAIT_MS 0); their ids. */
async function saleOnEach(h: Harness, merchant: Merchant, branches: string[]): Promise<number[]> {
  const answers = await Promise.all(branches.map((branch) => h.post('/api/v1/sales', saleBody(), { 'x-branch': branch }, merchant)));
  return answers.map((res) => {
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data.id as number;
  });
}

/** Every sale uploaded, and each branch's VSDC got its one document exactly once. */
async function allFiledOnce(h: Harness, merchant: Merchant, branches: string[], ids: number[]): Promise<void> {
  await eventually(async () => {
    const rows = await h.ctx.db.selectFrom('sales').select('status').where('id', 'in', ids).execute();
    return rows.length === ids.length && rows.every((r) => r.status === 'uploaded');
  }, 'every sale uploaded');
  for (const branch of branches)
    assert.deepEqual(
      h.received(merchant, branch).map((d) => d.cisInvcNo),
      ['1'],
      `branch ${branch}: its one document, once`,
    );
}

describe(`fleet: as many branches in flight as have work (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    // FILING_CONCURRENCY at its default; no call is held longer than the timeout.
    h = await startHarness({ config: { saleWaitMs: 0, vsdcTimeoutMs: 120_000 } });
  });
  after(() => h.close());

  test(
    '100 branches with work have 100 VSDC calls in flight at once (the old ceiling was 64), each document filed once',
    { timeout: 120_000 },
    async () => {
      const BRANCHES = 100;
      const { merchant, branches } = await fleet(h, BRANCHES);
      h.sim.setLatency(600_000);
      h.sim.resetStats();
      const ids = await saleOnEach(h, merchant, branches);
      await eventually(() => branches.every((b) => h.sim.held(merchant.tpin, b) >= 1), 'every branch with a call at its VSDC at once');
      assert.ok(h.sim.stats().inFlight >= BRANCHES, `${h.sim.stats().inFlight} calls in flight`);
      h.sim.setLatency(0);
      // Each branch's one document reached its VSDC once (one call at a time per branch).
      await allFiledOnce(h, merchant, branches, ids);
    },
  );
});

describe(`fleet: VSDC_HOST_CONNECTIONS caps the calls at once at one VSDC host (${engineName})`, () => {
  let h: Harness;
  const CAP = 7;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 0, vsdcTimeoutMs: 120_000, vsdcHostConnections: CAP } });
  });
  after(() => h.close());

  test(
    '30 branches at one host: never more than the cap in flight; the others wait their turn and are filed once',
    { timeout: 120_000 },
    async () => {
      const { merchant, branches } = await fleet(h, 30);
      h.sim.setLatency(600_000);
      h.sim.resetStats();
      const ids = await saleOnEach(h, merchant, branches);
      await eventually(() => h.sim.stats().inFlight === CAP, 'the cap reached');
      // Every other branch is claimed and waits for a slot (it holds its lease meanwhile).
      await eventually(async () => {
        const held = await h.ctx.db.selectFrom('filing_queues').select('device_id').where('lease_owner', 'is not', null).execute();
        return held.length === branches.length;
      }, 'every branch claimed');
      assert.equal(h.sim.stats().inFlight, CAP);
      h.sim.setLatency(0);
      await allFiledOnce(h, merchant, branches, ids);
      assert.equal(h.sim.stats().peakInFlight, CAP, 'never above the cap');
    },
  );
});

describe(`fleet: VSDC_HOST_RATE caps the calls started per second at one VSDC host (${engineName})`, () => {
  let h: Harness;
  const RATE = 20;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 0, vsdcHostRate: RATE } });
  });
  after(() => h.close());

  test(
    '30 branches at one host: the calls that reached it in any stretch are at most RATE per second of it, plus one',
    { timeout: 120_000 },
    async () => {
      const { merchant, branches } = await fleet(h, 30);
      h.sim.resetStats();
      const began = performance.now();
      const ids = await saleOnEach(h, merchant, branches);
      await allFiledOnce(h, merchant, branches, ids);
      const seconds = (performance.now() - began) / 1_000;
      const calls = h.sim.stats().calls;
      assert.ok(calls >= branches.length, `${calls} calls`);
      // Starts are spaced 1/RATE apart: n calls need (n − 1)/RATE seconds however fast the rest is.
      assert.ok(calls <= RATE * seconds + 1, `${calls} calls reached the VSDC in ${seconds.toFixed(2)} s at a cap of ${RATE}/s`);
    },
  );
});

describe(`fleet: a branch waiting for a VSDC host slot keeps its lease (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    // A lease of 1 s + 5 s; one call at a time at the host, each held until it times out (1 s);
    // a branch that timed out waits a minute before it tries again.
    h = await startHarness({ config: { saleWaitMs: 0, vsdcTimeoutMs: 1_000, vsdcHostConnections: 1, filingRetryMs: 60_000 } });
  });
  after(() => h.close());

  test(
    'ten branches queue behind one slot longer than a lease: the ones still waiting hold unexpired leases',
    { timeout: 120_000 },
    async () => {
      const { merchant, branches } = await fleet(h, 10);
      h.sim.setLatency(600_000);
      await saleOnEach(h, merchant, branches);
      const devices = await h.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', merchant.tenantId).execute();
      const ids = devices.map((d) => d.id);
      // Seven calls timed out one after another: more than a lease (6 s) since the branches were claimed.
      await eventually(async () => {
        const deferred = await h.ctx.db
          .selectFrom('filing_queues')
          .select('device_id')
          .where('device_id', 'in', ids)
          .where('retry_delay_ms', 'is not', null)
          .execute();
        return deferred.length >= 7;
      }, 'seven branches deferred');
      const waiting = await h.ctx.db
        .selectFrom('filing_queues')
        .select(['device_id', (eb) => eb(eb.ref('lease_until'), '>', eb.fn<Date>('now', [])).as('live')])
        .where('device_id', 'in', ids)
        .where('lease_owner', 'is not', null)
        .execute();
      assert.ok(waiting.length > 0, 'some branches still wait for the slot');
      assert.ok(
        waiting.every((w) => w.live),
        `every waiting branch's lease is renewed while it waits: ${JSON.stringify(waiting)}`,
      );
      h.sim.setLatency(0);
    },
  );
});
