// Zambia's answers: a customs line's (`updateImportItems`) and a purchase's (`savePurchase`), the
// bodies built here from the port's values.
import {
  formatVsdcDate,
  formatVsdcDateTime,
  parseVsdcDateTime,
  PURCHASE_STATUS,
  STOCK_MOVEMENT_TYPES,
  type ImportItemDecision,
  type SavePurchaseLine,
  type SavePurchaseRequest,
  type UpdateImportItemsRequest,
} from '@fiscal-gateway/vsdc-protocol';
import type { CustomsLineAnswer, PurchaseLineToSend, PurchasesPort, PurchaseToSend } from '../port/purchases.ts';
import type { VsdcClient } from './client.ts';
import { sentOf, targetOf } from './calls.ts';
import { GATEWAY_REGISTRANT, GATEWAY_REGISTRANT_FIELDS } from './registrant.ts';

/** Import item status (code class 26): 3 approved, 4 cancelled (rejected). */
const IMPORT_STATUS_CODE = { approved: '3', rejected: '4' } as const;

export function updateImportItemsBody(answer: CustomsLineAnswer): UpdateImportItemsRequest {
  const line: ImportItemDecision = {
    itemSeq: answer.itemSeq,
    hsCd: answer.hsCode,
    itemClsCd: answer.classificationCode,
    itemCd: answer.itemCode,
    imptItemSttsCd: IMPORT_STATUS_CODE[answer.decision],
    remark: answer.remark,
    modrId: GATEWAY_REGISTRANT,
    modrNm: GATEWAY_REGISTRANT,
  };
  return { taskCd: answer.task, dclDe: answer.declarationDate, importItemList: [line] };
}

const amount = (value: string | null): number | null => (value === null ? null : Number(value));

function purchaseLine(line: PurchaseLineToSend): SavePurchaseLine {
  const { own, supplier } = line;
  const quantity = amount(line.quantity);
  const supply = amount(line.supplyAmount);
  const taxable = amount(line.taxableAmount) ?? supply;
  const vat = amount(line.vatAmount) ?? 0;
  // Required fields the supplier left out go as null: the authority's refusal says which.
  return {
    itemSeq: line.seq,
    itemCd: (own?.itemCode ?? supplier.itemCode)!,
    itemClsCd: (own?.classificationCode ?? supplier.classificationCode)!,
    itemNm: (own?.name ?? supplier.name)!,
    bcd: own?.barcode ?? supplier.barcode,
    spplrItemClsCd: supplier.classificationCode,
    spplrItemCd: supplier.itemCode,
    spplrItemNm: supplier.name,
    pkgUnitCd: (own?.packagingUnitCode ?? supplier.packagingUnitCode)!,
    pkg: (amount(line.packages) ?? quantity)!,
    qtyUnitCd: (own?.quantityUnitCode ?? supplier.quantityUnitCode)!,
    qty: quantity!,
    prc: amount(line.unitPrice)!,
    splyAmt: supply!,
    dcRt: amount(line.discountRate) ?? 0,
    dcAmt: amount(line.discountAmount) ?? 0,
    taxblAmt: taxable!,
    vatCatCd: line.vatCategory!,
    vatAmt: vat,
    taxAmt: vat,
    totAmt: amount(line.totalAmount)!,
  };
}

/**
 * The savePurchase body of an answer: the pulled sale (`regTyCd` A), approved (02) or rejected
 * (04); or of a purchase captured by hand (`regTyCd` M, approved), whose supplier may have no
 * TPIN and whose invoice number, when it is not a whole number, goes in the remark.
 */
export function savePurchaseBody(purchase: PurchaseToSend): SavePurchaseRequest {
  const { decidedAt, supplier } = purchase;
  const itemList = purchase.lines.map(purchaseLine);
  const salesDate =
    purchase.salesDate !== null && purchase.salesDate.length === 8 && parseVsdcDateTime(purchase.salesDate)
      ? purchase.salesDate
      : formatVsdcDate(decidedAt);
  const invoiceNo = supplier.invoiceNo !== null && /^\d{1,15}$/.test(supplier.invoiceNo) ? Number(supplier.invoiceNo) : null;
  const sum = (pick: (l: SavePurchaseLine) => number | null): number => Number(itemList.reduce((t, l) => t + (pick(l) ?? 0), 0).toFixed(4));
  const manual = purchase.source === 'manual';
  const remark = manual && invoiceNo === null && supplier.invoiceNo !== null ? `Supplier invoice ${supplier.invoiceNo}` : purchase.remark;
  return {
    invcNo: purchase.number,
    orgInvcNo: 0,
    spplrTpin: supplier.tpin,
    spplrBhfId: supplier.branch,
    spplrNm: supplier.name!,
    spplrInvcNo: invoiceNo,
    spplrSdcId: supplier.sdcId,
    regTyCd: manual ? 'M' : 'A',
    pchsTyCd: 'N',
    rcptTyCd: purchase.receiptTypeCode === 'R' ? 'R' : 'P',
    pmtTyCd: purchase.paymentTypeCode ?? '01',
    pchsSttsCd: purchase.decision === 'accepted' ? PURCHASE_STATUS.approved : PURCHASE_STATUS.rejected,
    cfmDt: formatVsdcDateTime(decidedAt),
    pchsDt: salesDate,
    totItemCnt: itemList.length,
    totTaxblAmt: amount(purchase.totals.taxable) ?? sum((l) => l.taxblAmt),
    totTaxAmt: amount(purchase.totals.tax) ?? sum((l) => l.taxAmt),
    totAmt: amount(purchase.totals.amount) ?? sum((l) => l.totAmt),
    remark,
    ...GATEWAY_REGISTRANT_FIELDS,
    itemList,
  };
}

export function purchasesPort(client: VsdcClient): PurchasesPort {
  return {
    async answerCustomsLine(device, answer, options = {}) {
      return sentOf(
        await client.updateImportItems(targetOf(device), updateImportItemsBody(answer), options.signal ? { signal: options.signal } : {}),
      );
    },
    async sendPurchase(device, purchase, options = {}) {
      return sentOf(
        await client.savePurchase(targetOf(device), savePurchaseBody(purchase), options.signal ? { signal: options.signal } : {}),
      );
    },
    stockInType: STOCK_MOVEMENT_TYPES.purchaseIn,
    purchaseDatesOf: (at) => ({ confirmedAt: formatVsdcDateTime(at), salesDate: formatVsdcDate(at) }),
  };
}
