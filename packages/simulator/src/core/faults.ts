// Reading fault switches from the control API (JSON) into a device's DeviceFaults.
import { VSDC_PATHS, type VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';
import { DEFAULT_FAULT_ENDPOINTS, type DeviceFaults } from '../profiles/zra-vsdc/device.js';
import { RESULT_MESSAGES } from '../profiles/zra-vsdc/replies.js';

export class ControlInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlInputError';
  }
}

/** What the control API accepts; every field optional, merged into the current switches. */
export interface FaultsInput {
  down?: boolean;
  html404?: boolean;
  delayMs?: number;
  dropAbandoned?: boolean;
  /** `"838"` or `{code, message?, endpoints?}` (endpoint names, e.g. `["saveBrancheCustomers"]`; absent = every call); null clears. */
  forcedResult?: string | { code: string; message?: string; endpoints?: string[] } | null;
  /** N, `"all"`, or 0 to clear (saveSales); or `{count, endpoints}` for other endpoints. */
  loseReplies?: number | 'all' | { count: number | 'all'; endpoints?: string[] };
  /** `{count: N | "all", code, message?, endpoints?}` (endpoints default to saveSales); null clears. */
  reject?: { count: number | 'all'; code: string; message?: string; endpoints?: string[] } | null;
}

function resultCode(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^\d{3}$/.test(value)) throw new ControlInputError(`${field} must be a 3-digit result code string`);
  return value;
}

function count(value: unknown, field: string): number | 'all' {
  if (value === 'all') return 'all';
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ControlInputError(`${field} must be a whole number or "all"`);
  return value;
}

function endpointList(value: unknown, field: string): VsdcEndpoint[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0 || !value.every((e) => typeof e === 'string' && e in VSDC_PATHS)) {
    throw new ControlInputError(`${field} must be a non-empty list of: ${Object.keys(VSDC_PATHS).join(', ')}`);
  }
  return value as VsdcEndpoint[];
}

function flag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new ControlInputError(`${field} must be true or false`);
  return value;
}

export function applyFaults(current: DeviceFaults, input: unknown): DeviceFaults {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ControlInputError('faults must be a JSON object');
  const raw = input as Record<string, unknown>;
  const known = new Set(['down', 'html404', 'delayMs', 'dropAbandoned', 'forcedResult', 'loseReplies', 'reject']);
  for (const key of Object.keys(raw)) if (!known.has(key)) throw new ControlInputError(`unknown fault "${key}"`);
  const next: DeviceFaults = { ...current, loseRepliesOn: [...current.loseRepliesOn], reject: current.reject && { ...current.reject } };

  if (raw.down !== undefined) next.down = flag(raw.down, 'down');
  if (raw.html404 !== undefined) next.html404 = flag(raw.html404, 'html404');
  if (raw.dropAbandoned !== undefined) next.dropAbandoned = flag(raw.dropAbandoned, 'dropAbandoned');
  if (raw.delayMs !== undefined) {
    if (typeof raw.delayMs !== 'number' || !Number.isInteger(raw.delayMs) || raw.delayMs < 0) throw new ControlInputError('delayMs must be a whole number ≥ 0');
    next.delayMs = raw.delayMs;
  }
  if (raw.forcedResult !== undefined) {
    const forced = raw.forcedResult;
    if (forced === null) next.forcedResult = null;
    else if (typeof forced === 'string') next.forcedResult = { code: resultCode(forced, 'forcedResult'), message: RESULT_MESSAGES[forced] ?? 'Error', endpoints: null };
    else if (typeof forced === 'object') {
      const { code, message, endpoints } = forced as { code?: unknown; message?: unknown; endpoints?: unknown };
      const cd = resultCode(code, 'forcedResult.code');
      next.forcedResult = { code: cd, message: typeof message === 'string' ? message : (RESULT_MESSAGES[cd] ?? 'Error'), endpoints: endpointList(endpoints, 'forcedResult.endpoints') };
    } else throw new ControlInputError('forcedResult must be a result code, {code, message} or null');
  }
  if (raw.loseReplies !== undefined) {
    const lose = raw.loseReplies;
    if (typeof lose === 'object' && lose !== null && !Array.isArray(lose)) {
      const { count: n, endpoints } = lose as { count?: unknown; endpoints?: unknown };
      next.loseReplies = count(n, 'loseReplies.count');
      next.loseRepliesOn = endpointList(endpoints, 'loseReplies.endpoints') ?? [...DEFAULT_FAULT_ENDPOINTS];
    } else {
      next.loseReplies = count(lose, 'loseReplies');
      next.loseRepliesOn = [...DEFAULT_FAULT_ENDPOINTS];
    }
  }
  if (raw.reject !== undefined) {
    const reject = raw.reject;
    if (reject === null) next.reject = null;
    else if (typeof reject === 'object' && !Array.isArray(reject)) {
      const { count: n, code, message, endpoints } = reject as { count?: unknown; code?: unknown; message?: unknown; endpoints?: unknown };
      const remaining = count(n, 'reject.count');
      const cd = resultCode(code, 'reject.code');
      const on = endpointList(endpoints, 'reject.endpoints') ?? [...DEFAULT_FAULT_ENDPOINTS];
      next.reject = remaining === 0 ? null : { remaining, code: cd, message: typeof message === 'string' ? message : (RESULT_MESSAGES[cd] ?? 'Error'), endpoints: on };
    } else throw new ControlInputError('reject must be {count, code, message?, endpoints?} or null');
  }
  return next;
}
