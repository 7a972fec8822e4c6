// How the gateway reaches an authority's unit over HTTP: one pooled undici Agent, per host caps
// (host-limits.ts), a whole-call deadline, the caller's cancellation, and every network failure
// read into an `unreachable` outcome. What the bytes mean is the adapter's (each authority's
// client reads its own answers); this never throws for anything the network or the unit does.
import { Agent, request } from 'undici';
import { HostLimiter } from './host-limits.ts';
import type { UnreachableOutcome, UnreachableReason } from './outcome.ts';

export interface TransportOptions {
  /** Whole-call deadline (connect + reply). Default 20 000 ms. */
  timeoutMs?: number;
  /** Keep-alive sockets idle longer than this are closed. Default 4 000 ms. */
  keepAliveTimeoutMs?: number;
  /** Calls (and connections) at once per host (origin); 0 or absent: no cap (VSDC_HOST_CONNECTIONS). */
  hostConnections?: number;
  /** Calls started per second per host; 0 or absent: no cap (VSDC_HOST_RATE). */
  hostRate?: number;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What came back over HTTP, for the adapter to read. */
interface HttpAnswer {
  kind: 'answered';
  status: number;
  text: string;
}

export interface Transport {
  /** POSTs `body` (JSON text) to `url` with `headers`; the answer as it came, or why none came. */
  post(url: string, body: string, headers: Record<string, string>, options?: CallOptions): Promise<HttpAnswer | UnreachableOutcome>;
  close(): Promise<void>;
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export function unreachable(reason: UnreachableReason, detail: string, extra: Partial<UnreachableOutcome> = {}): UnreachableOutcome {
  return { kind: 'unreachable', reason, detail, ...extra };
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return e.cause === undefined ? undefined : errorCode(e.cause);
}

function fromNetworkError(err: unknown, timedOut: boolean): UnreachableOutcome {
  const detail = err instanceof Error ? err.message || err.name : String(err);
  if (timedOut) return unreachable('timeout', 'no reply within the VSDC timeout');
  const code = errorCode(err);
  switch (code) {
    case 'ECONNREFUSED':
      return unreachable('connection_refused', detail);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return unreachable('connection_reset', detail);
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return unreachable('timeout', detail);
    default:
      if (err instanceof Error && (err.name === 'AbortError' || code === 'UND_ERR_ABORTED')) return unreachable('aborted', detail);
      return unreachable('network_error', code ? `${code}: ${detail}` : detail);
  }
}

/**
 * The calls in flight under each caller's signal (a filer's stop signal covers all of its calls):
 * one listener per signal aborts them all, instead of one listener per call (which a busy filer
 * would pile up past the EventTarget's warning threshold).
 */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

function follow(signal: AbortSignal, controller: AbortController): () => void {
  if (signal.aborted) {
    controller.abort();
    return () => {};
  }
  let set = followers.get(signal);
  if (!set) {
    const calls = new Set<AbortController>();
    followers.set(signal, (set = calls));
    signal.addEventListener('abort', () => calls.forEach((c) => c.abort()), { once: true });
  }
  set.add(controller);
  const calls = set;
  return () => calls.delete(controller);
}

export function createTransport(options: TransportOptions = {}): Transport {
  const defaultTimeoutMs = options.timeoutMs ?? 20_000;
  const hosts = new HostLimiter({ connections: options.hostConnections ?? 0, ratePerSecond: options.hostRate ?? 0 });
  const agent = new Agent({
    ...(options.hostConnections ? { connections: options.hostConnections } : {}),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    connect: { timeout: defaultTimeoutMs },
    maxResponseSize: MAX_RESPONSE_BYTES,
  });

  async function post(
    url: string,
    body: string,
    headers: Record<string, string>,
    callOptions: CallOptions = {},
  ): Promise<HttpAnswer | UnreachableOutcome> {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return unreachable('network_error', `invalid URL "${url}"`);
    }
    const timeoutMs = callOptions.timeoutMs ?? defaultTimeoutMs;
    const cancel = callOptions.signal;
    // One controller and one timer per call: AbortSignal.timeout() with AbortSignal.any() cost
    // a measurable part of the gateway's CPU under the sales load (docs/decisions.md).
    const controller = new AbortController();
    const unfollow = cancel ? follow(cancel, controller) : undefined;
    let release: (() => void) | undefined;
    if (hosts.enabled) {
      // The deadline starts with the slot: waiting for our own cap is not the unit being slow.
      try {
        release = await hosts.acquire(origin, controller.signal);
      } catch {
        unfollow?.();
        return unreachable('aborted', 'the caller cancelled the call');
      }
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      return { kind: 'answered', status: response.statusCode, text: await response.body.text() };
    } catch (err) {
      if (cancel?.aborted && !timedOut) return unreachable('aborted', 'the caller cancelled the call');
      return fromNetworkError(err, timedOut);
    } finally {
      clearTimeout(timer);
      unfollow?.();
      release?.();
    }
  }

  return { post, close: () => agent.close() };
}
