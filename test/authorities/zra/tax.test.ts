import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HEADER_TAX_BUCKETS, formatVsdcDate, formatVsdcDateTime, parseVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import { buildZraSaleBody, toFiscalReceipt, type ZraSaleDocument } from '../../../src/authorities/zra-vsdc/sales-body.ts';
import { ZRA_VSDC_PROFILE } from '../../../src/authorities/zra-vsdc/adapter.ts';
import { sameTotal } from '../../../src/domain/fiscal/filing/filer.ts';
import { FiscalDocumentError } from '../../../src/authorities/port/filing.ts';
import { amountsMatch, computeSale, SaleAmountsError, VAT_CATEGORIES } from '../../../src/authorities/zra-vsdc/tax.ts';

const line = (quantity: number | string, price: number | string, vatCategory: ZraSaleDocument['lines'][number]['vatCategory'] = 'A') => ({
  name: 'Item',
  classificationCode: '50221200',
  quantity,
  price,
  vatCategory,
});

describe('VAT categories', () => {
  test('publishes the protocol rates', () => {
    const rates = Object.fromEntries(VAT_CATEGORIES.map((c) => [c.code, c.rate]));
    assert.deepEqual(rates, { A: 16, B: 16, C1: 0, C2: 0, C3: 0, D: 0, RVAT: 16, E: 0, F: 10 });
  });
});

describe('computeSale', () => {
  test('tax-inclusive: VAT is carved out of the price', () => {
    const { lines, totals } = computeSale([line(2, 185)], true);
    assert.deepEqual(
      [lines[0]!.supplyAmount, lines[0]!.lineAmount, lines[0]!.taxableAmount, lines[0]!.vatAmount],
      [370, 370, 318.97, 51.03],
    );
    assert.deepEqual(totals, { net: 318.97, vat: 51.03, total: 370, discount: 0 });
  });

  test('tax-exclusive: VAT goes on top', () => {
    const { lines, totals } = computeSale([line(2, 185)], false);
    assert.deepEqual([lines[0]!.taxableAmount, lines[0]!.vatAmount], [370, 59.2]);
    assert.deepEqual(totals, { net: 370, vat: 59.2, total: 429.2, discount: 0 });
  });

  test('rounds half up on exact decimals, never on binary floats', () => {
    // 0.125 × 1 = 0.125 → 0.13 (binary float would give 0.12 for 1.005-style values)
    assert.equal(computeSale([line('0.125', 1, 'D')], true).lines[0]!.supplyAmount, 0.13);
    assert.equal(computeSale([line(1, '1.005', 'D')], true).lines[0]!.supplyAmount, 1.01);
    // 10 × 16 % = 1.60; 0.05 × 10 % = 0.005 → 0.01
    assert.equal(computeSale([line(1, '0.05', 'F')], false).lines[0]!.vatAmount, 0.01);
  });

  test('totals per category and overall are sums of the rounded lines', () => {
    const sale = computeSale([line('1.125', '9.99', 'F'), line(3, '24.50', 'D'), line(1, 10, 'A'), line(2, 5, 'A')], true);
    const a = sale.byCategory.find((c) => c.code === 'A')!;
    assert.deepEqual([a.taxable, a.vat], [17.24, 2.76]);
    assert.equal(sale.byCategory.length, VAT_CATEGORIES.length);
    assert.equal(sale.byCategory.find((c) => c.code === 'B')!.taxable, 0);
    assert.equal(sale.totals.total, sale.lines.reduce((sum, l) => sum + l.lineAmount * 100, 0) / 100);
  });

  test('a credit line with allocated amounts is filed with them, not recomputed from quantity × price', () => {
    // The second unit of 3 × 10.125 = 30.38: its share is 10.12 although 1 × 10.125 rounds to 10.13.
    const credit = computeSale([{ ...line(1, '10.125'), allocated: { amount: '10.12', net: '8.72', vat: '1.40' } }], true);
    assert.deepEqual([credit.lines[0]!.supplyAmount, credit.lines[0]!.taxableAmount, credit.lines[0]!.vatAmount], [10.12, 8.72, 1.4]);
    assert.deepEqual(credit.totals, { net: 8.72, vat: 1.4, total: 10.12, discount: 0 });
    const exclusive = computeSale([{ ...line(1, '10.125'), allocated: { amount: 10.12, net: 10.12, vat: 1.62 } }], false);
    assert.deepEqual(exclusive.totals, { net: 10.12, vat: 1.62, total: 11.74, discount: 0 });
    const body = buildZraSaleBody({
      ...baseDoc,
      receiptType: 'R',
      originalReceiptNo: 17,
      originalSdcId: 'SDC0010002115',
      reasonCode: '03',
      lines: [{ ...line(1, '10.125'), allocated: { amount: '10.12', net: '8.72', vat: '1.40' } }],
    });
    assert.deepEqual(
      [body.itemList[0]!.prc, body.itemList[0]!.splyAmt, body.itemList[0]!.totAmt, body.itemList[0]!.vatTaxblAmt, body.itemList[0]!.vatAmt],
      [10.125, 10.12, 10.12, 8.72, 1.4],
    );
    // Allocated amounts must add up like any line's.
    assert.throws(() => computeSale([{ ...line(1, 10), allocated: { amount: 10, net: 8.62, vat: 1.37 } }], true), /do not add up/);
    assert.throws(() => computeSale([{ ...line(1, 10), allocated: { amount: 10, net: 9.99, vat: 1.6 } }], false), /do not add up/);
    assert.throws(() => computeSale([{ ...line(1, 10), allocated: { amount: '10.001', net: 10, vat: 0 } }], false), /more than 2 decimals/);
  });

  test("a discount comes off the line before VAT; dcRt is derived from it (the authority's sample: 125 less 25)", () => {
    const inclusive = computeSale([{ ...line(1, 125), discount: 25 }], true);
    const l = inclusive.lines[0]!;
    assert.deepEqual(
      [l.grossAmount, l.supplyAmount, l.discountAmount, l.discountRate, l.lineAmount, l.taxableAmount, l.vatAmount, l.total],
      [125, 125, 25, 20, 100, 86.21, 13.79, 100],
    );
    assert.deepEqual(inclusive.totals, { net: 86.21, vat: 13.79, total: 100, discount: 25 });
    const exclusive = computeSale([{ ...line(3, '10.125'), discount: '0.375' }], false);
    // 30.38 less 0.38 (the discount rounded half-up to the cent) = 30.00; VAT 4.80 on top.
    assert.deepEqual(
      [exclusive.lines[0]!.discountAmount, exclusive.lines[0]!.lineAmount, exclusive.lines[0]!.vatAmount, exclusive.lines[0]!.total],
      [0.38, 30, 4.8, 34.8],
    );
    assert.equal(exclusive.lines[0]!.discountRate, 1.2508); // 0.38 / 30.38 × 100, at 4 decimals
    assert.deepEqual(computeSale([{ ...line(2, 5), discount: 10 }], true).totals, { net: 0, vat: 0, total: 0, discount: 10 });
    assert.throws(() => computeSale([{ ...line(2, 5), discount: '10.01' }], true), /exceeds its amount/);
    assert.throws(() => computeSale([{ ...line(2, 5), discount: -1 }], true), /must not be negative/);
  });

  test("MTV (B): VAT on quantity × RRP when the line sells below it (the authority's sample), else on the line", () => {
    const sale = computeSale(
      [
        { ...line(1, 100, 'B'), rrp: 150 },
        { ...line(1, 100, 'B'), rrp: 50 },
      ],
      true,
    );
    const [below, above] = sale.lines;
    assert.deepEqual(
      [below!.supplyAmount, below!.lineAmount, below!.taxableAmount, below!.vatAmount, below!.total],
      [150, 100, 129.31, 20.69, 100],
    );
    assert.deepEqual(
      [above!.supplyAmount, above!.lineAmount, above!.taxableAmount, above!.vatAmount, above!.total],
      [100, 100, 86.21, 13.79, 100],
    );
    // What the customer pays is less than taxable + VAT: the VAT is on the RRP.
    assert.deepEqual(sale.totals, { net: 215.52, vat: 34.48, total: 200, discount: 0 });
    // A discount that takes the line below its RRP: VAT stays on the RRP.
    const discounted = computeSale([{ ...line(2, 100, 'B'), rrp: 90, discount: 40 }], false).lines[0]!;
    assert.deepEqual(
      [discounted.supplyAmount, discounted.lineAmount, discounted.taxableAmount, discounted.vatAmount, discounted.total],
      [200, 160, 180, 28.8, 188.8],
    );
    assert.throws(() => computeSale([line(1, 100, 'B')], true), /needs its rrp/);
    assert.throws(() => computeSale([{ ...line(1, 100, 'A'), rrp: 150 }], true), /not MTV/);
  });

  test('refuses input it cannot represent exactly', () => {
    assert.throws(() => computeSale([], true), SaleAmountsError);
    assert.throws(() => computeSale([line(0, 1)], true), SaleAmountsError);
    assert.throws(() => computeSale([line(1, -1)], true), SaleAmountsError);
    assert.throws(() => computeSale([line(0.1 + 0.2, 1)], true), /more than 4 decimals/);
    assert.throws(() => computeSale([line('abc', 1)], true), SaleAmountsError);
  });

  test('amountsMatch tolerates 0.01', () => {
    assert.equal(amountsMatch(370, 370.01), true);
    assert.equal(amountsMatch(370, 370.02), false);
  });
});

const baseDoc: ZraSaleDocument = {
  tpin: '1000000001',
  bhfId: '000',
  invoiceNo: 42,
  receiptType: 'S',
  customer: { tpin: null, name: 'Walk-in customer' },
  paymentMethod: '06',
  occurredAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
  taxInclusive: true,
  currency: 'ZMW',
  lines: [line(2, 185), { ...line(1, 100, 'F'), itemCode: 'SVC-1' }],
};

describe('buildZraSaleBody', () => {
  test('fills the header, every category trio and the lines', () => {
    const body = buildZraSaleBody(baseDoc);
    assert.equal(body.cisInvcNo, '42');
    assert.equal(body.orgInvcNo, 0);
    assert.equal(body.orgSdcId, null);
    assert.equal(body.custTpin, '1000000000');
    assert.equal(body.rcptTyCd, 'S');
    assert.equal(body.pmtTyCd, '06');
    assert.equal(body.cfmDt, '20260102030405');
    assert.equal(body.salesDt, '20260102');
    assert.equal(body.rfdDt, null);
    assert.equal(body.totItemCnt, 2);
    for (const bucket of HEADER_TAX_BUCKETS) {
      for (const field of [`taxblAmt${bucket}`, `taxRt${bucket}`, `taxAmt${bucket}`]) {
        assert.equal(typeof (body as unknown as Record<string, unknown>)[field], 'number', field);
      }
    }
    assert.deepEqual([body.taxblAmtA, body.taxRtA, body.taxAmtA], [318.97, 16, 51.03]);
    assert.deepEqual([body.taxblAmtF, body.taxRtF, body.taxAmtF], [90.91, 10, 9.09]);
    assert.deepEqual([body.taxblAmtRvat, body.taxAmtRvat, body.taxAmtTl], [0, 0, 0]);
    assert.deepEqual([body.totTaxblAmt, body.totTaxAmt, body.totAmt], [409.88, 60.12, 470]);
    assert.equal(body.itemList[1]!.itemCd, 'SVC-1');
    assert.equal(body.itemList[0]!.itemCd, null);
    assert.equal(body.itemList[0]!.splyAmt, 370);
  });

  test('never sends "" for a date or number', () => {
    const body = buildZraSaleBody(baseDoc) as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(body)) assert.notEqual(v, '', k);
    for (const item of body.itemList as Record<string, unknown>[]) for (const [k, v] of Object.entries(item)) assert.notEqual(v, '', k);
  });

  test('is deterministic, so a retry resends the same bytes', () => {
    assert.equal(JSON.stringify(buildZraSaleBody(baseDoc)), JSON.stringify(buildZraSaleBody({ ...baseDoc })));
  });

  test('credit and debit notes reference their original and carry their reason', () => {
    const credit = buildZraSaleBody({
      ...baseDoc,
      receiptType: 'R',
      originalReceiptNo: 17,
      originalSdcId: 'SDC0010002115',
      reasonCode: '03',
    });
    assert.deepEqual(
      [credit.orgInvcNo, credit.orgSdcId, credit.rfdRsnCd, credit.dbtRsnCd, credit.rfdDt],
      [17, 'SDC0010002115', '03', null, '20260102030405'],
    );
    const debit = buildZraSaleBody({
      ...baseDoc,
      receiptType: 'D',
      originalReceiptNo: 17,
      originalSdcId: 'SDC0010002115',
      reasonCode: '02',
    });
    assert.deepEqual([debit.rfdRsnCd, debit.dbtRsnCd, debit.rfdDt], [null, '02', null]);
    assert.throws(() => buildZraSaleBody({ ...baseDoc, receiptType: 'R', reasonCode: '01' }), FiscalDocumentError);
  });

  test('an export line needs a destination country', () => {
    const exportDoc = { ...baseDoc, lines: [line(1, 10, 'C1')] };
    assert.throws(() => buildZraSaleBody(exportDoc), /destinationCountryCode/);
    assert.equal(buildZraSaleBody({ ...exportDoc, destinationCountryCode: 'ZA' }).destnCountryCd, 'ZA');
  });

  test('a customer TPIN replaces the default one', () => {
    assert.equal(buildZraSaleBody({ ...baseDoc, customer: { tpin: '2000000001', name: 'Lusaka Trading' } }).custTpin, '2000000001');
  });

  test("a customer's name is cut to 60 characters, never inside an emoji (half of one is no character)", () => {
    const sixty = `${'x'.repeat(59)}\u{1F600}`;
    assert.equal(buildZraSaleBody({ ...baseDoc, customer: { tpin: null, name: sixty } }).custNm, sixty);
    assert.equal(buildZraSaleBody({ ...baseDoc, customer: { tpin: null, name: `${sixty}more` } }).custNm, sixty);
  });
});

describe('receipts', () => {
  const data = {
    rcptNo: 5317,
    intrlData: 'I6H7EAWI6NF3TXRECQLK2N5LBY',
    rcptSign: 'EU24KDP6C5E5MVUF',
    vsdcRcptPbctDate: '20250425144131',
    sdcId: 'SDC0010002115',
    mrcNo: 'WIS00003036  ',
    qrCodeUrl: 'https://sandboxportal.zra.org.zm/indexInvoiceData?Data=2486760171000EU24KDP6C5E5MVUF',
  };

  test('maps success data to the fiscal block, trimming mrcNo', () => {
    assert.deepEqual(toFiscalReceipt(data), {
      receiptNo: 5317,
      internalData: 'I6H7EAWI6NF3TXRECQLK2N5LBY',
      receiptSignature: 'EU24KDP6C5E5MVUF',
      publishedAt: new Date('2025-04-25T14:41:31Z'),
      sdcId: 'SDC0010002115',
      mrcNo: 'WIS00003036',
      qrCodeUrl: data.qrCodeUrl,
    });
  });

  test('publishedAt falls back to the envelope resultDt', () => {
    const { vsdcRcptPbctDate: _omitted, ...withoutDate } = data;
    assert.deepEqual(toFiscalReceipt(withoutDate, '20250426000000').publishedAt, new Date('2025-04-26T00:00:00Z'));
  });

  test("a 924 is adopted only when the filed total matches within the profile's 0.01", () => {
    const tolerance = ZRA_VSDC_PROFILE.amountTolerance;
    assert.equal(sameTotal(470, 470.01, tolerance), true);
    assert.equal(sameTotal('470.00', '469.99', tolerance), true);
    assert.equal(sameTotal(470, 470.02, tolerance), false);
    assert.equal(sameTotal(470, 471, tolerance), false);
  });
});

describe('dates', () => {
  test('format and parse UTC wire dates', () => {
    const at = new Date(Date.UTC(2024, 5, 13, 15, 55, 40));
    assert.equal(formatVsdcDateTime(at), '20240613155540');
    assert.equal(formatVsdcDate(at), '20240613');
    assert.deepEqual(parseVsdcDateTime('20240613155540'), at);
    assert.deepEqual(parseVsdcDateTime('20240613'), new Date(Date.UTC(2024, 5, 13)));
    assert.equal(parseVsdcDateTime('20240231000000'), null);
    assert.equal(parseVsdcDateTime(''), null);
  });
});
