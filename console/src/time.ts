// Every date and time the console shows is in the viewer's time zone, with that zone's UTC
// offset written out: "2026-11-24 09:30:05 UTC+02:00" ("UTC" when the offset is zero). The
// offset is computed, not taken from Intl's zone names, so it reads the same in every locale.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The viewer's UTC offset at `date`: `UTC+02:00`, `UTC-03:30`, or `UTC`. */
export function zoneOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return 'UTC';
  const sign = minutes > 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `09:30` (or `09:30:05`) in the viewer's zone, without the zone: for axis ticks, whose zone is stated once. */
export function clockTime(date: Date, options: { seconds?: boolean } = {}): string {
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return options.seconds ? `${time}:${pad(date.getSeconds())}` : time;
}

/** `2026-11-24` in the viewer's zone. */
export function calendarDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** `2026-11-24 09:30:05 UTC+02:00` (without seconds when `seconds: false`). */
export function formatDateTime(date: Date, options: { seconds?: boolean } = {}): string {
  return `${calendarDate(date)} ${clockTime(date, { seconds: options.seconds ?? true })} ${zoneOf(date)}`;
}

/** `09:30:05 UTC+02:00`: a time of today. */
export function formatTime(date: Date): string {
  return `${clockTime(date, { seconds: true })} ${zoneOf(date)}`;
}
