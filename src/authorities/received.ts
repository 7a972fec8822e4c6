// Reading what a fiscal unit of the VSDC family (ZRA's VSDC, KRA's OSCU and VSCU) sends in pulled
// data (customs lines, purchases, branches), which is not always what the protocol says: numbers
// as text, blanks, values out of any column's range. Each reader returns null for what it cannot
// read, never throws. Shared by the adapters whose wire names these fields alike.
import type { CustomsLine } from './port/feeds.ts';

/** Trimmed text; numbers as their text; null for blanks and anything else. */
export function receivedText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A number as the VSDC may send it (number or numeric text), within a numeric(18, x) column's range. */
export function receivedDecimal(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(n) && Math.abs(n) < 1e13 ? n : null;
}

export function receivedList<T>(data: unknown, key: string): T[] {
  const list: unknown = (data as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? (list as T[]) : [];
}

/** The records under `key` of an answer's data (the objects only). */
export function receivedRecords(data: unknown, key: string): Array<Record<string, unknown>> {
  return receivedList<unknown>(data, key).filter(
    (r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r),
  );
}

/** A customs line (the family's `importItemList` / `itemList` record) the gateway can key (taskCd, dclDe, itemSeq), or undefined. */
export function receivedCustomsLine(raw: Readonly<Record<string, unknown>>): CustomsLine | undefined {
  const task = receivedText(raw.taskCd);
  const declarationDate = receivedText(raw.dclDe);
  const itemSeq = receivedDecimal(raw.itemSeq);
  if (task === null || declarationDate === null || itemSeq === null || !Number.isInteger(itemSeq) || itemSeq < 0 || itemSeq > 2_147_483_647)
    return undefined;
  const text = (key: string) => receivedText(raw[key]);
  const decimal = (key: string) => receivedDecimal(raw[key]);
  return {
    task,
    declarationDate,
    itemSeq,
    declarationNo: text('dclNo'),
    hsCode: text('hsCd'),
    itemName: text('itemNm'),
    originCountryCode: text('orgnNatCd'),
    exportCountryCode: text('exptNatCd'),
    packages: decimal('pkg'),
    packagingUnitCode: text('pkgUnitCd'),
    quantity: decimal('qty'),
    quantityUnitCode: text('qtyUnitCd'),
    totalWeight: decimal('totWt'),
    netWeight: decimal('netWt'),
    supplierName: text('spplrNm'),
    agentName: text('agntNm'),
    invoiceForeignAmount: decimal('invcFcurAmt'),
    invoiceCurrency: text('invcFcurCd'),
    exchangeRate: decimal('invcFcurExcrt'),
    raw,
  };
}
