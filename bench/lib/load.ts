// Load generators: autocannon for closed-loop peaks (as many requests in flight as connections)
// and an open-loop pacer (requests evenly spaced, whatever the answers take) for the latency a
// caller sees at a given rate.
import { createRequire } from 'node:module';
import { Pool } from 'undici';

interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface CannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}

// autocannon ships no types; this is the slice of its API used here.
type Autocannon = (options: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  requests: { method: string; path: string; headers?: Record<string, string>; setupRequest?: (r: CannonRequest) => CannonRequest }[];
  verifyBody?: (body: string) => boolean;
}) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Throughput {
  /** Answers that passed `verify`, per second. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  /** Non-2xx, socket errors, timeouts and answers `verify` refused. */
  bad: number;
  seconds: number;
}

export interface RequestPlan {
  method: 'GET' | 'POST';
  path: string;
  /** Called for every request: varying headers (e.g. the merchant's token) and body. */
  next: () => { headers: Record<string, string>; body?: string };
  verify?: (body: string) => boolean;
}

/** Closed loop: `connections` requests always in flight, for `seconds` (or `amount` requests). */
export async function closedLoop(
  url: string,
  plan: RequestPlan,
  options: { connections: number; seconds?: number; amount?: number },
): Promise<Throughput> {
  const result = await autocannon({
    url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 5 }),
    requests: [
      {
        method: plan.method,
        path: plan.path,
        setupRequest: (r) => {
          const { headers, body } = plan.next();
          return { ...r, headers: { ...r.headers, ...headers }, ...(body !== undefined ? { body } : {}) };
        },
      },
    ],
    ...(plan.verify ? { verifyBody: plan.verify } : {}),
  });
  const bad = result.non2xx + result.errors + result.timeouts + result.mismatches;
  const ok = result.requests.total - bad;
  return {
    perSecond: Math.round(ok / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok,
    bad,
    seconds: result.duration,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 10) / 10;
}

/** Open loop: `rate` requests a second, evenly spaced, for `seconds`. */
export async function openLoop(url: string, plan: RequestPlan, options: { rate: number; seconds: number }): Promise<Throughput> {
  const pool = new Pool(url, { connections: 1024, pipelining: 1 });
  const latencies: number[] = [];
  let ok = 0;
  let bad = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const one = async () => {
    const { headers, body } = plan.next();
    const began = performance.now();
    try {
      const res = await pool.request({ path: plan.path, method: plan.method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.body.text();
      latencies.push(performance.now() - began);
      if (res.statusCode >= 200 && res.statusCode < 300 && (!plan.verify || plan.verify(text))) ok++;
      else bad++;
    } catch {
      bad++;
    }
  };
  const start = performance.now();
  while (performance.now() - start < options.seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * options.rate);
    while (sent < due) {
      sent++;
      const p = one();
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    perSecond: Math.round(ok / seconds),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ok,
    bad,
    seconds: Math.round(seconds * 100) / 100,
  };
}
