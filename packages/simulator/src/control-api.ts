// The JSON control API under /_sim (documented in docs/vsdc.md): the server's routes and every
// profile's generic device routes here, the profile's own routes from its controlRoute. The
// routes address the default profile; under /_sim/profiles/<id> they address that profile.
import { ControlInputError } from './core/faults.js';
import type { ControlResult, ProfileInstance } from './core/profile.js';

export const CONTROL_PREFIX = '/_sim';

/** The protocol calls the server answers: in flight now, the most at once and the count since the last reset. */
export interface SimulatorStats {
  inFlight: number;
  peakInFlight: number;
  calls: number;
  latencyMs: number;
}

interface ServerSwitch {
  /** Stop listening (ECONNREFUSED) for downMs, then listen again on the same port. */
  restart(downMs: number): void;
  /** How many calls to a device of the profile its `delayMs` is holding right now. */
  held(profile: ProfileInstance, tpin: string, bhfId: string): number;
  stats(): SimulatorStats;
  resetStats(): void;
  setLatency(ms: number): void;
}

const notFound = (what: string): ControlResult => ({ status: 404, body: { error: 'not_found', message: what } });
const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

export function routeControl(
  method: string,
  pathname: string,
  query: URLSearchParams,
  body: unknown,
  profiles: { of(id: string): ProfileInstance | undefined; all(): ProfileInstance[]; default: ProfileInstance },
  server: ServerSwitch,
): ControlResult {
  let parts = pathname
    .slice(CONTROL_PREFIX.length)
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  let profile = profiles.default;
  let everyProfile = true;
  if (parts[0] === 'profiles' && parts.length >= 2) {
    const named = profiles.of(parts[1]!);
    if (!named) return notFound(`no profile ${parts[1]}`);
    profile = named;
    everyProfile = false;
    parts = parts.slice(2);
  }
  const control = profile.control;
  const route = `${method} /${parts.map((p, i) => (parts[0] === 'devices' && (i === 1 || i === 2) ? ':' : p)).join('/')}`;
  const [, tpin = '', bhfId = ''] = parts;

  try {
    switch (route) {
      case 'GET /health':
        return { status: 200, body: { ok: true } };
      case 'POST /reset':
        for (const each of everyProfile ? profiles.all() : [profile]) each.control.reset();
        return { status: 200, body: { ok: true } };
      case 'POST /server/restart': {
        const downMs = (body as { downMs?: unknown } | null)?.downMs ?? 1000;
        if (typeof downMs !== 'number' || !Number.isInteger(downMs) || downMs < 0)
          throw new ControlInputError('downMs must be a whole number ≥ 0');
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
      case 'GET /devices/:/:/calls':
        return { status: 200, body: { calls: control.calls(tpin, bhfId, query.get('endpoint') ?? undefined) } };
      case 'GET /devices/:/:/held':
        return { status: 200, body: { held: server.held(profile, tpin, bhfId) } };
      case 'GET /devices/:/:/faults':
        return { status: 200, body: control.getFaults(tpin, bhfId) };
      case 'PUT /devices/:/:/faults':
        return { status: 200, body: control.setFaults(tpin, bhfId, body) };
      case 'DELETE /devices/:/:/faults':
        return { status: 200, body: control.clearFaults(tpin, bhfId) };
      default:
        return profile.controlRoute(method, parts, query, body) ?? notFound(`no control route ${method} ${pathname}`);
    }
  } catch (err) {
    if (err instanceof ControlInputError) return { status: 400, body: { error: 'invalid_request', message: err.message } };
    throw err;
  }
}
