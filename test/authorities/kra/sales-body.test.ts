// The bytes a KRA sale and credit note are filed with, built from the domain's FiscalDocument, the
// documents KRA cannot take, the receipt read back from either protocol's answer and from a
// lookup, dates in Nairobi time both ways, and the receipt's link on the sandbox or production portal.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalDocumentError, type FiscalDocument } from '../../../src/authorities/port/filing.ts';
import type { AuthorityDevice } from '../../../src/authorities/port/device.ts';
import { kraSale } from './helpers.ts';
import { buildKraSaleBody, readFiledSale, readKraReceipt } from '../../../src/authorities/kra-etims/sales-body.ts';
import { KRA_SETTINGS } from '../../../src/authorities/kra-etims/settings.ts';
import { formatKraDateTime, lastReqDtOf, parseKraDateTime } from '../../../src/authorities/kra-etims/wire.ts';
import { KRA_OSCU_PROFILE, KRA_VSCU_PROFILE } from '../../../src/authorities/kra-etims/adapter.ts';

const device: AuthorityDevice = {
  profile: 'kra-oscu',
  baseUrl: 'https://etims-api-sbx.kra.go.ke/etims-api',
  tpin: 'P051234567X',
  branch: '00',
  sdcId: 'KRACU0100000001',
  mrcNo: 'WIS01000001',
  unitKey: 'CMC-SECRET-KEY-1',
};

const RECEIPT =
  '"receipt":{"custTin":"A123456789Z","custMblNo":null,"rcptPbctDt":"20261206123005","trdeNm":null,"adrs":null,"topMsg":null,"btmMsg":null,"prchrAcptcYn":"N"}';
const PEOPLE =
  '"prchrAcptcYn":"N","remark":null,"regrId":"fiscal-gateway","regrNm":"fiscal-gateway","modrId":"fiscal-gateway","modrNm":"fiscal-gateway"';
const RATES = '"taxRtA":0,"taxRtB":16,"taxRtC":0,"taxRtD":0,"taxRtE":8';
const SOAP_LINE =
  '{"itemSeq":1,"itemCd":"KE1NTXU0000001","itemClsCd":"5059690800","itemNm":"Soap","bcd":null,"pkgUnitCd":"NT","pkg":1,"qtyUnitCd":"U","qty":1,"prc":1,"splyAmt":1,"dcRt":10,"dcAmt":0.1,' +
  '"isrccCd":null,"isrccNm":null,"isrcRt":0,"isrcAmt":0,"taxTyCd":"B","taxblAmt":0.9,"taxAmt":0.14,"totAmt":1.04}';

describe('the saveTrnsSalesOsdc body', () => {
  test('a sale: the exact bytes (golden facts dcAmt 0.10, taxblAmt 0.90, taxAmt 0.14, totAmt 1.04)', () => {
    const body = JSON.stringify(buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale()));
    assert.equal(
      body,
      '{"invcNo":7,"orgInvcNo":0,"trdInvcNo":"INV-2026-7","custTin":"A123456789Z","custNm":"Buyer Ltd","rcptTyCd":"S","pmtTyCd":"06","salesSttsCd":"02",' +
        '"cfmDt":"20261206123005","salesDt":"20261206","stockRlsDt":null,"cnclReqDt":null,"cnclDt":null,"rfdDt":null,"rfdRsnCd":null,"totItemCnt":1,' +
        `"taxblAmtA":0,"taxblAmtB":0.9,"taxblAmtC":0,"taxblAmtD":0,"taxblAmtE":0,${RATES},"taxAmtA":0,"taxAmtB":0.14,"taxAmtC":0,"taxAmtD":0,"taxAmtE":0,` +
        `"totTaxblAmt":0.9,"totTaxAmt":0.14,"totAmt":1.04,${PEOPLE},${RECEIPT},"itemList":[${SOAP_LINE}]}`,
    );
  });

  test('a credit note: R, its own invcNo, orgInvcNo the original invcNo, rfdDt and rfdRsnCd, positive amounts', () => {
    const note = kraSale({
      type: 'credit_note',
      invoiceNo: 9,
      original: { invoiceNo: 7, receiptNo: 3, sdcId: 'KRACU0100000001' },
      reasonCode: '06',
      taxInclusive: true,
      reference: null,
      lines: [
        {
          name: 'Soap',
          classificationCode: '5059690800',
          itemCode: 'KE1NTXU0000001',
          quantity: 1,
          price: '116.00',
          vatCategory: 'B',
          allocated: { amount: '116.00', discount: '0', net: '100.00', vat: '16.00' },
        },
      ],
    });
    assert.equal(
      JSON.stringify(buildKraSaleBody('oscu', KRA_SETTINGS.oscu, note)),
      '{"invcNo":9,"orgInvcNo":7,"trdInvcNo":"9","custTin":"A123456789Z","custNm":"Buyer Ltd","rcptTyCd":"R","pmtTyCd":"06","salesSttsCd":"02",' +
        '"cfmDt":"20261206123005","salesDt":"20261206","stockRlsDt":null,"cnclReqDt":null,"cnclDt":null,"rfdDt":"20261206123005","rfdRsnCd":"06","totItemCnt":1,' +
        `"taxblAmtA":0,"taxblAmtB":100,"taxblAmtC":0,"taxblAmtD":0,"taxblAmtE":0,${RATES},"taxAmtA":0,"taxAmtB":16,"taxAmtC":0,"taxAmtD":0,"taxAmtE":0,` +
        `"totTaxblAmt":100,"totTaxAmt":16,"totAmt":116,${PEOPLE},${RECEIPT},"itemList":[` +
        '{"itemSeq":1,"itemCd":"KE1NTXU0000001","itemClsCd":"5059690800","itemNm":"Soap","bcd":null,"pkgUnitCd":"NT","pkg":1,"qtyUnitCd":"U","qty":1,"prc":116,"splyAmt":116,"dcRt":0,"dcAmt":0,' +
        '"isrccCd":null,"isrccNm":null,"isrcRt":0,"isrcAmt":0,"taxTyCd":"B","taxblAmt":100,"taxAmt":16,"totAmt":116}]}',
    );
  });

  test('every letter lands in its own bucket; a walk-in customer is an empty custTin', () => {
    const lines = ['A', 'B', 'C', 'D', 'E'].map((vatCategory) => ({
      name: `Line ${vatCategory}`,
      classificationCode: '5059690800',
      quantity: 2,
      price: '50.00',
      vatCategory,
    }));
    const body = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale({ lines, customer: { tpin: null, name: 'Walk-in' } }));
    assert.deepEqual(
      ['A', 'B', 'C', 'D', 'E'].map((l) => [body[`taxblAmt${l}`], body[`taxRt${l}`], body[`taxAmt${l}`]]),
      [
        [100, 0, 0],
        [100, 16, 16],
        [100, 0, 0],
        [100, 0, 0],
        [100, 8, 8],
      ],
    );
    assert.deepEqual([body.totTaxblAmt, body.totTaxAmt, body.totAmt, body.totItemCnt], [500, 24, 524, 5]);
    assert.deepEqual(
      (body.itemList as Array<Record<string, unknown>>).map((l) => l.taxTyCd),
      ['A', 'B', 'C', 'D', 'E'],
    );
    assert.equal(body.custTin, '');
    assert.equal((body.receipt as Record<string, unknown>).custTin, '');
  });

  test('a line is filed at the rate it was sold at, though the published rate differs', () => {
    const line = { name: 'Bread', classificationCode: '5059690800', quantity: 1, price: 100, vatCategory: 'E' };
    const published = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale({ lines: [line], taxInclusive: false }));
    assert.deepEqual([published.taxRtE, published.taxAmtE, published.totAmt], [8, 8, 108]);
    const sold = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale({ lines: [{ ...line, rate: 10 }], taxInclusive: false }));
    assert.deepEqual([sold.taxRtE, sold.taxAmtE, sold.totAmt], [10, 10, 110]);
  });

  test('VSCU: salesTyCd by kind, receipt.rptNo, training and proforma filed', () => {
    const normal = buildKraSaleBody('vscu', KRA_SETTINGS.vscu, kraSale());
    assert.equal(normal.salesTyCd, 'N');
    assert.equal((normal.receipt as Record<string, unknown>).rptNo, 7);
    assert.deepEqual(Object.keys(normal).slice(0, 6), ['invcNo', 'orgInvcNo', 'trdInvcNo', 'custTin', 'custNm', 'salesTyCd']);
    assert.equal(buildKraSaleBody('vscu', KRA_SETTINGS.vscu, kraSale({ salesType: 'training' })).salesTyCd, 'T');
    assert.equal(buildKraSaleBody('vscu', KRA_SETTINGS.vscu, kraSale({ salesType: 'proforma' })).salesTyCd, 'P');
    assert.equal('salesTyCd' in buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale()), false, 'no OSCU client sends salesTyCd');
    assert.deepEqual(KRA_OSCU_PROFILE.salesTypes, ['normal']);
    assert.deepEqual(KRA_VSCU_PROFILE.salesTypes, ['normal', 'training', 'proforma']);
  });

  test('documents KRA cannot take are refused before any call', () => {
    const refused = (doc: FiscalDocument, words: RegExp) =>
      assert.throws(
        () => buildKraSaleBody('oscu', KRA_SETTINGS.oscu, doc),
        (err: unknown) => err instanceof FiscalDocumentError && words.test(err.message),
      );
    refused(kraSale({ type: 'debit_note', original: { invoiceNo: 1, receiptNo: 1, sdcId: 'X' }, reasonCode: '01' }), /no debit notes/);
    refused(kraSale({ salesType: 'training' }), /no training documents/);
    refused(
      kraSale({ type: 'credit_note', original: { invoiceNo: null, receiptNo: 3, sdcId: 'X' }, reasonCode: '06' }),
      /original's invoice number/,
    );
    refused(kraSale({ type: 'credit_note', original: { invoiceNo: 7, receiptNo: 3, sdcId: 'X' }, reasonCode: null }), /reasonCode/);
    refused(kraSale({ currency: 'USD' }), /KES only/);
    refused(kraSale({ invoiceNo: 0 }), /positive integer/);
    refused(kraSale({ lines: [{ name: 'x', classificationCode: '1', quantity: 1, price: 1, vatCategory: 'F' }] }), /unknown tax type/);
  });
});

describe('dates in Nairobi time', () => {
  test('written and read as East Africa Time, in both forms KRA uses', () => {
    assert.equal(formatKraDateTime(new Date('2026-12-31T22:15:00Z')), '20270101011500');
    assert.equal(parseKraDateTime('20270101011500')?.toISOString(), '2026-12-31T22:15:00.000Z');
    assert.equal(parseKraDateTime('2024-04-15 15:30:39.0')?.toISOString(), '2024-04-15T12:30:39.000Z');
    assert.equal(parseKraDateTime('2023-12-12 15:36:25')?.toISOString(), '2023-12-12T12:36:25.000Z');
    assert.equal(parseKraDateTime('20240230000000'), null);
    assert.equal(parseKraDateTime('yesterday'), null);
    assert.equal(lastReqDtOf(null), '20180101000000');
    assert.equal(lastReqDtOf('20261206123005'), '20261206123004');
  });
});

describe('the receipt', () => {
  const now = new Date('2026-12-06T10:00:00Z');

  test('OSCU answer, numbers as strings', () => {
    const receipt = readKraReceipt(
      {
        curRcptNo: '12',
        totRcptNo: '40',
        intrlData: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
        rcptSign: 'SIGN1234SIGN5678',
        sdcDateTime: '20261206123007',
      },
      device,
      '20261206123008',
      now,
    );
    assert.ok(typeof receipt !== 'string');
    assert.deepEqual(receipt, {
      receiptNo: 12,
      totalReceiptNo: 40,
      internalData: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      receiptSignature: 'SIGN1234SIGN5678',
      publishedAt: new Date('2026-12-06T09:30:07Z'),
      sdcId: 'KRACU0100000001',
      mrcNo: 'WIS01000001',
      qrCodeUrl: 'https://etims-sbx.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P051234567X00SIGN1234SIGN5678',
    });
  });

  test('VSCU answer, numbers as numbers, its own sdcId and mrcNo', () => {
    const receipt = readKraReceipt(
      { rcptNo: 5, totRcptNo: 9, intrlData: 'I', rcptSign: 'S', vsdcRcptPbctDate: '20261206123010', sdcId: 'KRAVSCU01', mrcNo: ' MRC9 ' },
      { ...device, baseUrl: 'http://127.0.0.1:8088' },
      null,
      now,
    );
    assert.ok(typeof receipt !== 'string');
    assert.deepEqual(
      [receipt.receiptNo, receipt.totalReceiptNo, receipt.sdcId, receipt.mrcNo, receipt.publishedAt.toISOString()],
      [5, 9, 'KRAVSCU01', 'MRC9', '2026-12-06T09:30:10.000Z'],
    );
  });

  test('an answer that is no receipt says why', () => {
    assert.equal(
      readKraReceipt({ curRcptNo: 'x', intrlData: 'I', rcptSign: 'S' }, device, null, now),
      'curRcptNo is missing or not a whole number',
    );
    assert.equal(readKraReceipt({ curRcptNo: 1, rcptSign: 'S' }, device, null, now), 'intrlData is missing');
    assert.equal(readKraReceipt(null, device, null, now), 'data is not an object');
  });

  test('the QR link: sandbox portal, production when the device is marked or files to the production host', () => {
    const url = (d: AuthorityDevice) =>
      (readKraReceipt({ curRcptNo: 1, intrlData: 'I', rcptSign: 'SIG' }, d, null, now) as { qrCodeUrl: string }).qrCodeUrl;
    assert.equal(url(device), 'https://etims-sbx.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P051234567X00SIG');
    assert.equal(
      url({ ...device, production: true }),
      'https://etims.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P051234567X00SIG',
    );
    assert.equal(
      url({ ...device, baseUrl: 'https://etims-api.kra.go.ke/etims-api/' }),
      'https://etims.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P051234567X00SIG',
    );
  });

  test('a lookup: the sale under its invcNo, its receipt nested, sdcDateTime as YYYY-MM-DD HH:MM:SS.0', () => {
    const data = {
      salesList: [
        { invcNo: 6, totAmt: 10, receipt: { curRcptNo: 2 } },
        {
          invcNo: '7',
          totAmt: '1.04',
          receipt: { curRcptNo: 3, totRcptNo: 8, intrlData: 'I', rcptSign: 'S', sdcDateTime: '2026-12-06 12:30:07.0' },
        },
      ],
    };
    const filed = readFiledSale(data, 7);
    assert.ok(typeof filed !== 'string');
    assert.equal(filed.total, 1.04);
    const receipt = readKraReceipt(filed.receipt, device, null, now);
    assert.ok(typeof receipt !== 'string');
    assert.deepEqual([receipt.receiptNo, receipt.totalReceiptNo, receipt.publishedAt.toISOString()], [3, 8, '2026-12-06T09:30:07.000Z']);
    assert.equal(readFiledSale(data, 8), 'no sale under invcNo 8 in the answer');
  });

  test('the profile numbers a receipt {sdcId}/{invoiceNo}', () => {
    assert.equal(KRA_OSCU_PROFILE.authorityInvoiceNo({ sdcId: 'KRACU0100000001', invoiceNo: 7, receiptNo: 3 }), 'KRACU0100000001/7');
    assert.ok(KRA_OSCU_PROFILE.taxpayerId.pattern.test('P051234567X'));
    assert.ok(!KRA_OSCU_PROFILE.taxpayerId.pattern.test('1002623668'));
    assert.ok(KRA_OSCU_PROFILE.branch.pattern.test('00') && !KRA_OSCU_PROFILE.branch.pattern.test('000'));
  });
});
