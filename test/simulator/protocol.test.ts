// What the simulator checks and answers, asserted on the raw wire (fetch), so these tests do not
// depend on how the gateway's client reads replies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatVsdcDate, formatVsdcDateTime, VSDC_PATHS } from '@fiscal-gateway/vsdc-protocol';
import { buildZraSaleBody, type ZraSaleDocument } from '../../src/authorities/zra-vsdc/sales-body.ts';
import type { DeviceTarget } from '../../src/authorities/zra-vsdc/client.ts';
import { addDevice, freshTpin, sale, startWorld, type World } from '../authorities/zra/helpers.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world.close();
});

interface Wire {
  status: number;
  contentType: string;
  text: string;
  envelope: { resultCd: string; resultMsg: string; resultDt: string; data: unknown } | null;
}

async function post(path: string, body: unknown): Promise<Wire> {
  const response = await fetch(`${world.sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let envelope: Wire['envelope'] = null;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (typeof parsed.resultCd === 'string') envelope = parsed as Wire['envelope'];
  } catch {
    envelope = null;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, envelope };
}

const saveSales = (body: unknown): Promise<Wire> => post('/trnsSales/saveSales', body);

function code(wire: Wire): string | undefined {
  return wire.envelope?.resultCd;
}

let invoiceNo = 100;
function body(target: DeviceTarget, overrides: Partial<ZraSaleDocument> = {}): Record<string, unknown> {
  invoiceNo += 1;
  return buildZraSaleBody(sale(target, invoiceNo, overrides)) as unknown as Record<string, unknown>;
}

const DAY = 86_400_000;

describe('envelope and transport', () => {
  test('answers with a string resultCd, a message, a UTC resultDt and data', async () => {
    const wire = await post('/code/selectCodes', { tpin: world.target.tpin, bhfId: '000', lastReqDt: '20000101000000' });
    assert.equal(wire.status, 200);
    assert.match(wire.contentType, /application\/json/);
    assert.equal(wire.envelope?.resultCd, '000');
    assert.equal(wire.envelope?.resultMsg, 'It is succeeded');
    assert.match(wire.envelope?.resultDt ?? '', /^\d{14}$/);
  });

  test("an unknown path is the VSDC's own JSON 404, a GET is a 405, neither an envelope", async () => {
    const wire = await post('/trnsSales/saveSale', {});
    assert.equal(wire.status, 404);
    assert.match(wire.contentType, /application\/json/);
    assert.equal(wire.envelope, null);
    const { status, error, path } = JSON.parse(wire.text) as { status: number; error: string; path: string };
    assert.deepEqual([status, error, path], [404, 'Not Found', '/trnsSales/saveSale']);
    const get = await fetch(`${world.sim.url}/code/selectCodes`);
    assert.deepEqual([get.status, ((await get.json()) as { error: string }).error], [405, 'Method Not Allowed']);
  });

  test('every endpoint of the protocol answers with an envelope, none with a 404', async () => {
    for (const path of Object.values(VSDC_PATHS)) {
      const wire = await post(path, { tpin: world.target.tpin, bhfId: '000' });
      assert.equal(wire.status, 200, path);
      assert.match(wire.envelope?.resultCd ?? '', /^\d{3}$/, path);
    }
  });

  test('outside the context path the servlet container answers its HTML 404', async () => {
    const contextWorld = await startWorld({ contextPath: '/zravsdc' });
    try {
      const outside = await fetch(`${contextWorld.sim.origin}/trnsSales/saveSales`, { method: 'POST', body: '{}' });
      assert.deepEqual([outside.status, /HTTP Status 404/.test(await outside.text())], [404, true]);
      const inside = await fetch(`${contextWorld.sim.url}/nope`, { method: 'POST', body: '{}' });
      assert.deepEqual([inside.status, ((await inside.json()) as { error: string }).error], [404, 'Not Found']);
    } finally {
      await contextWorld.close();
    }
  });

  test('a body that is not JSON gets a bare 400', async () => {
    const wire = await post('/code/selectCodes', '{not json');
    assert.equal(wire.status, 400);
    assert.equal(wire.envelope, null);
  });

  test('"" in a number or date field gets a bare 400; a numeric string is coerced', async () => {
    const valid = body(world.target);
    assert.equal((await saveSales({ ...valid, cfmDt: '' })).status, 400);
    assert.equal((await saveSales({ ...valid, totAmt: '' })).status, 400);
    const lines = valid.itemList as Record<string, unknown>[];
    assert.equal((await saveSales({ ...valid, itemList: [{ ...lines[0], qty: '' }, lines[1]] })).status, 400);
    assert.equal((await post('/code/selectCodes', { tpin: world.target.tpin, bhfId: '000', lastReqDt: '' })).status, 400);
    const coerced = await saveSales({ ...valid, totAmt: String(valid.totAmt) });
    assert.equal(code(coerced), '000');
  });

  test('tpin and bhfId are validated on every call', async () => {
    const wire = await post('/code/selectCodes', { tpin: '123', bhfId: '0', lastReqDt: '20000101000000' });
    assert.equal(code(wire), '910');
    assert.match(wire.envelope?.resultMsg ?? '', /tpin/);
  });
});

describe('initialisation', () => {
  test('needs a serial number', async () => {
    assert.equal(code(await post('/initializer/selectInitInfo', { tpin: freshTpin(), bhfId: '000' })), '910');
  });

  test('a serial installed under another TPIN or branch answers 902', async () => {
    const tpin = freshTpin();
    assert.equal(code(await post('/initializer/selectInitInfo', { tpin, bhfId: '000', dvcSrlNo: 'SHARED-SN' })), '000');
    const elsewhere = await post('/initializer/selectInitInfo', { tpin: freshTpin(), bhfId: '000', dvcSrlNo: 'SHARED-SN' });
    assert.equal(code(elsewhere), '902');
    assert.equal(elsewhere.envelope?.data, null);
    assert.equal(code(await post('/initializer/selectInitInfo', { tpin, bhfId: '001', dvcSrlNo: 'SHARED-SN' })), '902');
  });

  test('gives each device its own sdcId and a space-padded mrcNo', async () => {
    const a = await post('/initializer/selectInitInfo', { tpin: freshTpin(), bhfId: '000', dvcSrlNo: 'SN-A' });
    const b = await post('/initializer/selectInitInfo', { tpin: freshTpin(), bhfId: '000', dvcSrlNo: 'SN-B' });
    const infoA = (a.envelope?.data as { info: { sdcId: string; mrcNo: string } }).info;
    const infoB = (b.envelope?.data as { info: { sdcId: string; mrcNo: string } }).info;
    assert.notEqual(infoA.sdcId, infoB.sdcId);
    assert.match(infoA.mrcNo, /^WIS\d{8}\s+$/);
  });

  test('a device that is not initialised cannot file (901)', async () => {
    const target: DeviceTarget = { baseUrl: world.sim.url, tpin: freshTpin(), bhfId: '000' };
    assert.equal(code(await saveSales(body(target))), '901');
  });
});

describe('saveSales checks', () => {
  test('salesDt must be within 180 days and not in the future', async () => {
    const now = Date.now();
    assert.equal(code(await saveSales(body(world.target, { occurredAt: new Date(now - 179 * DAY) }))), '000');
    const old = await saveSales(body(world.target, { occurredAt: new Date(now - 182 * DAY) }));
    assert.equal(code(old), '910');
    assert.match(old.envelope?.resultMsg ?? '', /salesDt.*180 days/);
    assert.equal(code(await saveSales(body(world.target, { occurredAt: new Date(now + 2 * DAY) }))), '910');
    assert.equal(
      code(await saveSales({ ...body(world.target), salesDt: formatVsdcDateTime(new Date()) })),
      '910',
      'salesDt is a date, not a date-time',
    );
  });

  test('known codes: classification, VAT category, payment type, units, currency', async () => {
    const valid = body(world.target);
    const line0 = (valid.itemList as Record<string, unknown>[])[0]!;
    const withLine = (patch: Record<string, unknown>) => ({
      ...valid,
      itemList: [{ ...line0, ...patch }, ...(valid.itemList as unknown[]).slice(1)],
    });
    assert.equal(code(await saveSales(withLine({ itemClsCd: '00000000' }))), '913');
    assert.equal(code(await saveSales(withLine({ vatCatCd: 'Z' }))), '913');
    assert.equal(code(await saveSales(withLine({ qtyUnitCd: 'XX' }))), '913');
    assert.equal(code(await saveSales({ ...valid, pmtTyCd: '09' })), '913');
    assert.equal(code(await saveSales({ ...valid, currencyTyCd: 'XXX' })), '913');
    const usd = await saveSales({ ...valid, currencyTyCd: 'USD', exchangeRt: 1 });
    assert.deepEqual([code(usd), usd.envelope?.resultMsg], ['910', 'Exchange rate for USD Cannot be 1']);
  });

  test('C1 (export) needs destnCountryCd, and a known one', async () => {
    const exportLine = { name: 'Copper cathodes', classificationCode: '50221200', quantity: 1, price: 1000, vatCategory: 'C1' as const };
    const valid = body(world.target, { lines: [exportLine], destinationCountryCode: 'ZA' });
    assert.equal(code(await saveSales({ ...valid, cisInvcNo: `${String(valid.cisInvcNo)}0`, destnCountryCd: null })), '910');
    assert.equal(code(await saveSales({ ...valid, cisInvcNo: `${String(valid.cisInvcNo)}1`, destnCountryCd: 'QQ' })), '913');
    assert.equal(code(await saveSales(valid)), '000');
  });

  test('arithmetic is checked per line and in the header, within 0.01', async () => {
    const valid = body(world.target);
    const lines = valid.itemList as Record<string, number>[];
    const withLine = (patch: Record<string, number>) => ({ ...valid, itemList: [{ ...lines[0], ...patch }, lines[1]] });
    // Shift an amount in exact cents (binary float sums would add a 5th decimal).
    const plus = (value: unknown, delta: number): number => Math.round(((value as number) + delta) * 100) / 100;
    const cases: [Record<string, unknown>, string][] = [
      [withLine({ splyAmt: plus(lines[0]!.splyAmt, 1) }), 'itemList[0].splyAmt'],
      [withLine({ totAmt: plus(lines[0]!.totAmt, 1) }), 'itemList[0].totAmt'],
      [withLine({ vatTaxblAmt: plus(lines[0]!.vatTaxblAmt, 0.05), vatAmt: plus(lines[0]!.vatAmt, -0.05) }), 'itemList[0].vatTaxblAmt'],
      [withLine({ vatAmt: plus(lines[0]!.vatAmt, 0.02) }), 'itemList[0].vatAmt'],
      [{ ...valid, taxblAmtD: plus(valid.taxblAmtD, 0.02) }, 'taxblAmtD'],
      [{ ...valid, taxRtA: 15 }, 'taxRtA'],
      [{ ...valid, taxAmtTl: 1 }, 'taxAmtTl'],
      [{ ...valid, totTaxAmt: plus(valid.totTaxAmt, 0.02) }, 'totTaxAmt'],
      [{ ...valid, totAmt: plus(valid.totAmt, 0.02) }, 'totAmt'],
    ];
    for (const [broken, field] of cases) {
      const wire = await saveSales(broken);
      assert.deepEqual([code(wire), wire.envelope?.resultMsg], ['910', `Wrong Amount computation at ${field}`], field);
    }
    assert.equal(code(await saveSales({ ...valid, totAmt: plus(valid.totAmt, 0.01) })), '000', '0.01 is tolerated');
  });

  test('amounts with more than 4 decimals are refused', async () => {
    const valid = body(world.target);
    assert.equal(code(await saveSales({ ...valid, totAmt: 370.00001 })), '910');
  });

  test('tax-exclusive documents are accepted; a document mixing both readings is not', async () => {
    const exclusive = body(world.target, { taxInclusive: false });
    assert.equal(code(await saveSales(exclusive)), '000');
    const inclusive = body(world.target);
    const [inclusiveA] = inclusive.itemList as unknown[];
    const [exclusiveA, exclusiveD] = body(world.target, { taxInclusive: false }).itemList as unknown[];
    const mixed = { ...inclusive, itemList: [inclusiveA, exclusiveA, exclusiveD], totItemCnt: 3 };
    const wire = await saveSales(mixed);
    assert.equal(code(wire), '910');
    assert.match(wire.envelope?.resultMsg ?? '', /Wrong Amount computation/);
  });

  test('required fields are named in the 910 message', async () => {
    const { cisInvcNo: _dropped, ...withoutNumber } = body(world.target);
    const wire = await saveSales(withoutNumber);
    assert.deepEqual([code(wire), wire.envelope?.resultMsg], ['910', "Validation error for fields: ['cisInvcNo': must not be null]"]);
  });

  test('the filed invoice number moves lastSaleInvcNo', async () => {
    const { target } = await addDevice(world);
    assert.equal(code(await saveSales(buildZraSaleBody(sale(target, 77)))), '000');
    assert.equal(world.sim.control.getDevice(target.tpin, target.bhfId)?.lastSaleInvcNo, 77);
  });

  test('selectInvoice needs cisInvcNo and invcSdcId, and only finds this device’s documents', async () => {
    const missing = await post('/trnsSales/selectInvoice', { tpin: world.target.tpin, bhfId: '000' });
    assert.equal(code(missing), '910');
    assert.match(missing.envelope?.resultMsg ?? '', /invcSdcId.*cisInvcNo|cisInvcNo.*invcSdcId/);
    const other = await addDevice(world);
    assert.equal(code(await saveSales(buildZraSaleBody(sale(other.target, 1)))), '000');
    assert.equal(
      code(await post('/trnsSales/selectInvoice', { tpin: world.target.tpin, bhfId: '000', cisInvcNo: '1', invcSdcId: other.sdcId })),
      '001',
    );
  });
});

describe('bodies as real integrators send them', () => {
  /** Every header rate as real bodies carry them, levies included. */
  const RATES = {
    taxRtA: 16,
    taxRtB: 16,
    taxRtC1: 0,
    taxRtC2: 0,
    taxRtC3: 0,
    taxRtD: 0,
    taxRtRvat: 16,
    taxRtE: 0,
    taxRtF: 10,
    taxRtIpl1: 5,
    taxRtIpl2: 0,
    taxRtTl: 1.5,
    taxRtEcm: 5,
    taxRtExeeg: 3,
    taxRtTot: 0,
  };
  const line = (patch: Record<string, unknown>): Record<string, unknown> => ({
    itemSeq: 1,
    itemCd: null,
    itemClsCd: '50221200',
    itemNm: 'Item',
    bcd: '',
    pkgUnitCd: 'NT',
    pkg: 0,
    qtyUnitCd: 'U',
    qty: 1,
    dcRt: 0,
    dcAmt: 0,
    isrccCd: '',
    isrccNm: '',
    isrcRt: 0,
    isrcAmt: 0,
    exciseTxCatCd: null,
    tlCatCd: null,
    iplCatCd: null,
    ...patch,
  });
  /** A valid header around `items`, with every amount of `header` (0 elsewhere). */
  function realBody(items: Record<string, unknown>[], header: Record<string, number>): Record<string, unknown> {
    const base = body(world.target);
    const zeros = Object.fromEntries(
      Object.keys(base)
        .filter((k) => /^tax(bl)?Amt/.test(k))
        .map((k) => [k, 0]),
    );
    return {
      ...base,
      ...zeros,
      ...RATES,
      exchangeRt: '1',
      cashDcRt: 0,
      cashDcAmt: 0,
      ...header,
      totItemCnt: items.length,
      itemList: items.map((l, i) => ({ ...l, itemSeq: i + 1 })),
    };
  }
  const bread = line({
    itemNm: 'Bread',
    prc: 125,
    splyAmt: 125,
    dcRt: 20,
    dcAmt: 25,
    vatCatCd: 'A',
    vatTaxblAmt: 86.2069,
    vatAmt: 13.7931,
    exciseTaxblAmt: 0,
    tlTaxblAmt: 0,
    iplTaxblAmt: 0,
    iplAmt: 0,
    tlAmt: 0,
    exciseTxAmt: 0,
    totAmt: 100,
  });
  const reinsurance = line({
    itemNm: 'Reinsurance',
    prc: 100,
    splyAmt: 100,
    vatCatCd: null,
    iplCatCd: 'IPL2',
    vatTaxblAmt: 0,
    vatAmt: 0,
    iplTaxblAmt: 100,
    iplAmt: 0,
    totAmt: 100,
  });
  const normalSale = () =>
    realBody([bread, reinsurance], {
      taxblAmtA: 86.2069,
      taxAmtA: 13.7931,
      taxblAmtIpl2: 100,
      totTaxblAmt: 186.2069,
      totTaxAmt: 13.7931,
      cashDcRt: 25,
      cashDcAmt: 50,
      totAmt: 150,
    });
  const wings = line({
    itemNm: 'Chicken wings',
    rrp: 150,
    prc: 100,
    splyAmt: 150,
    vatCatCd: 'B',
    vatTaxblAmt: 129.3103,
    vatAmt: 20.6897,
    exciseTaxblAmt: 0,
    exciseTxAmt: 0,
    totAmt: 100,
  });
  const chips = line({
    itemNm: 'Chips',
    rrp: 50,
    prc: 100,
    splyAmt: 100,
    vatCatCd: 'B',
    vatTaxblAmt: 86.2069,
    vatAmt: 13.7931,
    exciseTaxblAmt: 0,
    exciseTxAmt: 0,
    totAmt: 100,
  });
  const mtvSale = (items = [wings, chips]) =>
    realBody(items, {
      taxblAmtB: 215.5172,
      taxAmtB: 34.4828,
      taxblAmtC: 0,
      taxAmtC: 0,
      totTaxblAmt: 215.5172,
      totTaxAmt: 34.4828,
      totAmt: 200,
    });

  test("the authority's normal-sale sample: 4 decimals, a discount with its rate, a levy line without VAT, levy rates, a cash discount", async () => {
    const wire = await saveSales(normalSale());
    assert.equal(code(wire), '000', wire.envelope?.resultMsg);
  });

  test("the authority's MTV sample: VAT on the RRP, splyAmt on the RRP, totAmt what the customer pays, a C bucket", async () => {
    const wire = await saveSales(mtvSale());
    assert.equal(code(wire), '000', wire.envelope?.resultMsg);
  });

  test('a levy is its rate of its base (tourism levy 1.5 %)', async () => {
    const room = line({
      itemNm: 'Room night',
      prc: 200,
      splyAmt: 200,
      vatCatCd: null,
      tlCatCd: 'TL',
      tlTaxblAmt: 200,
      tlAmt: 3,
      totAmt: 200,
    });
    const levied = (amount: number) =>
      realBody([{ ...room, tlAmt: amount }], { taxblAmtTl: 200, taxAmtTl: amount, totTaxblAmt: 200, totTaxAmt: amount, totAmt: 200 });
    assert.equal(code(await saveSales(levied(3))), '000');
    const wrong = await saveSales(levied(4));
    assert.deepEqual([code(wrong), wrong.envelope?.resultMsg], ['910', 'Wrong Amount computation at itemList[0].tlAmt']);
  });

  test('what the real VSDC refuses in them', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [mtvSale([{ ...wings, rrp: null }, chips]), '910', "Validation error for fields: ['itemList[0].rrp': must not be null]"],
      [mtvSale([{ ...wings, vatTaxblAmt: 86.2069, vatAmt: 13.7931 }, chips]), '910', 'Wrong Amount computation at itemList[0].vatTaxblAmt'],
      [mtvSale([{ ...wings, totAmt: 150 }, chips]), '910', 'Wrong Amount computation at itemList[0].totAmt'],
      [
        {
          ...normalSale(),
          itemList: [
            { ...bread, dcRt: 30 },
            { ...reinsurance, itemSeq: 2 },
          ],
        },
        '910',
        'Wrong Amount computation at itemList[0].dcAmt',
      ],
      [
        { ...normalSale(), itemList: [bread, { ...reinsurance, itemSeq: 2, iplCatCd: 'IPL9' }] },
        '913',
        'Code value error among request parameters: [itemList[1].iplCatCd] IPL9',
      ],
      [
        { ...normalSale(), itemList: [bread, { ...reinsurance, itemSeq: 2, iplCatCd: null }] },
        '910',
        "Validation error for fields: ['itemList[1].vatCatCd': must not be null]",
      ],
      [
        {
          ...normalSale(),
          itemList: [
            { ...bread, tlAmt: 1.5 },
            { ...reinsurance, itemSeq: 2 },
          ],
        },
        '910',
        'Wrong Amount computation at itemList[0].tlAmt',
      ],
      [{ ...normalSale(), taxRtTl: 2 }, '910', 'Wrong Amount computation at taxRtTl'],
      [{ ...normalSale(), taxblAmtIpl2: 0 }, '910', 'Wrong Amount computation at taxblAmtIpl2'],
      [{ ...normalSale(), cashDcAmt: 40 }, '910', 'Wrong Amount computation at cashDcAmt'],
      [{ ...mtvSale(), taxblAmtC: 5 }, '910', 'Wrong Amount computation at taxblAmtC'],
      [{ ...mtvSale(), totAmt: 250 }, '910', 'Wrong Amount computation at totAmt'],
    ];
    for (const [broken, resultCd, message] of cases) {
      const wire = await saveSales(broken);
      assert.deepEqual([code(wire), wire.envelope?.resultMsg], [resultCd, message]);
    }
  });
});

describe('credit and debit notes', () => {
  async function filedSale(target: DeviceTarget, no: number): Promise<number> {
    const wire = await saveSales(buildZraSaleBody(sale(target, no)));
    assert.equal(code(wire), '000');
    return (wire.envelope?.data as { rcptNo: number }).rcptNo;
  }

  test('must reference a sale signed by this device', async () => {
    const { target, sdcId } = await addDevice(world);
    const other = await addDevice(world);
    const rcptNo = await filedSale(target, 1);
    const otherRcptNo = await filedSale(other.target, 1);
    const note = (overrides: Partial<ZraSaleDocument>) =>
      buildZraSaleBody(
        sale(target, 50, { receiptType: 'D', reasonCode: '02', originalSdcId: sdcId, originalReceiptNo: rcptNo, ...overrides }),
      );
    assert.equal(code(await saveSales({ ...note({}), orgInvcNo: otherRcptNo + 1000 })), '930');
    assert.equal(code(await saveSales(note({ originalSdcId: other.sdcId }))), '930');
    assert.equal(code(await saveSales(note({ invoiceNo: 51 }))), '000');
    // A note cannot be the original of another note.
    const debitRcptNo = (await post('/trnsSales/selectInvoice', { tpin: target.tpin, bhfId: '000', cisInvcNo: '51', invcSdcId: sdcId }))
      .envelope?.data as { rcptNo: number };
    assert.equal(code(await saveSales(note({ invoiceNo: 52, originalReceiptNo: debitRcptNo.rcptNo }))), '930');
  });

  test('needs its reason code', async () => {
    const { target, sdcId } = await addDevice(world);
    const rcptNo = await filedSale(target, 1);
    const credit = buildZraSaleBody(
      sale(target, 2, { receiptType: 'R', reasonCode: '01', originalSdcId: sdcId, originalReceiptNo: rcptNo }),
    );
    assert.equal(code(await saveSales({ ...credit, rfdRsnCd: null })), '910');
    assert.equal(code(await saveSales({ ...credit, rfdRsnCd: '99' })), '913');
  });

  test('a credit note may not exceed its original (930–935), counting earlier notes', async () => {
    const { target, sdcId } = await addDevice(world);
    const rcptNo = await filedSale(target, 1);
    const original = sale(target, 1);
    const credit = (no: number, lines: ZraSaleDocument['lines']) =>
      buildZraSaleBody(sale(target, no, { receiptType: 'R', reasonCode: '03', originalSdcId: sdcId, originalReceiptNo: rcptNo, lines }));
    const [meal, bread] = original.lines as [ZraSaleDocument['lines'][number], ZraSaleDocument['lines'][number]];

    assert.equal(code(await saveSales(credit(10, [{ ...meal, itemCode: 'NOT-ON-ORIGINAL' }]))), '932');
    assert.equal(code(await saveSales(credit(11, [{ ...meal, quantity: 3 }]))), '934');
    assert.equal(code(await saveSales(credit(12, [{ ...meal, price: 200 }]))), '931');
    assert.equal(code(await saveSales(credit(13, [{ ...meal, quantity: 1 }]))), '000');
    assert.equal(code(await saveSales(credit(14, [{ ...meal, quantity: 1 }, bread]))), '000');
    assert.equal(code(await saveSales(credit(15, [{ ...meal, quantity: 1 }]))), '934', 'nothing left to credit');
    assert.equal(code(await saveSales(buildZraSaleBody(sale(target, 1)))), '924', 'a note may not reuse a number either');
  });
});

describe('customers, items, imports', () => {
  test('selectCustomer finds known taxpayers and installed devices’ TPINs', async () => {
    const found = await post('/customers/selectCustomer', { tpin: world.target.tpin, bhfId: '000', custmTpin: '2000000003' });
    assert.equal((found.envelope?.data as { custList: { custNm: string }[] }).custList[0]?.custNm, 'Zambezi Agro Dealers');
    const device = await post('/customers/selectCustomer', { tpin: world.target.tpin, bhfId: '000', custmTpin: world.target.tpin });
    assert.equal(code(device), '000');
    assert.equal(code(await post('/customers/selectCustomer', { tpin: world.target.tpin, bhfId: '000', custmTpin: 'abc' })), '910');
  });

  test('selectImportItems returns lines fed since lastReqDt', async () => {
    const { target } = await addDevice(world);
    const since = formatVsdcDateTime(new Date(Date.now() - 1000));
    world.sim.control.feedImports(target.tpin, '000', [{ itemNm: 'Fertiliser 50kg' }, { itemNm: 'Seed maize 10kg' }]);
    const wire = await post('/imports/selectImportItems', { tpin: target.tpin, bhfId: '000', lastReqDt: since });
    const items = (wire.envelope?.data as { itemList: { itemNm: string; itemSeq: number; dclDe: string }[] }).itemList;
    assert.deepEqual(
      items.map((i) => [i.itemNm, i.itemSeq]),
      [
        ['Fertiliser 50kg', 1],
        ['Seed maize 10kg', 2],
      ],
    );
    assert.equal(items[0]?.dclDe, formatVsdcDate(new Date()));
    assert.equal(code(await post('/imports/selectImportItems', { tpin: target.tpin, bhfId: '000', lastReqDt: '29990101000000' })), '001');
  });

  test('updateImportItems checks status and classification', async () => {
    const { target } = await addDevice(world);
    const [line] = world.sim.control.feedImports(target.tpin, '000', [{}]);
    const decision = {
      itemSeq: 1,
      hsCd: line!.hsCd,
      itemClsCd: '50221200',
      itemCd: 'IMP-1',
      imptItemSttsCd: '3',
      modrId: 'x',
      modrNm: 'x',
    };
    const call = (patch: Record<string, unknown>) =>
      post('/imports/updateImportItems', {
        tpin: target.tpin,
        bhfId: '000',
        taskCd: line!.taskCd,
        dclDe: line!.dclDe,
        importItemList: [{ ...decision, ...patch }],
      });
    assert.equal(code(await call({ imptItemSttsCd: '7' })), '913');
    assert.equal(code(await call({ itemClsCd: '11111111' })), '913');
    assert.equal(code(await call({ itemSeq: 9 })), '910');
    assert.equal(code(await call({ imptItemSttsCd: '4', itemClsCd: null })), '000');
  });
});
