// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pullDuePurchaseBranches } from '../../../src/domain/feeds/purchases/service.ts';
import { purchaseFilingWorker, purchasePullWorker } from '../../../src/domain/feeds/purchases/worker.ts';
import { claimDueBranchPulls } from '../../../src/domain/feeds/pulls/template.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { lastReqDtOf as pullRequestDate } from '../../../src/authorities/zra-vsdc/calls.ts';

const HOUR_MS = 3_600_000;
const SUPPLIER = { spplrTpin: '2000000004', spplrNm: 'Lusaka Wholesale Ltd', spplrBhfId: '000' };

describe(`purchases (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(async () => {
    await h.close();
  });

  const sim = (merchant: Merchant) => h.sim.control.getDevice(merchant.tpin, '000')!;
  const list = async (merchant: Merchant, query = '') => expectStatus(await h.as(merchant).get(`/api/v1/purchases${query}`), 200);
  const events = (tenantId: number) =>
    h.t.ctx.db
      .selectFrom('webhook_events')
      .select(['body'])
      .where('tenant_id', '=', tenantId)
      .where('type', '=', 'purchase.received')
      .orderBy('id')
      .execute();

  /** Makes every branch of the merchant due and runs one pull round. */
  async function pullNow(merchant: Merchant): Promise<void> {
    await h.t.ctx.db
      .updateTable('feed_pulls')
      .set({ next_pull_at: new Date(0) })
      .where('feed', '=', 'purchases')
      .where('device_id', 'in', h.t.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', merchant.tenantId))
      .execute();
    await pullDuePurchaseBranches(h.t.ctx, HOUR_MS);
  }

  /** A merchant with `count` purchases pulled (oldest first in `ids`). */
  async function merchantWithPurchases(
    count: number,
    seeded: Array<Record<string, unknown>> = [],
  ): Promise<{ merchant: Merchant; ids: number[] }> {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const given = Array.from({ length: count }, (_, i) => seeded[i] ?? { ...SUPPLIER, spplrInvcNo: 500 + i });
    h.sim.control.feedPurchases(merchant.tpin, '000', given);
    await pullDuePurchaseBranches(h.t.ctx, HOUR_MS);
    const page = await list(merchant);
    assert.equal(page.meta.total, count);
    return { merchant, ids: page.data.map((p: { id: number }) => p.id).reverse() };
  }

  test('the worker pulls each branch from the last resultDt; each purchase is stored once, as received, with one event', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    // The partner's endpoints: one subscribed to purchase.received, one with the default (invoice) events.
    const register = (events?: string[]) =>
      h.t.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { authorization: `Bearer ${merchant.partnerSecret}` },
        payload: { url: 'https://hooks.example.com/erp', ...(events ? { events } : {}) },
      });
    const subscribed = expectStatus(await register(['purchase.received']), 201).endpoint.id as number;
    expectStatus(await register(), 201);
    h.sim.control.feedPurchases(merchant.tpin, '000', [
      { ...SUPPLIER, spplrInvcNo: 71 },
      // Inconsistent, as real pulled data can be: stored all the same, flagged.
      { ...SUPPLIER, spplrInvcNo: '72', cfmDt: '2024-05-08 10:20:10', totAmt: 1, totItemCnt: 3 },
    ]);
    h.startWorkers([(ctx) => purchasePullWorker(ctx, { intervalMs: 300 })]);
    await eventually(async () => ((await list(merchant)).meta.total === 2 ? true : undefined), 'the first pull');

    const [second, first] = (await list(merchant)).data;
    assert.equal(first.branch, '000');
    assert.deepEqual(first.supplier, {
      tpin: '2000000004',
      name: 'Lusaka Wholesale Ltd',
      branch: '000',
      invoiceNo: '71',
      sdcId: 'SDC0010009001',
    });
    assert.equal(first.status, 'pending');
    assert.equal(first.filing.state, 'not_sent');
    assert.deepEqual(first.inconsistencies, []);
    assert.equal(first.lines.length, 1);
    assert.equal(first.lines[0].itemName, 'Cooking oil 5L');
    assert.equal(first.lines[0].quantity, 10);
    assert.equal(first.totals.amount, 1160);
    assert.equal(second.confirmedAt, '2024-05-08 10:20:10', 'kept as received');
    assert.equal(second.totals.amount, 1);
    assert.ok(
      second.inconsistencies.some((t: string) => t.startsWith('cfmDt')),
      JSON.stringify(second.inconsistencies),
    );
    assert.ok(second.inconsistencies.some((t: string) => t.startsWith('totAmt')));
    assert.ok(second.inconsistencies.some((t: string) => t.startsWith('totItemCnt')));
    assert.deepEqual(expectStatus(await h.as(merchant).get(`/api/v1/purchases/${first.id}`), 200).data, first);

    h.sim.control.feedPurchases(merchant.tpin, '000', [{ ...SUPPLIER, spplrInvcNo: 73 }]);
    await eventually(async () => ((await list(merchant)).meta.total === 3 ? true : undefined), 'the new purchase');
    await h.stopWorkers();

    const pulls = h.sim.control.calls(merchant.tpin, '000', 'selectTrnsPurchaseSales');
    assert.ok(pulls.length >= 2);
    assert.equal(pulls[0]!.request.lastReqDt, '20000101000000', 'the first pull fetches everything');
    for (let i = 1; i < pulls.length; i++)
      assert.equal(
        pulls[i]!.request.lastReqDt,
        pullRequestDate(pulls[i - 1]!.resultDt),
        "each pull starts one second before the previous answer's resultDt",
      );

    // Everything again from the start (a VSDC that resends, or a lost position): nothing doubles.
    await h.t.ctx.db
      .updateTable('feed_pulls')
      .set({ last_req_dt: null })
      .where('feed', '=', 'purchases')
      .where('device_id', 'in', h.t.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', merchant.tenantId))
      .execute();
    await pullNow(merchant);
    await pullNow(merchant);
    assert.equal((await list(merchant)).meta.total, 3, 'pulled again: no duplicates');

    const stored = await events(merchant.tenantId);
    assert.equal(stored.length, 3, 'one purchase.received per purchase');
    const envelope = JSON.parse(stored[0]!.body);
    assert.equal(envelope.event, 'purchase.received');
    assert.equal(envelope.data.purchase.id, first.id);
    assert.equal(envelope.data.purchase.supplier.invoiceNo, '71');
    const deliveries = await h.t.ctx.db
      .selectFrom('webhook_deliveries as w')
      .innerJoin('webhook_events as e', 'e.id', 'w.event_id')
      .select('w.endpoint_id')
      .where('e.tenant_id', '=', merchant.tenantId)
      .execute();
    assert.deepEqual(
      deliveries.map((d) => Number(d.endpoint_id)),
      [subscribed, subscribed, subscribed],
      'delivered to the subscribed endpoint only',
    );
  });

  test('levies and tax-exclusive prices add up: such a supplier document is not flagged', async () => {
    const tourism = {
      itemNm: 'Lodge night',
      qty: 1,
      prc: 1000,
      splyAmt: 1000,
      dcAmt: 0,
      vatCatCd: 'A',
      vatTaxblAmt: 862.07,
      vatAmt: 137.93,
      totAmt: 1000,
      tlCatCd: 'TL',
      tlTaxblAmt: 1000,
      tlAmt: 15,
    };
    const exclusive = {
      itemNm: 'Cement 50kg',
      qty: 10,
      prc: 100,
      splyAmt: 1000,
      dcAmt: 0,
      vatCatCd: 'A',
      vatTaxblAmt: 1000,
      vatAmt: 160,
      totAmt: 1000,
    };
    const { merchant } = await merchantWithPurchases(3, [
      { ...SUPPLIER, spplrInvcNo: 801, itemList: [tourism], totTaxblAmt: 1862.07, totTaxAmt: 152.93, totAmt: 1000 },
      { ...SUPPLIER, spplrInvcNo: 802, itemList: [exclusive], totTaxblAmt: 1000, totTaxAmt: 160, totAmt: 1160 },
      { ...SUPPLIER, spplrInvcNo: 803, itemList: [exclusive], totTaxblAmt: 1000, totTaxAmt: 15, totAmt: 990 },
    ]);
    const flagged = Object.fromEntries(
      (await list(merchant)).data.map((p: { supplier: { invoiceNo: string }; inconsistencies: string[] }) => [
        p.supplier.invoiceNo,
        p.inconsistencies,
      ]),
    );
    assert.deepEqual(flagged['801'], [], 'a tourism levy counts in the taxable and tax totals');
    assert.deepEqual(flagged['802'], [], 'a tax-exclusive total carries the VAT on top');
    assert.deepEqual(flagged['803'], ['totAmt 990 is not the sum of the lines (1000)', 'totTaxAmt 15 is not the sum of the lines (160)']);
  });

  test('a branch is claimed by one puller at a time; an unreachable VSDC defers the pull', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const [a, b] = await Promise.all([
      claimDueBranchPulls(h.t.ctx.db, h.t.ctx.secretBox, 'purchases', 60_000, 1000),
      claimDueBranchPulls(h.t.ctx.db, h.t.ctx.secretBox, 'purchases', 60_000, 1000),
    ]);
    assert.equal([...a!, ...b!].filter((p) => p.tenantId === merchant.tenantId).length, 1, 'two pullers never get the same branch');

    const other = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPurchases(other.tpin, '000', [{ ...SUPPLIER }]);
    h.sim.control.setFaults(other.tpin, '000', { down: true });
    await pullDuePurchaseBranches(h.t.ctx, HOUR_MS);
    assert.equal((await list(other)).meta.total, 0);
    h.sim.control.clearFaults(other.tpin, '000');
    await eventually(async () => {
      await pullDuePurchaseBranches(h.t.ctx, HOUR_MS);
      return (await list(other)).meta.total === 1 ? true : undefined;
    }, 'the retried pull');
  });

  test('accept (mapping a line to an item) files 02; reject files 04; answering twice is 409', async () => {
    const { merchant, ids } = await merchantWithPurchases(3);
    const m = h.as(merchant);
    const item = expectStatus(await m.post('/api/v1/items', { name: 'Cooking oil 5L', itemClsCd: CLASS_CODE }), 201).data;

    const accepted = expectStatus(
      await m.post(`/api/v1/purchases/${ids[0]}/accept`, { lines: [{ line: 1, itemCode: item.itemCode }], remark: 'Into store 2' }),
      200,
    ).data;
    assert.equal(accepted.status, 'accepted');
    assert.ok(accepted.decidedAt);
    assert.equal(accepted.answerRemark, 'Into store 2');
    assert.equal(accepted.lines[0].mappedItemCode, item.itemCode);
    assert.equal(accepted.filing.state, 'accepted');
    assert.equal(accepted.filing.resultCode, '000');
    assert.ok(accepted.filing.filedAt);
    assert.equal(typeof accepted.purchaseInvoiceNo, 'number');
    const saved = sim(merchant).savedPurchases.find((p) => p.invcNo === accepted.purchaseInvoiceNo)!;
    assert.equal(saved.pchsSttsCd, '02');
    assert.equal(saved.regTyCd, 'A');
    assert.equal(saved.spplrTpin, SUPPLIER.spplrTpin);
    assert.equal(saved.spplrInvcNo, 500);
    assert.equal(saved.itemList[0]!.itemCd, item.itemCode);
    assert.equal(saved.itemList[0]!.spplrItemCd, 'ZM2NTU0009000');
    assert.equal(saved.remark, 'Into store 2');
    assert.deepEqual(sim(merchant).purchases.find((p) => p.sale.spplrInvcNo === 500)!.answer, {
      invcNo: accepted.purchaseInvoiceNo,
      pchsSttsCd: '02',
    });

    const rejected = expectStatus(await m.post(`/api/v1/purchases/${ids[1]}/reject`), 200).data;
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.filing.state, 'accepted');
    assert.equal(rejected.purchaseInvoiceNo, accepted.purchaseInvoiceNo + 1, 'the branch numbers its purchases in order');
    assert.equal(sim(merchant).savedPurchases.find((p) => p.invcNo === rejected.purchaseInvoiceNo)!.pchsSttsCd, '04');

    expectCoded(await m.post(`/api/v1/purchases/${ids[0]}/accept`, {}), 409, 'purchase_already_answered');
    expectCoded(await m.post(`/api/v1/purchases/${ids[0]}/reject`, {}), 409, 'purchase_already_answered');
    expectCoded(await m.post(`/api/v1/purchases/${ids[1]}/accept`), 409, 'purchase_already_answered');

    const race = await Promise.all([
      m.post(`/api/v1/purchases/${ids[2]}/reject`, { reason: 'a' }),
      m.post(`/api/v1/purchases/${ids[2]}/accept`),
    ]);
    assert.deepEqual(race.map((r) => r.statusCode).sort(), [200, 409]);

    assert.deepEqual(expectStatus(await m.get(`/api/v1/purchases/${ids[0]}`), 200).data, accepted);
    assert.equal((await list(merchant, '?status=pending')).meta.total, 0);
    assert.equal((await list(merchant, '?status=rejected')).meta.total, race[0]!.statusCode === 200 ? 2 : 1);
    assert.equal((await list(merchant, '?filing=accepted')).meta.total, 3);
  });

  test('a refused filing keeps the answer, with the code; an unreachable VSDC is retried until it answers', async () => {
    const { merchant, ids } = await merchantWithPurchases(2);
    const m = h.as(merchant);
    h.sim.control.setFaults(merchant.tpin, '000', {
      reject: { count: 1, code: '999', message: 'Purchase closed', endpoints: ['savePurchase'] },
    });
    const refused = expectStatus(await m.post(`/api/v1/purchases/${ids[0]}/accept`), 200).data;
    assert.equal(refused.status, 'accepted');
    assert.equal(refused.filing.state, 'failed');
    assert.equal(refused.filing.resultCode, '999');
    assert.equal(refused.filing.message, 'Purchase closed');
    assert.equal(refused.filing.nextAttemptAt, null);
    assert.equal((await list(merchant, '?filing=failed')).meta.total, 1);

    h.sim.control.setFaults(merchant.tpin, '000', { reject: null, down: true });
    const sending = expectStatus(await m.post(`/api/v1/purchases/${ids[1]}/reject`, { reason: 'Not ordered by us' }), 200).data;
    assert.equal(sending.status, 'rejected');
    assert.equal(sending.filing.state, 'sending');
    assert.ok(sending.filing.nextAttemptAt);
    assert.ok(sending.filing.lastError);

    h.sim.control.clearFaults(merchant.tpin, '000');
    h.startWorkers([(ctx) => purchaseFilingWorker(ctx, { pollMs: 50 })]);
    const filed = await eventually(async () => {
      const purchase = expectStatus(await m.get(`/api/v1/purchases/${ids[1]}`), 200).data;
      return purchase.filing.state === 'accepted' ? purchase : undefined;
    }, 'the retried filing');
    await h.stopWorkers();
    assert.equal(filed.status, 'rejected');
    const saved = sim(merchant).savedPurchases.find((p) => p.invcNo === filed.purchaseInvoiceNo)!;
    assert.equal(saved.pchsSttsCd, '04');
    assert.equal(saved.remark, 'Not ordered by us');
    assert.equal(
      expectStatus(await m.get(`/api/v1/purchases/${ids[0]}`), 200).data.filing.state,
      'failed',
      'a refused filing is not retried',
    );
  });

  test('bad input is a clear 4xx and decides nothing', async () => {
    const { merchant, ids } = await merchantWithPurchases(1);
    const m = h.as(merchant);
    const draft = expectStatus(await m.post('/api/v1/items', { name: 'Cooking oil 5L', itemClsCd: CLASS_CODE }), 201).data;
    const url = `/api/v1/purchases/${ids[0]}/accept`;
    expectInvalid(await m.post(url, { lines: [{ line: 2, itemCode: draft.itemCode }] }), 'lines.0.line');
    expectInvalid(await m.post(url, { lines: [{ line: 1, itemCode: 'NOT-MINE' }] }), 'lines.0.itemCode');
    expectInvalid(
      await m.post(url, {
        lines: [
          { line: 1, itemCode: draft.itemCode },
          { line: 1, itemCode: draft.itemCode },
        ],
      }),
      'lines.1.line',
    );
    assert.equal((await m.post(url, { lines: [{ line: 0, itemCode: 'X' }] })).statusCode, 422);
    assert.equal((await m.post(url, { lines: [{ line: 1 }] })).statusCode, 422);
    assert.equal((await m.post(url, { itemCode: 'X' })).statusCode, 422);
    assert.equal((await m.post(`/api/v1/purchases/${ids[0]}/reject`, { reason: '' })).statusCode, 422);
    assert.equal((await m.post(`/api/v1/purchases/${ids[0]}/reject`, { remark: 'x' })).statusCode, 422);
    assert.equal((await m.get('/api/v1/purchases?status=open')).statusCode, 422);
    assert.equal(expectStatus(await m.get(`/api/v1/purchases/${ids[0]}`), 200).data.status, 'pending', 'a refused request decides nothing');
    assert.equal((await m.get('/api/v1/purchases/999999999')).statusCode, 404);
    assert.equal((await m.post('/api/v1/purchases/999999999/accept')).statusCode, 404);
    assert.equal((await m.get('/api/v1/purchases/abc')).statusCode, 404);
    expectInvalid(await m.post('/api/v1/purchases', { supplier: 'x' }), 'supplier');
  });

  test('purchases belong to the merchant; X-Branch narrows the list', async () => {
    const { merchant, ids } = await merchantWithPurchases(1);
    const other = h.as(await h.addMerchant({ branches: ['000'] }));
    assert.equal((await other.get(`/api/v1/purchases/${ids[0]}`)).statusCode, 404);
    assert.equal((await other.post(`/api/v1/purchases/${ids[0]}/accept`)).statusCode, 404);
    assert.equal((await other.post(`/api/v1/purchases/${ids[0]}/reject`)).statusCode, 404);
    assert.equal(expectStatus(await other.get('/api/v1/purchases'), 200).meta.total, 0);
    assert.equal(expectStatus(await h.as(merchant).get(`/api/v1/purchases/${ids[0]}`), 200).data.status, 'pending');
    assert.equal((await list(merchant, '')).meta.total, 1);
    assert.equal(expectStatus(await h.as(merchant).get('/api/v1/purchases', { 'x-branch': '000' }), 200).meta.total, 1);
    expectCoded(await h.as(merchant).get('/api/v1/purchases', { 'x-branch': '001' }), 422, 'branch_not_found');
  });

  test('an accepted purchase of goods raises stock: saveStockItems with sarTyCd 02 for the accepted lines', async () => {
    const { merchant, ids } = await merchantWithPurchases(1, [
      {
        ...SUPPLIER,
        spplrInvcNo: 900,
        itemList: [
          { itemNm: 'Cooking oil 5L', qty: 10, prc: 116, splyAmt: 1160, totAmt: 1160 },
          { itemNm: 'Delivery', qty: 1, prc: 50, splyAmt: 50, totAmt: 50 },
        ],
      },
    ]);
    const m = h.as(merchant);
    const goods = expectStatus(
      await m.post('/api/v1/items', { name: 'Cooking oil 5L', itemClsCd: CLASS_CODE, itemTypeCode: '2' }),
      201,
    ).data;
    const service = expectStatus(await m.post('/api/v1/items', { name: 'Delivery', itemClsCd: CLASS_CODE, itemTypeCode: '3' }), 201).data;
    h.startWorkers();
    try {
      expectStatus(
        await m.post(`/api/v1/purchases/${ids[0]}/accept`, {
          lines: [
            { line: 1, itemCode: goods.itemCode },
            { line: 2, itemCode: service.itemCode },
          ],
        }),
        200,
      );
      const movement = await eventually(
        () => h.sim.control.calls(merchant.tpin, '000', 'saveStockItems').find((c) => c.request.sarTyCd === '02'),
        'the stock chain of the purchase',
      );
      const lines = movement.request.itemList as Array<{ itemCd: string; qty: number }>;
      assert.deepEqual(
        lines.map((l) => [l.itemCd, l.qty]),
        [[goods.itemCode, 10]],
        'goods lines only, as accepted',
      );
      assert.equal(movement.request.custTpin, SUPPLIER.spplrTpin, 'the supplier is the counterparty');
    } finally {
      await h.stopWorkers();
    }
  });
});
