// A purchase captured by hand (POST /api/v1/purchases) against the real simulator: stored as a
// purchase accepted at once, filed with savePurchase regTyCd M (seen at the simulator), stock
// raised for the goods lines naming registered items; bad input refused with nothing stored; a
// supplier invoice captured once; an outage leaves the filing `sending` until the worker files it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { purchaseFilingWorker } from '../../../src/domain/feeds/purchases/worker.ts';
import { stockWorker } from '../../../src/domain/fiscal/stock/worker.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

const DAY_MS = 86_400_000;

describe(`purchases captured by hand (${engineName})`, () => {
  let h: Harness;
  let goods: string;
  let service: string;

  before(async () => {
    h = await startHarness({ workers: false });
    const item = async (name: string, itemTypeCode: string) =>
      expectStatus(await h.post('/api/v1/items', { name, itemClsCd: CLASS_CODE, itemTypeCode }), 201).data.itemCode as string;
    goods = await item('Maize 50kg bag', '2');
    service = await item('Transport', '3');
  });
  after(() => h.close());

  const saved = (merchant: Merchant, branch = '000') => h.sim.control.getDevice(merchant.tpin, branch)!.savedPurchases;
  const capture = (body: Record<string, unknown>, headers: Record<string, string> = {}, merchant = h.merchant) =>
    h.as(merchant).post('/api/v1/purchases', body, headers);
  const body = (overrides: Record<string, unknown> = {}, items: Array<Record<string, unknown>> = [{}]) => ({
    supplier: { name: 'Chanda Family Farm' },
    supplierInvoiceNo: '100',
    items: items.map((line) => ({ name: 'Maize 50kg bag', classificationCode: CLASS_CODE, quantity: 1, price: 116, ...line })),
    ...overrides,
  });
  const total = async (merchant = h.merchant) =>
    expectStatus(await h.as(merchant).get('/api/v1/purchases?source=manual'), 200).meta.total as number;

  test('captured: accepted at once, filed with regTyCd M, goods taken into stock through the chain, in the audit trail', async () => {
    const res = await capture(
      body({ supplierInvoiceNo: '0042', occurredAt: new Date(Date.now() - 3 * DAY_MS).toISOString() }, [
        { quantity: 20, price: 230, vatCategory: 'A', itemCode: goods },
        { name: 'Transport to store', quantity: 1, price: 150, itemCode: service },
        { name: 'Sacks (loose)', quantity: 3, price: 2.5, vatCategory: 'E' },
      ]),
    );
    const purchase = expectStatus(res, 201).data;
    assert.equal(purchase.source, 'manual');
    assert.equal(purchase.status, 'accepted');
    assert.ok(purchase.decidedAt);
    assert.equal(purchase.branch, '000');
    assert.deepEqual(purchase.supplier, { tpin: null, name: 'Chanda Family Farm', branch: null, invoiceNo: '0042', sdcId: null });
    assert.equal(typeof purchase.purchaseInvoiceNo, 'number');
    assert.equal(purchase.filing.state, 'accepted');
    assert.equal(purchase.filing.resultCode, '000');
    // The sale path's arithmetic: tax-inclusive prices, VAT A 16 %, E exempt.
    assert.deepEqual(purchase.totals, { itemCount: 3, taxableAmount: 4102.33, taxAmount: 655.17, amount: 4757.5 });
    assert.deepEqual(
      purchase.lines.map((l: Record<string, unknown>) => [
        l.itemName,
        l.vatCategory,
        l.quantity,
        l.unitPrice,
        l.taxableAmount,
        l.vatAmount,
        l.totalAmount,
        l.itemCode,
        l.mappedItemCode,
      ]),
      [
        ['Maize 50kg bag', 'A', 20, 230, 3965.52, 634.48, 4600, null, goods],
        ['Transport to store', 'A', 1, 150, 129.31, 20.69, 150, null, service],
        ['Sacks (loose)', 'E', 3, 2.5, 7.5, 0, 7.5, null, null],
      ],
    );

    const atAuthority = saved(h.merchant).find((p) => p.invcNo === purchase.purchaseInvoiceNo)!;
    assert.equal(atAuthority.regTyCd, 'M');
    assert.equal(atAuthority.pchsSttsCd, '02');
    assert.equal(atAuthority.spplrTpin, null);
    assert.equal(atAuthority.spplrNm, 'Chanda Family Farm');
    assert.equal(atAuthority.spplrInvcNo, 42);
    assert.equal(atAuthority.pchsDt, purchase.salesDate);
    assert.deepEqual(
      atAuthority.itemList.map((l) => [l.itemCd, l.itemNm, l.qty, l.totAmt]),
      [
        [goods, 'Maize 50kg bag', 20, 4600],
        [service, 'Transport', 1, 150],
        [null, 'Sacks (loose)', 3, 7.5],
      ],
    );
    assert.deepEqual([atAuthority.totTaxblAmt, atAuthority.totTaxAmt, atAuthority.totAmt], [4102.33, 655.17, 4757.5]);

    assert.deepEqual(expectStatus(await h.get(`/api/v1/purchases/${purchase.id}`), 200).data, purchase);
    const listed = expectStatus(await h.get('/api/v1/purchases?source=manual'), 200).data as Array<{ id: number }>;
    assert.ok(listed.some((p) => p.id === purchase.id));
    assert.equal(expectStatus(await h.get('/api/v1/purchases?source=pulled'), 200).meta.total, 0);

    // Stock: the goods line only (a service and a line without an item move none).
    assert.equal(expectStatus(await h.get(`/api/v1/stock?itemCode=${goods}`), 200).data[0].quantity, 20);
    assert.equal(expectStatus(await h.get(`/api/v1/stock?itemCode=${service}`), 200).data.length, 0);
    h.startWorkers([stockWorker]);
    try {
      const chain = await eventually(
        () => h.sim.control.calls(h.merchant.tpin, '000', 'saveStockItems').find((c) => c.request.sarTyCd === '02'),
        'the stock chain of the purchase',
      );
      assert.deepEqual(
        (chain.request.itemList as Array<{ itemCd: string; qty: number }>).map((l) => [l.itemCd, l.qty]),
        [[goods, 20]],
      );
      assert.equal(chain.request.custNm, 'Chanda Family Farm', 'the supplier is the counterparty');
    } finally {
      await h.stopWorkers();
    }

    const trail = expectStatus(await h.get('/api/v1/audit?action=purchase.captured'), 200).data as Array<{
      actor: { type: string };
      target: { type: string; id: string; name: string };
      details: Record<string, unknown>;
    }>;
    assert.equal(trail.length, 1);
    assert.equal(trail[0]!.actor.type, 'tenant_token');
    assert.deepEqual([trail[0]!.target.type, String(trail[0]!.target.id)], ['purchase', String(purchase.id)]);
    assert.match(trail[0]!.target.name, /Chanda Family Farm, invoice 0042/);
    assert.equal(trail[0]!.details.supplierInvoiceNo, '0042');
  });

  test('bad input and wrong credentials are refused, naming what to send; nothing is stored', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const other = await h.addMerchant();
    const foreign = expectStatus(
      await h.as(merchant).post('/api/v1/items', { name: 'Mine', itemClsCd: CLASS_CODE, itemCode: 'FOREIGN-1' }),
      201,
    ).data.itemCode as string;
    const before = await total();
    expectInvalid(await capture(body({}, [])), 'items');
    expectInvalid(await capture(body({}, [{ quantity: 0 }])), 'items.0.quantity');
    expectInvalid(await capture(body({}, [{ price: -1 }])), 'items.0.price');
    expectInvalid(await capture(body({}, [{ quantity: 1.23456 }])), 'items.0.quantity');
    expectInvalid(await capture(body({}, [{ quantity: 0.001, price: 1 }])), 'items.0.price');
    expectInvalid(await capture(body({ supplier: { name: 'X', tpin: '123' } })), 'supplier.tpin');
    expectInvalid(await capture(body({ supplierInvoiceNo: '  ' })), 'supplierInvoiceNo');
    expectInvalid(await capture(body({ occurredAt: new Date(Date.now() + DAY_MS).toISOString() })), 'occurredAt');
    expectInvalid(await capture(body({ occurredAt: new Date(Date.now() - 181 * DAY_MS).toISOString() })), 'occurredAt');
    const unknownItem = await capture(body({}, [{}, { itemCode: 'ZM2NTU9999999' }, { itemCode: foreign }]));
    expectInvalid(unknownItem, 'items.1.itemCode');
    expectInvalid(unknownItem, 'items.2.itemCode');
    assert.match(unknownItem.json().errors['items.2.itemCode'][0], new RegExp(foreign));
    expectCoded(await capture(body({}, [{ classificationCode: '99999999' }])), 422, 'unknown_classification_code');
    assert.equal(await total(), before, 'a refused capture stores nothing');

    // Credentials: none, another surface's, a read-only token; a merchant with no branch.
    const post = (headers: Record<string, string>) => h.t.inject({ method: 'POST', url: '/api/v1/purchases', headers, payload: body() });
    expectCoded(await post({}), 401, 'unauthenticated');
    expectCoded(await post(bearer(merchant.partnerSecret)), 401, 'unauthenticated');
    const readOnly = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${merchant.tenantId}/tokens`,
        headers: bearer(merchant.partnerSecret),
        payload: { name: 'Reports', abilities: ['invoices:read'] },
      }),
      201,
    );
    expectCoded(await post(bearer(readOnly.data.token)), 403, 'missing_ability');
    expectCoded(await capture(body(), {}, other), 422, 'no_device');
    expectCoded(await capture(body(), { 'x-branch': '009' }, merchant), 422, 'branch_not_found');
    assert.equal(await total(merchant), 0);
  });

  test('a supplier invoice is captured once per branch (TPIN, or name without one); numbers follow each other', async () => {
    const merchant = await h.addMerchant({ branches: ['000', '001'] });
    const first = expectStatus(await capture(body({ supplierInvoiceNo: 'inv-7' }), {}, merchant), 201).data;
    expectCoded(
      await capture(body({ supplier: { name: '  chanda   FAMILY farm ' }, supplierInvoiceNo: 'INV-7' }), {}, merchant),
      409,
      'purchase_already_captured',
    );
    const again = await capture(body({ supplierInvoiceNo: 'inv-7' }), {}, merchant);
    expectCoded(again, 409, 'purchase_already_captured');
    assert.match(again.json().error.message, new RegExp(`purchase ${first.id}`));
    const next = expectStatus(await capture(body({ supplierInvoiceNo: 'inv-8' }), {}, merchant), 201).data;
    assert.equal(next.purchaseInvoiceNo, first.purchaseInvoiceNo + 1, 'the refused capture used up no number');
    expectStatus(await capture(body({ supplierInvoiceNo: 'inv-7' }), { 'x-branch': '001' }, merchant), 201);

    const withTpin = body({ supplier: { name: 'Kafue Traders', tpin: '2000000004' }, supplierInvoiceNo: '55' });
    expectStatus(await capture(withTpin, {}, merchant), 201);
    expectCoded(
      await capture({ ...withTpin, supplier: { name: 'Kafue Traders Ltd', tpin: '2000000004' } }, {}, merchant),
      409,
      'purchase_already_captured',
    );
    const race = await Promise.all([
      capture(body({ supplierInvoiceNo: '9' }), {}, merchant),
      capture(body({ supplierInvoiceNo: '9' }), {}, merchant),
    ]);
    assert.deepEqual(race.map((r) => r.statusCode).sort(), [201, 409]);
    assert.equal(await total(merchant), 5);

    // A number that is not a whole number goes in the remark; the wire's spplrInvcNo is a number.
    const filed = saved(merchant).find((p) => p.invcNo === first.purchaseInvoiceNo)!;
    assert.equal(filed.spplrInvcNo, null);
    assert.equal(filed.remark, 'Supplier invoice inv-7');
    assert.equal(saved(merchant).find((p) => p.spplrTpin === '2000000004')!.spplrInvcNo, 55);
  });

  test('an unreachable VSDC leaves the filing sending; the worker files it when the VSDC is back', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const sending = expectStatus(await capture(body({ supplierInvoiceNo: '300' }), {}, merchant), 201).data;
    assert.equal(sending.status, 'accepted');
    assert.equal(sending.filing.state, 'sending');
    assert.ok(sending.filing.nextAttemptAt);
    assert.ok(sending.filing.lastError);
    assert.equal(saved(merchant).length, 0);

    h.sim.control.clearFaults(merchant.tpin, '000');
    h.startWorkers([(ctx) => purchaseFilingWorker(ctx, { pollMs: 50 })]);
    try {
      const filed = await eventually(async () => {
        const purchase = expectStatus(await h.as(merchant).get(`/api/v1/purchases/${sending.id}`), 200).data;
        return purchase.filing.state === 'accepted' ? purchase : undefined;
      }, 'the retried filing');
      assert.equal(filed.purchaseInvoiceNo, sending.purchaseInvoiceNo);
    } finally {
      await h.stopWorkers();
    }
    const atAuthority = saved(merchant);
    assert.deepEqual(
      atAuthority.map((p) => [p.invcNo, p.regTyCd, p.pchsSttsCd, p.spplrInvcNo]),
      [[sending.purchaseInvoiceNo, 'M', '02', 300]],
    );
  });
});
