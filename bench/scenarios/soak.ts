// A long run under faults with nothing lost (issue 35): one `serve --api-only` and two
// `serve --workers-only` processes on one fresh PostgreSQL database, closed-loop clients sending a
// mixed load (online and offline sales on many branches, credit notes, listings, CSV exports, the
// X report), webhooks to a local receiver that fails a share of its deliveries, the simulator's
// VSDCs cycling normal → down → slow (above, then below the VSDC timeout) → lost replies, and one
// worker process killed with SIGKILL and restarted every few minutes (alternately).
//
// Every answered document (each 2xx of a sale or a credit note) is recorded here. At the end the
// faults are cleared, the backlog drains, and the run checks: each answered document stored once;
// invoice numbers gap-free per branch; each filed with the VSDC once and in invoice order (the
// simulator's own log of what it received); exactly one `invoice.fiscalised` event per document,
// each delivered to the receiver at least once. Every few seconds it samples each process's RSS,
// open file descriptors and event-loop delay, and the database's connections: each must end
// within 10 % of where it stood after warm-up (see `leakChecks` for the comparison). Used by
// `npm run bench -- soak` (25 minutes) and test/platform/soak.test.ts (2–3 minutes, CI).
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import pg from 'pg';
import { Agent, request } from 'undici';
import { DATABASE_FAULTS, type DatabaseFault } from '../lib/pg-cluster.ts';
import { ADMIN_TOKEN, startGateway, type GatewayProcess } from '../lib/processes.ts';
import { createPartner, registerEndpoint, seedMerchants, type Merchant } from '../lib/seed.ts';

export interface SoakSettings {
  /** Source tree to run. */
  root: string;
  workDir: string;
  /** A fresh PostgreSQL database (the gateway migrates it). */
  databaseUrl: string;
  /** The simulator: its VSDC base URL and its origin (control API under /_sim). */
  sim: { url: string; origin: string };
  tpinBase: number;
  /** Minutes of load (warm-up included); the drain and the checks come after. */
  minutes: number;
  merchants: number;
  branchesPerMerchant: number;
  /** Closed-loop clients. */
  clients: number;
  /** Pause of a client between two requests (ms). */
  thinkMs: number;
  /** A worker process is killed with SIGKILL (and restarted) this often (split tiers only). */
  killEverySeconds: number;
  /** `split` (default): one `--api-only` and two `--workers-only` processes; `single`: one `serve` doing both. */
  tiers?: 'split' | 'single';
  /**
   * The database's own faults, one every `everySeconds` in DATABASE_FAULTS' order (restart, a
   * crash and start, a failover, one backend terminated, connections refused, connections reset),
   * applied by the caller, who owns the server (`api`: the API's URL, to probe during an outage;
   * `sell`: a sale through the run's own writers, resent until answered — the ms it took, null if
   * never answered 2xx).
   */
  databaseFaults?: {
    everySeconds: number;
    apply(fault: DatabaseFault, gateway: { api: string; sell(): Promise<number | null> }): Promise<void>;
  };
  /** Settings of the gateway processes beyond SOAK_GATEWAY_ENV. */
  gatewayEnv?: Record<string, string>;
  /** Each phase of the fault cycle (normal, down, slow above the timeout, slow below, lost replies) lasts this long. */
  faultPhaseSeconds: number;
  sampleEverySeconds: number;
  /** A worker process's warm-up after its start (less than a fault phase; see leakChecks). */
  restartWarmupSeconds: number;
  /** Documents dated yesterday per branch, stored before the load: what the CSV exports read (a constant size). */
  yesterdayPerBranch: number;
  /** Share of webhook deliveries the receiver answers 500. */
  webhookFailShare: number;
  /** How long the backlog may take to drain once the faults are cleared. */
  drainTimeoutSeconds: number;
  /** false: the tree's dist/ is current (the test runner compiled it). */
  build?: boolean;
  log: (line: string) => void;
}

/** The gateway's settings for the run: short timeouts so that faults are met many times. */
export const SOAK_GATEWAY_ENV = {
  // Loopback http webhook receivers are accepted in development only.
  GATEWAY_ENV: 'development',
  LOG_LEVEL: 'warn',
  SALE_WAIT_MS: '2000',
  VSDC_TIMEOUT_MS: '1500',
  FILING_RETRY_MS: '500',
  VSDC_PROBE_MS: '1000',
  WEBHOOK_TIMEOUT_MS: '2000',
  // Eleven attempts a second or more apart: at a 20 % failure share a delivery fails for good once in 50 million.
  WEBHOOK_RETRY_DELAYS: '1,1,2,3,5,8,10,10,10,10',
} as const;
const VSDC_TIMEOUT_MS = Number(SOAK_GATEWAY_ENV.VSDC_TIMEOUT_MS);

/** The fault cycle, each phase applied to every branch's VSDC. */
const FAULT_PHASES: Array<{ name: string; faults: Record<string, unknown> | null }> = [
  { name: 'normal', faults: null },
  { name: 'down', faults: { down: true } },
  // Above the gateway's timeout: it gives up, the simulator files the call when its hold ends,
  // the retry meets 924 and the gateway adopts the filed receipt.
  { name: 'slow-above-timeout', faults: { delayMs: VSDC_TIMEOUT_MS + 700 } },
  { name: 'slow-below-timeout', faults: { delayMs: Math.round(VSDC_TIMEOUT_MS / 2) } },
  // Filed, the reply lost (the socket destroyed): the next attempt meets 924 and adopts.
  { name: 'lost-replies', faults: { loseReplies: 'all' } },
];

export interface ProcessSample {
  /** Seconds since the load started. */
  t: number;
  process: string;
  pid: number;
  rssMb: number;
  fds: number;
  /** prom-client's event-loop delay over the last interval (ms; includes its 10 ms sampling resolution). */
  loopMeanMs: number | null;
  loopP50Ms: number | null;
  loopP99Ms: number | null;
}

export interface DatabaseSample {
  t: number;
  connections: number;
  /** The machine's 1-minute load average (the box is shared: a reader judges the noise). */
  load1: number;
}

export interface LeakCheck {
  series: string;
  process: string;
  /** Median of the window after warm-up, and of the last window of the load. */
  start: number;
  end: number;
  /** The allowed growth: 10 % of start, at least the floor. */
  allowed: number;
  changePercent: number;
  pass: boolean;
  note?: string;
}

export interface SoakResults {
  minutes: number;
  merchants: number;
  branches: number;
  clients: number;
  settings: Omit<SoakSettings, 'log' | 'root' | 'workDir' | 'databaseUrl' | 'sim' | 'build' | 'databaseFaults' | 'gatewayEnv'>;
  gatewayEnv: Record<string, string>;
  counts: {
    sales: number;
    onlineSales: number;
    offlineSales: number;
    creditNotes: number;
    answeredUploaded: number;
    answeredPending: number;
    answeredFailed: number;
    listings: number;
    exports: number;
    exportBytes: number;
    xReports: number;
    /** Requests that got no 2xx (retried with the same Idempotency-Key when they were writes). */
    requestErrors: number;
    requestErrorsByKind: Record<string, number>;
    idempotentRetries: number;
    faultCycles: number;
    faultPhases: number;
    kills: number;
    /** Database faults applied, and the answers `503 database_unavailable` they caused (each resent with its key). */
    databaseFaults: number;
    databaseUnavailable: number;
    storedDocuments: number;
    filedDocuments: number;
    /** saveSales calls the simulator answered 924 (an earlier attempt had filed the number). */
    duplicateAttemptsMet924: number;
    /** saveSales calls the simulator filed and whose reply it lost (or whose caller had gone). */
    repliesLost: number;
    fiscalisedEvents: number;
    failedEvents: number;
    deliveriesAttempted: number;
    deliveriesFailed: number;
    deliveriesRetried: number;
    drainSeconds: number;
  };
  /** Broken invariants (lost, doubled, out of order, undelivered); the leak checks are apart. */
  violations: string[];
  leaks: LeakCheck[];
  kills: Array<{ t: number; process: string; pid: number; restartedAs: string; readyMs: number }>;
  phases: Array<{ t: number; phase: string }>;
  /** Each gateway process's life, in seconds of load (a kill ends a worker's). */
  processes?: Array<{ label: string; role: 'api' | 'worker'; startedT: number; endedT: number }>;
  samples: { processes: ProcessSample[]; database: DatabaseSample[] };
  /** No violation and every leak check passed. */
  pass: boolean;
}

interface Answered {
  id: number;
  tenantId: number;
  tpin: string;
  branch: string;
  type: 'sale' | 'credit_note';
  invoiceNo: number;
  status: string;
  key: string;
}

interface Live {
  label: string;
  role: 'api' | 'worker';
  gateway: GatewayProcess;
  metricsUrl: string;
  /** Seconds since the load started (negative: before it). */
  startedT: number;
  endedT?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The merchant's calendar day (Africa/Lusaka, UTC+2, the default timezone), `daysBack` before today. */
function lusakaDay(daysBack = 0): string {
  return new Date(Date.now() + 2 * 3_600_000 - daysBack * 86_400_000).toISOString().slice(0, 10);
}

/** A webhook receiver (node:http) answering 500 to `failShare` of the attempts. */
class Receiver {
  server: Server;
  url = '';
  attempts = 0;
  failed = 0;
  retried = 0;
  readonly deliveriesSeen = new Set<string>();
  /** Event ids answered 2xx. */
  readonly delivered = new Set<string>();
  constructor(failShare: number) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.attempts++;
        const delivery = String(req.headers['x-webhook-delivery'] ?? '');
        if (this.deliveriesSeen.has(delivery)) this.retried++;
        this.deliveriesSeen.add(delivery);
        if (Math.random() < failShare) {
          this.failed++;
          res.writeHead(500).end('try again');
          return;
        }
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
          this.delivered.add(event.id);
        } catch {
          // Counted as delivered by the gateway; the check below finds the event missing.
        }
        res.writeHead(200).end('ok');
      });
    });
    this.server.keepAliveTimeout = 5_000;
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function metricValue(text: string, name: string): number | null {
  const match = new RegExp(`^fiscal_gateway_process_${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

/** The metrics URL a process named in its start line (METRICS_PORT=0 picks a free port). */
function metricsUrlOf(gateway: GatewayProcess): string {
  for (const line of readFileSync(gateway.logPath, 'utf8').split('\n')) {
    if (!line.includes('"metrics"')) continue;
    try {
      const parsed = JSON.parse(line) as { metrics?: string };
      if (parsed.metrics) return parsed.metrics;
    } catch {
      // not a JSON line
    }
  }
  throw new Error(`${gateway.logPath}: no metrics URL in the start line`);
}

export async function soakScenario(settings: SoakSettings): Promise<SoakResults> {
  const { log } = settings;
  const origin = settings.sim.origin;
  const branchNames = Array.from({ length: settings.branchesPerMerchant }, (_, i) => String(i).padStart(3, '0'));
  const env = { DATABASE_URL: settings.databaseUrl, ...SOAK_GATEWAY_ENV, ...settings.gatewayEnv };
  const db = new pg.Pool({ connectionString: settings.databaseUrl, max: 2 });
  db.on('error', () => {}); // the database's own faults end its idle connections too
  const receiver = await new Receiver(settings.webhookFailShare).start();
  const agent = new Agent({ connections: settings.clients + 8, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const live: Live[] = [];
  const ended: Live[] = [];
  let loadStarted = performance.now();
  const now = () => round((performance.now() - loadStarted) / 1000);
  const single = settings.tiers === 'single';
  const start = async (role: 'api' | 'worker', label: string): Promise<Live> => {
    // A worker process opens no port but METRICS_PORT's (0: a free one, named in its start line).
    const args = single ? [] : [role === 'api' ? '--api-only' : '--workers-only'];
    const gateway = await startGateway({
      root: settings.root,
      workDir: settings.workDir,
      env: role === 'api' ? env : { ...env, METRICS_PORT: '0' },
      args,
      label,
      build: settings.build ?? true,
    });
    const entry: Live = {
      label,
      role,
      gateway,
      metricsUrl: role === 'api' ? `${gateway.url}/metrics` : metricsUrlOf(gateway),
      startedT: now(),
    };
    live.push(entry);
    return entry;
  };

  try {
    const api = await start('api', 'soak-api');
    const workerSlots = single ? [] : [await start('worker', 'soak-worker-a1'), await start('worker', 'soak-worker-b1')];
    const base = api.gateway.url;

    // ---- seeding, through the API ----
    const partner = await createPartner(base, 'Soak partner');
    const merchants = await seedMerchants(base, partner, settings.sim.url, settings.merchants, settings.tpinBase, branchNames);
    await registerEndpoint(base, partner, `${receiver.url}/hooks`);
    const branches = merchants.flatMap((m) => branchNames.map((b) => ({ merchant: m, branch: b })));
    log(
      `soak: ${merchants.length} merchants × ${branchNames.length} branches = ${branches.length} branches, ${settings.clients} clients, ${settings.minutes} min`,
    );

    // ---- the load ----
    const answered = new Map<number, Answered>();
    const byKey = new Map<string, number>();
    const creditable = new Map<number, Array<{ id: number; branch: string }>>(); // tenantId → uploaded sales not credited yet
    const violations: string[] = [];
    const counts = {
      onlineSales: 0,
      offlineSales: 0,
      creditNotes: 0,
      listings: 0,
      exports: 0,
      exportBytes: 0,
      xReports: 0,
      requestErrors: 0,
      idempotentRetries: 0,
      requestErrorsByKind: {} as Record<string, number>,
      databaseUnavailable: 0,
    };
    const error = (kind: string) => {
      counts.requestErrors++;
      counts.requestErrorsByKind[kind] = (counts.requestErrorsByKind[kind] ?? 0) + 1;
    };

    const send = async (method: 'GET' | 'POST', path: string, token: string, headers: Record<string, string> = {}, body?: unknown) => {
      const res = await request(`${base}${path}`, {
        method,
        dispatcher: agent,
        headers: { authorization: `Bearer ${token}`, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.body.text();
      if (res.statusCode === 503 && text.includes('"database_unavailable"')) {
        counts.databaseUnavailable++;
        if (res.headers['retry-after'] === undefined) violations.push(`${method} ${path}: 503 database_unavailable without Retry-After`);
      } else if (res.statusCode >= 500 && res.statusCode !== 503) {
        violations.push(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      }
      return { status: res.statusCode, text };
    };

    /** How long a writer keeps resending one request (a database outage lasts seconds). */
    const WRITE_PATIENCE_MS = 60_000;

    /** A write with an Idempotency-Key, resent with the same key until it is answered 2xx (or a 4xx). */
    /** Resolves true once answered 2xx, false on a 4xx or when it gave up. */
    const write = async (
      kind: 'online' | 'offline' | 'credit',
      merchant: Merchant,
      branch: string,
      path: string,
      body: unknown,
    ): Promise<boolean> => {
      const key = randomUUID();
      const giveUpAt = performance.now() + WRITE_PATIENCE_MS;
      for (let attempt = 1; attempt === 1 || performance.now() < giveUpAt; attempt++) {
        if (attempt > 1) counts.idempotentRetries++;
        let res: { status: number; text: string };
        try {
          res = await send('POST', path, merchant.token, { 'idempotency-key': key, 'x-branch': branch }, body);
        } catch (err) {
          error(`${kind}:${(err as Error).name}`);
          await sleep(200);
          continue;
        }
        // 409: the same key's first attempt is still in progress (the client gave up on it).
        if (res.status >= 500 || res.status === 409) {
          error(`${kind}:${res.status}`);
          await sleep(200);
          continue;
        }
        if (res.status >= 400) {
          // A credit note against a sale another client credited first, or similar: no document.
          error(`${kind}:${res.status}:${/"code":"([a-z_]+)"/.exec(res.text)?.[1] ?? ''}`);
          return false;
        }
        const data = (JSON.parse(res.text) as { data: { id: number; invoiceNo: number; branch: string; status: string; type: string } })
          .data;
        const seen = byKey.get(key);
        if (seen !== undefined && seen !== data.id) violations.push(`Idempotency-Key ${key} answered document ${seen}, then ${data.id}`);
        byKey.set(key, data.id);
        const earlier = answered.get(data.id);
        if (earlier && earlier.key !== key)
          violations.push(`document ${data.id} answered for two different requests (keys ${earlier.key}, ${key})`);
        if (data.branch !== branch) violations.push(`document ${data.id} answered on branch ${data.branch}, sent to ${branch}`);
        answered.set(data.id, {
          id: data.id,
          tenantId: merchant.tenantId,
          tpin: merchant.tpin,
          branch: data.branch,
          type: data.type as Answered['type'],
          invoiceNo: data.invoiceNo,
          status: data.status,
          key,
        });
        if (kind === 'credit') counts.creditNotes++;
        else if (kind === 'online') counts.onlineSales++;
        else counts.offlineSales++;
        if (kind !== 'credit' && data.status === 'uploaded') {
          const pool = creditable.get(merchant.tenantId) ?? [];
          pool.push({ id: data.id, branch: data.branch });
          if (pool.length > 200) pool.shift();
          creditable.set(merchant.tenantId, pool);
        }
        return true;
      }
      return false;
    };

    let saleNo = 0;
    const saleBody = (offline: boolean, occurredAt?: string) => {
      const n = ++saleNo;
      return {
        items: [
          { name: 'Roller mealie meal 25kg', classificationCode: '50221200', quantity: 1 + (n % 3), price: 185 },
          { name: 'Fresh bread', classificationCode: '50221200', quantity: 2, price: 24.5 + (n % 7), vatCategory: 'D' },
        ],
        ...(offline
          ? { occurredAt: occurredAt ?? new Date(Date.now() - (60 + (n % 1_800)) * 1000).toISOString(), clientInvoiceNo: `TILL-${n}` }
          : {}),
      };
    };

    const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
    const oneAction = async (): Promise<unknown> => {
      const roll = Math.random();
      const { merchant, branch } = pick(branches);
      if (roll < 0.5) return write('online', merchant, branch, '/api/v1/sales', saleBody(false));
      if (roll < 0.65) return write('offline', merchant, branch, '/api/v1/sales', saleBody(true));
      if (roll < 0.77) {
        const pool = creditable.get(merchant.tenantId);
        if (pool && pool.length > 0) {
          const original = pool.splice(Math.floor(Math.random() * pool.length), 1)[0]!;
          return write('credit', merchant, original.branch, `/api/v1/sales/${original.id}/credit-note`, { reasonCode: '01' });
        }
        return write('online', merchant, branch, '/api/v1/sales', saleBody(false));
      }
      try {
        if (roll < 0.9) {
          const res = await send('GET', `/api/v1/sales?branch=${branch}&page=${1 + Math.floor(Math.random() * 5)}`, merchant.token);
          if (res.status === 200) counts.listings++;
          else error(`listing:${res.status}`);
        } else if (roll < 0.95) {
          const res = await send('GET', `/api/v1/reports/daily?branch=${branch}`, merchant.token);
          if (res.status === 200) counts.xReports++;
          else error(`x-report:${res.status}`);
        } else {
          // Yesterday's documents: a constant size, so that the figures compare like with like.
          const res = await send(
            'GET',
            `/api/v1/exports/documents?from=${lusakaDay(1)}&to=${lusakaDay(1)}&format=csv&branch=${branch}`,
            merchant.token,
          );
          if (res.status === 200) {
            counts.exports++;
            counts.exportBytes += res.text.length;
          } else error(`export:${res.status}`);
        }
      } catch (err) {
        error(`read:${(err as Error).name}`);
      }
    };

    // Each branch's first sale with the VSDC answering: the catalogue fetched, items drafted.
    for (const { merchant, branch } of branches) await write('online', merchant, branch, '/api/v1/sales', saleBody(false));
    // A till's offline queue from yesterday: what the exports read.
    const yesterday = `${lusakaDay(1)}T10:00:00+02:00`;
    const backlog = branches.flatMap((b) => Array.from({ length: settings.yesterdayPerBranch }, () => b));
    await Promise.all(
      Array.from({ length: settings.clients }, async (_, c) => {
        for (let i = c; i < backlog.length; i += settings.clients)
          await write('offline', backlog[i]!.merchant, backlog[i]!.branch, '/api/v1/sales', saleBody(true, yesterday));
      }),
    );
    log(`soak: seeded; ${answered.size} documents answered (each branch's first sale, ${backlog.length} dated yesterday)`);

    loadStarted = performance.now();
    for (const entry of live) entry.startedT = 0;
    const loadMs = settings.minutes * 60_000;
    let stopping = false;
    const clients = Array.from({ length: settings.clients }, async () => {
      while (!stopping) {
        await oneAction();
        if (settings.thinkMs > 0) await sleep(settings.thinkMs * (0.5 + Math.random()));
      }
    });

    // ---- faults ----
    const phases: SoakResults['phases'] = [];
    const setFaults = async (faults: Record<string, unknown> | null) => {
      await Promise.all(
        branches.map(async ({ merchant, branch }) => {
          const path = `${origin}/_sim/devices/${merchant.tpin}/${branch}/faults`;
          // Cleared first: a phase's switches replace the previous phase's, they do not add to them.
          await request(path, { method: 'DELETE' }).then((r) => r.body.dump());
          if (faults)
            await request(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) }).then(
              (r) => r.body.dump(),
            );
        }),
      );
    };
    const faultLoop = (async () => {
      // On a fixed schedule from the load's start (phase i at i × faultPhaseSeconds), so that the
      // leak checks can compare windows that cover the same phases.
      for (let i = 0; !stopping; i++) {
        const phase = FAULT_PHASES[i % FAULT_PHASES.length]!;
        await setFaults(phase.faults);
        phases.push({ t: now(), phase: phase.name });
        const until = loadStarted + (i + 1) * settings.faultPhaseSeconds * 1000;
        while (!stopping && performance.now() < until) await sleep(100);
      }
    })();

    // ---- the database's faults ----
    let databaseFaultsApplied = 0;
    const databaseFaultLoop = (async () => {
      const faults = settings.databaseFaults;
      if (!faults) return;
      for (let k = 0; ; k++) {
        const due = loadStarted + (k + 1) * faults.everySeconds * 1000;
        if (due > loadStarted + loadMs - 1_000) return;
        while (!stopping && performance.now() < due) await sleep(100);
        if (stopping) return;
        const fault = DATABASE_FAULTS[k % DATABASE_FAULTS.length]!;
        await faults.apply(fault, {
          api: base,
          sell: async () => {
            const began = performance.now();
            const { merchant, branch } = pick(branches);
            return (await write('online', merchant, branch, '/api/v1/sales', saleBody(false)))
              ? Math.round(performance.now() - began)
              : null;
          },
        });
        databaseFaultsApplied++;
        phases.push({ t: now(), phase: `database: ${fault}` });
        log(`soak: database fault ${fault} at ${now()} s`);
      }
    })();

    // ---- kills ----
    const kills: SoakResults['kills'] = [];
    const incarnations = [1, 1];
    const killLoop = (async () => {
      if (single) return;
      for (let k = 0; ; k++) {
        const due = loadStarted + (k + 1) * settings.killEverySeconds * 1000;
        if (due > loadStarted + loadMs - 1_000) return; // none at the load's very end
        while (!stopping && performance.now() < due) await sleep(100);
        if (stopping) return;
        const slot = k % 2;
        const victim = workerSlots[slot]!;
        await victim.gateway.kill();
        victim.endedT = now();
        live.splice(live.indexOf(victim), 1);
        ended.push(victim);
        const label = `soak-worker-${slot === 0 ? 'a' : 'b'}${++incarnations[slot]!}`;
        const next = await start('worker', label);
        workerSlots[slot] = next;
        kills.push({ t: victim.endedT, process: victim.label, pid: victim.gateway.pid, restartedAs: label, readyMs: next.gateway.readyMs });
        log(`soak: ${victim.label} (pid ${victim.gateway.pid}) killed at ${victim.endedT} s; ${label} ready in ${next.gateway.readyMs} ms`);
      }
    })();

    // ---- samples ----
    const processSamples: ProcessSample[] = [];
    const databaseSamples: DatabaseSample[] = [];
    const databaseName = new URL(settings.databaseUrl).pathname.slice(1);
    const sampleOnce = async () => {
      const t = now();
      await Promise.all(
        [...live].map(async (entry) => {
          try {
            const status = readFileSync(`/proc/${entry.gateway.pid}/status`, 'utf8');
            const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
            const fds = readdirSync(`/proc/${entry.gateway.pid}/fd`).length;
            let text = '';
            try {
              const res = await request(entry.metricsUrl, { dispatcher: agent, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
              text = await res.body.text();
            } catch {
              // killed meanwhile: the sample keeps its /proc figures
            }
            const ms = (name: string) => {
              const v = metricValue(text, name);
              return v === null ? null : round(v * 1000, 2);
            };
            processSamples.push({
              t,
              process: entry.label,
              pid: entry.gateway.pid,
              rssMb: round(rssKb / 1024),
              fds,
              loopMeanMs: ms('nodejs_eventloop_lag_mean_seconds'),
              loopP50Ms: ms('nodejs_eventloop_lag_p50_seconds'),
              loopP99Ms: ms('nodejs_eventloop_lag_p99_seconds'),
            });
          } catch {
            // the process went away between the list and the read (a kill)
          }
        }),
      );
      try {
        const { rows } = await db.query<{ n: string }>(
          'select count(*) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [databaseName],
        );
        databaseSamples.push({ t, connections: Number(rows[0]!.n), load1: round(loadavg()[0]!, 2) });
      } catch {
        // the database is away (one of its own faults): no sample this round
      }
    };
    const sampleLoop = (async () => {
      while (!stopping) {
        const due = performance.now() + settings.sampleEverySeconds * 1000;
        await sampleOnce();
        while (!stopping && performance.now() < due) await sleep(100);
      }
    })();

    const progressLoop = (async () => {
      while (!stopping) {
        const due = performance.now() + 60_000;
        while (!stopping && performance.now() < due) await sleep(250);
        if (stopping) return;
        const api = processSamples.filter((s) => s.process === 'soak-api').at(-1);
        log(
          `soak ${Math.round(now())} s: ${answered.size} documents answered (${counts.creditNotes} credit notes), ${counts.listings} listings, ${counts.exports} exports, ${counts.xReports} X reports, ${counts.requestErrors} errors; api RSS ${api?.rssMb} MB, fds ${api?.fds}, db connections ${databaseSamples.at(-1)?.connections}`,
        );
      }
    })();

    await sleep(loadMs);
    stopping = true;
    await Promise.all([...clients, faultLoop, databaseFaultLoop, killLoop, sampleLoop, progressLoop]);
    // Every process still running is one the run started and did not kill: none may have ended by itself.
    for (const entry of live) {
      const ended = entry.gateway.exited();
      if (ended) violations.push(`${entry.label} (pid ${entry.gateway.pid}) ended by itself (${ended}) during the load`);
    }
    const loadSeconds = now();
    for (const entry of live) entry.endedT = loadSeconds;
    log(`soak: load stopped at ${loadSeconds} s; ${answered.size} documents answered; clearing faults and draining`);

    // ---- drain ----
    await setFaults(null);
    const drainStarted = performance.now();
    const tenantIds = merchants.map((m) => m.tenantId);
    let lastState = '';
    for (;;) {
      const { rows } = await db.query<{ pending: string; undelivered: string }>(
        `select (select count(*) from sales where tenant_id = any($1) and status = 'pending') as pending,
                (select count(*) from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.tenant_id = any($1) and d.status <> 'delivered') as undelivered`,
        [tenantIds],
      );
      const pending = Number(rows[0]!.pending);
      const undelivered = Number(rows[0]!.undelivered);
      const { rows: events } = await db.query<{ id: string }>(`select id from webhook_events where tenant_id = any($1)`, [tenantIds]);
      const unreceived = events.filter((e) => !receiver.delivered.has(e.id)).length;
      lastState = `${pending} pending, ${undelivered} deliveries not delivered, ${unreceived} events not received`;
      if (pending === 0 && undelivered === 0 && unreceived === 0) break;
      if (performance.now() - drainStarted > settings.drainTimeoutSeconds * 1000) {
        violations.push(`the backlog did not drain within ${settings.drainTimeoutSeconds} s of the faults' end: ${lastState}`);
        break;
      }
      await sleep(1_000);
    }
    const drainSeconds = round((performance.now() - drainStarted) / 1000);
    log(`soak: drained in ${drainSeconds} s (${lastState})`);

    // ---- checks ----
    const { rows: stored } = await db.query<{
      id: number;
      tenant_id: number;
      branch: string;
      type: string;
      sales_type: string;
      invoice_no: number;
      status: string;
      reference: string | null;
    }>(
      `select id, tenant_id, branch, type, sales_type, invoice_no, status, reference from sales where tenant_id = any($1) order by tenant_id, branch, sales_type, invoice_no`,
      [tenantIds],
    );
    const storedById = new Map(stored.map((r) => [Number(r.id), r]));
    const refs = new Map<string, number>();
    for (const row of stored) if (row.reference !== null) refs.set(row.reference, (refs.get(row.reference) ?? 0) + 1);
    for (const [ref, n] of refs) if (n > 1) violations.push(`Idempotency-Key ${ref} stored ${n} times`);
    for (const doc of answered.values()) {
      const row = storedById.get(doc.id);
      if (!row) {
        violations.push(`answered document ${doc.id} (${doc.tpin}/${doc.branch} #${doc.invoiceNo}) is not stored`);
        continue;
      }
      if (row.branch !== doc.branch || Number(row.invoice_no) !== doc.invoiceNo || row.type !== doc.type || row.reference !== doc.key) {
        violations.push(
          `document ${doc.id} answered as ${doc.branch} #${doc.invoiceNo} ${doc.type} (key ${doc.key}), stored as ${row.branch} #${row.invoice_no} ${row.type} (key ${row.reference})`,
        );
      }
    }
    const unanswered = stored.length - answered.size;
    if (unanswered !== 0) log(`soak: ${unanswered} stored documents were never answered 2xx to a client (requests given up)`);
    const failedDocs = stored.filter((r) => r.status !== 'uploaded');
    for (const row of failedDocs.slice(0, 20))
      violations.push(`document ${row.id} (${row.branch} #${row.invoice_no}) ended ${row.status} (no refusal was injected)`);
    if (failedDocs.length > 20) violations.push(`… ${failedDocs.length - 20} more documents not uploaded`);

    let filedDocuments = 0;
    let met924 = 0;
    let repliesLost = 0;
    for (const merchant of merchants) {
      for (const branch of branchNames) {
        const rows = stored.filter((r) => Number(r.tenant_id) === merchant.tenantId && r.branch === branch && r.sales_type === 'normal');
        const numbers = rows.map((r) => Number(r.invoice_no));
        const expected = Array.from({ length: numbers.length }, (_, i) => i + 1);
        if (numbers.join(',') !== expected.join(',')) {
          const gap = numbers.findIndex((n, i) => n !== i + 1);
          violations.push(
            `${merchant.tpin}/${branch}: invoice numbers not gap-free from 1 (first break at position ${gap}: ${numbers.slice(Math.max(0, gap - 2), gap + 3).join(',')})`,
          );
        }
        const res = await request(`${origin}/_sim/devices/${merchant.tpin}/${branch}/documents`);
        const { documents } = (await res.body.json()) as {
          documents: Array<{ cisInvcNo: string | null; resultCd: string; receipt: unknown; replyLost: boolean }>;
        };
        const filed = documents.filter((d) => d.receipt !== null).map((d) => Number(d.cisInvcNo));
        filedDocuments += filed.length;
        met924 += documents.filter((d) => d.resultCd === '924').length;
        repliesLost += documents.filter((d) => d.replyLost).length;
        const uploaded = rows.filter((r) => r.status === 'uploaded').map((r) => Number(r.invoice_no));
        if (filed.join(',') !== uploaded.join(',')) {
          const at = filed.findIndex((n, i) => n !== uploaded[i]);
          violations.push(
            `${merchant.tpin}/${branch}: filed ${filed.length} documents, ${uploaded.length} uploaded; not each once in order (first difference at position ${at}: filed ${filed.slice(Math.max(0, at - 2), at + 3).join(',')} vs stored ${uploaded.slice(Math.max(0, at - 2), at + 3).join(',')})`,
          );
        }
        const arrivals = documents.map((d) => ({ no: Number(d.cisInvcNo), code: d.resultCd }));
        for (let i = 1; i < arrivals.length; i++) {
          const [prev, cur] = [arrivals[i - 1]!, arrivals[i]!];
          // A number may arrive again only as a repeat of one already filed (answered 924).
          if (!(cur.no > prev.no || (cur.no <= prev.no && cur.code === '924'))) {
            violations.push(`${merchant.tpin}/${branch}: invoice ${cur.no} (${cur.code}) reached the VSDC after ${prev.no}`);
            break;
          }
        }
      }
    }

    const { rows: eventRows } = await db.query<{ sale_id: string; type: string; n: string }>(
      `select (body::jsonb -> 'data' -> 'invoice' ->> 'id') as sale_id, type, count(*) as n from webhook_events where tenant_id = any($1) group by 1, 2`,
      [tenantIds],
    );
    const fiscalised = new Map<number, number>();
    let failedEvents = 0;
    let fiscalisedEvents = 0;
    for (const row of eventRows) {
      if (row.type === 'invoice.fiscalised') {
        fiscalised.set(Number(row.sale_id), Number(row.n));
        fiscalisedEvents += Number(row.n);
      } else if (row.type === 'invoice.failed') failedEvents += Number(row.n);
    }
    let eventViolations = 0;
    for (const row of stored) {
      const n = fiscalised.get(Number(row.id)) ?? 0;
      if (row.status === 'uploaded' && n !== 1 && eventViolations++ < 20)
        violations.push(`document ${row.id} (${row.branch} #${row.invoice_no}) has ${n} invoice.fiscalised events`);
    }
    for (const id of fiscalised.keys())
      if (!storedById.has(id)) violations.push(`an invoice.fiscalised event names document ${id}, which is not stored`);
    const { rows: allEvents } = await db.query<{ id: string }>(
      `select id from webhook_events where tenant_id = any($1) and type = 'invoice.fiscalised'`,
      [tenantIds],
    );
    const notReceived = allEvents.filter((e) => !receiver.delivered.has(e.id));
    if (notReceived.length > 0)
      violations.push(
        `${notReceived.length} invoice.fiscalised events never reached the receiver (e.g. ${notReceived
          .slice(0, 3)
          .map((e) => e.id)
          .join(', ')})`,
      );

    const lives = [...ended, ...live].map((p) => ({ label: p.label, role: p.role, startedT: p.startedT, endedT: p.endedT ?? loadSeconds }));
    const leaks = leakChecks(settings, processSamples, databaseSamples, lives);

    const sales = counts.onlineSales + counts.offlineSales;
    const results: SoakResults = {
      minutes: settings.minutes,
      merchants: merchants.length,
      branches: branches.length,
      clients: settings.clients,
      settings: {
        tpinBase: settings.tpinBase,
        minutes: settings.minutes,
        merchants: settings.merchants,
        branchesPerMerchant: settings.branchesPerMerchant,
        clients: settings.clients,
        thinkMs: settings.thinkMs,
        killEverySeconds: settings.killEverySeconds,
        faultPhaseSeconds: settings.faultPhaseSeconds,
        sampleEverySeconds: settings.sampleEverySeconds,
        restartWarmupSeconds: settings.restartWarmupSeconds,
        yesterdayPerBranch: settings.yesterdayPerBranch,
        tiers: settings.tiers ?? 'split',
        webhookFailShare: settings.webhookFailShare,
        drainTimeoutSeconds: settings.drainTimeoutSeconds,
      },
      gatewayEnv: { ...SOAK_GATEWAY_ENV },
      counts: {
        sales,
        onlineSales: counts.onlineSales,
        offlineSales: counts.offlineSales,
        creditNotes: counts.creditNotes,
        answeredUploaded: [...answered.values()].filter((d) => d.status === 'uploaded').length,
        answeredPending: [...answered.values()].filter((d) => d.status === 'pending').length,
        answeredFailed: [...answered.values()].filter((d) => d.status === 'failed').length,
        listings: counts.listings,
        exports: counts.exports,
        exportBytes: counts.exportBytes,
        xReports: counts.xReports,
        requestErrors: counts.requestErrors,
        requestErrorsByKind: counts.requestErrorsByKind,
        idempotentRetries: counts.idempotentRetries,
        faultCycles: Math.floor(phases.length / FAULT_PHASES.length),
        faultPhases: phases.length,
        kills: kills.length,
        databaseFaults: databaseFaultsApplied,
        databaseUnavailable: counts.databaseUnavailable,
        storedDocuments: stored.length,
        filedDocuments,
        duplicateAttemptsMet924: met924,
        repliesLost,
        fiscalisedEvents,
        failedEvents,
        deliveriesAttempted: receiver.attempts,
        deliveriesFailed: receiver.failed,
        deliveriesRetried: receiver.retried,
        drainSeconds,
      },
      violations,
      leaks,
      kills,
      phases,
      processes: lives,
      samples: { processes: processSamples, database: databaseSamples },
      pass: violations.length === 0 && leaks.every((l) => l.pass),
    };
    return results;
  } finally {
    await Promise.all([...live].map((entry) => entry.gateway.kill()));
    await receiver.close();
    await agent.close();
    await db.end();
  }
}

/** Floors for tiny quantities: a change this small is no leak whatever its percentage. */
const FLOORS: Record<string, number> = { rssMb: 0, fds: 2, loopP50Ms: 1, connections: 2 };

/**
 * Leak checks: the median of a window after warm-up against the median of the last window of the
 * load (medians, not single samples: a kill, a GC or an export shifts one sample). What the load
 * does depends on the fault phase (a normal phase files and answers `uploaded`, an outage answers
 * `pending` at once), so both windows are whole fault cycles: the second cycle (the first is the
 * warm-up) against the last full one. Judged on those windows:
 * - the API process (never killed): RSS, open fds, event-loop delay (p50);
 * - the database's connections (every process's pools);
 * - the worker tier: the sum of the live worker processes' open fds, and their mean event-loop
 *   delay. Per worker process these are not comparable over time: the two workers share the
 *   branches by lease, a restarted one starts with none and takes more as it goes, and its
 *   sockets to the VSDCs and its load follow (measured: 27 → 74 fds within one cycle as leases
 *   and slow phases come and go);
 * - each worker process's RSS, from the end of its own warm-up to the end of its first cycle
 *   against the same part of its last full cycle (the kills fall on the cycles' starts), when it
 *   lived two cycles or more. Its fds and loop delay are reported the same way, not judged.
 * A series fails when it grows by more than 10 % (or its floor, when larger); a drop is no leak.
 */
export function leakChecks(
  settings: Pick<SoakSettings, 'faultPhaseSeconds' | 'restartWarmupSeconds'>,
  samples: ProcessSample[],
  database: DatabaseSample[],
  processes: Array<{ label: string; role: 'api' | 'worker'; startedT: number; endedT?: number }>,
): LeakCheck[] {
  const cycle = settings.faultPhaseSeconds * FAULT_PHASES.length;
  const slack = 0.5; // the kill at a boundary lands a fraction of a second after it
  const checks: LeakCheck[] = [];
  const loadOf = ([a, b]: [number, number]) => round(median(database.filter((d) => d.t >= a && d.t < b).map((d) => d.load1)), 1);
  const judge = (
    series: string,
    process: string,
    points: Array<{ t: number; v: number }>,
    first: [number, number],
    last: [number, number] | null,
    judged = true,
  ) => {
    const inWindow = ([a, b]: [number, number]) => points.filter((p) => p.t >= a && p.t < b).map((p) => p.v);
    const startWindow = inWindow(first);
    const endWindow = last ? inWindow(last) : [];
    if (!last || startWindow.length < 2 || endWindow.length < 2) {
      checks.push({
        series,
        process,
        start: round(median(startWindow), 2),
        end: Number.NaN,
        allowed: 0,
        changePercent: 0,
        pass: true,
        note: 'lived less than two fault cycles: not judged',
      });
      return;
    }
    const start = median(startWindow);
    const end = median(endWindow);
    const allowed = Math.max(start * 0.1, FLOORS[series] ?? 0);
    const windows = `${first[0]}–${first[1]} vs ${last[0]}–${last[1]} (load ${loadOf(first)} vs ${loadOf(last)})`;
    checks.push({
      series,
      process,
      start: round(start, 2),
      end: round(end, 2),
      allowed: judged ? round(allowed, 2) : 0,
      changePercent: round(((end - start) / start) * 100),
      pass: !judged || end - start <= allowed,
      note: judged ? windows : `${windows}; reported, not judged`,
    });
  };
  const lastFull = (from: number, to: number) => from + Math.floor((to + slack - from) / cycle) * cycle - cycle;
  const loadEnd = Math.max(...processes.map((p) => p.endedT ?? 0));
  const tierFirst: [number, number] = [cycle, 2 * cycle];
  const tierLastStart = lastFull(0, loadEnd);
  const tierLast: [number, number] | null = tierLastStart >= 2 * cycle ? [tierLastStart, tierLastStart + cycle] : null;

  const api = processes.find((p) => p.role === 'api');
  if (api) {
    const mine = samples.filter((s) => s.process === api.label);
    judge(
      'rssMb',
      api.label,
      mine.map((s) => ({ t: s.t, v: s.rssMb })),
      tierFirst,
      tierLast,
    );
    judge(
      'fds',
      api.label,
      mine.map((s) => ({ t: s.t, v: s.fds })),
      tierFirst,
      tierLast,
    );
    judge(
      'loopP50Ms',
      api.label,
      mine.filter((s) => s.loopP50Ms !== null).map((s) => ({ t: s.t, v: s.loopP50Ms! })),
      tierFirst,
      tierLast,
    );
  }
  judge(
    'connections',
    'database',
    database.map((s) => ({ t: s.t, v: s.connections })),
    tierFirst,
    tierLast,
  );

  // The worker tier, sample round by sample round (a round's samples share their t).
  const workerLabels = new Set(processes.filter((p) => p.role === 'worker').map((p) => p.label));
  const rounds = new Map<number, ProcessSample[]>();
  for (const s of samples) if (workerLabels.has(s.process)) rounds.set(s.t, [...(rounds.get(s.t) ?? []), s]);
  const full = [...rounds.entries()].filter(([, list]) => list.length === 2); // both workers up (not mid-restart)
  judge(
    'fds',
    'workers (sum)',
    full.map(([t, list]) => ({ t, v: list.reduce((n, s) => n + s.fds, 0) })),
    tierFirst,
    tierLast,
  );
  const loops = full.filter(([, list]) => list.every((s) => s.loopP50Ms !== null));
  judge(
    'loopP50Ms',
    'workers (mean)',
    loops.map(([t, list]) => ({ t, v: list.reduce((n, s) => n + s.loopP50Ms!, 0) / list.length })),
    tierFirst,
    tierLast,
  );

  for (const p of processes.filter((q) => q.role === 'worker')) {
    const mine = samples.filter((s) => s.process === p.label);
    const c0 = Math.floor((p.startedT + slack) / cycle) * cycle;
    const first: [number, number] = [c0 + settings.restartWarmupSeconds, c0 + cycle];
    const c = lastFull(c0, p.endedT ?? 0);
    const last: [number, number] | null = c >= c0 + cycle ? [c + settings.restartWarmupSeconds, c + cycle] : null;
    judge(
      'rssMb',
      p.label,
      mine.map((s) => ({ t: s.t, v: s.rssMb })),
      first,
      last,
    );
    judge(
      'fds',
      p.label,
      mine.map((s) => ({ t: s.t, v: s.fds })),
      first,
      last,
      false,
    );
    judge(
      'loopP50Ms',
      p.label,
      mine.filter((s) => s.loopP50Ms !== null).map((s) => ({ t: s.t, v: s.loopP50Ms! })),
      first,
      last,
      false,
    );
  }
  return checks;
}

/** The processes' lives, rebuilt from a results file's samples and kills (for a re-analysis). */
export function processesOf(
  r: Pick<SoakResults, 'samples' | 'kills' | 'minutes'>,
): Array<{ label: string; role: 'api' | 'worker'; startedT: number; endedT: number }> {
  const labels = [...new Set(r.samples.processes.map((s) => s.process))];
  // The load stopped at minutes × 60 s (and a little); the last sample came up to one interval before.
  const loadEnd = Math.max(r.minutes * 60, ...r.samples.database.map((d) => d.t));
  return labels.map((label) => {
    const mine = r.samples.processes.filter((s) => s.process === label);
    const killed = r.kills.find((k) => k.process === label);
    const startedT = r.kills.find((k) => k.restartedAs === label)?.t ?? 0;
    return {
      label,
      role: label === 'soak-api' ? 'api' : 'worker',
      startedT: Math.min(startedT, mine[0]?.t ?? startedT),
      endedT: killed?.t ?? loadEnd,
    };
  });
}

const SERIES_LABEL: Record<string, string> = {
  rssMb: 'RSS (MB)',
  fds: 'open fds',
  loopP50Ms: 'event-loop delay, p50 (ms)',
  connections: 'DB connections',
};

/** The BENCHMARKS.md summary of a run: what ran, counts, the leak table. */
export function renderSoak(r: SoakResults, source: string, date: string, load: string): string {
  const c = r.counts;
  const n = (v: number) => v.toLocaleString('en');
  const out: string[] = [];
  out.push(
    `Run of ${date.slice(0, 16).replace('T', ' ')} UTC: ${r.minutes} min of load on PostgreSQL (then ${c.drainSeconds} s to drain), ${r.merchants} merchants × ${r.settings.branchesPerMerchant} branches = ${r.branches} branches, ` +
      `${r.clients} closed-loop clients; ${r.settings.tiers === 'single' ? 'one `serve` (API and workers)' : 'one `--api-only` and two `--workers-only` processes'}; ${load}. Raw samples in \`${source}\`. **${r.pass ? 'PASS' : 'FAIL'}**.`,
    '',
    `- Documents answered: ${n(c.sales + c.creditNotes)} — ${n(c.onlineSales)} online sales, ${n(c.offlineSales)} offline sales (dated up to 30 min back), ${n(c.creditNotes)} credit notes; answered uploaded ${n(c.answeredUploaded)}, pending ${n(c.answeredPending)}, failed ${n(c.answeredFailed)}.`,
    `- Reads: ${n(c.listings)} listing pages, ${n(c.exports)} CSV exports (${n(Math.round(c.exportBytes / 1e6))} MB), ${n(c.xReports)} X reports. Requests not answered 2xx: ${n(c.requestErrors)} (${
      Object.entries(c.requestErrorsByKind)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }); writes resent with their Idempotency-Key: ${n(c.idempotentRetries)}.`,
    `- Faults: ${c.faultPhases} phases, ${c.faultCycles} full cycles (normal → down → slow above the ${SOAK_GATEWAY_ENV.VSDC_TIMEOUT_MS} ms timeout → slow below → lost replies, ${r.settings.faultPhaseSeconds} s each); ${c.kills} worker processes killed with SIGKILL and restarted (every ${r.settings.killEverySeconds} s, at a cycle's start, alternately); the simulator answered ${n(c.duplicateAttemptsMet924)} repeated attempts with 924 and lost ${n(c.repliesLost)} replies. The database's own faults: ${c.databaseFaults ?? 0} (${DATABASE_FAULTS.join(', ')}, in turn), answered \`503 database_unavailable\` ${n(c.databaseUnavailable ?? 0)} times, each resent with its key.`,
    `- Stored ${n(c.storedDocuments)}, filed ${n(c.filedDocuments)}; ${n(c.fiscalisedEvents)} \`invoice.fiscalised\` events, ${c.failedEvents} \`invoice.failed\`; webhook attempts ${n(c.deliveriesAttempted)}, answered 500 ${n(c.deliveriesFailed)}, retried ${n(c.deliveriesRetried)}.`,
    `- Invariants (each answered document stored once, gap-free per branch, filed once in order, one event each, each event received): ${r.violations.length === 0 ? 'all held' : `**${r.violations.length} violations**: ${r.violations.slice(0, 5).join('; ')}`}.`,
    '',
    '| Process | Series | After warm-up | End | Change | Allowed | Windows (s of load; 1-min load average) | |',
    '|---|---|---|---|---|---|---|---|',
    ...r.leaks.map(
      (l) =>
        `| ${l.process} | ${SERIES_LABEL[l.series] ?? l.series} | ${l.start} | ${Number.isNaN(l.end) || l.end === null ? '–' : l.end} | ${Number.isNaN(l.end) ? '–' : `${l.changePercent > 0 ? '+' : ''}${l.changePercent} %`} | ${l.allowed === 0 ? '–' : `+${l.allowed}`} | ${l.note ?? ''} | ${l.allowed === 0 ? '' : l.pass ? '✓' : '✗'} |`,
    ),
  );
  return out.join('\n');
}
