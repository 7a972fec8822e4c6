// Drafts from sales: a sale line naming a product the merchant has no item for leaves a draft
// behind, for the merchant to review and release. Drafts are never sent on their own.
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { generatedItemCode, itemDefaults, normalizeItemName } from './codes.ts';
import { presentItem } from './present.ts';
import type { ItemResource } from './schemas.ts';
import { insertDrafts, knownNormalizedNames, reserveItemCodeSequence, type NewItem } from './store.ts';

export interface SaleLineProduct {
  name: string;
  classificationCode: string;
  /** Unit price as sold (becomes the draft's defaultPrice); number or decimal text. */
  price: number | string;
  /** Default A. */
  vatCategory?: string | null | undefined;
}

/** Codes clash only with a code a merchant chose by hand; this many rounds always suffice. */
const ROUNDS = 3;

/**
 * Records a draft item for every line whose product the tenant has no item for yet, matched by
 * normalised name (case, spacing and Unicode compatibility forms ignored); the first line of a
 * name wins. Idempotent: a name that already has an item in any state, or a draft, is skipped,
 * also under concurrent calls. Never throws on a clash, so it is safe inside the caller's
 * transaction (pass the transaction as `db`). Returns the drafts this call created.
 */
export async function recordDraftItemsFromSale(
  db: Kysely<DB>,
  tenantId: number,
  lines: readonly SaleLineProduct[],
): Promise<ItemResource[]> {
  const byName = new Map<string, SaleLineProduct>();
  for (const line of lines) {
    const normalized = normalizeItemName(line.name);
    if (normalized !== '' && !byName.has(normalized)) byName.set(normalized, line);
  }
  const created: ItemResource[] = [];
  for (let round = 0; round < ROUNDS && byName.size > 0; round++) {
    const known = await knownNormalizedNames(db, tenantId, [...byName.keys()]);
    for (const name of known) byName.delete(name);
    if (byName.size === 0) break;
    // A draft is of the merchant's authority: its country, its standard tax category.
    const tenant = await db.selectFrom('tenants').select('authority').where('id', '=', tenantId).executeTakeFirstOrThrow();
    const DEFAULT_ITEM = itemDefaults(merchantProfile(tenant.authority));
    const sequence = await reserveItemCodeSequence(db, tenantId, byName.size);
    const drafts: NewItem[] = [...byName.entries()].map(([normalizedName, line], i) => ({
      tenantId,
      deviceId: null,
      itemCode: generatedItemCode(DEFAULT_ITEM, sequence[i]!),
      name: line.name.trim(),
      normalizedName,
      itemClassCode: line.classificationCode,
      itemTypeCode: DEFAULT_ITEM.itemTypeCode,
      originCountryCode: DEFAULT_ITEM.originCountryCode,
      packagingUnitCode: DEFAULT_ITEM.packagingUnitCode,
      quantityUnitCode: DEFAULT_ITEM.quantityUnitCode,
      vatCategory: line.vatCategory ?? DEFAULT_ITEM.vatCategory,
      defaultPrice: line.price,
      barcode: null,
      active: true,
      source: 'sale',
      state: 'draft',
    }));
    for (const row of await insertDrafts(db, drafts)) {
      created.push(presentItem(row));
      byName.delete(row.normalized_name);
    }
    // Whatever is left clashed: a concurrent call drafted the name (next round skips it), or a
    // hand-chosen code took the generated one (next round draws a new code).
  }
  return created;
}
