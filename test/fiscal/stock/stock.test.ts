// Stock against the real simulator: a filed sale or credit note of goods is followed by exactly
// one stock chain (saveStockItems, then saveStockMaster with what remains), in the branch's order;
// an outage after the filing delays it, a refusal fails only that movement, a lost master is
// resent alone; services, debit notes and a tracking switched off send none; adjustments.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { filingWorker } from '../../../src/domain/fiscal/filing/worker.ts';
import { bookPlainBranches } from '../../../src/domain/fiscal/stock/booking.ts';
import { stockWorker } from '../../../src/domain/fiscal/stock/worker.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

const GOODS = 'GOODS-1';
const OTHER_GOODS = 'GOODS-2';
const SERVICE = 'SERVICE-1';

interface StockCall {
  endpoint: string;
  request: Record<string, unknown>;
  resultCd: string;
}

describe(`stock (${engineName})`, () => {
  let h: Harness;
  const calls = (): StockCall[] => h.sim.control.calls(h.merchant.tpin, '000') as unknown as StockCall[];
  const chainCalls = () => calls().filter((c) => c.endpoint === 'saveStockItems' || c.endpoint === 'saveStockMaster');
  const itemsCallsFor = (sarNo: number) => calls().filter((c) => c.endpoint === 'saveStockItems' && c.request.sarNo === sarNo);
  const sale = async (itemCode: string | null, quantity: number, extra: Record<string, unknown> = {}) =>
    expectStatus(
      await h.post('/api/v1/sales', {
        items: [{ name: `Line ${itemCode}`, classificationCode: CLASS_CODE, itemCode, quantity, price: 10 }],
        ...extra,
      }),
      201,
    ).data;
  const stockOf = async (id: number) => expectStatus(await h.get(`/api/v1/sales/${id}`), 200).data.stock;
  const settled = (id: number, state: string) =>
    eventually(async () => {
      const stock = await stockOf(id);
      return stock.state === state ? stock : undefined;
    }, `document ${id}'s stock ${state}`);
  const level = async (itemCode: string) => {
    const page = expectStatus(await h.get(`/api/v1/stock?itemCode=${itemCode}`), 200);
    return page.data.length === 0 ? undefined : page.data[0].quantity;
  };
  const movementOf = async (kind: string, id: number) => {
    const page = expectStatus(await h.get('/api/v1/stock/movements'), 200);
    return (page.data as Array<{ source: { kind: string; id: number }; sarNo: number; chain: { state: string } }>).find(
      (m) => m.source.kind === kind && m.source.id === id,
    );
  };

  before(async () => {
    h = await startHarness();
    for (const [itemCode, itemTypeCode] of [
      [GOODS, '2'],
      [OTHER_GOODS, '1'],
      [SERVICE, '3'],
    ]) {
      expectStatus(await h.post('/api/v1/items', { name: itemCode, itemClsCd: CLASS_CODE, itemCode, itemTypeCode, defaultPrice: 10 }), 201);
    }
  });
  after(() => h.close());

  test('opening stock, then a goods sale: exactly one chain after the sale is filed, in order, with what remains', async () => {
    const opening = expectStatus(
      await h.post('/api/v1/stock/adjustments', {
        movementType: '06',
        items: [{ itemCode: GOODS, quantity: 100 }],
        remark: 'Opening stock',
      }),
      201,
    ).data;
    assert.equal(opening.direction, 'in');
    assert.deepEqual(opening.items, [{ itemCode: GOODS, quantity: 100, unitPrice: 10, remaining: 100 }]);
    assert.equal(opening.source.kind, 'adjustment');
    await eventually(
      async () => expectStatus(await h.get(`/api/v1/stock/movements/${opening.id}`), 200).data.chain.state === 'sent',
      'the opening stock sent',
    );

    const s = await sale(GOODS, 3);
    assert.equal(s.status, 'uploaded');
    assert.equal(s.stock.state, 'pending');
    const stock = await settled(s.id, 'sent');
    assert.deepEqual(stock, { state: 'sent', resultCode: '000', message: null });
    assert.equal(await level(GOODS), 97);

    const movement = (await movementOf('sale', s.id))!;
    const log = calls();
    const filed = log.findIndex((c) => c.endpoint === 'saveSales' && c.request.cisInvcNo === String(s.invoiceNo));
    const items = log.findIndex((c) => c.endpoint === 'saveStockItems' && c.request.sarNo === movement.sarNo);
    const master = log.findIndex((c, i) => i > items && c.endpoint === 'saveStockMaster');
    assert.ok(
      filed >= 0 && filed < items && items < master,
      `saveSales (${filed}) → saveStockItems (${items}) → saveStockMaster (${master})`,
    );
    assert.equal(itemsCallsFor(movement.sarNo).length, 1, 'one saveStockItems');
    const request = log[items]!.request as {
      sarTyCd: string;
      regTyCd: string;
      itemList: Array<{ itemCd: string; qty: number; totDcAmt: number }>;
    };
    assert.equal(request.sarTyCd, '11');
    assert.equal(request.regTyCd, 'A');
    assert.deepEqual(
      request.itemList.map((l) => [l.itemCd, l.qty, l.totDcAmt]),
      [[GOODS, 3, 0]],
    );
    assert.deepEqual(log[master]!.request.stockItemList, [{ itemCd: GOODS, rsdQty: 97 }]);
    assert.equal(h.sim.control.getDevice(h.merchant.tpin, '000')!.stockLevels[GOODS]!.rsdQty, 97);
    assert.equal(
      log.filter((c) => c.endpoint === 'saveSales' && c.request.cisInvcNo === String(s.invoiceNo)).length,
      1,
      'the sale filed once',
    );
  });

  test('a credit note returns stock (03); a debit note, a service line and a line without an item send none', async () => {
    const s = await sale(GOODS, 2);
    await settled(s.id, 'sent');
    const before = await level(GOODS);
    const note = expectStatus(
      await h.post(`/api/v1/sales/${s.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 1 }] }),
      201,
    ).data;
    await settled(note.id, 'sent');
    assert.equal(await level(GOODS), before + 1);
    const movement = (await movementOf('credit_note', note.id))!;
    assert.equal(itemsCallsFor(movement.sarNo)[0]!.request.sarTyCd, '03');

    const chainBefore = chainCalls().length;
    const debit = expectStatus(
      await h.post(`/api/v1/sales/${s.id}/debit-note`, {
        reasonCode: '01',
        items: [{ name: 'Price correction', classificationCode: CLASS_CODE, itemCode: GOODS, quantity: 1, price: 1 }],
      }),
      201,
    ).data;
    const service = await sale(SERVICE, 1);
    const plain = await sale(null, 1);
    assert.equal(plain.stock.state, 'not_applicable');
    // A later goods sale is booked after them: once it is sent, they were passed over.
    const later = await sale(GOODS, 1);
    await settled(later.id, 'sent');
    for (const doc of [debit, service, plain]) assert.equal((await stockOf(doc.id)).state, 'not_applicable', `${doc.type} ${doc.id}`);
    assert.equal(chainCalls().length, chainBefore + 2, "only the later sale's chain");
    // The list reads stock only for documents naming an item: each shows what its own read shows.
    const listed = expectStatus(await h.get('/api/v1/sales'), 200).data as { id: number; stock: { state: string } }[];
    for (const doc of [s, note, debit, service, plain, later]) {
      assert.deepEqual(listed.find((d) => d.id === doc.id)?.stock, await stockOf(doc.id), `listed ${doc.type} ${doc.id}`);
    }
    assert.deepEqual(new Set(listed.map((d) => d.stock.state)), new Set(['sent', 'not_applicable']));
  });

  test('the VSDC down after the sale is filed: the chain waits, then is sent once; the sale is never resent', async (t) => {
    t.after(async () => {
      h.sim.control.clearFaults(h.merchant.tpin, '000');
      await h.stopWorkers();
      h.startWorkers();
    });
    await h.stopWorkers();
    h.startWorkers([filingWorker]);
    const s = await sale(GOODS, 1);
    assert.equal(s.status, 'uploaded');
    await h.stopWorkers();
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    h.startWorkers([(ctx) => stockWorker(ctx)]);
    await eventually(async () => {
      const row = await h.ctx.db
        .selectFrom('stock_branches as b')
        .innerJoin('devices as d', 'd.id', 'b.device_id')
        .select(['b.retry_delay_ms', 'b.last_error'])
        .where('d.tenant_id', '=', h.merchant.tenantId)
        .executeTakeFirst();
      return row?.retry_delay_ms !== null && row?.last_error !== null;
    }, 'the chain deferred');
    assert.equal((await stockOf(s.id)).state, 'pending');
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    await settled(s.id, 'sent');
    const movement = (await movementOf('sale', s.id))!;
    assert.equal(itemsCallsFor(movement.sarNo).length, 1);
    assert.equal(
      calls().filter((c) => c.endpoint === 'saveSales' && c.request.cisInvcNo === String(s.invoiceNo)).length,
      1,
      'the sale filed once',
    );
  });

  test('a refused saveStockItems fails that movement only; a lost saveStockMaster reply resends the master alone', async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', {
      reject: { count: 1, code: '910', message: 'Refused for the test', endpoints: ['saveStockItems'] },
    });
    const refused = await sale(GOODS, 1);
    const stock = await settled(refused.id, 'failed');
    assert.deepEqual(stock, { state: 'failed', resultCode: '910', message: 'Refused for the test' });

    h.sim.control.setFaults(h.merchant.tpin, '000', { loseReplies: { count: 1, endpoints: ['saveStockMaster'] } });
    const next = await sale(GOODS, 1);
    await settled(next.id, 'sent');
    const movement = (await movementOf('sale', next.id))!;
    const log = calls();
    const items = log.findIndex((c) => c.endpoint === 'saveStockItems' && c.request.sarNo === movement.sarNo);
    assert.equal(itemsCallsFor(movement.sarNo).length, 1, 'the items are not resent');
    assert.ok(log.slice(items).filter((c) => c.endpoint === 'saveStockMaster').length >= 2, 'the master was sent again');
    h.sim.control.clearFaults(h.merchant.tpin, '000');
  });

  test('tracking off: no chain for sales and adjustments are refused; the partner turns it back on', async () => {
    const before = await level(GOODS);
    assert.deepEqual(expectStatus(await h.as(h.merchant).patch('/api/v1/stock/settings', { stockTracking: false }), 200).data, {
      stockTracking: false,
    });
    assert.equal(expectStatus(await h.get('/api/v1/me'), 200).data.stockTracking, false);
    const chainBefore = chainCalls().length;
    const s = await sale(GOODS, 1);
    // Tracking is read when the document is booked: wait until its branch was booked past it.
    await eventually(async () => {
      const branch = await h.ctx.db
        .selectFrom('stock_branches')
        .select('booked_invoice_no')
        .where(
          'device_id',
          '=',
          (await h.ctx.db.selectFrom('sales').select('device_id').where('id', '=', s.id).executeTakeFirstOrThrow()).device_id,
        )
        .executeTakeFirstOrThrow();
      return Number(branch.booked_invoice_no) >= s.invoiceNo;
    }, 'the sale booked');
    assert.equal((await stockOf(s.id)).state, 'not_applicable');
    expectCoded(
      await h.post('/api/v1/stock/adjustments', { movementType: '06', items: [{ itemCode: GOODS, quantity: 1 }] }),
      409,
      'stock_tracking_off',
    );
    assert.equal(await level(GOODS), before);

    const partner = await h.t.inject({
      method: 'PATCH',
      url: `/api/v1/tenants/${h.merchant.tenantId}`,
      headers: bearer(h.merchant.partnerSecret),
      payload: { stockTracking: true },
    });
    assert.equal(expectStatus(partner, 200).data.stockTracking, true);
    assert.deepEqual(expectStatus(await h.get('/api/v1/stock/settings'), 200).data, { stockTracking: true });
    const after = await sale(GOODS, 1);
    await settled(after.id, 'sent');
    assert.equal(chainCalls().length, chainBefore + 2);
  });

  test('another branch, whose VSDC numbered its invoices from 101: its own sarNo sequence and levels', async () => {
    h.sim.control.presetDevice(h.merchant.tpin, '001', { lastSaleInvcNo: 100 });
    await h.registerBranch(h.merchant, '001');
    const branch = { 'x-branch': '001' };
    expectStatus(await h.post('/api/v1/items', { name: 'Branch goods', itemClsCd: CLASS_CODE, itemCode: 'GOODS-001' }, branch), 201);
    const s = expectStatus(
      await h.post(
        '/api/v1/sales',
        { items: [{ name: 'Branch goods', classificationCode: CLASS_CODE, itemCode: 'GOODS-001', quantity: 2, price: 10 }] },
        branch,
      ),
      201,
    ).data;
    assert.equal(s.invoiceNo, 101);
    await settled(s.id, 'sent');
    const movement = (await movementOf('sale', s.id))! as { sarNo: number; branch?: string };
    assert.equal(movement.sarNo, 1, "the branch's own sequence");
    assert.equal(h.sim.control.getDevice(h.merchant.tpin, '001')!.stockLevels['GOODS-001']!.rsdQty, -2);
    const levels = expectStatus(await h.get('/api/v1/stock?itemCode=GOODS-001', branch), 200);
    assert.deepEqual(
      levels.data.map((l: { branch: string; quantity: number }) => [l.branch, l.quantity]),
      [['001', -2]],
    );
  });

  test('several branches booked by one statement: what moves no stock is booked at once, a goods sale is left to its transaction', async (t) => {
    t.after(async () => {
      await h.stopWorkers();
      h.startWorkers();
    });
    await h.stopWorkers();
    h.startWorkers([filingWorker]);
    const plain = await sale(null, 1);
    const goods = expectStatus(
      await h.post(
        '/api/v1/sales',
        { items: [{ name: 'Branch goods', classificationCode: CLASS_CODE, itemCode: 'GOODS-001', quantity: 1, price: 10 }] },
        { 'x-branch': '001' },
      ),
      201,
    ).data;
    assert.deepEqual([plain.status, goods.status], ['uploaded', 'uploaded']);
    await h.stopWorkers();
    const devices = await h.ctx.db
      .selectFrom('devices')
      .select(['id', 'branch'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('branch', 'in', ['000', '001'])
      .execute();
    const deviceOf = (branch: string) => Number(devices.find((d) => d.branch === branch)!.id);
    const booked = async (branch: string) =>
      Number(
        (
          await h.ctx.db
            .selectFrom('stock_branches')
            .select('booked_invoice_no')
            .where('device_id', '=', deviceOf(branch))
            .executeTakeFirstOrThrow()
        ).booked_invoice_no,
      );
    const goodsBranchBefore = await booked('001');
    const result = await bookPlainBranches(h.ctx.db, [deviceOf('001'), deviceOf('000'), -1], 50);
    assert.equal(result.get(deviceOf('000'))?.kind, 'booked');
    assert.equal(result.get(deviceOf('001'))?.kind, 'moves_stock');
    assert.equal(result.get(-1)?.kind, 'locked', 'a branch without its row (or whose row another process holds) is left alone');
    assert.equal(await booked('000'), plain.invoiceNo);
    assert.equal(await booked('001'), goodsBranchBefore, 'nothing of the goods branch was booked');
    h.startWorkers();
    await settled(goods.id, 'sent');
    assert.equal(await booked('001'), goods.invoiceNo);
  });

  test('adjustments: losses out, several items, levels and movement history filtered by item; bad input is a clear 4xx', async () => {
    expectStatus(
      await h.post('/api/v1/stock/adjustments', { movementType: '06', items: [{ itemCode: OTHER_GOODS, quantity: 5.5, unitPrice: 2 }] }),
      201,
    );
    const held = await level(GOODS);
    const loss = expectStatus(
      await h.post('/api/v1/stock/adjustments', {
        movementType: '15',
        items: [
          { itemCode: GOODS, quantity: 1 },
          { itemCode: OTHER_GOODS, quantity: 0.5 },
        ],
      }),
      201,
    ).data;
    assert.equal(loss.direction, 'out');
    assert.deepEqual(
      loss.items.map((i: { remaining: number }) => i.remaining),
      [held - 1, 5],
    );
    await eventually(
      async () => expectStatus(await h.get(`/api/v1/stock/movements/${loss.id}`), 200).data.chain.state === 'sent',
      'the loss sent',
    );
    const master = calls()
      .filter((c) => c.endpoint === 'saveStockMaster')
      .at(-1)!;
    assert.deepEqual(master.request.stockItemList, [
      { itemCd: GOODS, rsdQty: held - 1 },
      { itemCd: OTHER_GOODS, rsdQty: 5 },
    ]);
    assert.equal(itemsCallsFor(loss.sarNo)[0]!.request.regTyCd, 'M');

    const levels = expectStatus(await h.get('/api/v1/stock', { 'x-branch': '000' }), 200);
    assert.deepEqual(
      levels.data.map((l: { itemCode: string; quantity: number; branch: string }) => [l.itemCode, l.quantity, l.branch]),
      [
        [GOODS, held - 1, '000'],
        [OTHER_GOODS, 5, '000'],
      ],
    );
    const history = expectStatus(await h.get(`/api/v1/stock/movements?itemCode=${OTHER_GOODS}`), 200);
    assert.deepEqual(
      history.data.map((m: { movementType: string }) => m.movementType),
      ['15', '06'],
    );
    assert.equal(expectStatus(await h.get('/api/v1/stock/movements?state=failed'), 200).meta.total, 1);
    assert.equal(expectStatus(await h.get('/api/v1/stock?itemCode=NOPE'), 200).meta.total, 0);
    const several = expectStatus(
      await h.get(`/api/v1/stock?itemCode=${OTHER_GOODS}&itemCode=NOPE&itemCode=${GOODS}`, { 'x-branch': '000' }),
      200,
    );
    assert.deepEqual(
      several.data.map((l: { itemCode: string }) => l.itemCode),
      [GOODS, OTHER_GOODS],
      "a page of items' levels in one request",
    );
    expectInvalid(await h.get(`/api/v1/stock?${Array.from({ length: 21 }, (_, i) => `itemCode=I${i}`).join('&')}`), 'itemCode');

    const adjust = (body: unknown) => h.post('/api/v1/stock/adjustments', body);
    expectInvalid(await adjust({ movementType: '15', items: [{ itemCode: OTHER_GOODS, quantity: 6 }] }), 'items.0.quantity');
    expectInvalid(await adjust({ movementType: '06', items: [{ itemCode: 'UNKNOWN-1', quantity: 1 }] }), 'items.0.itemCode');
    expectInvalid(await adjust({ movementType: '06', items: [{ itemCode: SERVICE, quantity: 1 }] }), 'items.0.itemCode');
    expectInvalid(
      await adjust({
        movementType: '06',
        items: [
          { itemCode: GOODS, quantity: 1 },
          { itemCode: GOODS, quantity: 2 },
        ],
      }),
      'items.1.itemCode',
    );
    expectInvalid(await adjust({ movementType: '06', items: [{ itemCode: GOODS, quantity: 1.00001 }] }), 'items.0.quantity');
    assert.equal((await adjust({ movementType: '11', items: [{ itemCode: GOODS, quantity: 1 }] })).statusCode, 422);
    assert.equal((await adjust({ movementType: '06', items: [{ itemCode: GOODS, quantity: 0 }] })).statusCode, 422);
    assert.equal((await adjust({ movementType: '06', items: [] })).statusCode, 422);
    expectCoded(
      await h.post('/api/v1/stock/adjustments', { movementType: '06', items: [{ itemCode: GOODS, quantity: 1 }] }, { 'x-branch': '009' }),
      422,
      'branch_not_found',
    );
    assert.equal(await level(OTHER_GOODS), 5, 'nothing kept of a refused adjustment');
    assert.equal((await h.get('/api/v1/stock/movements/999999')).statusCode, 404);
  });
});
