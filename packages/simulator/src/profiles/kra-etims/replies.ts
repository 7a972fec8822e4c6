// The KRA envelope and the checks every endpoint shares.
import { kraNumber } from './arithmetic.js';
import { isKraCode, parseKraDate, RESULT_MESSAGES } from './codes.js';
import type { KraDevice, KraRecord, KraState } from './device.js';

export interface KraEnvelope {
  kind: 'envelope';
  resultCd: string;
  resultMsg: string;
  data: unknown;
  /** Processed, but the socket is destroyed instead of replying (loseReplies). */
  loseReply?: boolean;
}

/** An envelope, the host answering without the app (html404), or the token gateway refusing the call (401). */
export type KraReply = KraEnvelope | { kind: 'html404' } | { kind: 'unauthorized' };

export type Body = Record<string, unknown>;

export interface KraContext {
  state: KraState;
  device: KraDevice;
  now: Date;
}

export function envelope(resultCd: string, data: unknown = null, resultMsg = RESULT_MESSAGES[resultCd] ?? 'Error'): KraEnvelope {
  return { kind: 'envelope', resultCd, resultMsg, data };
}

export const ok = (data: unknown = null): KraEnvelope => envelope('000', data);
export const empty = (): KraEnvelope => envelope('001');
export const param = (field: string, what: string): KraEnvelope => envelope('910', null, `Request parameter error: [${field}] ${what}`);

export const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** The first field missing or blank, as a 910 naming it. */
export function required(body: Body, fields: readonly string[], prefix = ''): KraEnvelope | null {
  const missing = fields.find((f) => blank(body[f]));
  return missing === undefined ? null : param(`${prefix}${missing}`, 'must not be empty');
}

/** The first field that is no number (a numeric string is one), as a 910. */
export function numbers(body: Body, fields: readonly string[], prefix = ''): KraEnvelope | null {
  const wrong = fields.find((f) => kraNumber(body[f]) === null);
  return wrong === undefined ? null : param(`${prefix}${wrong}`, 'must be a number');
}

/** The first field whose value is not in its code class, as a 910. */
export function codes(body: Body, pairs: readonly [field: string, cdCls: string][], prefix = ''): KraEnvelope | null {
  const wrong = pairs.find(([f, cls]) => !isKraCode(cls, body[f]));
  return wrong === undefined
    ? null
    : param(`${prefix}${wrong[0]}`, `${JSON.stringify(body[wrong[0]] ?? null)} is not a code of class ${wrong[1]}`);
}

export function checkDate(body: Body, field: string, withTime: boolean): KraEnvelope | null {
  return parseKraDate(body[field], withTime) === null ? param(field, `must be a date ${withTime ? 'YYYYMMDDHHmmss' : 'YYYYMMDD'}`) : null;
}

/** `lastReqDt`, required and real, or the 910 saying so. */
export function lastRequestDate(body: Body): string | KraEnvelope {
  return checkDate(body, 'lastReqDt', true) ?? (body.lastReqDt as string);
}

/** The entries changed at or after `lastReqDt`, without their bookkeeping; `001` when none. */
export function selectChanged(
  body: Body,
  entries: readonly KraRecord[],
  listKey: string,
  present: (entry: Body) => Body = (e) => e,
): KraEnvelope {
  const since = lastRequestDate(body);
  if (typeof since !== 'string') return since;
  const changed = entries.filter((e) => e.changedAt >= since).map(({ changedAt: _c, ...rest }) => present(rest));
  return changed.length === 0 ? empty() : ok({ [listKey]: changed });
}

/** The body without the device's credentials (a client may repeat them in the body). */
export function stripCredentials({ tin: _t, bhfId: _b, cmcKey: _c, ...rest }: Body): Body {
  return rest;
}
