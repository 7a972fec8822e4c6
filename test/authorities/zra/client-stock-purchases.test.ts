// The client against the simulator over real sockets for purchases and stock: the purchase feed
// (seeded through the control API or filed by another taxpayer), savePurchase, stock movements,
// remaining quantities, what the simulator checks there, `lastReqDt`, and the fault switches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatVsdcDateTime,
  VSDC_EPOCH,
  PURCHASE_STATUS,
  STOCK_MOVEMENT_TYPES,
  type PurchaseSale,
  type SaveStockItemsRequest,
} from '@fiscal-gateway/vsdc-protocol';
import { createMetrics } from '../../../src/platform/observability/metrics.ts';
import { instrumentClient } from '../../../src/authorities/instrumented.ts';
import { buildZraSaleBody } from '../../../src/authorities/zra-vsdc/sales-body.ts';
import { addDevice, control, purchaseAnswer, registerItem, sale, startWorld, stockMovement, type World } from './helpers.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world.close();
});

const ACTOR = { regrId: 'gw', regrNm: 'gateway', modrId: 'gw', modrNm: 'gateway' };

async function pulledPurchases(target: World['target']): Promise<PurchaseSale[]> {
  const pulled = await world.client.selectTrnsPurchaseSales(target);
  assert.equal(pulled.kind, 'ok');
  return pulled.kind === 'ok' ? pulled.data.saleList : [];
}

describe('purchases', () => {
  test('purchases seeded through the control API are pulled exactly as given, inconsistencies included', async () => {
    const { target } = await addDevice(world);
    assert.equal((await world.client.selectTrnsPurchaseSales(target)).kind, 'empty');
    const seeded = await control(world.sim, 'POST', `/devices/${target.tpin}/000/purchases`, {
      purchases: [
        {
          spplrNm: 'Kafue Fisheries Cooperative',
          spplrTpin: '2000000004',
          cfmDt: '2024-05-08 10:20:10',
          totAmt: 999.99,
          spplrInvcNo: 'INV-77',
        },
        {},
      ],
    });
    assert.equal(seeded.status, 201);
    const [odd, plain] = await pulledPurchases(target);
    assert.deepEqual(
      [odd?.spplrTpin, odd?.spplrNm, odd?.cfmDt, odd?.totAmt, odd?.spplrInvcNo, odd?.totTaxblAmt],
      ['2000000004', 'Kafue Fisheries Cooperative', '2024-05-08 10:20:10', 999.99, 'INV-77', 1000],
      'kept as given: a date in another format and a total that does not add up',
    );
    assert.deepEqual(
      [plain?.spplrTpin, plain?.totItemCnt, plain?.totTaxblAmt, plain?.totTaxAmt, plain?.totAmt],
      ['2000000001', 1, 1000, 160, 1160],
    );
    assert.equal(plain?.itemList[0]?.itemClsCd, '50151513');
  });

  test("a sale filed with another taxpayer's TPIN as customer appears in that taxpayer's purchases", async () => {
    const buyer = await addDevice(world);
    const seller = await addDevice(world);
    const body = buildZraSaleBody(sale(seller.target, 1, { customer: { tpin: buyer.target.tpin, name: 'Buyer Limited' } }));
    const filed = await world.client.saveSales(seller.target, body);
    assert.equal(filed.kind, 'ok');
    if (filed.kind !== 'ok') return;
    const [purchase] = await pulledPurchases(buyer.target);
    assert.deepEqual(
      [purchase?.spplrTpin, purchase?.spplrBhfId, purchase?.spplrInvcNo, purchase?.spplrSdcId, purchase?.totAmt, purchase?.itemList.length],
      [seller.target.tpin, '000', filed.data.rcptNo, seller.sdcId, body.totAmt, 2],
    );
    assert.equal((await world.client.selectTrnsPurchaseSales(seller.target)).kind, 'empty', 'the seller bought nothing');
  });

  test('savePurchase answers a pulled sale; the same invcNo again replaces the answer', async () => {
    const { target } = await addDevice(world);
    world.sim.control.feedPurchases(target.tpin, '000', [{ spplrInvcNo: 501 }]);
    const [pulled] = await pulledPurchases(target);
    assert.ok(pulled);
    const link = { spplrTpin: pulled.spplrTpin, spplrBhfId: pulled.spplrBhfId, spplrNm: pulled.spplrNm, spplrInvcNo: 501 };
    assert.equal((await world.client.savePurchase(target, purchaseAnswer(1, link))).kind, 'ok');
    assert.equal((await world.client.savePurchase(target, purchaseAnswer(1, link, { pchsSttsCd: PURCHASE_STATUS.rejected }))).kind, 'ok');
    const device = world.sim.control.getDevice(target.tpin, '000');
    assert.deepEqual(
      device?.savedPurchases.map((p) => [p.invcNo, p.pchsSttsCd]),
      [[1, '04']],
    );
    assert.deepEqual(device?.purchases[0]?.answer, { invcNo: 1, pchsSttsCd: '04' });
    assert.equal(device?.lastPchsInvcNo, 1);
    const manual = purchaseAnswer(2, { ...link, spplrTpin: '2999999999', spplrInvcNo: 9 }, { regTyCd: 'M' });
    assert.equal(
      (await world.client.savePurchase(target, { ...manual, spplrTpin: null })).kind,
      'ok',
      'a purchase entered by hand needs no pulled sale',
    );
  });

  test('savePurchase checks what the real VSDC checks', async () => {
    const { target } = await addDevice(world);
    world.sim.control.feedPurchases(target.tpin, '000', [{ spplrInvcNo: 7 }]);
    const [pulled] = await pulledPurchases(target);
    assert.ok(pulled);
    const valid = purchaseAnswer(1, {
      spplrTpin: pulled.spplrTpin,
      spplrBhfId: pulled.spplrBhfId,
      spplrNm: pulled.spplrNm,
      spplrInvcNo: 7,
    });
    const cases: [string, unknown, string, RegExp][] = [
      ['a sale that was never pulled', { ...valid, spplrInvcNo: 8 }, '910', /8 of supplier .* is not among/],
      ['text in spplrInvcNo', { ...valid, spplrInvcNo: 'INV0001' }, '400', /HTTP 400/],
      ['"" in a date', { ...valid, cnclReqDt: '' }, '400', /HTTP 400/],
      ['no such day', { ...valid, pchsDt: '20240230' }, '910', /pchsDt/],
      ['a date-time for a date', { ...valid, pchsDt: formatVsdcDateTime(new Date()) }, '910', /pchsDt/],
      ['an unknown status', { ...valid, pchsSttsCd: '09' }, '913', /pchsSttsCd/],
      ['an unknown receipt type', { ...valid, rcptTyCd: 'S' }, '913', /rcptTyCd/],
      ['a wrong item count', { ...valid, totItemCnt: 2 }, '910', /totItemCnt/],
      ['5 decimals', { ...valid, totTaxAmt: 160.00001 }, '910', /totTaxAmt.*<4 digits>/],
      ['no supplier name', { ...valid, spplrNm: null }, '910', /'spplrNm': must not be null/],
      [
        'an unknown classification on a line',
        { ...valid, itemList: [{ ...valid.itemList[0]!, itemClsCd: '12345678' }] },
        '913',
        /itemList\[0\]\.itemClsCd/,
      ],
    ];
    for (const [what, body, code, message] of cases) {
      const outcome = await world.client.savePurchase(target, body as typeof valid);
      assert.deepEqual(outcome.kind === 'rejected' && [outcome.code, message.test(outcome.message)], [code, true], what);
    }
    assert.deepEqual(world.sim.control.getDevice(target.tpin, '000')?.savedPurchases, [], 'nothing refused was recorded');
  });
});

describe('stock', () => {
  test('saveStockItems records a movement; selectStockItems reads the ledger back', async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'OIL-5L');
    await registerItem(world, target, 'OIL-2L');
    assert.equal((await world.client.selectStockItems(target)).kind, 'empty');
    const movement = stockMovement(1, ['OIL-5L', 'OIL-2L'], {
      sarTyCd: STOCK_MOVEMENT_TYPES.purchaseIn,
      custTpin: '2000000001',
      custNm: 'Lusaka Trading Limited',
    });
    assert.equal((await world.client.saveStockItems(target, movement)).kind, 'ok');
    const ledger = await world.client.selectStockItems(target);
    assert.equal(ledger.kind, 'ok');
    if (ledger.kind !== 'ok') return;
    assert.deepEqual(
      ledger.data.stockList.map((m) => [m.sarNo, m.sarTyCd, m.custTpin, m.totAmt, m.itemList.map((l) => [l.itemCd, l.qty])]),
      [
        [
          1,
          '02',
          '2000000001',
          1160,
          [
            ['OIL-5L', 5],
            ['OIL-2L', 5],
          ],
        ],
      ],
    );
  });

  test('saveStockItems checks: null totDcAmt, unknown item, bad date, unknown codes, binding', async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'OIL-5L');
    const valid = stockMovement(1, ['OIL-5L']);
    const line = valid.itemList[0]!;
    const cases: [string, unknown, string, string | RegExp][] = [
      [
        'null totDcAmt',
        { ...valid, itemList: [{ ...line, totDcAmt: null }] },
        '910',
        'Validation error for fields: [<itemList><totDcAmt> : must not be null]',
      ],
      ['no totDcAmt', { ...valid, itemList: [{ ...line, totDcAmt: undefined }] }, '910', /<itemList><totDcAmt>/],
      [
        'an item never registered',
        { ...valid, itemList: [{ ...line, itemCd: 'NOT-REGISTERED' }] },
        '910',
        '[itemList[0].itemCd] NOT-REGISTERED is not a registered item',
      ],
      ['no such day', { ...valid, ocrnDt: '20240230' }, '910', /ocrnDt/],
      ['a date-time for ocrnDt', { ...valid, ocrnDt: '20240101120000' }, '910', /ocrnDt/],
      ['an unknown movement type', { ...valid, sarTyCd: '10' }, '913', /sarTyCd/],
      ['an unknown registration type', { ...valid, regTyCd: 'X' }, '913', /regTyCd/],
      ['an unknown VAT category', { ...valid, itemList: [{ ...line, vatCatCd: 'Z' }] }, '913', /vatCatCd/],
      ['a zero quantity', { ...valid, itemList: [{ ...line, qty: 0 }] }, '910', /qty/],
      ['5 decimals', { ...valid, totAmt: 580.00001 }, '910', /totAmt/],
      ['a wrong item count', { ...valid, totItemCnt: 3 }, '910', /totItemCnt/],
      ['no sarNo', { ...valid, sarNo: null }, '910', /'sarNo': must not be null/],
      ['"" in a number', { ...valid, totAmt: '' }, '400', /HTTP 400/],
      ['"" in a date', { ...valid, ocrnDt: '' }, '400', /HTTP 400/],
    ];
    for (const [what, body, code, message] of cases) {
      const outcome = await world.client.saveStockItems(target, body as SaveStockItemsRequest);
      const matches =
        typeof message === 'string'
          ? outcome.kind === 'rejected' && outcome.message === message
          : outcome.kind === 'rejected' && message.test(outcome.message);
      assert.deepEqual([outcome.kind === 'rejected' && outcome.code, matches], [code, true], `${what}: ${JSON.stringify(outcome)}`);
    }
    assert.equal((await world.client.selectStockItems(target)).kind, 'empty', 'nothing refused was recorded');
  });

  test('saveStockMaster keeps the absolute quantity per item; a repeated itemCd is a bare 999 that stores nothing', async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'OIL-5L');
    await registerItem(world, target, 'OIL-2L');
    const levels = () => world.sim.control.getDevice(target.tpin, '000')?.stockLevels ?? {};
    assert.equal(
      (
        await world.client.saveStockMaster(target, {
          ...ACTOR,
          stockItemList: [
            { itemCd: 'OIL-5L', rsdQty: 40 },
            { itemCd: 'OIL-2L', rsdQty: 12.5 },
          ],
        })
      ).kind,
      'ok',
    );
    assert.equal((await world.client.saveStockMaster(target, { ...ACTOR, stockItemList: [{ itemCd: 'OIL-5L', rsdQty: 35 }] })).kind, 'ok');
    assert.deepEqual(Object.fromEntries(Object.entries(levels()).map(([code, level]) => [code, level.rsdQty])), {
      'OIL-5L': 35,
      'OIL-2L': 12.5,
    });

    const twice = await world.client.saveStockMaster(target, {
      ...ACTOR,
      stockItemList: [
        { itemCd: 'OIL-5L', rsdQty: 1 },
        { itemCd: 'OIL-2L', rsdQty: 2 },
        { itemCd: 'OIL-5L', rsdQty: 1 },
      ],
    });
    assert.deepEqual(twice.kind === 'rejected' && [twice.code, twice.message], [
      '999',
      'There is an unknown error. Please ask it administrator',
    ]);
    assert.equal(levels()['OIL-2L']?.rsdQty, 12.5, 'the refused call changed nothing');

    const unknown = await world.client.saveStockMaster(target, { ...ACTOR, stockItemList: [{ itemCd: 'NOPE', rsdQty: 1 }] });
    assert.deepEqual(unknown.kind === 'rejected' && [unknown.code, unknown.message], [
      '910',
      '[stockItemList[0].itemCd] NOPE is not a registered item',
    ]);
    const noQty = await world.client.saveStockMaster(target, {
      ...ACTOR,
      stockItemList: [{ itemCd: 'OIL-5L', rsdQty: null as unknown as number }],
    });
    assert.deepEqual(
      noQty.kind === 'rejected' && noQty.message,
      'Validation error for fields: [<stockItemList><rsdQty> : must not be null]',
    );
    const none = await world.client.saveStockMaster(target, { ...ACTOR, stockItemList: [] });
    assert.equal(none.kind === 'rejected' && none.code, '910');
  });
});

describe('lastReqDt', () => {
  test('a select returns what changed at or after lastReqDt, and 001 once nothing did', async () => {
    let clock = new Date('2025-03-01T08:00:00Z');
    const timed = await startWorld({ now: () => clock });
    try {
      const target = timed.target;
      await registerItem(timed, target, 'OIL-5L');
      await registerItem(timed, target, 'OIL-2L');
      assert.equal((await timed.client.saveStockItems(target, stockMovement(1, ['OIL-5L']))).kind, 'ok');
      timed.sim.control.feedNotices(target.tpin, '000', [{ title: 'first' }]);
      const first = await timed.client.selectStockItems(target);
      assert.deepEqual(first.kind === 'ok' && [first.resultDt, first.data.stockList.map((m) => m.sarNo)], ['20250301080000', [1]]);

      clock = new Date('2025-03-01T09:30:00Z');
      assert.equal((await timed.client.saveStockItems(target, stockMovement(2, ['OIL-2L']))).kind, 'ok');
      timed.sim.control.feedNotices(target.tpin, '000', [{ title: 'second' }]);
      const since = await timed.client.selectStockItems(target, { lastReqDt: '20250301080001' });
      assert.deepEqual(since.kind === 'ok' && since.data.stockList.map((m) => m.sarNo), [2]);
      const atChange = await timed.client.selectStockItems(target, { lastReqDt: '20250301093000' });
      assert.deepEqual(
        atChange.kind === 'ok' && atChange.data.stockList.map((m) => m.sarNo),
        [2],
        'a change in the same second is not missed',
      );
      assert.equal((await timed.client.selectStockItems(target, { lastReqDt: '20250301093001' })).kind, 'empty');
      const notices = await timed.client.selectNotices(target, { lastReqDt: '20250301090000' });
      assert.deepEqual(notices.kind === 'ok' && notices.data.noticeList.map((n) => n.title), ['second']);
      const everything = await timed.client.selectStockItems(target, { lastReqDt: VSDC_EPOCH });
      assert.deepEqual(everything.kind === 'ok' && everything.data.stockList.map((m) => m.sarNo), [1, 2]);
    } finally {
      await timed.close();
    }
  });
});

describe('fault switches', () => {
  test('reject and loseReplies can target the stock and purchase endpoints, leaving sales alone', async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'OIL-5L');
    const master = { ...ACTOR, stockItemList: [{ itemCd: 'OIL-5L', rsdQty: 3 }] };
    world.sim.control.setFaults(target.tpin, '000', { reject: { count: 1, code: '999', endpoints: ['saveStockMaster', 'savePurchase'] } });
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 1)))).kind, 'ok', 'saveSales is not covered');
    const rejected = await world.client.saveStockMaster(target, master);
    assert.equal(rejected.kind === 'rejected' && rejected.code, '999');
    assert.equal((await world.client.saveStockMaster(target, master)).kind, 'ok', 'only the next one');

    world.sim.control.setFaults(target.tpin, '000', { loseReplies: { count: 1, endpoints: ['saveStockItems'] } });
    const lost = await world.client.saveStockItems(target, stockMovement(7, ['OIL-5L']));
    assert.deepEqual(lost.kind === 'unreachable' && lost.reason, 'connection_reset');
    assert.equal(
      (await world.client.saveStockItems(target, stockMovement(7, ['OIL-5L']))).kind,
      'ok',
      'the resend of the recorded movement is accepted',
    );
    assert.deepEqual(
      world.sim.control.getDevice(target.tpin, '000')?.stockMovements.map((m) => m.sarNo),
      [7],
      'recorded once',
    );
  });

  test('the outage switches apply to every new endpoint', async () => {
    const { target } = await addDevice(world);
    const calls = [
      () => world.client.selectNotices(target),
      () => world.client.selectBranches(target),
      () => world.client.saveBrancheUser(target, { userId: 'u1', userNm: 'User', useYn: 'Y', ...ACTOR }),
      () => world.client.selectItems(target),
      () => world.client.selectItem(target, { itemCd: 'X' }),
      () => world.client.selectRrpItems(target),
      () => world.client.selectPrincipals(target),
      () => world.client.selectTrnsPurchaseSales(target),
      () => world.client.selectStockItems(target),
      () => world.client.saveStockItems(target, stockMovement(1, ['X'])),
      () => world.client.saveStockMaster(target, { ...ACTOR, stockItemList: [{ itemCd: 'X', rsdQty: 1 }] }),
    ];
    const switches: [object, string, string | number | undefined][] = [
      [{ down: true }, 'connection_reset', undefined],
      [{ forcedResult: '838' }, 'authority_unreachable', '838'],
      [{ html404: true }, 'http_error', 404],
    ];
    for (const [faults, reason, detail] of switches) {
      world.sim.control.clearFaults(target.tpin, '000');
      world.sim.control.setFaults(target.tpin, '000', faults);
      for (const call of calls) {
        const outcome = await call();
        assert.equal(outcome.kind === 'unreachable' && outcome.reason, reason, JSON.stringify(faults));
        if (detail !== undefined) assert.equal(outcome.kind === 'unreachable' && (outcome.resultCd ?? outcome.httpStatus), detail);
      }
    }
    world.sim.control.clearFaults(target.tpin, '000');
    world.sim.control.setFaults(target.tpin, '000', { delayMs: 300 });
    const slow = await world.client.selectStockItems(target, { lastReqDt: VSDC_EPOCH }, { timeoutMs: 50 });
    assert.deepEqual(slow.kind === 'unreachable' && slow.reason, 'timeout');
    world.sim.control.clearFaults(target.tpin, '000');
    assert.equal((await world.client.selectNotices(target)).kind, 'empty');
  });

  test('the instrumented client measures the new calls by endpoint and outcome', async () => {
    const metrics = createMetrics();
    const client = instrumentClient(world.client, metrics);
    assert.equal((await client.selectNotices(world.target)).kind, 'empty');
    const refused = await client.saveStockMaster(world.target, { ...ACTOR, stockItemList: [{ itemCd: 'NOPE', rsdQty: 1 }] });
    assert.equal(refused.kind, 'rejected');
    const text = await metrics.registry.metrics();
    assert.match(text, /fiscal_gateway_vsdc_calls_total\{endpoint="selectNotices",outcome="empty"\} 1/);
    assert.match(text, /fiscal_gateway_vsdc_calls_total\{endpoint="saveStockMaster",outcome="rejected"\} 1/);
  });
});
