// The KRA adapter's other ports over a real socket: the code tables with the tax types' rates,
// classifications, items, customers, branch users, stock (one stock-master item per call),
// customs answers (one flat line), purchases with KRA's buckets, and the pulled feeds.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorityDevice } from '../../../src/authorities/port/device.ts';
import type { StockMovement } from '../../../src/authorities/port/stock.ts';
import type { PurchaseToSend } from '../../../src/authorities/port/purchases.ts';
import { createKraClient, type KraClient } from '../../../src/authorities/kra-etims/client.ts';
import { kraEtimsAuthority } from '../../../src/authorities/kra-etims/adapter.ts';
import type { FiscalAuthority } from '../../../src/authorities/port/index.ts';
import { createAuthorities, profileOf } from '../../../src/authorities/index.ts';
import { envelope, startFakeKra, type FakeKra } from './helpers.ts';

let fake: FakeKra;
let client: KraClient;
let vscuClient: KraClient;
let kra: FiscalAuthority;
let vscu: FiscalAuthority;
let device: AuthorityDevice;
let vscuDevice: AuthorityDevice;

before(async () => {
  fake = await startFakeKra();
  client = createKraClient('oscu', { timeoutMs: 2_000 });
  vscuClient = createKraClient('vscu', { timeoutMs: 2_000 });
  kra = kraEtimsAuthority(client);
  vscu = kraEtimsAuthority(vscuClient);
  device = {
    profile: 'kra-oscu',
    baseUrl: `${fake.url}/etims-api`,
    tpin: 'P051234567X',
    branch: '00',
    sdcId: 'KRACU0100000001',
    mrcNo: 'WIS01000001',
    unitKey: 'cmc-key-1234',
  };
  vscuDevice = { profile: 'kra-vscu', baseUrl: fake.url, tpin: 'P051234567X', branch: '00' };
});
after(async () => {
  await client.close();
  await vscuClient.close();
  await fake.close();
});
beforeEach(() => {
  fake.calls.length = 0;
});

const bodies = () => fake.calls.map((c) => JSON.parse(c.body) as Record<string, unknown>);

describe('catalogue', () => {
  test("code tables: class 04 carries each tax type's rate (userDfnCd1), as numbers or text", async () => {
    fake.answer(
      'selectCodeList',
      envelope('000', {
        clsList: [
          {
            cdCls: '04',
            cdClsNm: 'Taxation Type',
            useYn: 'Y',
            dtlList: [
              { cd: 'A', cdNm: 'A-Exempt', srtOrd: 1, useYn: 'Y', userDfnCd1: '0' },
              { cd: 'B', cdNm: 'B-16.00%', srtOrd: 2, useYn: 'Y', userDfnCd1: 16 },
              { cd: 'E', cdNm: 'E-8%', srtOrd: '5', useYn: 'Y', userDfnCd1: '8' },
              { cd: 'X', cdNm: 'broken', useYn: 'Y', userDfnCd1: 'n/a' },
            ],
          },
          { cdCls: '07', cdClsNm: 'Payment Type', useYn: 'Y', dtlList: [{ cd: '06', cdNm: 'MOBILE MONEY', useYn: 'Y', userDfnCd1: null }] },
        ],
      }),
    );
    const codes = await kra.catalogue.codes(device, '20261206123008');
    assert.equal(codes.kind, 'ok');
    if (codes.kind !== 'ok') return;
    assert.deepEqual(
      codes.records.map((c) => [c.classCode, c.code, c.rate, c.sortOrder]),
      [
        ['04', 'A', 0, 1],
        ['04', 'B', 16, 2],
        ['04', 'E', 8, 5],
        ['04', 'X', null, null],
        ['07', '06', undefined, null],
      ],
    );
    assert.equal(codes.cursor, '20261206123008');
    assert.deepEqual(bodies(), [{ lastReqDt: '20261206123007' }]);
    // The rates as the domain hands them back to the arithmetic.
    const rates = Object.fromEntries(
      codes.records.filter((c) => c.classCode === '04' && typeof c.rate === 'number').map((c) => [c.code, c.rate!]),
    );
    const sale = kra.arithmetic.computeSale(
      [{ name: 'x', classificationCode: '1', quantity: 1, price: 100, vatCategory: 'E' }],
      false,
      rates,
    );
    assert.equal(sale.totals.vat, 8);
  });

  test('classifications from selectItemClsList; 001 is nothing new', async () => {
    fake.answer(
      'selectItemClsList',
      envelope('000', {
        itemClsList: [
          { itemClsCd: '5059690800', itemClsNm: 'Soap', itemClsLvl: '4', taxTyCd: 'B', mjrTgYn: 'N', useYn: 'Y' },
          { itemClsNm: 'no code' },
        ],
      }),
    );
    const read = await kra.catalogue.classifications(device, null);
    assert.deepEqual(read.kind === 'ok' && read.records, [
      { code: '5059690800', name: 'Soap', level: 4, taxType: 'B', majorTarget: false, inUse: true },
    ]);
    assert.deepEqual(bodies(), [{ lastReqDt: '20180101000000' }]);
    fake.answer('selectItemClsList', envelope('001'));
    assert.equal((await kra.catalogue.classifications(device, null)).kind, 'empty');
  });
});

describe('items, customers, branch users', () => {
  const item = {
    code: 'KE1NTXU0000001',
    classificationCode: '5059690800',
    typeCode: '2',
    name: 'Soap',
    originCountryCode: 'KE',
    packagingUnitCode: 'NT',
    quantityUnitCode: 'U',
    vatCategory: 'B',
    barcode: null,
    defaultPrice: 100,
    active: true,
  };

  test('saveItem registers and updates; VSCU names it /items/saveItems and puts tin in the body', async () => {
    await kra.items.register(device, item);
    await vscu.items.amend(vscuDevice, item);
    assert.deepEqual(
      fake.calls.map((c) => c.path),
      ['/etims-api/saveItem', '/items/saveItems'],
    );
    const [oscuBody, vscuBody] = bodies();
    assert.equal(oscuBody!.taxTyCd, 'B');
    assert.equal('tin' in oscuBody!, false);
    assert.deepEqual([vscuBody!.tin, vscuBody!.bhfId, vscuBody!.itemCd], ['P051234567X', '00', 'KE1NTXU0000001']);
  });

  test('the items KRA holds, read leniently', async () => {
    fake.answer(
      'selectItemList',
      envelope('000', { itemList: [{ itemCd: 'KE1', itemNm: 'Soap', taxTyCd: 'E', dftPrc: '12.5', useYn: 'N' }, { itemNm: 'no code' }] }),
    );
    const listed = await kra.items.list(device);
    assert.deepEqual(listed.kind === 'ok' && listed.items.map((i) => [i.code, i.vatCategory, i.defaultPrice, i.active]), [
      ['KE1', 'E', 12.5, false],
    ]);
  });

  test('a composition, a customer by PIN, a customer and a user on the branch', async () => {
    await kra.items.registerComponent(device, { itemCode: 'KE1', componentCode: 'KE2', quantity: 2 });
    fake.answer(
      'selectCustomer',
      envelope('000', {
        custList: [
          {
            tin: 'A123456789Z',
            taxprNm: 'Buyer Ltd',
            taxprSttsCd: 'A',
            prvncNm: 'Nairobi',
            dstrtNm: 'Westlands',
            sctrNm: null,
            locDesc: 'Mpaka Rd',
          },
        ],
      }),
    );
    const found = await kra.customers.lookUp(device, 'A123456789Z');
    assert.deepEqual(found, { kind: 'found', code: '000', name: 'Buyer Ltd', address: 'Mpaka Rd, Westlands, Nairobi' });
    fake.answer('selectCustomer', envelope('001', null, 'There is no search result'));
    assert.deepEqual(await kra.customers.lookUp(device, 'A000000000Z'), {
      kind: 'unknown',
      code: '001',
      message: 'There is no search result',
    });
    await kra.customers.register(device, {
      number: 'C12',
      tpin: 'A123456789Z',
      name: 'Buyer Ltd',
      address: null,
      phone: '0700',
      email: null,
    });
    await kra.branchUsers.register(device, { id: 'U3', name: 'Wanjiru', active: false });
    assert.deepEqual(
      fake.calls.map((c) => c.path.replace('/etims-api', '')),
      ['/saveItemComposition', '/selectCustomer', '/selectCustomer', '/saveBhfCustomer', '/saveBhfUser'],
    );
    const b = bodies();
    assert.deepEqual(b[0], { itemCd: 'KE1', cpstItemCd: 'KE2', cpstQty: 2, regrId: 'fiscal-gateway', regrNm: 'fiscal-gateway' });
    assert.deepEqual(b[1], { custmTin: 'A123456789Z' });
    assert.deepEqual([b[3]!.custNo, b[3]!.custTin, b[3]!.useYn], ['C12', 'A123456789Z', 'Y']);
    assert.deepEqual([b[4]!.userId, b[4]!.useYn, b[4]!.pwd], ['U3', 'N', null]);
  });
});

describe('stock', () => {
  const movement: StockMovement = {
    number: 4,
    type: '11',
    source: 'sale',
    counterparty: { tpin: 'A123456789Z', name: 'Buyer Ltd', branch: '00' },
    remark: null,
    occurredAt: new Date('2026-12-06T21:30:00Z'),
    totals: { taxable: '200.00', tax: '32.00', total: '232.00' },
    lines: [
      {
        seq: 1,
        itemCode: 'KE1',
        quantity: '1.0000',
        unitPrice: '116.00',
        taxable: '100.00',
        tax: '16.00',
        total: '116.00',
        remaining: '9.0000',
        classificationCode: '5059690800',
        name: 'Soap',
        barcode: null,
        packagingUnitCode: 'NT',
        quantityUnitCode: 'U',
        vatCategory: 'B',
      },
      {
        seq: 2,
        itemCode: 'KE2',
        quantity: '1.0000',
        unitPrice: '116.00',
        taxable: '100.00',
        tax: '16.00',
        total: '116.00',
        remaining: '4.0000',
        classificationCode: null,
        name: null,
        barcode: null,
        packagingUnitCode: null,
        quantityUnitCode: null,
        vatCategory: null,
      },
      {
        seq: 3,
        itemCode: 'KE1',
        quantity: '0.0000',
        unitPrice: '0',
        taxable: '0',
        tax: '0',
        total: '0',
        remaining: '8.5000',
        classificationCode: null,
        name: null,
        barcode: null,
        packagingUnitCode: null,
        quantityUnitCode: null,
        vatCategory: null,
      },
    ],
  };

  test('a movement is one insertStockIO, its date the Nairobi day', async () => {
    assert.deepEqual(await kra.stock.sendMovement(device, movement), { kind: 'accepted', code: '000' });
    const body = bodies()[0]!;
    assert.equal(fake.calls[0]!.path, '/etims-api/insertStockIO');
    assert.deepEqual([body.sarNo, body.sarTyCd, body.ocrnDt, body.custTin, body.totItemCnt], [4, '11', '20261207', 'A123456789Z', 3]);
    const lines = body.itemList as Array<Record<string, unknown>>;
    assert.deepEqual(
      lines.map((l) => l.taxTyCd),
      ['B', 'B', 'B'],
      'a deleted item takes the default letter',
    );
  });

  test('levels: one saveStockMaster per item, the first refusal named once all were tried, an outage at once', async () => {
    let n = 0;
    fake.answer('saveStockMaster', () => (++n === 1 ? envelope('910', null, 'Request parameter error') : envelope('000')));
    const refused = await kra.stock.sendLevels(device, movement);
    assert.deepEqual(refused, { kind: 'rejected', code: '910', message: 'Request parameter error', call: 'saveStockMaster KE1' });
    assert.deepEqual(
      bodies().map((b) => [b.itemCd, b.rsdQty]),
      [
        ['KE1', 8.5],
        ['KE2', 4],
      ],
    );
    fake.calls.length = 0;
    fake.answer('saveStockMaster', { status: 503, text: 'down' });
    const down = await kra.stock.sendLevels(device, movement);
    assert.equal(down.kind, 'unreachable');
    assert.equal(fake.calls.length, 1);
  });
});

describe('answers and purchases', () => {
  test('a customs line: one flat updateImportItem', async () => {
    await kra.purchases.answerCustomsLine(device, {
      task: 'T1',
      declarationDate: '01022023',
      itemSeq: 1,
      hsCode: '3401',
      decision: 'approved',
      itemCode: 'KE1',
      classificationCode: '5059690800',
      remark: null,
    });
    assert.deepEqual(bodies()[0], {
      taskCd: 'T1',
      dclDe: '01022023',
      itemSeq: 1,
      hsCd: '3401',
      itemClsCd: '5059690800',
      itemCd: 'KE1',
      imptItemSttsCd: '3',
      remark: null,
      modrId: 'fiscal-gateway',
      modrNm: 'fiscal-gateway',
    });
  });

  test("a purchase: insertTrnsPurchase with every letter's bucket", async () => {
    const purchase: PurchaseToSend = {
      number: 3,
      source: 'pulled',
      decision: 'accepted',
      decidedAt: new Date('2026-12-06T09:30:00Z'),
      supplier: { tpin: 'A123456789Z', branch: '00', name: 'Supplier Ltd', invoiceNo: '55', sdcId: 'KRACU9' },
      receiptTypeCode: 'S',
      paymentTypeCode: '01',
      salesDate: '2026-12-05 10:00:00',
      totals: { taxable: '17499.00', tax: '2799.84', amount: '20298.84' },
      remark: null,
      lines: [
        {
          seq: 1,
          own: null,
          supplier: {
            itemCode: 'S1',
            classificationCode: '5059690800',
            name: 'Flour',
            barcode: null,
            packagingUnitCode: 'NT',
            quantityUnitCode: 'U',
          },
          packages: null,
          quantity: '1',
          unitPrice: '17499',
          supplyAmount: '17499',
          discountRate: null,
          discountAmount: null,
          taxableAmount: '17499',
          vatAmount: '2799.84',
          totalAmount: '20298.84',
          vatCategory: 'B',
        },
      ],
    };
    await kra.purchases.sendPurchase(device, purchase);
    const body = bodies()[0]!;
    assert.equal(fake.calls[0]!.path, '/etims-api/insertTrnsPurchase');
    assert.deepEqual(
      [body.spplrTin, body.spplrInvcNo, body.pchsSttsCd, body.rcptTyCd, body.pchsDt, body.cfmDt],
      ['A123456789Z', 55, '02', 'P', '20261205', '20261206123000'],
    );
    assert.deepEqual(
      [body.taxblAmtB, body.taxRtB, body.taxAmtB, body.taxblAmtA, body.taxRtE, body.totAmt],
      [17499, 16, 2799.84, 0, 8, 20298.84],
    );
    assert.equal(kra.purchases.stockInType, '02');
    assert.deepEqual(kra.purchases.purchaseDatesOf(new Date('2026-12-06T22:00:00Z')), {
      confirmedAt: '20261207010000',
      salesDate: '20261207',
    });
  });
});

describe('feeds', () => {
  test("customs lines, suppliers' sales, the stock ledger and notices; no principals", async () => {
    fake.answer(
      'selectImportItemList',
      envelope('000', {
        itemList: [{ taskCd: 'T1', dclDe: '01022023', itemSeq: '1', hsCd: '3401', qty: '5', invcFcurAmt: 100 }, { dclDe: 'x' }],
      }),
    );
    fake.answer(
      'selectTrnsPurchaseSalesList',
      envelope('000', {
        saleList: [
          {
            spplrTin: 'A123456789Z',
            spplrBhfId: '00',
            spplrInvcNo: 55,
            rcptTyCd: 'S',
            cfmDt: '2023-12-12 15:36:25',
            totItemCnt: 1,
            totTaxblAmt: 17499,
            totTaxAmt: 2799.84,
            totAmt: 20298.84,
            itemList: [{ itemSeq: 1, taxTyCd: 'B', taxblAmt: 17499, taxAmt: 2799.84, totAmt: 20298.84, qty: 1, prc: 17499 }],
          },
        ],
      }),
    );
    fake.answer(
      'selectStockMoveList',
      envelope('000', {
        stockList: [
          { sarNo: 4, itemList: [{ itemCd: 'KE1', qty: '2' }] },
          { sarNo: 5, sarTyCd: '11', itemList: [{ itemCd: 'KE1', qty: 1 }] },
        ],
      }),
    );
    fake.answer(
      'selectNoticeList',
      envelope('000', { noticeList: [{ noticeNo: '12', title: 'Downtime', cont: 'Sunday', regDt: '20261206120000' }] }),
    );
    const customs = await kra.feeds.customsLines(device, null);
    assert.deepEqual(customs.kind === 'ok' && customs.records.map((r) => [r.task, r.declarationDate, r.itemSeq, r.quantity]), [
      ['T1', '01022023', 1, 5],
    ]);
    const sales = await kra.feeds.supplierSales(device, null);
    assert.ok(sales.kind === 'ok');
    if (sales.kind !== 'ok') return;
    assert.equal(sales.records[0]!.dedupeKey, 'supplier/A123456789Z/00/55/S');
    assert.deepEqual(sales.records[0]!.inconsistencies, []);
    assert.deepEqual([sales.records[0]!.lines[0]!.vatCategory, sales.records[0]!.lines[0]!.vatAmount], ['B', 2799.84]);
    const ledger = await kra.feeds.stockLedger(device, null);
    assert.deepEqual(ledger.kind === 'ok' && ledger.records.map((m) => [m.number, m.lines.map((l) => l.quantity)]), [
      [4, ['2.0000']],
      [5, ['-1.0000']],
    ]);
    const notices = await kra.feeds.notices(device, null);
    assert.deepEqual(notices.kind === 'ok' && notices.records.map((n) => [n.number, n.title, n.registeredAt?.toISOString()]), [
      [12, 'Downtime', '2026-12-06T09:00:00.000Z'],
    ]);
    assert.deepEqual(
      fake.calls.map((c) => c.path.replace('/etims-api', '')),
      ['/selectImportItemList', '/selectTrnsPurchaseSalesList', '/selectStockMoveList', '/selectNoticeList'],
    );
    fake.calls.length = 0;
    assert.deepEqual(await kra.feeds.principals(device, 'c1'), { kind: 'empty', cursor: 'c1' });
    assert.equal(fake.calls.length, 0, 'KRA publishes no principals: nothing is called');
  });
});

describe('the registry', () => {
  test('kra-oscu and kra-vscu are profiles of the authority kra; each call is instrumented by its OSCU name', async () => {
    assert.equal(profileOf('kra', 'oscu'), 'kra-oscu');
    assert.equal(profileOf('kra', 'vscu'), 'kra-vscu');
    const seen: string[] = [];
    const authorities = createAuthorities({
      transport: { timeoutMs: 2_000 },
      instrument: (c) => {
        const wrapped = { ...c } as Record<string, unknown>;
        for (const [name, fn] of Object.entries(c))
          if (typeof fn === 'function' && name !== 'close')
            wrapped[name] = (...args: unknown[]) => (seen.push(name), (fn as (...a: unknown[]) => unknown)(...args));
        return wrapped as typeof c;
      },
    });
    try {
      fake.answer('selectCodeList', envelope('001'));
      await authorities.of('kra-oscu').filing.probe(device, new Date());
      await authorities.of('kra-vscu').catalogue.codes(vscuDevice, null);
      assert.deepEqual(seen, ['selectCodeList', 'selectCodeList']);
      assert.deepEqual(
        fake.calls.map((c) => c.path),
        ['/etims-api/selectCodeList', '/code/selectCodes'],
      );
    } finally {
      await authorities.close();
    }
  });
});
