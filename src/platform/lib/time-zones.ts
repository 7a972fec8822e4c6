// Calendar days in a merchant's time zone, as UTC instants (Intl only: no zone database to ship).

/** The zone's canonical IANA name (`africa/lusaka` → `Africa/Lusaka`), or null if Intl does not know it. */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const pad2 = (n: number) => String(n).padStart(2, '0');

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock fields of an instant in a zone. */
function wallClock(
  instant: number,
  timeZone: string,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = Object.fromEntries(
    formatterOf(timeZone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
function offsetAt(instant: number, timeZone: string): number {
  const w = wallClock(instant, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
}

/** A `YYYY-MM-DD` that names a real calendar day, as [year, month, day]; null otherwise. */
export function parseDay(text: string): [number, number, number] | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 2000 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return [year, month, day];
}

/** The instant the zone's wall clock reads this date and time (`wall`: those fields as if UTC, in ms). */
function instantOfWall(wall: number, timeZone: string): Date {
  // Two passes settle a zone whose offset changes near that time (DST).
  let instant = wall - offsetAt(wall, timeZone);
  instant = wall - offsetAt(instant, timeZone);
  return new Date(instant);
}

/** The instant the day's midnight happens in the zone (the first instant of that local day). */
function startOfDay(year: number, month: number, day: number, timeZone: string): Date {
  return instantOfWall(Date.UTC(year, month - 1, day), timeZone);
}

/**
 * `yyyyMMddHHmmss` read as the zone's wall clock → the instant; null when it is no real date and
 * time (a 31st of June, 25 o'clock).
 */
export function fromCompactLocal(text: string, timeZone: string): Date | null {
  const parts = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text)?.slice(1).map(Number);
  if (!parts) return null;
  const [year, month, day, hour, minute, second] = parts as [number, number, number, number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(wall).toISOString().replace(/\D/g, '').slice(0, 14) !== text) return null;
  return instantOfWall(wall, timeZone);
}

/** The instant as `yyyyMMddHHmmss` on the zone's wall clock. */
export function toCompactLocal(instant: Date, timeZone: string): string {
  const w = wallClock(instant.getTime(), timeZone);
  return `${String(w.year).padStart(4, '0')}${pad2(w.month)}${pad2(w.day)}${pad2(w.hour)}${pad2(w.minute)}${pad2(w.second)}`;
}

/** The half-open range [from, to) of UTC instants of local days `first`..`last` (inclusive). */
export function daysRange(first: string, last: string, timeZone: string): { from: Date; to: Date } {
  const [y1, m1, d1] = parseDay(first)!;
  const [y2, m2, d2] = parseDay(last)!;
  return { from: startOfDay(y1, m1, d1, timeZone), to: startOfDay(y2, m2, d2 + 1, timeZone) };
}

/** The local calendar day (`YYYY-MM-DD`) of an instant in the zone. */
export function dayOf(instant: Date, timeZone: string): string {
  const w = wallClock(instant.getTime(), timeZone);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** Whole days from `first` to `last` (0 when equal; negative when `last` is earlier). */
export function daysBetween(first: string, last: string): number {
  const [y1, m1, d1] = parseDay(first)!;
  const [y2, m2, d2] = parseDay(last)!;
  return Math.round((Date.UTC(y2, m2 - 1, d2) - Date.UTC(y1, m1 - 1, d1)) / 86_400_000);
}

/**
 * Zones whose wall clock is Central Africa Time: at +02:00 they are printed `CAT` (Node's ICU
 * names none of them: `timeZoneName: 'short'` gives `GMT+2`). Every other zone is printed with
 * its offset at that instant (`+02:00`, `-03:30`), and UTC itself as `UTC`.
 */
const CENTRAL_AFRICA_TIME = new Set([
  'Africa/Lusaka',
  'Africa/Harare',
  'Africa/Maputo',
  'Africa/Blantyre',
  'Africa/Gaborone',
  'Africa/Lubumbashi',
  'Africa/Kigali',
  'Africa/Bujumbura',
  'Africa/Windhoek',
  'Africa/Juba',
  'Africa/Khartoum',
]);

/** How the zone is named beside a printed time: `CAT`, `UTC` or the offset `+05:30` at that instant. */
function zoneLabel(instant: Date, timeZone: string): string {
  const minutes = Math.round(offsetAt(instant.getTime(), timeZone) / 60_000);
  if (minutes === 120 && CENTRAL_AFRICA_TIME.has(timeZone)) return 'CAT';
  if (minutes === 0 && (timeZone === 'UTC' || timeZone === 'Etc/UTC')) return 'UTC';
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/**
 * An instant as a person in the zone reads it, with the zone: `2026-11-27 17:29:47 CAT`. The date
 * is the local one (00:30 in Lusaka is that day, 22:30 UTC the day before). Receipts and reports
 * print every time this way.
 */
export function localDateTime(instant: Date, timeZone: string): string {
  const w = wallClock(instant.getTime(), timeZone);
  return `${String(w.year).padStart(4, '0')}-${pad2(w.month)}-${pad2(w.day)} ${pad2(w.hour)}:${pad2(w.minute)}:${pad2(w.second)} ${zoneLabel(instant, timeZone)}`;
}
