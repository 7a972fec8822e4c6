// The KRA OSCU profile on the wire: init and its cmcKey, the header checks, the sale's checks
// (every letter, inclusive and exclusive prices, discounts, a wrong sum, a reused number),
// credit notes, selectInvoiceDetails, the other endpoints and the fault switches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkKraSaleArithmetic, kraControl, type Simulator } from '@fiscal-gateway/simulator';
import { eventually } from '../helpers/poll.ts';
import { control, creditNote, freshPin, post, saleBody, startKra, type KraWire, type LineSpec } from './kra-helpers.ts';

let sim: Simulator;
before(async () => {
  sim = await startKra();
});
after(async () => {
  await sim.close();
});

interface Device {
  tin: string;
  bhfId: string;
  cmcKey: string;
  call(name: string, body: unknown, headers?: Record<string, string>): Promise<KraWire>;
}

const base = (): string => `${sim.urlOf('kra-oscu')}/etims-api`;

async function installed(): Promise<Device> {
  const tin = freshPin();
  const init = await post(`${base()}/selectInitOsdcInfo`, { tin, bhfId: '00', dvcSrlNo: `dvc-${tin}` });
  assert.equal(init.envelope?.resultCd, '000', init.text);
  const cmcKey = init.envelope!.data.info.cmcKey as string;
  return {
    tin,
    bhfId: '00',
    cmcKey,
    call: (name, body, headers = { tin, bhfId: '00', cmcKey }) => post(`${base()}/${name}`, body, headers),
  };
}

const ALL_LETTERS: LineSpec[] = [
  { letter: 'A', prc: 100, qty: 1 },
  { letter: 'B', prc: 250, qty: 2 },
  { letter: 'C', prc: 80, qty: 3 },
  { letter: 'D', prc: 45.5, qty: 2 },
  { letter: 'E', prc: 1000, qty: 1 },
];

describe('KRA OSCU: init and headers', () => {
  test("init gives the device and its cmcKey; a second init is 902; the envelope is KRA's", async () => {
    const tin = freshPin();
    const hourBefore = new Date().getUTCHours();
    const init = await post(`${base()}/selectInitOsdcInfo`, { tin, bhfId: '00', dvcSrlNo: 'dvcv1130' + tin });
    const hourAfter = new Date().getUTCHours();
    assert.equal(init.status, 200);
    const { resultCd, resultMsg, resultDt, data } = init.envelope!;
    assert.deepEqual([resultCd, resultMsg], ['000', 'It is succeeded']);
    assert.match(resultDt, /^\d{14}$/);
    // Nairobi: three hours ahead of UTC.
    assert.ok([(hourBefore + 3) % 24, (hourAfter + 3) % 24].includes(Number(resultDt.slice(8, 10))), resultDt);
    for (const field of ['tin', 'taxprNm', 'bhfId', 'bhfNm', 'sdcId', 'mrcNo', 'cmcKey']) assert.ok(data.info[field], field);
    assert.equal(data.info.tin, tin);
    assert.equal(data.info.bhfId, '00');
    const again = await post(`${sim.urlOf('kra-oscu')}/selectInitOsdcInfo`, { tin, bhfId: '00', dvcSrlNo: 'dvcv1130' + tin });
    assert.deepEqual(
      [again.envelope?.resultCd, again.envelope?.resultMsg, again.envelope?.data],
      ['902', 'This device is installed', null],
    );
  });

  test('an unknown serial (the settings) and a serial installed elsewhere are 901', async () => {
    await control(sim, 'PUT', '/profiles/kra-oscu/settings', { unknownSerials: ['BAD-SERIAL'] });
    try {
      const refused = await post(`${base()}/selectInitOsdcInfo`, { tin: freshPin(), bhfId: '00', dvcSrlNo: 'BAD-SERIAL' });
      assert.equal(refused.envelope?.resultCd, '901');
    } finally {
      await control(sim, 'PUT', '/profiles/kra-oscu/settings', { unknownSerials: [] });
    }
    const device = await installed();
    const elsewhere = await post(`${base()}/selectInitOsdcInfo`, { tin: freshPin(), bhfId: '00', dvcSrlNo: `dvc-${device.tin}` });
    assert.equal(elsewhere.envelope?.resultCd, '901');
  });

  test('a device installed elsewhere (control preset with its cmcKey): init is 902, the handed-over key works', async () => {
    const tin = freshPin();
    const preset = await control(sim, 'PUT', `/profiles/kra-oscu/devices/${tin}/00`, { installed: true, cmcKey: 'HANDED-OVER-KEY' });
    assert.equal(preset.status, 200);
    assert.equal(preset.json.installed, true);
    assert.match(preset.json.sdcId, /^KRAC\d{9}$/);
    assert.equal(JSON.stringify(preset.json).includes('HANDED-OVER-KEY'), false);
    assert.equal((await post(`${base()}/selectInitOsdcInfo`, { tin, bhfId: '00', dvcSrlNo: 'any' })).envelope?.resultCd, '902');
    const call = await post(`${base()}/selectNoticeList`, { lastReqDt: '20180101000000' }, { tin, bhfId: '00', cmcKey: 'HANDED-OVER-KEY' });
    assert.equal(call.envelope?.resultCd, '001');
    assert.equal((await control(sim, 'PUT', `/profiles/kra-oscu/devices/${tin}/00`, { cmcKey: 7 })).status, 400);
  });

  test('later calls need tin, bhfId and cmcKey headers (any case): none is 900, a wrong key 901; Authorization is ignored', async () => {
    const device = await installed();
    const body = { lastReqDt: '20180101000000' };
    assert.equal((await device.call('selectCodeList', body, {})).envelope?.resultCd, '900');
    assert.equal((await device.call('selectCodeList', { ...body, tin: device.tin, bhfId: '00' }, {})).envelope?.resultCd, '900');
    assert.equal((await device.call('selectCodeList', body, { tin: device.tin, bhfId: '00' })).envelope?.resultCd, '900');
    assert.equal((await device.call('selectCodeList', body, { tin: device.tin, bhfId: '00', cmcKey: 'WRONG' })).envelope?.resultCd, '901');
    const mixed = await device.call('selectCodeList', body, {
      TIN: device.tin,
      BhfId: '00',
      CMCKEY: device.cmcKey,
      Authorization: 'Bearer anything',
    });
    assert.equal(mixed.envelope?.resultCd, '000');
    // The OSCU is served at the base without /etims-api too.
    const flat = await post(`${sim.urlOf('kra-oscu')}/selectCodeList`, body, { tin: device.tin, bhfId: '00', cmcKey: device.cmcKey });
    assert.equal(flat.envelope?.resultCd, '000');
  });

  test('behind the token gateway (oauth setting): a Bearer token from /v1/token/generate, else 401', async () => {
    const device = await installed();
    const body = { lastReqDt: '20180101000000' };
    const tokenUrl = `${sim.urlOf('kra-oscu')}/v1/token/generate?grant_type=client_credentials`;
    const basic = (id: string, secret: string): Record<string, string> => ({
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
    });
    // Off (the default): any client gets a token, and Authorization is ignored.
    assert.equal((await fetch(tokenUrl, { headers: basic('any', 'thing') })).status, 200);
    await control(sim, 'PUT', '/profiles/kra-oscu/settings', { oauth: { clientId: 'id', clientSecret: 'secret', accessToken: 'TOKEN-1' } });
    try {
      assert.equal((await fetch(tokenUrl, { headers: basic('id', 'wrong') })).status, 400);
      const token = await fetch(tokenUrl, { headers: basic('id', 'secret') });
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      assert.equal(accessToken, 'TOKEN-1');
      const headers = { tin: device.tin, bhfId: '00', cmcKey: device.cmcKey };
      const refused = await device.call('selectCodeList', body, headers);
      assert.deepEqual([refused.status, refused.envelope], [401, null]);
      assert.equal(
        (await device.call('selectCodeList', body, { ...headers, authorization: `Bearer ${accessToken}` })).envelope?.resultCd,
        '000',
      );
    } finally {
      await control(sim, 'PUT', '/profiles/kra-oscu/settings', { oauth: null });
    }
    assert.equal((await control(sim, 'PUT', '/profiles/kra-oscu/settings', { oauth: { clientId: 'x' } })).status, 400);
  });

  test('code tables: the tax types with their rates in userDfnCd1, payment, refund reasons, receipt types', async () => {
    const device = await installed();
    const { data } = (await device.call('selectCodeList', { lastReqDt: '20180101000000' })).envelope!;
    const cls = (cd: string): { cd: string; userDfnCd1: string | null }[] =>
      data.clsList.find((c: { cdCls: string }) => c.cdCls === cd).dtlList;
    assert.deepEqual(
      cls('04').map((d) => [d.cd, d.userDfnCd1]),
      [
        ['A', '0'],
        ['B', '16'],
        ['C', '0'],
        ['D', '0'],
        ['E', '8'],
      ],
    );
    assert.deepEqual(
      cls('07').map((d) => d.cd),
      ['01', '02', '03', '04', '05', '06', '07'],
    );
    assert.equal(cls('32').length, 13);
    assert.deepEqual(
      cls('37').map((d) => d.cd),
      ['S', 'R'],
    );
    for (const c of ['10', '17', '12', '24', '26', '05']) assert.ok(cls(c).length > 0, c);
    assert.equal((await device.call('selectCodeList', { lastReqDt: '20991231000000' })).envelope?.resultCd, '001');
  });
});

describe('KRA OSCU: the sale', () => {
  test('every letter, exclusive prices: filed with curRcptNo, totRcptNo, intrlData (26), rcptSign (16), sdcDateTime', async () => {
    const device = await installed();
    const sale = await device.call('saveTrnsSalesOsdc', saleBody(1, ALL_LETTERS));
    assert.equal(sale.envelope?.resultCd, '000', sale.text);
    const data = sale.envelope!.data;
    assert.deepEqual(Object.keys(data).sort(), ['curRcptNo', 'intrlData', 'rcptSign', 'sdcDateTime', 'totRcptNo']);
    assert.deepEqual([data.curRcptNo, data.totRcptNo], [1, 1]);
    assert.match(data.intrlData, /^[A-Z2-7]{26}$/);
    assert.match(data.rcptSign, /^[A-Z2-7]{16}$/);
    assert.match(data.sdcDateTime, /^\d{14}$/);
  });

  test('VAT-inclusive prices backed out, and discounts, are accepted; invcNo as a digit string too', async () => {
    const device = await installed();
    const lines: LineSpec[] = [
      { letter: 'B', prc: 116, qty: 3, inclusive: true },
      { letter: 'B', prc: 99.99, qty: 7, dcRt: 12.5, inclusive: true },
      { letter: 'E', prc: 54, qty: 1.5, dcRt: 10, inclusive: true },
      { letter: 'B', prc: 1, qty: 1, dcRt: 10 },
    ];
    const body = saleBody('1', lines);
    // Odoo's worked line: prc 1.00, qty 1, dcRt 10 → 0.10, 0.90, 0.14, 1.04.
    assert.deepEqual(
      ['dcAmt', 'taxblAmt', 'taxAmt', 'totAmt'].map((f) => body.itemList[3][f]),
      [0.1, 0.9, 0.14, 1.04],
    );
    assert.equal(checkKraSaleArithmetic(body), null);
    const sale = await device.call('saveTrnsSalesOsdc', body);
    assert.equal(sale.envelope?.resultCd, '000', sale.text);
  });

  test('a wrong sum is refused with 910 naming the field; a wrong rate, a missing field, a debit note likewise', async () => {
    const device = await installed();
    const wrongTax = saleBody(1, ALL_LETTERS);
    wrongTax.taxAmtB = wrongTax.taxAmtB + 1;
    const refused = await device.call('saveTrnsSalesOsdc', wrongTax);
    assert.equal(refused.envelope?.resultCd, '910');
    assert.match(refused.envelope!.resultMsg, /\[taxAmtB\]/);
    assert.deepEqual(checkKraSaleArithmetic(wrongTax)?.field, 'taxAmtB');

    const wrongLine = saleBody(1, ALL_LETTERS);
    wrongLine.itemList[1].taxAmt = 70;
    assert.match((await device.call('saveTrnsSalesOsdc', wrongLine)).envelope!.resultMsg, /\[itemList\[1\]\.taxAmt\]/);

    const wrongRate = saleBody(1, ALL_LETTERS, { taxRtB: 18 });
    assert.match((await device.call('saveTrnsSalesOsdc', wrongRate)).envelope!.resultMsg, /\[taxRtB\]/);

    const cases: [Record<string, unknown>, RegExp][] = [
      [{ invcNo: 'A1' }, /\[invcNo\]/],
      [{ invcNo: 0 }, /\[invcNo\]/],
      [{ rcptTyCd: 'D' }, /\[rcptTyCd\]/],
      [{ salesSttsCd: '99' }, /\[salesSttsCd\]/],
      [{ cfmDt: '2026-12-01' }, /\[cfmDt\]/],
      [{ salesDt: '20261301' }, /\[salesDt\]/],
      [{ taxblAmtE: undefined }, /\[taxblAmtE\]/],
      [{ totItemCnt: 4 }, /\[totItemCnt\]/],
    ];
    for (const [override, field] of cases) {
      const wire = await device.call('saveTrnsSalesOsdc', saleBody(1, ALL_LETTERS, override));
      assert.equal(wire.envelope?.resultCd, '910', JSON.stringify(override));
      assert.match(wire.envelope!.resultMsg, field);
    }
    const noTaxType = saleBody(1, ALL_LETTERS);
    delete noTaxType.itemList[2].taxTyCd;
    assert.match((await device.call('saveTrnsSalesOsdc', noTaxType)).envelope!.resultMsg, /\[itemList\[2\]\.taxTyCd\]/);
    // Nothing was filed: number 1 is still free.
    assert.equal((await device.call('saveTrnsSalesOsdc', saleBody(1, ALL_LETTERS))).envelope?.resultCd, '000');
  });

  test('the tolerance is a setting', async () => {
    const device = await installed();
    const off = saleBody(1, [{ letter: 'B', prc: 100, qty: 1 }]);
    off.itemList[0].taxAmt = 16.05;
    off.itemList[0].totAmt = 116.05;
    off.taxAmtB = 16.05;
    off.totTaxAmt = 16.05;
    off.totAmt = 116.05;
    assert.equal((await device.call('saveTrnsSalesOsdc', off)).envelope?.resultCd, '910');
    await control(sim, 'PUT', '/profiles/kra-oscu/settings', { lineTolerance: 0.1, headerTolerancePerLine: 0.1 });
    try {
      assert.equal((await device.call('saveTrnsSalesOsdc', off)).envelope?.resultCd, '000');
    } finally {
      await control(sim, 'PUT', '/profiles/kra-oscu/settings', { lineTolerance: 0.01, headerTolerancePerLine: 0.01 });
    }
  });

  test('a reused invcNo is 994 (921 by setting), and counts receipts per type and in total', async () => {
    const device = await installed();
    assert.equal((await device.call('saveTrnsSalesOsdc', saleBody(7, ALL_LETTERS))).envelope?.resultCd, '000');
    const again = await device.call('saveTrnsSalesOsdc', saleBody('7', ALL_LETTERS));
    assert.deepEqual([again.envelope?.resultCd, again.envelope?.resultMsg], ['994', 'It is overlapped data']);
    await control(sim, 'PUT', '/profiles/kra-oscu/settings', { duplicateCode: '921' });
    try {
      assert.equal((await device.call('saveTrnsSalesOsdc', saleBody(7, ALL_LETTERS))).envelope?.resultCd, '921');
    } finally {
      await control(sim, 'PUT', '/profiles/kra-oscu/settings', { duplicateCode: '994' });
    }
    const second = await device.call('saveTrnsSalesOsdc', saleBody(8, ALL_LETTERS));
    const note = await device.call('saveTrnsSalesOsdc', creditNote(9, 7, [{ letter: 'A', prc: 100, qty: 1 }]));
    assert.deepEqual([second.envelope?.data.curRcptNo, second.envelope?.data.totRcptNo], [2, 2]);
    assert.deepEqual([note.envelope?.data.curRcptNo, note.envelope?.data.totRcptNo], [1, 3]);
  });
});

describe('KRA OSCU: credit notes', () => {
  const lines: LineSpec[] = [{ letter: 'B', prc: 100, qty: 2 }];

  test('against a filed sale only, with a refund reason, never more than remains', async () => {
    const device = await installed();
    assert.equal((await device.call('saveTrnsSalesOsdc', saleBody(1, lines))).envelope?.resultCd, '000');
    const note = (n: number, org: number, spec: LineSpec[], extra: Record<string, unknown> = {}): Promise<KraWire> =>
      device.call('saveTrnsSalesOsdc', creditNote(n, org, spec, extra));
    assert.match((await note(2, 99, lines)).envelope!.resultMsg, /\[orgInvcNo\]/);
    assert.match((await note(2, 1, lines, { rfdRsnCd: '14' })).envelope!.resultMsg, /\[rfdRsnCd\]/);
    assert.match((await note(2, 1, [{ letter: 'B', prc: 100, qty: 3 }])).envelope!.resultMsg, /\[totAmt\].*remains/);
    assert.equal((await note(2, 1, [{ letter: 'B', prc: 100, qty: 1 }])).envelope?.resultCd, '000');
    assert.match((await note(3, 1, [{ letter: 'B', prc: 100, qty: 1.5 }])).envelope!.resultMsg, /remains of sale 1 \(116\.00\)/);
    assert.equal((await note(3, 1, [{ letter: 'B', prc: 100, qty: 1 }])).envelope?.resultCd, '000');
    // A credit note of a credit note: refused.
    assert.match((await note(4, 2, [{ letter: 'B', prc: 1, qty: 1 }])).envelope!.resultMsg, /\[orgInvcNo\]/);
  });

  test('the cap, the same PIN and the six months are settings', async () => {
    const device = await installed();
    await device.call('saveTrnsSalesOsdc', saleBody(1, lines));
    await control(sim, 'PUT', '/profiles/kra-oscu/settings', { creditNoteCap: 1 });
    try {
      assert.equal(
        (await device.call('saveTrnsSalesOsdc', creditNote(2, 1, [{ letter: 'B', prc: 10, qty: 1 }]))).envelope?.resultCd,
        '000',
      );
      assert.match(
        (await device.call('saveTrnsSalesOsdc', creditNote(3, 1, [{ letter: 'B', prc: 10, qty: 1 }]))).envelope!.resultMsg,
        /most allowed/,
      );
    } finally {
      await control(sim, 'PUT', '/profiles/kra-oscu/settings', { creditNoteCap: null });
    }
    const otherPin = creditNote(3, 1, [{ letter: 'B', prc: 10, qty: 1 }], { custTin: 'P000000001A' });
    assert.match((await device.call('saveTrnsSalesOsdc', otherPin)).envelope!.resultMsg, /\[custTin\]/);
    const late = creditNote(3, 1, [{ letter: 'B', prc: 10, qty: 1 }], { salesDt: '20270701', cfmDt: '20270701100000' });
    assert.match((await device.call('saveTrnsSalesOsdc', late)).envelope!.resultMsg, /six months/);
    const early = creditNote(3, 1, [{ letter: 'B', prc: 10, qty: 1 }], { salesDt: '20261130', cfmDt: '20261130100000' });
    assert.match((await device.call('saveTrnsSalesOsdc', early)).envelope!.resultMsg, /earlier/);
    await control(sim, 'PUT', '/profiles/kra-oscu/settings', { creditNoteSamePin: false, creditNoteSixMonths: false });
    try {
      assert.equal((await device.call('saveTrnsSalesOsdc', otherPin)).envelope?.resultCd, '000');
      assert.equal((await device.call('saveTrnsSalesOsdc', { ...late, invcNo: 4 })).envelope?.resultCd, '000');
    } finally {
      await control(sim, 'PUT', '/profiles/kra-oscu/settings', { creditNoteSamePin: true, creditNoteSixMonths: true });
    }
  });
});

describe('KRA OSCU: selectInvoiceDetails and the other endpoints', () => {
  test('a filed sale as sent, its receipt extended; 001 when not filed', async () => {
    const device = await installed();
    const body = saleBody('5', ALL_LETTERS);
    const filed = (await device.call('saveTrnsSalesOsdc', body)).envelope!.data;
    const details = await device.call('selectInvoiceDetails', { invcNo: 5 });
    assert.equal(details.envelope?.resultCd, '000');
    const [sale] = details.envelope!.data.salesList;
    assert.equal(sale.invcNo, 5);
    assert.deepEqual(sale.itemList, body.itemList);
    assert.equal(sale.totAmt, body.totAmt);
    assert.equal(sale.receipt.custTin, 'A123456789Z');
    assert.deepEqual(
      [sale.receipt.curRcptNo, sale.receipt.totRcptNo, sale.receipt.intrlData, sale.receipt.rcptSign],
      [filed.curRcptNo, filed.totRcptNo, filed.intrlData, filed.rcptSign],
    );
    const d = filed.sdcDateTime as string;
    assert.equal(
      sale.receipt.sdcDateTime,
      `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)} ${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}.0`,
    );
    assert.deepEqual([(await device.call('selectInvoiceDetails', { invcNo: '6' })).envelope?.resultCd], ['001']);
  });

  test('customers, items, compositions, imports, purchases, stock', async () => {
    const device = await installed();
    const reg = { regrId: 'admin', regrNm: 'admin', modrId: 'admin', modrNm: 'admin' };
    const since = { lastReqDt: '20180101000000' };
    const code = async (name: string, body: unknown): Promise<string | undefined> => (await device.call(name, body)).envelope?.resultCd;
    assert.equal(await code('selectCustomer', { custmTin: 'A123456789Z' }), '000');
    assert.equal(await code('selectCustomer', { custmTin: 'Z999999999Z' }), '001');
    assert.equal(await code('selectItemList', since), '001');
    assert.equal(await code('selectNoticeList', since), '001');
    assert.equal(await code('selectBhfList', since), '000');
    assert.equal(await code('selectItemClsList', since), '000');
    assert.equal(await code('saveBhfCustomer', { custNo: '1', custTin: 'A123456789Z', custNm: 'C', useYn: 'Y', ...reg }), '000');
    assert.equal(await code('saveBhfUser', { userId: 'u1', userNm: 'U', pwd: 'x', useYn: 'Y', ...reg }), '000');
    const item = {
      itemCd: 'KE1NTXU0000001',
      itemClsCd: '50202300',
      itemTyCd: '2',
      itemNm: 'Soda',
      orgnNatCd: 'KE',
      pkgUnitCd: 'NT',
      qtyUnitCd: 'U',
      taxTyCd: 'B',
      dftPrc: 50,
      isrcAplcbYn: 'N',
      useYn: 'Y',
      ...reg,
    };
    assert.equal(await code('saveItem', item), '000');
    assert.equal(await code('saveItem', { ...item, itemNm: 'Soda 500ml' }), '000');
    assert.match((await device.call('saveItem', { ...item, taxTyCd: 'F' })).envelope!.resultMsg, /\[taxTyCd\]/);
    const items = (await device.call('selectItemList', since)).envelope!.data.itemList;
    assert.deepEqual(
      items.map((i: { itemNm: string; tin: string }) => [i.itemNm, i.tin]),
      [['Soda 500ml', device.tin]],
    );
    assert.equal(await code('saveItem', { ...item, itemCd: 'KE2NTXU0000002', itemNm: 'Syrup' }), '000');
    assert.equal(await code('saveItemComposition', { itemCd: 'KE1NTXU0000001', cpstItemCd: 'KE2NTXU0000002', cpstQty: 2, ...reg }), '000');
    assert.match(
      (await device.call('saveItemComposition', { itemCd: 'NOPE', cpstItemCd: 'KE2NTXU0000002', cpstQty: 2, ...reg })).envelope!.resultMsg,
      /\[itemCd\]/,
    );

    await control(sim, 'POST', `/profiles/kra-oscu/devices/${device.tin}/00/imports`, {
      items: [{ taskCd: 'T1', itemSeq: 1, dclDe: '01022023', hsCd: '1001', itemNm: 'Wheat' }],
    });
    assert.equal((await device.call('selectImportItemList', since)).envelope?.data.itemList[0].imptItemsttsCd, '2');
    const update = {
      taskCd: 'T1',
      dclDe: '01022023',
      itemSeq: 1,
      hsCd: '1001',
      itemClsCd: '50221200',
      itemCd: 'KE1NTXU0000001',
      imptItemSttsCd: '3',
      modrId: 'a',
      modrNm: 'a',
    };
    assert.equal(await code('updateImportItem', update), '000');
    assert.equal((await device.call('selectImportItemList', since)).envelope?.data.itemList[0].imptItemsttsCd, '3');
    assert.match((await device.call('updateImportItem', { ...update, itemSeq: 9 })).envelope!.resultMsg, /no import line/);

    await control(sim, 'POST', `/profiles/kra-oscu/devices/${device.tin}/00/purchases`, {
      sales: [{ spplrTin: 'P000000001A', spplrInvcNo: 3, totAmt: 116 }],
    });
    assert.equal((await device.call('selectTrnsPurchaseSalesList', since)).envelope?.data.saleList[0].spplrInvcNo, 3);
    const lines = saleBody(1, [{ letter: 'B', prc: 100, qty: 1 }]).itemList;
    const purchase = {
      invcNo: 1,
      orgInvcNo: 0,
      spplrTin: 'P000000001A',
      regTyCd: 'M',
      pchsTyCd: 'N',
      rcptTyCd: 'P',
      pmtTyCd: '01',
      pchsSttsCd: '02',
      pchsDt: '20261201',
      totItemCnt: 1,
      totTaxblAmt: 100,
      totTaxAmt: 16,
      totAmt: 116,
      ...reg,
      itemList: lines,
    };
    assert.equal(await code('insertTrnsPurchase', purchase), '000');
    assert.equal(await code('insertTrnsPurchase', purchase), '994');
    const io = {
      sarNo: 1,
      orgSarNo: 0,
      regTyCd: 'M',
      sarTyCd: '11',
      ocrnDt: '20261201',
      totItemCnt: 1,
      totTaxblAmt: 100,
      totTaxAmt: 16,
      totAmt: 116,
      ...reg,
      itemList: lines,
    };
    assert.equal(await code('insertStockIO', io), '000');
    assert.match((await device.call('insertStockIO', { ...io, sarNo: 2, sarTyCd: '99' })).envelope!.resultMsg, /\[sarTyCd\]/);
    assert.equal((await device.call('selectStockMoveList', since)).envelope?.data.stockList[0].sarNo, 1);
    assert.equal(await code('saveStockMaster', { itemCd: 'KE1NTXU0000001', rsdQty: 10, ...reg }), '000');
  });
});

describe('KRA OSCU: faults and the filed documents', () => {
  test('forced rejection on the sale path, lost reply (filed, then 994 on retry), slow, down; the filed bodies', async () => {
    const device = await installed();
    const faults = `/profiles/kra-oscu/devices/${device.tin}/00/faults`;
    assert.equal((await control(sim, 'PUT', faults, { reject: { count: 1, code: '999' } })).status, 200);
    const rejected = await device.call('saveTrnsSalesOsdc', saleBody(1, ALL_LETTERS));
    assert.equal(rejected.envelope?.resultCd, '999');
    await control(sim, 'PUT', faults, { loseReplies: 1 });
    await assert.rejects(device.call('saveTrnsSalesOsdc', saleBody(1, ALL_LETTERS)));
    assert.equal((await device.call('saveTrnsSalesOsdc', saleBody(1, ALL_LETTERS))).envelope?.resultCd, '994');
    assert.equal((await device.call('selectInvoiceDetails', { invcNo: 1 })).envelope?.resultCd, '000');
    await control(sim, 'PUT', faults, { forcedResult: { code: '896', endpoints: ['selectCodeList'] } });
    assert.equal((await device.call('selectCodeList', { lastReqDt: '20180101000000' })).envelope?.resultCd, '896');
    await control(sim, 'PUT', faults, { forcedResult: null, down: true });
    await assert.rejects(device.call('selectCodeList', { lastReqDt: '20180101000000' }));
    await control(sim, 'DELETE', faults);

    const documents = (await control(sim, 'GET', `/profiles/kra-oscu/devices/${device.tin}/00/documents`)).json.documents;
    assert.deepEqual(
      documents.map((d: { invcNo: number; resultCd: string; replyLost: boolean }) => [d.invcNo, d.resultCd, d.replyLost]),
      [
        [1, '999', false],
        [1, '000', true],
        [1, '994', false],
      ],
    );
    const filed = kraControl(sim, 'kra-oscu').filed(device.tin, '00');
    assert.equal(filed.length, 1);
    assert.equal(filed[0]!.body.totAmt, saleBody(1, ALL_LETTERS).totAmt);
    assert.equal(filed[0]!.receipt.curRcptNo, 1);
    assert.deepEqual((await control(sim, 'GET', `/profiles/kra-oscu/devices/${device.tin}/00/filed`)).json.filed[0].invcNo, 1);
    const detail = (await control(sim, 'GET', `/profiles/kra-oscu/devices/${device.tin}/00`)).json;
    assert.equal(detail.installed, true);
    assert.equal(JSON.stringify(detail).includes(device.cmcKey), false);
  });

  test('slow: delayMs holds the call', async () => {
    const device = await installed();
    await control(sim, 'PUT', `/profiles/kra-oscu/devices/${device.tin}/00/faults`, { delayMs: 60_000 });
    const pending = device.call('selectCodeList', { lastReqDt: '20180101000000' });
    await eventually(
      async () => (await control(sim, 'GET', `/profiles/kra-oscu/devices/${device.tin}/00/held`)).json.held === 1,
      'the call held',
    );
    await control(sim, 'PUT', `/profiles/kra-oscu/devices/${device.tin}/00/faults`, { delayMs: 0 });
    assert.equal((await pending).envelope?.resultCd, '000');
  });
});
