// Zambia's items: a new item is `saveItem`, an amendment `updateItem` (the same body), a component
// `saveItemComposition`, and the branch's items `selectItems`, read leniently.
import type { ItemRecord, SaveItemRequest } from '@fiscal-gateway/vsdc-protocol';
import type { AuthorityItem, ItemsPort, ListedItem } from '../port/items.ts';
import { sentOf, targetOf } from './calls.ts';
import type { VsdcClient } from './client.ts';
import { GATEWAY_REGISTRANT_FIELDS } from './registrant.ts';

export function saveItemBody(item: AuthorityItem): SaveItemRequest {
  return {
    itemCd: item.code,
    itemClsCd: item.classificationCode,
    itemTyCd: item.typeCode,
    itemNm: item.name,
    orgnNatCd: item.originCountryCode,
    pkgUnitCd: item.packagingUnitCode,
    qtyUnitCd: item.quantityUnitCode,
    vatCatCd: item.vatCategory,
    bcd: item.barcode,
    dftPrc: item.defaultPrice,
    useYn: item.active ? 'Y' : 'N',
    ...GATEWAY_REGISTRANT_FIELDS,
  };
}

/** An item record as listed (pulled data: a missing field is empty, not a failure). */
function listedOf(record: ItemRecord & { itemCd: string }): ListedItem {
  const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
  return {
    code: record.itemCd,
    name: text(record.itemNm),
    classificationCode: text(record.itemClsCd),
    typeCode: text(record.itemTyCd),
    packagingUnitCode: text(record.pkgUnitCd),
    quantityUnitCode: text(record.qtyUnitCd),
    vatCategory: text(record.vatCatCd),
    defaultPrice: Number(record.dftPrc ?? 0),
    active: record.useYn !== 'N',
  };
}

export function itemsPort(client: VsdcClient): ItemsPort {
  return {
    async register(device, item, options) {
      return sentOf(await client.saveItem(targetOf(device), saveItemBody(item), options));
    },
    async amend(device, item, options) {
      return sentOf(await client.updateItem(targetOf(device), saveItemBody(item), options));
    },
    async registerComponent(device, component, options) {
      const body = {
        itemCd: component.itemCode,
        cpstItemCd: component.componentCode,
        cpstQty: component.quantity,
        regrId: GATEWAY_REGISTRANT_FIELDS.regrId,
        regrNm: GATEWAY_REGISTRANT_FIELDS.regrNm,
      };
      return sentOf(await client.saveItemComposition(targetOf(device), body, options));
    },
    async list(device, options) {
      const outcome = await client.selectItems(targetOf(device), undefined, options);
      switch (outcome.kind) {
        case 'ok': {
          const records: unknown = outcome.data.itemList;
          const listed = Array.isArray(records) ? (records as Array<ItemRecord | null | undefined>) : [];
          return {
            kind: 'ok',
            items: listed.filter((r): r is ItemRecord & { itemCd: string } => typeof r?.itemCd === 'string').map(listedOf),
          };
        }
        case 'empty':
          return { kind: 'ok', items: [] };
        case 'rejected':
          return { kind: 'rejected', code: outcome.code, message: outcome.message };
        case 'unreachable':
          return outcome;
      }
    },
  };
}
