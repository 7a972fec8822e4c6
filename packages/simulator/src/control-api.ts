// The JSON control API under /_sim (documented in docs/vsdc.md).
import type { SimulatorControl } from './profiles/zra-vsdc/control.js';
import { ControlInputError } from './core/faults.js';

export const CONTROL_PREFIX = '/_sim';

/** The protocol calls the server answers: in flight now, the most at once and the count since the last reset. */
export interface SimulatorStats {
  inFlight: number;
  peakInFlight: number;
  calls: number;
  latencyMs: number;
}

interface ControlResult {
  status: number;
  body: unknown;
  /** Runs once the reply is flushed (a restart must not cut its own reply). */
  afterReply?: () => void;
}

interface ServerSwitch {
  /** Stop listening (ECONNREFUSED) for downMs, then listen again on the same port. */
  restart(downMs: number): void;
  /** How many calls to a device its `delayMs` is holding right now. */
  held(tpin: string, bhfId: string): number;
  stats(): SimulatorStats;
  resetStats(): void;
  setLatency(ms: number): void;
}

const notFound = (what: string): ControlResult => ({ status: 404, body: { error: 'not_found', message: what } });
const field = (body: unknown, name: string): unknown => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined);

export function routeControl(
  method: string,
  pathname: string,
  query: URLSearchParams,
  body: unknown,
  control: SimulatorControl,
  server: ServerSwitch,
): ControlResult {
  const parts = pathname.slice(CONTROL_PREFIX.length).split('/').filter((p) => p !== '').map(decodeURIComponent);
  const route = `${method} /${parts.map((p, i) => (parts[0] === 'devices' && (i === 1 || i === 2 || (i === 4 && parts[3] === 'documents')) ? ':' : p)).join('/')}`;
  const [, tpin = '', bhfId = ''] = parts;

  try {
    switch (route) {
      case 'GET /health':
        return { status: 200, body: { ok: true } };
      case 'POST /reset':
        control.reset();
        return { status: 200, body: { ok: true } };
      case 'POST /server/restart': {
        const downMs = (body as { downMs?: unknown } | null)?.downMs ?? 1000;
        if (typeof downMs !== 'number' || !Number.isInteger(downMs) || downMs < 0) throw new ControlInputError('downMs must be a whole number ≥ 0');
        return { status: 202, body: { restartingInMs: downMs }, afterReply: () => server.restart(downMs) };
      }
      case 'GET /stats':
        return { status: 200, body: server.stats() };
      case 'POST /stats/reset':
        server.resetStats();
        return { status: 200, body: server.stats() };
      case 'PUT /latency': {
        const ms = field(body, 'ms');
        if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) throw new ControlInputError('ms must be a whole number ≥ 0');
        server.setLatency(ms);
        return { status: 200, body: server.stats() };
      }
      case 'GET /taxpayers':
        return { status: 200, body: { taxpayers: control.listTaxpayers() } };
      case 'POST /taxpayers':
        return { status: 201, body: control.addTaxpayer(body) };
      case 'GET /devices':
        return { status: 200, body: { devices: control.listDevices() } };
      case 'GET /devices/:/:': {
        const device = control.getDevice(tpin, bhfId);
        return device ? { status: 200, body: device } : notFound(`no device ${tpin}/${bhfId}`);
      }
      case 'PUT /devices/:/:':
        return { status: 200, body: control.presetDevice(tpin, bhfId, (body ?? {}) as Record<string, never>) };
      case 'DELETE /devices/:/:':
        return control.forgetDevice(tpin, bhfId) ? { status: 200, body: { ok: true } } : notFound(`no device ${tpin}/${bhfId}`);
      case 'GET /devices/:/:/documents':
        return { status: 200, body: { documents: control.documents(tpin, bhfId, { filedOnly: query.get('filed') === 'true' }) } };
      case 'PATCH /devices/:/:/documents/:': {
        const altered = control.alterFiled(tpin, bhfId, parts[4] ?? '', body ?? {});
        return altered ? { status: 200, body: altered } : notFound(`no filed document ${parts[4]} on ${tpin}/${bhfId}`);
      }
      case 'GET /devices/:/:/calls':
        return { status: 200, body: { calls: control.calls(tpin, bhfId, query.get('endpoint') ?? undefined) } };
      case 'GET /devices/:/:/held':
        return { status: 200, body: { held: server.held(tpin, bhfId) } };
      case 'GET /devices/:/:/faults':
        return { status: 200, body: control.getFaults(tpin, bhfId) };
      case 'PUT /devices/:/:/faults':
        return { status: 200, body: control.setFaults(tpin, bhfId, body) };
      case 'DELETE /devices/:/:/faults':
        return { status: 200, body: control.clearFaults(tpin, bhfId) };
      case 'POST /devices/:/:/imports':
        return { status: 201, body: { items: control.feedImports(tpin, bhfId, field(body, 'items')) } };
      case 'POST /devices/:/:/notices':
        return { status: 201, body: { notices: control.feedNotices(tpin, bhfId, field(body, 'notices')) } };
      case 'POST /devices/:/:/principals':
        return { status: 201, body: { principals: control.feedPrincipals(tpin, bhfId, field(body, 'principals')) } };
      case 'POST /devices/:/:/purchases':
        return { status: 201, body: { purchases: control.feedPurchases(tpin, bhfId, field(body, 'purchases')) } };
      case 'GET /rrp-items':
        return { status: 200, body: { items: control.listRrpItems() } };
      case 'POST /rrp-items':
        return { status: 201, body: { items: control.feedRrpItems(field(body, 'items')) } };
      default:
        return notFound(`no control route ${method} ${pathname}`);
    }
  } catch (err) {
    if (err instanceof ControlInputError) return { status: 400, body: { error: 'invalid_request', message: err.message } };
    throw err;
  }
}
