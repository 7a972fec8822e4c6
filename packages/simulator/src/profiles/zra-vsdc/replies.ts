// What every endpoint answers with, and the checks they share: envelopes with the real result
// codes and message shapes, required fields, dates, 4-decimal amounts, `lastReqDt`.
import { parseVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import type { Device } from './device.js';
import { toFixed4 } from './fixed-point.js';
import type { SimulatorState } from './state.js';

export interface EnvelopeReply {
  kind: 'envelope';
  resultCd: string;
  resultMsg: string;
  data: unknown;
  /** Filed, but the socket is destroyed instead of replying (fault switch). */
  loseReply?: boolean;
}

export type Reply =
  | EnvelopeReply
  /** Bare HTTP 400, no envelope: the body failed JSON binding. */
  | { kind: 'bad_request' }
  | { kind: 'html404' }
  /** Destroy the socket without a reply. */
  | { kind: 'drop' };

export const RESULT_MESSAGES: Record<string, string> = {
  '000': 'It is succeeded',
  '001': 'There is no search result',
  '838': 'Connection to API is not established: check connection.',
  '894': 'Server communication error',
  '901': 'It is not valid device',
  '902': 'This device is installed',
  '910': 'Request parameter error',
  '913': 'Code value error among request parameters',
  '924': 'CIS Invoice number already exists.',
  '999': 'There is an unknown error. Please ask it administrator',
};

export function envelope(resultCd: string, data: unknown = null, resultMsg = RESULT_MESSAGES[resultCd] ?? 'Error'): EnvelopeReply {
  return { kind: 'envelope', resultCd, resultMsg, data };
}

export const ok = (data: unknown = null): EnvelopeReply => envelope('000', data);
export const empty = (): EnvelopeReply => envelope('001');
export const invalid = (message: string): EnvelopeReply => envelope('910', null, message);
export const badCode = (field: string, value: unknown): EnvelopeReply =>
  envelope('913', null, `Code value error among request parameters: [${field}] ${String(value)}`);
export const mustNotBeNull = (...fields: string[]): EnvelopeReply =>
  invalid(`Validation error for fields: [${fields.map((f) => `'${f}': must not be null`).join(', ')}]`);

export type Body = Record<string, unknown>;

export const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

export interface EndpointContext {
  state: SimulatorState;
  device: Device;
  now: Date;
}

/** Which of `fields` are missing, null or blank. */
function absentFields(body: Body, fields: readonly string[]): string[] {
  return fields.filter(
    (f) => body[f] === undefined || body[f] === null || (typeof body[f] === 'string' && (body[f] as string).trim() === ''),
  );
}

/** The fields that are missing or blank, as one 910 naming them all. */
export function missingField(body: Body, fields: readonly string[], label = (f: string): string => f): EnvelopeReply | null {
  const absent = absentFields(body, fields);
  return absent.length > 0 ? mustNotBeNull(...absent.map(label)) : null;
}

/** A field missing from an entry of a list, in the real VSDC's words: `[<itemList><totDcAmt> : must not be null]`. */
export function listEntryMissing(body: Body, list: string, fields: readonly string[]): EnvelopeReply | null {
  const [absent] = absentFields(body, fields);
  return absent === undefined ? null : invalid(`Validation error for fields: [<${list}><${absent}> : must not be null]`);
}

/** A `YYYYMMDD` (or with `withTime`, `YYYYMMDDHHmmss`) calendar date, else a 910 naming the field. */
export function checkDate(value: unknown, field: string, withTime: boolean): EnvelopeReply | null {
  const shape = withTime ? /^\d{14}$/ : /^\d{8}$/;
  if (typeof value === 'string' && shape.test(value) && parseVsdcDateTime(value) !== null) return null;
  return invalid(`[${field}] must be a valid date (${withTime ? 'yyyyMMddHHmmss' : 'yyyyMMdd'})`);
}

/** A JSON number with at most 4 decimals (the VSDC's `<18 digits>.<4 digits>`), else a 910. */
export function checkAmount(value: unknown, field: string): EnvelopeReply | null {
  if (toFixed4(value) !== null) return null;
  return invalid(
    `Validation error for fields: [ '${field}': numeric value out of bounds (<18 digits>.<4 digits> expected). rejected value: '${String(value)}']`,
  );
}

/** `lastReqDt` of a select call: required, a real `YYYYMMDDHHmmss`. */
export function lastRequestDate(body: Body): string | EnvelopeReply {
  const lastReqDt = body.lastReqDt;
  if (lastReqDt === undefined || lastReqDt === null) return mustNotBeNull('lastReqDt');
  return checkDate(lastReqDt, 'lastReqDt', true) ?? (lastReqDt as string);
}

/**
 * What changed at or after `lastReqDt` (each entry's `changedAt`), without that field; `001` when
 * nothing did. "At or after" so a change in the same second as the previous `resultDt` is never
 * missed: callers key entries by their own identifiers.
 */
export function selectChanged<T extends { changedAt: string }>(
  body: Body,
  entries: readonly T[],
  present: (entry: T) => unknown,
  listKey: string,
): EnvelopeReply {
  const since = lastRequestDate(body);
  if (typeof since !== 'string') return since;
  const changed = entries.filter((entry) => entry.changedAt >= since);
  return changed.length === 0 ? empty() : ok({ [listKey]: changed.map(present) });
}

/** The entry without its bookkeeping field. */
export function withoutChangedAt<T extends { changedAt: string }>({ changedAt: _changedAt, ...rest }: T): Omit<T, 'changedAt'> {
  return rest;
}

/** The `Y`/`N` flag, else a 910. */
export function checkYesNo(value: unknown, field: string): EnvelopeReply | null {
  return value === 'Y' || value === 'N' ? null : invalid(`[${field}] must be Y or N`);
}
