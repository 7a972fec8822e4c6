// VSDC wire dates: `YYYYMMDDHHmmss` for date-times and `YYYYMMDD` for dates, always in UTC.

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

export function formatVsdcDateTime(date: Date): string {
  return (
    pad(date.getUTCFullYear(), 4) +
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes()) +
    pad(date.getUTCSeconds())
  );
}

export function formatVsdcDate(date: Date): string {
  return formatVsdcDateTime(date).slice(0, 8);
}

/** Parses `YYYYMMDDHHmmss` or `YYYYMMDD` (UTC); null when the text is not a real calendar moment. */
export function parseVsdcDateTime(text: string | null | undefined): Date | null {
  if (typeof text !== 'string' || !/^\d{8}(\d{6})?$/.test(text)) return null;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(4, 6));
  const day = Number(text.slice(6, 8));
  const hour = text.length === 14 ? Number(text.slice(8, 10)) : 0;
  const minute = text.length === 14 ? Number(text.slice(10, 12)) : 0;
  const second = text.length === 14 ? Number(text.slice(12, 14)) : 0;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const roundTrips =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return roundTrips ? date : null;
}

/** The `lastReqDt` that fetches everything. */
export const VSDC_EPOCH = '20000101000000';
