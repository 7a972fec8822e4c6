// Item codes and names: how the gateway makes an authority item code, and how a product name is
// compared (a sale line's name against the merchant's items).
import type { AuthorityProfile } from '../../../authorities/port/profile.ts';

/**
 * What an item is when nobody said otherwise: a finished product of the authority's country
 * (ZM, KE), sold in pieces, in its standard tax category (ZRA's A, KRA's B).
 */
export function itemDefaults(profile: AuthorityProfile) {
  return {
    itemTypeCode: '2',
    originCountryCode: profile.country,
    packagingUnitCode: 'NT',
    quantityUnitCode: 'U',
    vatCategory: profile.defaultTaxCategory,
  } as const;
}

/**
 * The authority's item code shape: origin country, item type, packaging unit, quantity unit and
 * a 7-digit sequence, e.g. `ZM2NTU0000001`, KRA's `KE1NTXU0000001` (the same shape). The sequence
 * is the merchant's own (never reused).
 */
export function generatedItemCode(
  item: { originCountryCode: string; itemTypeCode: string; packagingUnitCode: string; quantityUnitCode: string },
  sequence: number,
): string {
  return `${item.originCountryCode}${item.itemTypeCode}${item.packagingUnitCode}${item.quantityUnitCode}${String(sequence).padStart(7, '0')}`;
}

/** Compatibility-folded, trimmed, single-spaced, lower case: "  Cooking  OIL 2L" ≡ "cooking oil 2l". */
export function normalizeItemName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}
