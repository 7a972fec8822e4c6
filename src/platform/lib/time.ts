/**
 * A time as the API renders it: ISO 8601 in UTC with milliseconds (`2025-03-01T09:30:00.000Z`).
 * Accepts what the drivers return (a Date, or text from json_agg); null and undefined stay null.
 */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null | undefined): string | null;
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
