// The simulator's HTTP server: raw node:http for throughput. Protocol paths (optionally under a
// context path) go to the endpoints after the device's fault switches; /_sim goes to control.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatVsdcDateTime, VSDC_PATHS, type VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';
import { CONTROL_PREFIX, routeControl, type SimulatorStats } from './control-api.js';
import { SimulatorControl } from './profiles/zra-vsdc/control.js';
import { CALL_LOG_LIMIT } from './profiles/zra-vsdc/device.js';
import { handleEndpoint } from './profiles/zra-vsdc/endpoints.js';
import { envelope, type Reply } from './profiles/zra-vsdc/replies.js';
import { SimulatorState } from './profiles/zra-vsdc/state.js';
import { bindRequestBody } from './profiles/zra-vsdc/wire-binding.js';

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** JSON file holding devices and documents across restarts; absent = memory only. */
  stateFile?: string;
  /** Serve the protocol under a context path, like a WAR (`/zrasandboxvsdc`). */
  contextPath?: string;
  /** Clock for dates and the 180-day rule (tests). */
  now?: () => Date;
}

export interface Simulator {
  /** Base URL to use as a device's `vsdcBaseUrl` (includes the context path). */
  url: string;
  /** Root URL of the server (the control API lives at `${origin}/_sim`). */
  origin: string;
  port: number;
  host: string;
  control: SimulatorControl;
  state: SimulatorState;
  /** How many calls to a device its `delayMs` is holding right now. */
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

const MAX_BODY_BYTES = 10 * 1024 * 1024;

const ENDPOINT_BY_PATH = new Map<string, VsdcEndpoint>(Object.entries(VSDC_PATHS).map(([endpoint, path]) => [path, endpoint as VsdcEndpoint]));

function tomcat404(path: string): string {
  return (
    '<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body>' +
    '<h1>HTTP Status 404 – Not Found</h1><hr class="line" /><p><b>Type</b> Status Report</p>' +
    `<p><b>Message</b> The requested resource [${path.replace(/[<>&"]/g, '')}] is not available</p>` +
    '<p><b>Description</b> The origin server did not find a current representation for the target resource or is not willing to disclose that one exists.</p>' +
    '<hr class="line" /><h3>Apache Tomcat/9.0.85</h3></body></html>'
  );
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
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
  const state = new SimulatorState(options.stateFile);
  const control = new SimulatorControl(state, now);
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
  // Spring's default error body: JSON, but no resultCd, so no envelope.
  const springError = (status: number, error: string, path: string): string => JSON.stringify({ timestamp: now().toISOString(), status, error, path });

  /** The path inside the VSDC app, or null when it lies outside the app's context path. */
  function appPath(pathname: string): string | null {
    if (contextPath === '') return pathname;
    return pathname.startsWith(`${contextPath}/`) ? pathname.slice(contextPath.length) : null;
  }

  function reply(req: IncomingMessage, res: ServerResponse, result: Reply, path: string, resultDt = formatVsdcDateTime(now())): void {
    switch (result.kind) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'html404':
        send(res, 404, 'text/html;charset=utf-8', tomcat404(path));
        return;
      case 'bad_request':
        send(res, 400, 'application/json', springError(400, 'Bad Request', path));
        return;
      case 'envelope':
        if (result.loseReply) {
          req.socket.destroy();
          return;
        }
        send(
          res,
          200,
          'application/json;charset=UTF-8',
          JSON.stringify({ resultCd: result.resultCd, resultMsg: result.resultMsg, resultDt, data: result.data }),
        );
    }
  }

  async function onProtocolRequest(req: IncomingMessage, res: ServerResponse, endpoint: VsdcEndpoint, path: string): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return send(res, 413, 'text/plain', 'Payload Too Large');
    const body = parseObject(raw);
    if (body === null) return reply(req, res, { kind: 'bad_request' }, path);
    const { tpin, bhfId } = body;
    const tpinOk = typeof tpin === 'string' && /^\d{10}$/.test(tpin);
    const bhfIdOk = typeof bhfId === 'string' && /^[0-9A-Za-z]{3}$/.test(bhfId);
    const device = tpinOk && bhfIdOk ? state.device(tpin, bhfId) : undefined;
    const faults = device?.faults;

    if (faults?.down) return reply(req, res, { kind: 'drop' }, path);
    const delayOf = (): number => Math.max(device?.faults.delayMs ?? 0, latencyMs);
    if (delayOf() > 0) {
      // Held until the delay has passed since arrival, as the switch reads while it holds:
      // lowering or clearing it releases the calls already held. A caller that gave up (a
      // timeout) closed its socket; a real VSDC, a servlet, still finishes the request: it is
      // processed when its hold ends and its answer is lost. With dropAbandoned it is dropped.
      const arrived = Date.now();
      const key = `${String(tpin)}/${String(bhfId)}`;
      const dropped = () => device !== undefined && device.faults.dropAbandoned && req.socket.destroyed;
      holding.set(key, (holding.get(key) ?? 0) + 1);
      try {
        await hold(() => delayOf() - (Date.now() - arrived), dropped);
      } finally {
        holding.set(key, holding.get(key)! - 1);
      }
      if (dropped() || closed) return;
    }
    if (faults?.html404) return reply(req, res, { kind: 'html404' }, path);
    if (!bindRequestBody(endpoint, body)) return reply(req, res, { kind: 'bad_request' }, path);
    // Answers with an envelope are remembered per device, for tests that check what was asked.
    const answer = (result: Reply): void => {
      const resultDt = formatVsdcDateTime(now());
      if (device && result.kind === 'envelope') {
        device.calls.push({ endpoint, request: body, resultCd: result.resultCd, resultDt });
        if (device.calls.length > CALL_LOG_LIMIT) device.calls.splice(0, device.calls.length - CALL_LOG_LIMIT);
      }
      reply(req, res, result, path, resultDt);
    };
    const forced = faults?.forcedResult;
    if (forced && (forced.endpoints === null || forced.endpoints.includes(endpoint))) return answer(envelope(forced.code, null, forced.message));
    if (!device) {
      const fields = [tpinOk ? null : "'tpin': must be 10 digits", bhfIdOk ? null : "'bhfId': must be 3 characters"];
      return reply(req, res, envelope('910', null, `Validation error for fields: [${fields.filter((f) => f !== null).join(', ')}]`), path);
    }
    answer(handleEndpoint(endpoint, body, { state, device, now: now() }));
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
    const result = routeControl(req.method ?? 'GET', pathname, query, body, control, { restart, held, stats: statsNow, resetStats, setLatency });
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
      const inApp = appPath(pathname);
      const endpoint = inApp === null ? undefined : ENDPOINT_BY_PATH.get(inApp);
      if (endpoint === undefined || req.method !== 'POST') {
        req.resume();
        // Outside the app the servlet container answers; inside it, the VSDC's own Spring error body.
        if (inApp === null) send(res, 404, 'text/html;charset=utf-8', tomcat404(pathname));
        else if (endpoint === undefined) send(res, 404, 'application/json', springError(404, 'Not Found', pathname));
        else send(res, 405, 'application/json', springError(405, 'Method Not Allowed', pathname));
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
      handled = onProtocolRequest(req, res, endpoint, pathname);
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

  function held(tpin: string, bhfId: string): number {
    return holding.get(`${tpin}/${bhfId}`) ?? 0;
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
    origin,
    port,
    host,
    control,
    state,
    held,
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
      await state.flush();
    },
  };
}
