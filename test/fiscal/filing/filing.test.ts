// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { filingWorker } from '../../../src/domain/fiscal/filing/worker.ts';
import { buildZraSaleBody } from '../../../src/authorities/zra-vsdc/sales-body.ts';
import { engineName } from '../../helpers/db.ts';
import { assertArrivalOrder, CLASS_CODE, saleBody, startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { directVsdcCall } from '../../authorities/zra/helpers.ts';

interface Sale {
  id: number;
  invoiceNo: number;
  status: string;
  resultCode: string | null;
  lastError: string | null;
  fiscal: Record<string, unknown>;
  fiscalisedAt: string;
}

async function readSale(h: Harness, id: number, merchant?: Merchant): Promise<Sale> {
  return (await h.get(`/api/v1/sales/${id}`, {}, merchant)).json().data;
}

function settled(h: Harness, id: number, merchant?: Merchant): Promise<Sale> {
  return eventually(async () => {
    const sale = await readSale(h, id, merchant);
    return sale.status !== 'pending' ? sale : undefined;
  }, `sale ${id} filed or failed`);
}

async function uploaded(h: Harness, id: number, merchant?: Merchant): Promise<Sale> {
  const sale = await settled(h, id, merchant);
  assert.equal(sale.status, 'uploaded', sale.lastError ?? '');
  return sale;
}

/** The webhook events recorded for a sale, oldest first. */
async function eventsOf(h: Harness, saleId: number): Promise<Array<{ event: string; invoice: Sale }>> {
  const rows = await h.ctx.db
    .selectFrom('webhook_events')
    .select(['body'])
    .where('tenant_id', '=', h.merchant.tenantId)
    .orderBy('id')
    .execute();
  return rows
    .map((r) => JSON.parse(r.body) as { event: string; data: { invoice: Sale } })
    .filter((e) => e.data.invoice.id === saleId)
    .map((e) => ({ event: e.event, invoice: e.data.invoice }));
}

function assertNotFiled(sale: Sale): void {
  assert.equal(sale.status, 'pending');
  assert.equal(sale.resultCode, null);
  assert.ok(
    Object.values(sale.fiscal).every((v) => v === null),
    `every fiscal field is null: ${JSON.stringify(sale.fiscal)}`,
  );
}

describe(`filing: order and faults (${engineName})`, () => {
  let h: Harness;
  const faults = (f: Record<string, unknown>) => h.sim.control.setFaults(h.merchant.tpin, '000', f);
  const clear = () => h.sim.control.clearFaults(h.merchant.tpin, '000');
  const filings = (invoiceNo: number) => h.received(h.merchant).filter((d) => d.cisInvcNo === String(invoiceNo));

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 500 } });
  });
  after(() => h.close());

  test('50 concurrent sales on one branch get gap-free numbers and reach the VSDC one by one in that order', async () => {
    const start = h.received(h.merchant).length;
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => h.post('/api/v1/sales', saleBody({}, [{ price: 10 + i }]))));
    for (const res of responses) assert.equal(res.statusCode, 201, res.body);
    const numbers = responses.map((r) => r.json().data.invoiceNo as number).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 50 }, (_, i) => numbers[0]! + i),
      'gap-free',
    );
    for (const res of responses) await uploaded(h, res.json().data.id);
    const arrived = h
      .received(h.merchant)
      .slice(start)
      .map((d) => Number(d.cisInvcNo));
    assert.deepEqual(arrived, numbers, 'each once, strictly increasing');
  });

  test('VSDC down: the sale is pending with every fiscal field null, then uploaded once with an event', async () => {
    faults({ down: true });
    const res = await h.post('/api/v1/sales', saleBody());
    assert.equal(res.statusCode, 201);
    const pending: Sale = res.json().data;
    assertNotFiled(pending);
    assert.equal(pending.lastError, null);
    assert.ok(pending.fiscalisedAt, 'fiscalisedAt is set even while pending');
    assert.deepEqual(await eventsOf(h, pending.id), []);
    clear();
    const sale = await uploaded(h, pending.id);
    assert.equal(sale.resultCode, '000');
    assert.equal(filings(sale.invoiceNo).filter((d) => d.receipt).length, 1);
    const events = await eventually(async () => ((await eventsOf(h, sale.id)).length > 0 ? eventsOf(h, sale.id) : undefined), 'event');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.event, 'invoice.fiscalised');
    assert.deepEqual(events[0]!.invoice, sale, 'the event carries the full sale resource');
  });

  test('838 (authority unreachable at the VSDC) keeps the sale pending until it is not', async () => {
    faults({ forcedResult: '838' });
    const res = await h.post('/api/v1/sales', saleBody());
    assertNotFiled(res.json().data);
    clear();
    await uploaded(h, res.json().data.id);
  });

  test('an HTML 404 (VSDC application missing) is an outage, not an answer', async () => {
    faults({ html404: true });
    const res = await h.post('/api/v1/sales', saleBody());
    assertNotFiled(res.json().data);
    clear();
    await uploaded(h, res.json().data.id);
  });

  test('a reply lost after filing: the retry meets 924 and adopts the receipt the VSDC issued', async () => {
    faults({ loseReplies: 1 });
    const res = await h.post('/api/v1/sales', saleBody({}, [{ price: 42.5 }]));
    const sale = await uploaded(h, res.json().data.id);
    const arrivals = filings(sale.invoiceNo);
    assert.deepEqual(
      arrivals.map((d) => [d.resultCd, d.replyLost]),
      [
        ['000', true],
        ['924', false],
      ],
    );
    assert.equal(sale.fiscal.receiptNo, arrivals[0]!.receipt!.rcptNo, 'the first (lost) receipt is adopted');
    assert.equal(sale.fiscal.receiptSignature, arrivals[0]!.receipt!.rcptSign);
  });

  test('924 with a different total: failed with the mismatch, and the branch carries on', async () => {
    const device = await h.ctx.db
      .selectFrom('devices')
      .select(['next_invoice_no', 'vsdc_base_url'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('branch', '=', '000')
      .executeTakeFirstOrThrow();
    const squatter = buildZraSaleBody({
      tpin: h.merchant.tpin,
      bhfId: '000',
      invoiceNo: device.next_invoice_no,
      receiptType: 'S',
      customer: { tpin: null, name: 'Someone else' },
      paymentMethod: '01',
      occurredAt: new Date(),
      taxInclusive: true,
      currency: 'ZMW',
      lines: [{ name: 'Other', classificationCode: CLASS_CODE, quantity: 1, price: 999, vatCategory: 'A' }],
    });
    const direct = await directVsdcCall((vsdc) =>
      vsdc.saveSales({ baseUrl: device.vsdc_base_url, tpin: h.merchant.tpin, bhfId: '000' }, squatter),
    );
    assert.equal(direct.kind, 'ok');

    const clash = await h.post('/api/v1/sales', saleBody({}, [{ price: 116 }]));
    const failed = await settled(h, clash.json().data.id);
    assert.equal(failed.invoiceNo, device.next_invoice_no);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.resultCode, '924');
    assert.match(failed.lastError ?? '', /different total/);
    assert.ok(Object.values(failed.fiscal).every((v) => v === null));
    const events = await eventsOf(h, failed.id);
    assert.deepEqual(
      events.map((e) => [e.event, e.invoice.status]),
      [['invoice.failed', 'failed']],
    );

    const next = await h.post('/api/v1/sales', saleBody());
    await uploaded(h, next.json().data.id);
  });

  test("rejections: the next N documents fail with the authority's code and text; the ones behind them are filed", async () => {
    faults({ reject: { count: 2, code: '910', message: 'Request parameter error' } });
    const results: Sale[] = [];
    for (let i = 0; i < 3; i++) results.push(await settled(h, (await h.post('/api/v1/sales', saleBody())).json().data.id));
    for (const failed of results.slice(0, 2)) {
      assert.equal(failed.status, 'failed');
      assert.equal(failed.resultCode, '910');
      assert.equal(failed.lastError, 'Request parameter error');
      assert.equal(failed.fiscal.publishedAt, null);
      assert.ok(failed.fiscalisedAt);
      const events = await eventsOf(h, failed.id);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.event, 'invoice.failed');
      assert.deepEqual(events[0]!.invoice, failed);
    }
    assert.equal(results[2]!.status, 'uploaded');
    assert.deepEqual(
      results.map((r) => r.invoiceNo),
      [results[0]!.invoiceNo, results[0]!.invoiceNo + 1, results[0]!.invoiceNo + 2],
    );
  });

  test("one branch's outage does not hold up another branch", async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    await h.registerBranch(m, '001');
    h.sim.control.setFaults(m.tpin, '000', { down: true });
    const stuck = await h.post('/api/v1/sales', saleBody(), {}, m);
    const online = await h.post('/api/v1/sales', saleBody(), { 'x-branch': '001' }, m);
    await uploaded(h, online.json().data.id, m);
    assertNotFiled(await readSale(h, stuck.json().data.id, m));
    h.sim.control.clearFaults(m.tpin, '000');
    await uploaded(h, stuck.json().data.id, m);
  });
});

describe(`filing: a VSDC slower than VSDC_TIMEOUT_MS (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { vsdcTimeoutMs: 400, saleWaitMs: 200 } });
  });
  after(() => h.close());

  test('a reply later than the timeout is an outage: pending; the VSDC files it anyway, the resend meets 924 and the gateway adopts the filed invoice, once', async () => {
    const filings = (invoiceNo: number) => h.received(h.merchant).filter((d) => d.cisInvcNo === String(invoiceNo) && d.receipt);
    h.sim.control.setFaults(h.merchant.tpin, '000', { delayMs: 1_500 });
    const res = await h.post('/api/v1/sales', saleBody());
    const pending: Sale = res.json().data;
    assertNotFiled(pending);
    await eventually(
      async () =>
        (await h.ctx.db.selectFrom('filing_queues').select('last_error').executeTakeFirst())?.last_error?.startsWith('timeout')
          ? true
          : undefined,
      "the timeout recorded as the branch's last error",
    );
    // A real VSDC finishes a request whose caller went away: the abandoned call files the sale.
    await eventually(() => filings(pending.invoiceNo).length === 1, 'the abandoned call filed by the VSDC');
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    await uploaded(h, pending.id);
    assert.equal(filings(pending.invoiceNo).length, 1, 'filed once');
    const calls = h.sim.control.calls(h.merchant.tpin, '000').map((c) => `${c.endpoint} ${c.resultCd}`);
    assert.ok(calls.includes('saveSales 924') && calls.includes('selectInvoice 000'), `924 then selectInvoice: ${calls.join(', ')}`);
  });
});

describe(`filing: a backlog of 500 while the VSDC is down (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 0, filingRetryMs: 50 } });
  });
  after(() => h.close());

  test('all 500 are accepted as pending, then uploaded in invoice order, once; a new sale goes to the back', async () => {
    await h.sim.stopListening(); // connection refused, for every device
    const ids: number[] = [];
    for (let chunk = 0; chunk < 20; chunk++) {
      const responses = await Promise.all(
        Array.from({ length: 25 }, (_, i) => h.post('/api/v1/sales', saleBody({}, [{ price: 1 + chunk * 25 + i }]))),
      );
      for (const res of responses) {
        assert.equal(res.statusCode, 201);
        assertNotFiled(res.json().data);
        ids.push(res.json().data.id);
      }
    }
    assert.equal(h.received(h.merchant).length, 0);

    await h.sim.startListening();
    const late = await h.post('/api/v1/sales', saleBody({}, [{ price: 9999 }]));
    const lateNo: number = late.json().data.invoiceNo;
    assert.equal(lateNo, 501);

    await eventually(
      async () => {
        const row = await h.ctx.db
          .selectFrom('sales')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'uploaded')
          .where('tenant_id', '=', h.merchant.tenantId)
          .executeTakeFirstOrThrow();
        return Number(row.n) === 501 ? true : undefined;
      },
      'the backlog drained',
      60_000,
    );

    const arrived = h.received(h.merchant).map((d) => Number(d.cisInvcNo));
    assert.deepEqual(
      arrived,
      Array.from({ length: 501 }, (_, i) => i + 1),
      'every document once, in invoice order, the late sale last',
    );
    assert.ok(h.received(h.merchant).every((d) => d.resultCd === '000'));
    const events = await h.ctx.db
      .selectFrom('webhook_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('type', '=', 'invoice.fiscalised')
      .executeTakeFirstOrThrow();
    assert.equal(Number(events.n), 501);
    assertArrivalOrder(arrived);
  });
});

describe(`filing: a long backlog takes turns with other branches (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    // One branch at a time, so the second branch can only get in if the first gives its turn up.
    // The VSDC timeout outlasts any hold below, so a held call is never resent.
    h = await startHarness({ config: { filingConcurrency: 1, saleWaitMs: 0, vsdcTimeoutMs: 120_000 } });
  });
  after(() => h.close());

  test('a sale on another branch is filed after at most one more batch of the backlog, not after all of it', async () => {
    // BATCH_SIZE of filing/filer.ts: a turn files at least this many documents, then gives the
    // branch back at the next batch boundary if another branch waits.
    const BATCH = 25;
    const m = await h.addMerchant({ branches: ['000', '001'] });
    // Branch 000's VSDC holds every reply until the test lowers the switch.
    h.sim.control.setFaults(m.tpin, '000', { delayMs: 600_000 });
    const backlog = await Promise.all(
      Array.from({ length: 60 }, (_, i) => h.post('/api/v1/sales', saleBody({}, [{ price: 1 + i }]), {}, m)),
    );
    const backlogIds = new Set(backlog.map((res) => res.json().data.id as number));
    await eventually(() => h.sim.held(m.tpin, '000') === 1, "branch 000's first document to reach its VSDC");

    // Branch 000 holds the only filing slot, its first document held at the VSDC: the live sale waits.
    const live = (await h.post('/api/v1/sales', saleBody(), { 'x-branch': '001' }, m)).json().data as Sale;
    assert.equal(live.status, 'pending');
    h.sim.control.setFaults(m.tpin, '000', { delayMs: 0 });
    await uploaded(h, live.id, m);

    // Outcomes are recorded one at a time here, so the events' order is the filing order.
    const filedOrder = await eventually(async () => {
      const rows = await h.ctx.db
        .selectFrom('webhook_events')
        .select('body')
        .where('tenant_id', '=', m.tenantId)
        .where('type', '=', 'invoice.fiscalised')
        .orderBy('id')
        .execute();
      return rows.length === 61 && rows.map((r) => (JSON.parse(r.body) as { data: { invoice: Sale } }).data.invoice.id);
    }, 'every document filed');
    const backlogBefore = filedOrder.indexOf(live.id);
    assert.ok(
      backlogBefore >= BATCH && backlogBefore < 2 * BATCH,
      `the live sale was filed after ${backlogBefore} of the backlog's 60 documents`,
    );
    assert.ok(filedOrder.slice(0, backlogBefore).every((id) => backlogIds.has(id)));
    assert.deepEqual(
      h.received(m, '000').map((d) => Number(d.cisInvcNo)),
      Array.from({ length: 60 }, (_, i) => i + 1),
      'each document once, in invoice order',
    );
  });
});

describe(`filing: stopping cuts a VSDC call that outlasts the grace (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 0, vsdcTimeoutMs: 120_000 }, workers: false });
  });
  after(() => h.close());

  // Without the cut, stop() would wait for the VSDC's hold (longer than the test's timeout).
  test(
    'stop() cuts the held call; the document stays pending, nothing is filed, and a restarted worker files it once',
    { timeout: 60_000 },
    async () => {
      const workers = [(ctx: Harness['ctx']) => filingWorker(ctx, { stopGraceMs: 100 })];
      const m = await h.addMerchant({ branches: ['000'] });
      // The cut call is dropped by the VSDC here (a call the VSDC finishes anyway is the timeout test's).
      h.sim.control.setFaults(m.tpin, '000', { delayMs: 600_000, dropAbandoned: true });
      h.startWorkers(workers);
      const sale = (await h.post('/api/v1/sales', saleBody(), {}, m)).json().data as Sale;
      await eventually(() => h.sim.held(m.tpin, '000') === 1, 'the sale held at the VSDC');

      await h.stopWorkers();
      await eventually(() => h.sim.held(m.tpin, '000') === 0, 'the VSDC to see the call given up');
      h.sim.control.clearFaults(m.tpin, '000');
      assert.equal((await readSale(h, sale.id, m)).status, 'pending');
      assert.equal(h.received(m).length, 0, 'the cut call filed nothing');

      h.startWorkers(workers);
      await uploaded(h, sale.id, m);
      assert.deepEqual(
        h.received(m).map((d) => Number(d.cisInvcNo)),
        [sale.invoiceNo],
        'filed once, after the restart',
      );
    },
  );
});
