// Reading what a VSDC sends in pulled data (customs lines, purchases), which is not always what
// the protocol says: numbers as text, blanks, values out of any column's range. Each reader
// returns null for what it cannot read, never throws.

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

// ---- the pull ----
