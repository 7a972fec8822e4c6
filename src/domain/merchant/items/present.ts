import type { ItemComponentResource, ItemResource } from './schemas.ts';
import type { ItemRow } from './store.ts';
import type { ComponentRow } from './composition-store.ts';
import { iso } from '../../../platform/lib/time.ts';

function presentComponent(row: ComponentRow): ItemComponentResource {
  const waiting = row.state === 'pending';
  return {
    itemCode: row.component_code,
    name: row.component_name,
    quantity: Number(row.quantity),
    state: row.state,
    resultCode: row.result_code,
    message: row.result_message,
    registeredAt: iso(row.registered_at),
    nextAttemptAt: waiting ? iso(row.next_attempt_at) : null,
    lastError: waiting ? row.last_unreachable : null,
  };
}

/** `composition`: the item's components (none for an item that is not a composite, and for every draft). */
export function presentItem(row: ItemRow, composition: ComponentRow[] = []): ItemResource {
  const waiting = row.registration_state === 'pending' || row.registration_state === 'amendment_pending';
  return {
    id: Number(row.id),
    itemCode: row.item_code,
    itemClsCd: row.item_class_code,
    name: row.name,
    itemTypeCode: row.item_type_code,
    originCountryCode: row.origin_country_code,
    packagingUnitCode: row.packaging_unit_code,
    quantityUnitCode: row.quantity_unit_code,
    vatCategory: row.vat_category,
    defaultPrice: Number(row.default_price),
    barcode: row.barcode,
    active: row.active,
    source: row.source,
    branch: row.branch,
    registration: {
      state: row.registration_state,
      resultCode: row.result_code,
      message: row.result_message,
      registeredAt: iso(row.registered_at),
      nextAttemptAt: waiting ? iso(row.next_attempt_at) : null,
      lastError: waiting ? row.last_unreachable : null,
    },
    composition: composition.map(presentComponent),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
