import type { ItemClass } from '@fiscal-gateway/vsdc-protocol';
import { CATALOGUE_TEXT } from './catalogue-data.js';

function parseCatalogue(text: string): ItemClass[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const code = line.slice(0, 8);
      return {
        itemClsCd: code,
        itemClsNm: line.slice(9),
        itemClsLvl: code.endsWith('00') ? 3 : 4,
        taxTyCd: null,
        mjrTgYn: 'N',
        useYn: 'Y',
      };
    });
}

/** The classification catalogue (`selectItemsClass`); always contains `50221200`. */
export const CLASSIFICATION_CATALOGUE: readonly ItemClass[] = parseCatalogue(CATALOGUE_TEXT);

/** Just the codes, for tests that need valid classification codes. */
export const CLASSIFICATION_CODES: readonly string[] = CLASSIFICATION_CATALOGUE.map((c) => c.itemClsCd);

const CODE_SET: ReadonlySet<string> = new Set(CLASSIFICATION_CODES);

export function isKnownClassification(code: unknown): boolean {
  return typeof code === 'string' && CODE_SET.has(code);
}

/** When the catalogue last changed: a `lastReqDt` at or after this gets `001`. */
export const CATALOGUE_PUBLISHED_AT = '20240613155540';
