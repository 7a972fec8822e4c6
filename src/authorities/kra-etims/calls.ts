// What every KRA port shares: a write's and a read's answer in the port's outcomes, and reading
// what KRA sends in pulled data (numbers as text, blanks), never throwing.
import type { CallOptions } from '../port/device.ts';
import type { Pulled, Sent } from '../port/outcomes.ts';
import type { KraOutcome } from './client.ts';

export function sentOf(outcome: KraOutcome): Sent {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'accepted', code: outcome.resultCd };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
    default:
      return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
  }
}

/** A read's answer as a pull: the records `read` finds in its data, and its `resultDt` as the next cursor. */
export function pulledOf<R>(outcome: KraOutcome, read: (data: unknown) => R[]): Pulled<R> {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'ok', records: read(outcome.data), cursor: outcome.resultDt };
    case 'empty':
      return { kind: 'empty', cursor: outcome.resultDt };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
    default:
      return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
  }
}

/** Only the caller's signal goes on (a port's options may carry more). */
export const signalOf = (options: CallOptions | undefined): CallOptions => (options?.signal ? { signal: options.signal } : {});

/** Trimmed text; numbers as their text; null for blanks and anything else. */
export function receivedText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A number as KRA may send it (number or numeric text), within a numeric(18, x) column's range. */
export function receivedDecimal(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isFinite(n) && Math.abs(n) < 1e13 ? n : null;
}

/** The records under `key` of an answer's data (the objects only). */
export function receivedList(data: unknown, key: string): Array<Record<string, unknown>> {
  const list: unknown = (data as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? list.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r)) : [];
}
