// The simulator's HTTP server, one for every profile: raw node:http for throughput. A path
// `/<profile id>/…` goes to that profile, any other to the default profile; inside the profile's
// app (under the context path) its endpoints answer after the device's fault switches. /_sim goes
// to the control API. What the authority says, and how, is the profile's (core/profile.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PREFIX, routeControl, type SimulatorStats } from './control-api.js';
import type { HttpAnswer, ProfileControl, ProfileInstance, SimulatorProfile } from './core/profile.js';
import { CALL_LOG_LIMIT, type StoredDevice } from './core/store.js';
import { DEFAULT_PROFILE, PROFILES } from './profiles/index.js';
import type { SimulatorControl } from './profiles/zra-vsdc/control.js';
import type { SimulatorState } from './profiles/zra-vsdc/state.js';

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** JSON file holding the default profile's devices and documents across restarts (another profile's: `<file>.<id>`); absent = memory only. */
  stateFile?: string;
  /** Serve the protocol under a context path, like a WAR (`/zrasandboxvsdc`). */
  contextPath?: string;
  /** Clock for dates and the 180-day rule (tests). */
  now?: () => Date;
  /** The profile that answers URLs without a profile segment and bare `/_sim/…` (default: zra-vsdc). */
  defaultProfile?: string;
}

export interface Simulator {
  /** Base URL of the default profile (`defaultProfile`; includes the context path): a ZRA device's `vsdcBaseUrl` by default. */
  url: string;
  /** A profile's base URL (`${origin}/<id>` and the context path). */
  urlOf(profileId: string): string;
  /** Root URL of the server (the control API lives at `${origin}/_sim`). */
  origin: string;
  port: number;
  host: string;
  /** The ZRA profile's control and state (whichever profile is the default). */
  control: SimulatorControl;
  state: SimulatorState;
  /** A profile's control (the KRA profiles': `kraControl(sim, id)` gives it typed). */
  controlOf(profileId: string): ProfileControl;
  /** How many calls to a device of the ZRA profile its `delayMs` is holding right now. */
  held(tpin: string, bhfId: string): number;
  /** Protocol calls being answered now, the most at once since the last `resetStats`, and calls since then. */
  stats(): SimulatorStats;
  resetStats(): void;
  /** Every protocol call is held at least this long (a slow VSDC for every device; 0: none). */
  setLatency(ms: number): void;
  /** Close the listener and every open socket: callers get ECONNREFUSED until startListening. */
  stopListening(): Promise<void>;
  startListening(): Promise<void>;
  close(): Promise<void>;
}

interface Mounted {
  profile: SimulatorProfile;
  instance: ProfileInstance;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: HttpAnswer): void {
  if (answer === null) req.socket.destroy();
  else send(res, answer.status, answer.contentType, answer.body);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseObject(raw: Buffer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const contextPath = (options.contextPath ?? '').replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const rootId = options.defaultProfile ?? DEFAULT_PROFILE.id;
  if (!PROFILES.some((p) => p.id === rootId))
    throw new Error(`simulator: no profile ${rootId} (profiles: ${PROFILES.map((p) => p.id).join(', ')})`);
  /** Every profile at work here, by id: its definition and its instance. */
  const mounted = new Map<string, Mounted>(
    PROFILES.map((profile) => {
      const stateFile = options.stateFile === undefined || profile.id === rootId ? options.stateFile : `${options.stateFile}.${profile.id}`;
      return [profile.id, { profile, instance: profile.open({ stateFile, now }) }];
    }),
  );
  const mainMount = mounted.get(rootId)!;
  const main = mounted.get(DEFAULT_PROFILE.id)!.instance as ReturnType<typeof DEFAULT_PROFILE.open>;
  const idOf = new Map<ProfileInstance, string>([...mounted.values()].map(({ profile, instance }) => [instance, profile.id]));
  const timers = new Set<NodeJS.Timeout>();
  let port = options.port ?? 0;
  let listening = false;
  let closed = false;
  const holding = new Map<string, number>();
  let latencyMs = 0;
  const stats = { inFlight: 0, peakInFlight: 0, calls: 0 };
  // Held calls are looked at again every HOLD_TICK_MS by one timer (a switch lowered, a caller
  // gone), and each at its own end: thousands held at once cost a timer each, not a poll each.
  const holders = new Set<() => void>();
  let holdTicker: NodeJS.Timeout | undefined;
  const HOLD_TICK_MS = 25;

  /** Resolves once `remaining()` is ≤ 0 or `done()` says to stop waiting. */
  function hold(remaining: () => number, done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = (): void => {
        const left = remaining();
        if (left > 0 && !done() && !closed) {
          clearTimeout(timer);
          timer = setTimeout(check, left);
          return;
        }
        clearTimeout(timer);
        holders.delete(check);
        if (holders.size === 0 && holdTicker) {
          clearInterval(holdTicker);
          holdTicker = undefined;
        }
        resolve();
      };
      holders.add(check);
      holdTicker ??= setInterval(() => holders.forEach((c) => c()), HOLD_TICK_MS);
      check();
    });
  }

  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  /** The profile a path names by its first segment (the rest of the path inside it), else the default profile. */
  function profileAt(pathname: string): { mount: Mounted; rest: string } {
    const slash = pathname.indexOf('/', 1);
    const named = mounted.get(slash < 0 ? pathname.slice(1) : pathname.slice(1, slash));
    return named ? { mount: named, rest: slash < 0 ? '' : pathname.slice(slash) } : { mount: mainMount, rest: pathname };
  }

  /** The path inside the profile's app, or null when it lies outside the app's context path. */
  function appPath(pathname: string): string | null {
    if (contextPath === '') return pathname;
    return pathname.startsWith(`${contextPath}/`) ? pathname.slice(contextPath.length) : null;
  }

  async function onProtocolRequest(
    req: IncomingMessage,
    res: ServerResponse,
    profile: ProfileInstance,
    endpoint: string,
    path: string,
  ): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return send(res, 413, 'text/plain', 'Payload Too Large');
    const reply = (answer: unknown, at = now()): void => sendAnswer(req, res, profile.toHttp(answer, path, at));
    const body = parseObject(raw);
    if (body === null) return reply(profile.badRequest());
    const key = profile.deviceKeyOf(body, req.headers);
    const device: StoredDevice | undefined = key ? profile.store.device(key.tpin, key.bhfId) : undefined;
    const faults = device?.faults;

    if (faults?.down) {
      req.socket.destroy();
      return;
    }
    const delayOf = (): number => Math.max(device?.faults.delayMs ?? 0, latencyMs);
    if (delayOf() > 0) {
      // Held until the delay has passed since arrival, as the switch reads while it holds:
      // lowering or clearing it releases the calls already held. A caller that gave up (a
      // timeout) closed its socket; a real VSDC, a servlet, still finishes the request: it is
      // processed when its hold ends and its answer is lost. With dropAbandoned it is dropped.
      const arrived = Date.now();
      const holdKey = heldKey(profile, key?.tpin ?? String(body.tpin), key?.bhfId ?? String(body.bhfId));
      const dropped = () => device !== undefined && device.faults.dropAbandoned && req.socket.destroyed;
      holding.set(holdKey, (holding.get(holdKey) ?? 0) + 1);
      try {
        await hold(() => delayOf() - (Date.now() - arrived), dropped);
      } finally {
        holding.set(holdKey, holding.get(holdKey)! - 1);
      }
      if (dropped() || closed) return;
    }
    if (faults?.html404) return reply(profile.appMissing());
    if (!profile.bind(endpoint, body)) return reply(profile.badRequest());
    // Answers with a result code are remembered per device, for tests that check what was asked.
    const answer = (result: unknown): void => {
      const at = now();
      const resultCd = profile.resultCodeOf(result);
      if (device && resultCd !== null) {
        device.calls.push({ endpoint, request: body, resultCd, resultDt: profile.formatTime(at) });
        if (device.calls.length > CALL_LOG_LIMIT) device.calls.splice(0, device.calls.length - CALL_LOG_LIMIT);
      }
      reply(result, at);
    };
    const forced = faults?.forcedResult;
    if (forced && (forced.endpoints === null || forced.endpoints.includes(endpoint)))
      return answer(profile.forced(forced.code, forced.message));
    if (!device) return reply(profile.unknownDevice(body, req.headers));
    answer(profile.answer(endpoint, body, device, now(), req.headers));
  }

  async function onControlRequest(req: IncomingMessage, res: ServerResponse, pathname: string, query: URLSearchParams): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return send(res, 413, 'application/json', JSON.stringify({ error: 'payload_too_large' }));
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 400, 'application/json', JSON.stringify({ error: 'invalid_json', message: 'body is not JSON' }));
      }
    }
    const profiles = {
      of: (id: string) => mounted.get(id)?.instance,
      all: () => [...mounted.values()].map((m) => m.instance),
      default: mainMount.instance,
    };
    const result = routeControl(req.method ?? 'GET', pathname, query, body, profiles, {
      restart,
      held: heldOf,
      stats: statsNow,
      resetStats,
      setLatency,
    });
    if (result.afterReply) res.once('finish', result.afterReply);
    send(res, result.status, 'application/json', JSON.stringify(result.body));
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q >= 0 ? url.slice(0, q) : url;
    let handled: Promise<void>;
    if (pathname === CONTROL_PREFIX || pathname.startsWith(`${CONTROL_PREFIX}/`)) {
      handled = onControlRequest(req, res, pathname, new URLSearchParams(q >= 0 ? url.slice(q + 1) : ''));
    } else {
      const { mount, rest } = profileAt(pathname);
      const profile = mount.instance;
      const inApp = appPath(rest);
      const aside = inApp === null ? undefined : profile.beside?.(req.method ?? 'GET', inApp, req.headers);
      if (aside !== undefined) {
        req.resume();
        sendAnswer(req, res, aside);
        return;
      }
      const endpoint = inApp === null ? undefined : mount.profile.endpointAt(inApp);
      if (endpoint === undefined || req.method !== 'POST') {
        req.resume();
        // Outside the app its server answers; inside it, the app's own error body.
        if (inApp === null) sendAnswer(req, res, profile.outsideApp(pathname));
        else if (endpoint === undefined) sendAnswer(req, res, profile.noEndpoint(pathname, now()));
        else sendAnswer(req, res, profile.wrongMethod(pathname, now()));
        return;
      }
      stats.calls++;
      stats.inFlight++;
      if (stats.inFlight > stats.peakInFlight) stats.peakInFlight = stats.inFlight;
      let counted = true;
      const uncount = (): void => {
        if (counted) stats.inFlight--;
        counted = false;
      };
      res.once('close', uncount);
      handled = onProtocolRequest(req, res, profile, endpoint, pathname);
    }
    handled.catch((err: unknown) => {
      console.error('simulator: request failed:', err);
      if (!res.headersSent) send(res, 500, 'text/plain', 'Internal Server Error');
      else res.destroy();
    });
  }

  const server = createServer({ keepAliveTimeout: 5_000 }, onRequest);

  function listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        port = (server.address() as AddressInfo).port;
        listening = true;
        resolve();
      });
    });
  }

  async function stopListening(): Promise<void> {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async function startListening(): Promise<void> {
    if (listening || closed) return;
    await listen();
  }

  function heldKey(profile: ProfileInstance, tpin: string, bhfId: string): string {
    return `${idOf.get(profile)!} ${tpin}/${bhfId}`;
  }

  function heldOf(profile: ProfileInstance, tpin: string, bhfId: string): number {
    return holding.get(heldKey(profile, tpin, bhfId)) ?? 0;
  }

  function statsNow(): SimulatorStats {
    return { ...stats, latencyMs };
  }

  function resetStats(): void {
    stats.peakInFlight = stats.inFlight;
    stats.calls = 0;
  }

  function setLatency(ms: number): void {
    latencyMs = ms;
    holders.forEach((c) => c());
  }

  function restart(downMs: number): void {
    void stopListening().then(() =>
      later(downMs, () => {
        startListening().catch((err: unknown) => console.error('simulator: cannot listen again:', err));
      }),
    );
  }

  await listen();
  // Listening on every address (0.0.0.0 or ::, as in a container): the URLs name the loopback
  // address, which a device's vsdcBaseUrl can connect to.
  const reachableHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const origin = `http://${reachableHost.includes(':') ? `[${reachableHost}]` : reachableHost}:${port}`;

  return {
    url: `${origin}${contextPath}`,
    urlOf: (profileId) => {
      if (!mounted.has(profileId)) throw new Error(`simulator: no profile ${profileId}`);
      return `${origin}/${profileId}${contextPath}`;
    },
    origin,
    port,
    host,
    control: main.control,
    state: main.store,
    controlOf: (profileId) => {
      const named = mounted.get(profileId);
      if (!named) throw new Error(`simulator: no profile ${profileId}`);
      return named.instance.control;
    },
    held: (tpin, bhfId) => heldOf(main, tpin, bhfId),
    stats: statsNow,
    resetStats,
    setLatency,
    stopListening,
    startListening,
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      holders.forEach((c) => c());
      timers.clear();
      await stopListening();
      for (const { instance } of mounted.values()) await instance.store.flush();
    },
  };
}
