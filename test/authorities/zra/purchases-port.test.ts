// ZRA's PurchasesPort bodies (src/authorities/zra-vsdc/purchases.ts): the merchant's answers in the
// domain's words become updateImportItems and savePurchase, field for field as the domain built
// them before the seam (each expected body below is what that code sent for the same answer).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PurchaseLineToSend, PurchaseToSend } from '../../../src/authorities/port/index.ts';
import { savePurchaseBody, updateImportItemsBody } from '../../../src/authorities/zra-vsdc/purchases.ts';

const supplierItem = {
  itemCode: 'SUP1',
  classificationCode: '5010',
  name: 'Maize',
  barcode: '123',
  packagingUnitCode: 'NT',
  quantityUnitCode: 'U',
};
const line = (overrides: Partial<PurchaseLineToSend> = {}): PurchaseLineToSend => ({
  seq: 1,
  own: null,
  supplier: supplierItem,
  packages: '2',
  quantity: '2.5',
  unitPrice: '100.25',
  supplyAmount: '250.625',
  discountRate: null,
  discountAmount: null,
  taxableAmount: null,
  vatAmount: '34.57',
  totalAmount: '250.63',
  vatCategory: 'A',
  ...overrides,
});
const purchase = (overrides: Partial<PurchaseToSend> = {}): PurchaseToSend => ({
  number: 7,
  source: 'pulled',
  decision: 'accepted',
  decidedAt: new Date('2026-03-01T08:30:05Z'),
  supplier: { tpin: '1002003004', branch: '000', name: 'Supplier Ltd', invoiceNo: '42', sdcId: 'SDC1' },
  receiptTypeCode: 'S',
  paymentTypeCode: null,
  salesDate: '20260228',
  totals: { taxable: '215.52', tax: '34.48', amount: '250.00' },
  remark: 'ok',
  lines: [line()],
  ...overrides,
});

describe('ZRA purchases port bodies', () => {
  test("an accepted pulled purchase, a line mapped to the merchant's item", () => {
    const own = {
      itemCode: 'OWN1',
      classificationCode: '5020',
      name: 'Own bag',
      barcode: null,
      packagingUnitCode: 'BG',
      quantityUnitCode: 'KG',
    };
    const body = savePurchaseBody(purchase({ lines: [line(), line({ seq: 2, own, packages: null, vatCategory: null, quantity: null })] }));
    assert.equal(
      JSON.stringify(body),
      '{"invcNo":7,"orgInvcNo":0,"spplrTpin":"1002003004","spplrBhfId":"000","spplrNm":"Supplier Ltd","spplrInvcNo":42,"spplrSdcId":"SDC1","regTyCd":"A","pchsTyCd":"N","rcptTyCd":"P","pmtTyCd":"01","pchsSttsCd":"02","cfmDt":"20260301083005","pchsDt":"20260228","totItemCnt":2,"totTaxblAmt":215.52,"totTaxAmt":34.48,"totAmt":250,"remark":"ok","regrId":"fiscal-gateway","regrNm":"fiscal-gateway","modrId":"fiscal-gateway","modrNm":"fiscal-gateway","itemList":[{"itemSeq":1,"itemCd":"SUP1","itemClsCd":"5010","itemNm":"Maize","bcd":"123","spplrItemClsCd":"5010","spplrItemCd":"SUP1","spplrItemNm":"Maize","pkgUnitCd":"NT","pkg":2,"qtyUnitCd":"U","qty":2.5,"prc":100.25,"splyAmt":250.625,"dcRt":0,"dcAmt":0,"taxblAmt":250.625,"vatCatCd":"A","vatAmt":34.57,"taxAmt":34.57,"totAmt":250.63},{"itemSeq":2,"itemCd":"OWN1","itemClsCd":"5020","itemNm":"Own bag","bcd":"123","spplrItemClsCd":"5010","spplrItemCd":"SUP1","spplrItemNm":"Maize","pkgUnitCd":"BG","pkg":null,"qtyUnitCd":"KG","qty":null,"prc":100.25,"splyAmt":250.625,"dcRt":0,"dcAmt":0,"taxblAmt":250.625,"vatCatCd":null,"vatAmt":34.57,"taxAmt":34.57,"totAmt":250.63}]}',
    );
  });

  test('a purchase captured by hand: regTyCd M, an invoice number that is not a whole number in the remark, totals from the lines', () => {
    const body = savePurchaseBody(
      purchase({
        source: 'manual',
        supplier: { tpin: null, branch: null, name: 'Chanda', invoiceNo: 'INV-0042', sdcId: null },
        salesDate: null,
        totals: { taxable: null, tax: null, amount: null },
      }),
    );
    assert.equal(body.regTyCd, 'M');
    assert.equal(body.spplrInvcNo, null);
    assert.equal(body.remark, 'Supplier invoice INV-0042');
    assert.equal(body.pchsDt, '20260301', "the decision's day when the sale has no date");
    assert.deepEqual([body.totTaxblAmt, body.totTaxAmt, body.totAmt], [250.625, 34.57, 250.63]);
  });

  test("a customs line's answer", () => {
    const body = updateImportItemsBody({
      task: 'T1',
      declarationDate: '20260101',
      itemSeq: 3,
      hsCode: '1001',
      decision: 'approved',
      itemCode: 'OWN1',
      classificationCode: '5020',
      remark: 'x',
    });
    assert.equal(
      JSON.stringify(body),
      '{"taskCd":"T1","dclDe":"20260101","importItemList":[{"itemSeq":3,"hsCd":"1001","itemClsCd":"5020","itemCd":"OWN1","imptItemSttsCd":"3","remark":"x","modrId":"fiscal-gateway","modrNm":"fiscal-gateway"}]}',
    );
    assert.equal(
      updateImportItemsBody({
        task: 'T2',
        declarationDate: '20260102',
        itemSeq: 0,
        hsCode: null,
        decision: 'rejected',
        itemCode: null,
        classificationCode: null,
        remark: null,
      }).importItemList[0]!.imptItemSttsCd,
      '4',
    );
  });
});
