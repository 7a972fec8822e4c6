// KRA's stock and the merchant's answers. Stock: a movement is one `insertStockIO`, its levels one
// `saveStockMaster` per item (KRA takes one item per call). Answers: a customs line's
// (`updateImportItem`, one line, flat) and a purchase's (`insertTrnsPurchase`).
import type { CustomsLineAnswer, PurchaseLineToSend, PurchasesPort, PurchaseToSend } from '../port/purchases.ts';
import type { AuthorityProfile } from '../port/profile.ts';
import type { StockMovement, StockPort } from '../port/stock.ts';
import type { KraClient } from './client.ts';
import { sentOf, signalOf } from './calls.ts';
import { IMPORT_STATUS, PURCHASE_STATUS, STOCK_IN_PURCHASE } from './codes.ts';
import { KRA_TAX_LETTERS } from './tax.ts';
import { formatKraDate, formatKraDateTime, GATEWAY_REGISTRANT, GATEWAY_REGISTRANT_FIELDS, parseKraDateTime } from './wire.ts';

const KRA_PIN = /^[A-Z][0-9]{9}[A-Z]$/;
const round2 = (n: number): number => Math.round((n + Number.EPSILON) * 100) / 100;

function stockIOBody(movement: StockMovement, defaultCategory: string): Record<string, unknown> {
  const { counterparty } = movement;
  return {
    sarNo: movement.number,
    orgSarNo: 0,
    regTyCd: movement.source === 'adjustment' ? 'M' : 'A',
    custTin: counterparty.tpin !== null && KRA_PIN.test(counterparty.tpin) ? counterparty.tpin : null,
    custNm: counterparty.name,
    custBhfId: counterparty.branch,
    sarTyCd: movement.type,
    ocrnDt: formatKraDate(movement.occurredAt),
    totItemCnt: movement.lines.length,
    totTaxblAmt: Number(movement.totals.taxable),
    totTaxAmt: Number(movement.totals.tax),
    totAmt: Number(movement.totals.total),
    remark: movement.remark,
    ...GATEWAY_REGISTRANT_FIELDS,
    itemList: movement.lines.map((l) => ({
      itemSeq: l.seq,
      itemCd: l.itemCode,
      itemClsCd: l.classificationCode ?? '',
      itemNm: l.name ?? l.itemCode,
      bcd: l.barcode,
      pkgUnitCd: l.packagingUnitCode ?? 'NT',
      pkg: Number(l.quantity),
      qtyUnitCd: l.quantityUnitCode ?? 'U',
      qty: Number(l.quantity),
      itemExprDt: null,
      prc: Number(l.unitPrice),
      splyAmt: Number(l.total),
      totDcAmt: 0,
      taxblAmt: Number(l.taxable),
      taxTyCd: l.vatCategory ?? defaultCategory,
      taxAmt: Number(l.tax),
      totAmt: Number(l.total),
    })),
  };
}

/** Each item of the movement once, with what the branch held after it. */
function stockMasterBodies(movement: StockMovement): Array<Record<string, unknown>> {
  const remaining = new Map<string, string>();
  for (const l of movement.lines) remaining.set(l.itemCode, l.remaining);
  return [...remaining].map(([itemCd, rsdQty]) => ({ itemCd, rsdQty: Number(rsdQty), ...GATEWAY_REGISTRANT_FIELDS }));
}

export function kraStockPort(client: KraClient, profile: Pick<AuthorityProfile, 'defaultTaxCategory'>): StockPort {
  return {
    async sendMovement(device, movement, options) {
      return sentOf(await client.insertStockIO(device, stockIOBody(movement, profile.defaultTaxCategory), options));
    },
    async sendLevels(device, movement, options) {
      let refused: { kind: 'rejected'; code: string; message: string; call: string } | null = null;
      for (const body of stockMasterBodies(movement)) {
        const outcome = sentOf(await client.saveStockMaster(device, body, options));
        if (outcome.kind === 'unreachable') return outcome;
        if (outcome.kind === 'rejected' && refused === null) refused = { ...outcome, call: `saveStockMaster ${String(body.itemCd)}` };
      }
      return refused ?? { kind: 'accepted', code: '000' };
    },
  };
}

function updateImportItemBody(answer: CustomsLineAnswer): Record<string, unknown> {
  return {
    taskCd: answer.task,
    dclDe: answer.declarationDate,
    itemSeq: answer.itemSeq,
    hsCd: answer.hsCode,
    itemClsCd: answer.classificationCode,
    itemCd: answer.itemCode,
    imptItemSttsCd: IMPORT_STATUS[answer.decision],
    remark: answer.remark,
    modrId: GATEWAY_REGISTRANT,
    modrNm: GATEWAY_REGISTRANT,
  };
}

const amount = (value: string | null): number | null => (value === null ? null : Number(value));

function purchaseLine(line: PurchaseLineToSend): Record<string, unknown> {
  const { own, supplier } = line;
  const quantity = amount(line.quantity);
  const vat = amount(line.vatAmount) ?? 0;
  return {
    itemSeq: line.seq,
    itemCd: own?.itemCode ?? supplier.itemCode,
    itemClsCd: own?.classificationCode ?? supplier.classificationCode,
    itemNm: own?.name ?? supplier.name,
    bcd: own?.barcode ?? supplier.barcode,
    spplrItemClsCd: supplier.classificationCode,
    spplrItemCd: supplier.itemCode,
    spplrItemNm: supplier.name,
    pkgUnitCd: own?.packagingUnitCode ?? supplier.packagingUnitCode,
    pkg: amount(line.packages) ?? quantity,
    qtyUnitCd: own?.quantityUnitCode ?? supplier.quantityUnitCode,
    qty: quantity,
    prc: amount(line.unitPrice),
    splyAmt: amount(line.supplyAmount),
    dcRt: amount(line.discountRate) ?? 0,
    dcAmt: amount(line.discountAmount) ?? 0,
    taxblAmt: amount(line.taxableAmount) ?? amount(line.supplyAmount),
    taxTyCd: line.vatCategory,
    taxAmt: vat,
    totAmt: amount(line.totalAmount),
    itemExprDt: null,
  };
}

/** The purchase's `insertTrnsPurchase` body; each letter's amounts the sums of its lines, its rate the profile's. */
function insertPurchaseBody(purchase: PurchaseToSend, profile: Pick<AuthorityProfile, 'taxCategories'>): Record<string, unknown> {
  const { decidedAt, supplier } = purchase;
  const itemList = purchase.lines.map(purchaseLine);
  const salesDate =
    purchase.salesDate !== null && parseKraDateTime(purchase.salesDate) !== null
      ? purchase.salesDate.replace(/\D/g, '').slice(0, 8)
      : formatKraDate(decidedAt);
  const invoiceNo = supplier.invoiceNo !== null && /^\d{1,15}$/.test(supplier.invoiceNo) ? Number(supplier.invoiceNo) : null;
  const manual = purchase.source === 'manual';
  const sumOf = (letter: string | null, field: 'taxblAmt' | 'taxAmt' | 'totAmt'): number =>
    round2(itemList.reduce((t, l) => t + (letter === null || l.taxTyCd === letter ? Number(l[field] ?? 0) : 0), 0));
  const buckets: Record<string, number> = {};
  for (const l of KRA_TAX_LETTERS) buckets[`taxblAmt${l}`] = sumOf(l, 'taxblAmt');
  for (const l of KRA_TAX_LETTERS) buckets[`taxRt${l}`] = profile.taxCategories.find((c) => c.code === l)?.rate ?? 0;
  for (const l of KRA_TAX_LETTERS) buckets[`taxAmt${l}`] = sumOf(l, 'taxAmt');
  return {
    invcNo: purchase.number,
    orgInvcNo: 0,
    spplrTin: supplier.tpin,
    spplrBhfId: supplier.branch,
    spplrNm: supplier.name,
    spplrInvcNo: invoiceNo,
    regTyCd: manual ? 'M' : 'A',
    pchsTyCd: 'N',
    rcptTyCd: purchase.receiptTypeCode === 'R' ? 'R' : 'P',
    pmtTyCd: purchase.paymentTypeCode ?? '01',
    pchsSttsCd: PURCHASE_STATUS[purchase.decision],
    cfmDt: formatKraDateTime(decidedAt),
    pchsDt: salesDate,
    wrhsDt: null,
    cnclReqDt: null,
    cnclDt: null,
    rfdDt: null,
    totItemCnt: itemList.length,
    ...buckets,
    totTaxblAmt: amount(purchase.totals.taxable) ?? sumOf(null, 'taxblAmt'),
    totTaxAmt: amount(purchase.totals.tax) ?? sumOf(null, 'taxAmt'),
    totAmt: amount(purchase.totals.amount) ?? sumOf(null, 'totAmt'),
    remark: manual && invoiceNo === null && supplier.invoiceNo !== null ? `Supplier invoice ${supplier.invoiceNo}` : purchase.remark,
    ...GATEWAY_REGISTRANT_FIELDS,
    itemList,
  };
}

export function kraPurchasesPort(client: KraClient, profile: Pick<AuthorityProfile, 'taxCategories'>): PurchasesPort {
  return {
    async answerCustomsLine(device, answer, options) {
      return sentOf(await client.updateImportItem(device, updateImportItemBody(answer), signalOf(options)));
    },
    async sendPurchase(device, purchase, options) {
      return sentOf(await client.insertTrnsPurchase(device, insertPurchaseBody(purchase, profile), signalOf(options)));
    },
    stockInType: STOCK_IN_PURCHASE,
    purchaseDatesOf: (at) => ({ confirmedAt: formatKraDateTime(at), salesDate: formatKraDate(at) }),
  };
}
