// Every date and time the console shows, the same way everywhere. The merchant's console shows them
// in the merchant's time zone, as its receipts and reports print them: "2026-11-24 09:30:05 CAT"
// (the zone's offset, "+01:00", where it has no name; src/platform/lib/time-zones.ts). Partners and
// the operator, who look across merchants, see the viewer's zone with its UTC offset written out:
// "2026-11-24 09:30:05 UTC+02:00" ("UTC" when the offset is zero), computed, not taken from Intl's
// zone names, so it reads the same in every locale.
import { dayOf, localDateTime } from '../../src/platform/lib/time-zones.ts';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The merchant's zone while a merchant is signed in; undefined: the viewer's. */
let shownZone: string | undefined;

/** Shows every later time in `timeZone` (the signed-in merchant's), or in the viewer's zone. */
export function showTimesIn(timeZone: string | undefined): void {
  shownZone = timeZone;
}

/** The zone times are shown in, as a sentence can name it: `Africa/Lusaka`, or `this browser's zone`. */
export function shownZoneName(): string {
  return shownZone ?? "this browser's zone";
}

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

/** `2026-11-24` in the shown zone. */
export function calendarDate(date: Date): string {
  if (shownZone) return dayOf(date, shownZone);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The day, the time and the zone's label in the shown zone. */
function parts(date: Date): { day: string; time: string; zone: string } {
  if (!shownZone) return { day: calendarDate(date), time: clockTime(date, { seconds: true }), zone: zoneOf(date) };
  const [day = '', time = '', zone = ''] = localDateTime(date, shownZone).split(' ');
  return { day, time, zone };
}

/** `2026-11-24 09:30:05 CAT` (without seconds when `seconds: false`). */
export function formatDateTime(date: Date, options: { seconds?: boolean } = {}): string {
  const { day, time, zone } = parts(date);
  return `${day} ${(options.seconds ?? true) ? time : time.slice(0, 5)} ${zone}`;
}

/** `09:30:05 CAT`: a time of today. */
export function formatTime(date: Date): string {
  const { time, zone } = parts(date);
  return `${time} ${zone}`;
}
