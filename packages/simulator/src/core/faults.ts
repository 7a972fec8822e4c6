// A device's fault switches, whatever its authority: what they are, how a call takes one, and
// reading them from the control API (JSON). The endpoint names and result messages are the
// profile's (its FaultVocabulary).

export class ControlInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlInputError';
  }
}

export interface DeviceFaults<E extends string = string> {
  /** Destroy the socket of every call with no reply. */
  down: boolean;
  /** Answer every call as if the authority's app were missing from its server (the profile's answer). */
  html404: boolean;
  /**
   * Hold every call this long (lowering it releases held calls). A call whose caller gave up
   * meanwhile is still processed when its hold ends (a sale filed, its answer lost), as a real
   * VSDC finishes a request whose client went away: the next attempt meets its duplicate.
   */
  delayMs: number;
  /** A held call whose caller gave up is dropped unprocessed instead (nothing filed): the former behaviour. */
  dropAbandoned: boolean;
  /** Answer every call (or only the calls to `endpoints`) with this result code. */
  forcedResult: { code: string; message: string; endpoints: E[] | null } | null;
  /** Process the next N (or all) calls to `loseRepliesOn`, then destroy the socket instead of replying. */
  loseReplies: number | 'all';
  /** The endpoints `loseReplies` counts (default: the profile's). */
  loseRepliesOn: E[];
  /** Answer the next N (or all) calls to `endpoints` (default: the profile's) with this code, processing nothing. */
  reject: { remaining: number | 'all'; code: string; message: string; endpoints: E[] } | null;
}

/** The words a profile gives the switches: its endpoint names, where `reject` and `loseReplies` apply unless told, its result messages. */
export interface FaultVocabulary<E extends string = string> {
  endpoints: readonly E[];
  defaultEndpoints: readonly E[];
  resultMessage(code: string): string;
}

export function noFaults<E extends string>(defaultEndpoints: readonly E[]): DeviceFaults<E> {
  return {
    down: false,
    html404: false,
    delayMs: 0,
    dropAbandoned: false,
    forcedResult: null,
    loseReplies: 0,
    loseRepliesOn: [...defaultEndpoints],
    reject: null,
  };
}

/** Takes one forced rejection for a call to `endpoint`, if the reject switch covers it. */
export function takeRejection<E extends string>(faults: DeviceFaults<E>, endpoint: E): { code: string; message: string } | null {
  const reject = faults.reject;
  if (!reject || !reject.endpoints.includes(endpoint)) return null;
  if (reject.remaining !== 'all') {
    reject.remaining -= 1;
    if (reject.remaining <= 0) faults.reject = null;
  }
  return { code: reject.code, message: reject.message };
}

/** Takes one lost reply for a call to `endpoint`, if the loseReplies switch covers it. */
export function takeLostReply<E extends string>(faults: DeviceFaults<E>, endpoint: E): boolean {
  if (!faults.loseRepliesOn.includes(endpoint)) return false;
  if (faults.loseReplies === 'all') return true;
  if (faults.loseReplies <= 0) return false;
  faults.loseReplies -= 1;
  return true;
}

/** What the control API accepts; every field optional, merged into the current switches. */
export interface FaultsInput {
  down?: boolean;
  html404?: boolean;
  delayMs?: number;
  dropAbandoned?: boolean;
  /** `"838"` or `{code, message?, endpoints?}` (endpoint names, e.g. `["saveBrancheCustomers"]`; absent = every call); null clears. */
  forcedResult?: string | { code: string; message?: string; endpoints?: string[] } | null;
  /** N, `"all"`, or 0 to clear (the profile's default endpoints); or `{count, endpoints}` for other endpoints. */
  loseReplies?: number | 'all' | { count: number | 'all'; endpoints?: string[] };
  /** `{count: N | "all", code, message?, endpoints?}` (endpoints default to the profile's); null clears. */
  reject?: { count: number | 'all'; code: string; message?: string; endpoints?: string[] } | null;
}

function resultCode(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^\d{3}$/.test(value)) throw new ControlInputError(`${field} must be a 3-digit result code string`);
  return value;
}

function count(value: unknown, field: string): number | 'all' {
  if (value === 'all') return 'all';
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new ControlInputError(`${field} must be a whole number or "all"`);
  return value;
}

function flag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new ControlInputError(`${field} must be true or false`);
  return value;
}

export function applyFaults<E extends string>(current: DeviceFaults<E>, input: unknown, words: FaultVocabulary<E>): DeviceFaults<E> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ControlInputError('faults must be a JSON object');
  const raw = input as Record<string, unknown>;
  const known = new Set(['down', 'html404', 'delayMs', 'dropAbandoned', 'forcedResult', 'loseReplies', 'reject']);
  for (const key of Object.keys(raw)) if (!known.has(key)) throw new ControlInputError(`unknown fault "${key}"`);
  const next: DeviceFaults<E> = { ...current, loseRepliesOn: [...current.loseRepliesOn], reject: current.reject && { ...current.reject } };
  const endpointList = (value: unknown, field: string): E[] | null => {
    if (value === undefined || value === null) return null;
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      !value.every((e) => typeof e === 'string' && (words.endpoints as readonly string[]).includes(e))
    ) {
      throw new ControlInputError(`${field} must be a non-empty list of: ${words.endpoints.join(', ')}`);
    }
    return value as E[];
  };

  if (raw.down !== undefined) next.down = flag(raw.down, 'down');
  if (raw.html404 !== undefined) next.html404 = flag(raw.html404, 'html404');
  if (raw.dropAbandoned !== undefined) next.dropAbandoned = flag(raw.dropAbandoned, 'dropAbandoned');
  if (raw.delayMs !== undefined) {
    if (typeof raw.delayMs !== 'number' || !Number.isInteger(raw.delayMs) || raw.delayMs < 0)
      throw new ControlInputError('delayMs must be a whole number ≥ 0');
    next.delayMs = raw.delayMs;
  }
  if (raw.forcedResult !== undefined) {
    const forced = raw.forcedResult;
    if (forced === null) next.forcedResult = null;
    else if (typeof forced === 'string')
      next.forcedResult = { code: resultCode(forced, 'forcedResult'), message: words.resultMessage(forced), endpoints: null };
    else if (typeof forced === 'object') {
      const { code, message, endpoints } = forced as { code?: unknown; message?: unknown; endpoints?: unknown };
      const cd = resultCode(code, 'forcedResult.code');
      next.forcedResult = {
        code: cd,
        message: typeof message === 'string' ? message : words.resultMessage(cd),
        endpoints: endpointList(endpoints, 'forcedResult.endpoints'),
      };
    } else throw new ControlInputError('forcedResult must be a result code, {code, message} or null');
  }
  if (raw.loseReplies !== undefined) {
    const lose = raw.loseReplies;
    if (typeof lose === 'object' && lose !== null && !Array.isArray(lose)) {
      const { count: n, endpoints } = lose as { count?: unknown; endpoints?: unknown };
      next.loseReplies = count(n, 'loseReplies.count');
      next.loseRepliesOn = endpointList(endpoints, 'loseReplies.endpoints') ?? [...words.defaultEndpoints];
    } else {
      next.loseReplies = count(lose, 'loseReplies');
      next.loseRepliesOn = [...words.defaultEndpoints];
    }
  }
  if (raw.reject !== undefined) {
    const reject = raw.reject;
    if (reject === null) next.reject = null;
    else if (typeof reject === 'object' && !Array.isArray(reject)) {
      const { count: n, code, message, endpoints } = reject as { count?: unknown; code?: unknown; message?: unknown; endpoints?: unknown };
      const remaining = count(n, 'reject.count');
      const cd = resultCode(code, 'reject.code');
      const on = endpointList(endpoints, 'reject.endpoints') ?? [...words.defaultEndpoints];
      next.reject =
        remaining === 0
          ? null
          : { remaining, code: cd, message: typeof message === 'string' ? message : words.resultMessage(cd), endpoints: on };
    } else throw new ControlInputError('reject must be {count, code, message?, endpoints?} or null');
  }
  return next;
}
