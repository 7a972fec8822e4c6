// Sales benchmark: the gateway as a real `serve` process, the VSDC simulator in another process,
// autocannon driving POST /api/v1/sales from this one. Measured in one run:
//   baseline  the simulator's direct saveSales rate (what filing can at best keep up with);
//   online    sale throughput and p50/p99 at 1, 10 and 100 branches (one merchant per branch),
//             at full load and at half that rate, every answer checked to be `uploaded`;
//   drain     10,000 pending documents over 100 branches filed by a `--workers-only` process.
// On PostgreSQL (a scratch database on BENCH_DATABASE_URL or TEST_DATABASE_URL) and embedded.
//   node --import tsx bench/sales.ts [--seconds 5] [--drain 10000] [--engines postgres,embedded] [--branches 1,10,100]
// BENCH_PROFILE_DIR=dir writes a CPU profile of each gateway process there. The last line of
// output is JSON.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { openDatabase } from '../src/db/database.ts';
import { syncCatalogue } from '../src/modules/catalogue/service.ts';
import { initializeDevice, registerDevice } from '../src/modules/provisioning/devices.ts';
import { vsdcHandshake } from '../src/modules/provisioning/handshake.ts';
import { createPartner, updateTenantAccount } from '../src/modules/provisioning/partners.ts';
import { mintToken } from '../src/modules/provisioning/tenant-credentials.ts';
import { createTenant, tenantOfPartner } from '../src/modules/provisioning/tenants.ts';
import { startSimulator } from '../src/simulator/index.ts';
import { buildSaveSalesBody } from '../src/vsdc/sales-body.ts';

const SECRET_KEY = 'bench-secret-key-0123456789abcdef0123456789';
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const BRANCH_COUNTS = option('branches', '1,10,100').split(',').map(Number);
const MERCHANTS = 100;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}
const SECONDS = Number(option('seconds', '5'));
const DRAIN = Number(option('drain', '10000'));
const ENGINES = option('engines', 'postgres,embedded').split(',');

// ---- autocannon (no types shipped; the slice used here) ----
interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface CannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; average: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration?: number;
  /** Stop after this many requests instead of after `duration`. */
  amount?: number;
  overallRate?: number;
  requests: { method: string; path: string; headers: Record<string, string>; setupRequest: (r: CannonRequest) => CannonRequest }[];
  verifyBody?: (body: string) => boolean;
}) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// ---- the simulator, in its own process ----
async function simulatorChild(): Promise<void> {
  const simulator = await startSimulator({ port: 0 });
  process.send?.({ url: simulator.url, origin: simulator.origin });
  process.on('disconnect', () => void simulator.close().then(() => process.exit(0)));
}

async function startSimulatorProcess(): Promise<{ url: string; origin: string; child: ChildProcess }> {
  const child = fork(fileURLToPath(import.meta.url), ['--simulator-child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const address = await new Promise<{ url: string; origin: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; origin: string }));
    child.once('exit', (code) => reject(new Error(`simulator exited with ${String(code)}`)));
  });
  return { ...address, child };
}

async function filedTotal(origin: string): Promise<number> {
  const { devices } = (await (await request(`${origin}/_sim/devices`)).body.json()) as { devices: { filedCount: number }[] };
  return devices.reduce((n, d) => n + d.filedCount, 0);
}

/** The simulator's own saveSales rate, driven directly: the ceiling for filing. */
async function baseline(sim: { url: string; origin: string }): Promise<number> {
  const tpin = '1000000009';
  const preset = await request(`${sim.origin}/_sim/devices/${tpin}/000`, { method: 'PUT', body: JSON.stringify({ installed: true }) });
  await preset.body.dump();
  const body = buildSaveSalesBody({
    tpin, bhfId: '000', invoiceNo: 999_999_999, receiptType: 'S', customer: { tpin: null, name: 'Walk-in customer' }, paymentMethod: '01',
    occurredAt: new Date(), taxInclusive: true, currency: 'ZMW',
    lines: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 2, price: 185, vatCategory: 'A' }],
  });
  const [before, after] = JSON.stringify(body).split('"cisInvcNo":"999999999"') as [string, string];
  let next = 1;
  const run = (duration: number) =>
    autocannon({
      url: sim.origin,
      connections: 64,
      duration,
      requests: [{ method: 'POST', path: `${new URL(sim.url).pathname.replace(/\/$/, '')}/trnsSales/saveSales`, headers: { 'content-type': 'application/json' }, setupRequest: (r) => ({ ...r, body: `${before}"cisInvcNo":"${next++}"${after}` }) }],
      verifyBody: (b) => b.startsWith('{"resultCd":"000"'),
    });
  await run(1);
  const result = await run(SECONDS);
  return Math.round((result.requests.total - result.non2xx - result.errors - result.timeouts - result.mismatches) / result.duration);
}

// ---- databases and the gateway process ----
interface Engine {
  name: 'postgres' | 'embedded';
  env: Record<string, string>;
  open(): ReturnType<typeof openDatabase>;
  dispose(): Promise<void>;
}

async function postgresEngine(adminUrl: string): Promise<Engine> {
  const name = `fg_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name: 'postgres',
    env: { DATABASE_URL: url.toString() },
    open: () => openDatabase({ databaseUrl: url.toString() }),
    async dispose() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

function embeddedEngine(): Engine {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-'));
  const dataDir = join(dir, 'data');
  return {
    name: 'embedded',
    env: { DATA_DIR: dataDir },
    open: () => openDatabase({ dataDir }),
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startGateway(engine: Engine, args: string[], extra: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', MAIN, 'serve', ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_ENV: 'production',
      SECRET_KEY,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      SALE_WAIT_MS: '10000',
      FILING_RETRY_MS: '1000',
      ...engine.env,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited: ${out}`);
    if (args.includes('--workers-only')) {
      if (out.includes('workers running')) break;
    } else {
      const ok = await request(`${url}/healthz`).then((r) => (r.body.dump(), r.statusCode === 200), () => false);
      if (ok) break;
    }
    if (Date.now() > deadline) throw new Error('gateway did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** 100 merchants, one initialised branch each, with a token and no rate limit in the way. */
async function seed(engine: Engine, simUrl: string): Promise<string[]> {
  const database = await engine.open();
  const ctx = createContext(loadConfig({ GATEWAY_ENV: 'production', LOG_LEVEL: 'silent', SECRET_KEY }), database);
  try {
    const partner = await createPartner(ctx.db, ctx.secretBox, { type: 'cli' }, { name: 'Bench partner' });
    const actor = { type: 'partner_key' as const, keyId: partner.key.id, partnerId: partner.partner.id };
    const tokens: string[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const tenant = await createTenant(ctx.db, actor, partner.partner.id, { name: `Bench merchant ${i}`, tpin: String(3_000_000_000 + (engine.name === 'postgres' ? 0 : 1_000) + i) });
      await updateTenantAccount(ctx.db, { type: 'cli' }, tenant.id, { rateLimitPerMinute: 100_000_000 });
      const row = await tenantOfPartner(ctx.db, partner.partner.id, tenant.id);
      await registerDevice(ctx.db, actor, row, { deviceSerial: `BENCH-${engine.name}-${i}`, branch: '000', vsdcBaseUrl: simUrl });
      await initializeDevice(ctx.db, actor, row, '000', vsdcHandshake(ctx));
      tokens.push((await mintToken(ctx.db, actor, row, 'bench')).token);
    }
    await syncCatalogue(ctx);
    return tokens;
  } finally {
    await closeContext(ctx);
    await database.close();
  }
}

const SALE = JSON.stringify({
  items: [
    { name: 'Roller mealie meal 25kg', classificationCode: '50221200', quantity: 2, price: 185 },
    { name: 'Fresh bread', classificationCode: '50221200', quantity: 3, price: 24.5, vatCategory: 'D' },
  ],
});

interface LoadFigures {
  salesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answered 201 but not `uploaded` within SALE_WAIT_MS. */
  notUploaded: number;
  failed: number;
}

interface OnlineFigures {
  branches: number;
  /** Closed loop (autocannon), as many requests in flight as connections: the peak rate. */
  peak: LoadFigures;
  /** Open loop at half the peak rate, requests evenly spaced: the latency a merchant sees. */
  halfPeak: LoadFigures;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 10) / 10;
}

/** Sends `rate` sales a second, evenly spaced, for `seconds`, whatever the answers take. */
async function paced(gatewayUrl: string, tokens: string[], branches: number, rate: number, seconds: number): Promise<LoadFigures> {
  const pool = new Pool(gatewayUrl, { connections: 512 });
  const latencies: number[] = [];
  let notUploaded = 0;
  let failed = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  const one = async (token: string) => {
    const began = performance.now();
    try {
      const res = await pool.request({ path: '/api/v1/sales', method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: SALE });
      const text = await res.body.text();
      if (res.statusCode !== 201) failed++;
      else if (!text.includes('"status":"uploaded"')) notUploaded++;
      latencies.push(performance.now() - began);
    } catch {
      failed++;
    }
  };
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (sent < due) {
      const p = one(tokens[sent++ % branches]!);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { salesPerSecond: Math.round((sent - failed - notUploaded) / elapsed), p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), notUploaded, failed };
}

async function online(gatewayUrl: string, tokens: string[], branches: number): Promise<OnlineFigures> {
  let n = 0;
  const run = (duration: number) =>
    autocannon({
      url: gatewayUrl,
      connections: Math.min(128, Math.max(16, branches * 4)),
      duration,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/sales',
          headers: { 'content-type': 'application/json' },
          setupRequest: (r) => ({ ...r, body: SALE, headers: { ...r.headers, authorization: `Bearer ${tokens[n++ % branches]}` } }),
        },
      ],
      verifyBody: (body) => body.includes('"status":"uploaded"'),
    });
  await run(1);
  const r = await run(SECONDS);
  const peak: LoadFigures = {
    salesPerSecond: Math.round((r.requests.total - r.non2xx - r.errors - r.timeouts - r.mismatches) / r.duration),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    notUploaded: r.mismatches,
    failed: r.non2xx + r.errors + r.timeouts,
  };
  const halfPeak = await paced(gatewayUrl, tokens, branches, Math.max(1, Math.round(peak.salesPerSecond / 2)), SECONDS);
  return { branches, peak, halfPeak };
}

/** Stores DRAIN pending documents (API only, no filer), then times a workers-only process filing them. */
async function drain(engine: Engine, tokens: string[], simOrigin: string): Promise<{ documents: number; seconds: number; documentsPerSecond: number }> {
  const api = await startGateway(engine, ['--api-only'], { SALE_WAIT_MS: '0' });
  let n = 0;
  const stored = await autocannon({
    url: api.url,
    connections: 32,
    amount: DRAIN,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/sales',
        headers: { 'content-type': 'application/json' },
        setupRequest: (r) => ({ ...r, body: SALE, headers: { ...r.headers, authorization: `Bearer ${tokens[n++ % tokens.length]}` } }),
      },
    ],
  });
  await api.stop();
  const stillToFile = stored.requests.total - stored.non2xx - stored.errors;
  const before = await filedTotal(simOrigin);
  const workers = await startGateway(engine, ['--workers-only']);
  const started = Date.now();
  while ((await filedTotal(simOrigin)) - before < stillToFile) {
    if (Date.now() - started > 600_000) throw new Error('drain took more than 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (Date.now() - started) / 1000;
  await workers.stop();
  return { documents: stillToFile, seconds: Math.round(seconds * 100) / 100, documentsPerSecond: Math.round(stillToFile / seconds) };
}

async function main(): Promise<void> {
  const sim = await startSimulatorProcess();
  const results: Record<string, unknown> = { bench: 'sales', seconds: SECONDS, machine: { cpus: (await import('node:os')).cpus().length } };
  try {
    results.baselineSimulatorSaveSalesPerSecond = await baseline(sim);
    process.stderr.write(`baseline: ${String(results.baselineSimulatorSaveSalesPerSecond)} saveSales/s\n`);
    for (const name of ENGINES) {
      const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
      if (name === 'postgres' && !adminUrl) {
        results.postgres = { skipped: 'set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server' };
        continue;
      }
      const engine = name === 'postgres' ? await postgresEngine(adminUrl!) : embeddedEngine();
      try {
        const tokens = await seed(engine, sim.url);
        const gateway = await startGateway(engine, []);
        const onlineFigures: OnlineFigures[] = [];
        try {
          for (const branches of BRANCH_COUNTS) {
            const figures = await online(gateway.url, tokens, branches);
            process.stderr.write(`${name} online ${branches} branches: ${JSON.stringify(figures)}\n`);
            onlineFigures.push(figures);
          }
        } finally {
          await gateway.stop();
        }
        const drained = DRAIN > 0 ? { branches: MERCHANTS, ...(await drain(engine, tokens, sim.origin)) } : null;
        process.stderr.write(`${name} drain: ${JSON.stringify(drained)}\n`);
        results[name] = { online: onlineFigures, drain: drained };
      } finally {
        await engine.dispose();
      }
    }
  } finally {
    sim.child.disconnect();
  }
  console.log(JSON.stringify(results));
}

if (process.argv.includes('--simulator-child')) await simulatorChild();
else await main();
