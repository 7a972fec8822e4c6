// Zambia's stock chain: a movement is one `saveStockItems`, its levels one `saveStockMaster` of
// every item it moved, and the rules of both bodies.
import {
  formatVsdcDate,
  type SaveStockItemsRequest,
  type SaveStockMasterRequest,
  type StockMovementType,
} from '@fiscal-gateway/vsdc-protocol';
import type { AuthorityProfile } from '../port/profile.ts';
import type { StockMovement, StockPort } from '../port/stock.ts';
import type { VsdcClient } from './client.ts';
import { sentOf, targetOf } from './calls.ts';
import { GATEWAY_REGISTRANT_FIELDS } from './registrant.ts';

/** The movement's `saveStockItems` body; a line whose item was deleted since goes in `defaultCategory`. */
export function stockItemsBody(movement: StockMovement, defaultCategory: string): SaveStockItemsRequest {
  const { counterparty } = movement;
  return {
    sarNo: movement.number,
    orgSarNo: 0,
    // Movements that follow a document are automatic; a merchant's adjustment is manual.
    regTyCd: movement.source === 'adjustment' ? 'M' : 'A',
    // Pulled supplier data is not always clean; a TPIN that is not 10 digits is the VSDC's 910.
    custTpin: counterparty.tpin !== null && /^\d{10}$/.test(counterparty.tpin) ? counterparty.tpin : null,
    custNm: counterparty.name,
    custBhfId: counterparty.branch,
    sarTyCd: movement.type as StockMovementType,
    ocrnDt: formatVsdcDate(movement.occurredAt),
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
      // Never null: a null is the VSDC's 910.
      totDcAmt: 0,
      taxblAmt: Number(l.taxable),
      vatCatCd: l.vatCategory ?? defaultCategory,
      iplCatCd: null,
      tlCatCd: null,
      exciseTxCatCd: null,
      vatAmt: Number(l.tax),
      iplAmt: 0,
      tlAmt: 0,
      exciseTxAmt: 0,
      taxAmt: Number(l.tax),
      totAmt: Number(l.total),
    })),
  };
}

/** Each item of the movement once (the same itemCd twice is the VSDC's 999), with what the branch held after it. */
export function stockMasterBody(movement: StockMovement): SaveStockMasterRequest {
  const remaining = new Map<string, string>();
  for (const l of movement.lines) remaining.set(l.itemCode, l.remaining);
  return { ...GATEWAY_REGISTRANT_FIELDS, stockItemList: [...remaining].map(([itemCd, rsdQty]) => ({ itemCd, rsdQty: Number(rsdQty) })) };
}

export function stockPort(client: VsdcClient, profile: Pick<AuthorityProfile, 'defaultTaxCategory'>): StockPort {
  return {
    async sendMovement(device, movement, options) {
      return sentOf(await client.saveStockItems(targetOf(device), stockItemsBody(movement, profile.defaultTaxCategory), options));
    },
    // The whole list in one call: the VSDC takes it or refuses it whole.
    async sendLevels(device, movement, options) {
      const outcome = sentOf(await client.saveStockMaster(targetOf(device), stockMasterBody(movement), options));
      return outcome.kind === 'rejected' ? { ...outcome, call: 'saveStockMaster' } : outcome;
    },
  };
}
