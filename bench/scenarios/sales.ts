// Sales through real gateway processes against the simulator in its own process:
//   online      POST /api/v1/sales at 1, 10 and 100 branches (one merchant per branch): the
//               closed-loop peak, then an open loop at half that rate for the latency a till
//               sees; every answer must be `uploaded` (filed before the 201 left);
//   drain       10,000 pending documents over 100 branches (stored by an --api-only process
//               while nothing files), then a --workers-only process files them: documents/s;
//   scale-out   (PostgreSQL) the 100-branch peak with N API processes and M worker processes;
//   start-up    time from spawn to ready on the existing database;
//   memory      the gateway's peak RSS over the whole online run.
import { request } from 'undici';
import { cpuBudget, type CpuBudget } from '../lib/cpu.ts';
import type { Engine } from '../lib/engines.ts';
import { closedLoop, openLoop, type RequestPlan, type Throughput } from '../lib/load.ts';
import { startGateway, type ChildServer, type GatewayProcess } from '../lib/processes.ts';
import { createPartner, SALE_BODY, seedMerchants, type Merchant } from '../lib/seed.ts';

export interface SalesSettings {
  root: string;
  workDir: string;
  seconds: number;
  branchCounts: number[];
  drainDocuments: number;
  profile: boolean;
  /** [api, workers] process counts for the scale-out runs (PostgreSQL only). */
  scaleOut: Array<[number, number]>;
}

export interface OnlineRun {
  branches: number;
  connections: number;
  peak: Throughput;
  /** The half-peak window with the median p99 (of HALF_PEAK_WINDOWS). */
  halfPeak: Throughput;
  /** Every half-peak window's p99, in the order measured. */
  halfPeakP99sMs?: number[];
  /** CPU per sale at the peak, by process, in microseconds. */
  cpu: CpuBudget;
}

const MERCHANTS = 100;
/**
 * The half-peak latency is measured in this many windows and the median one reported: on a
 * shared 2-core box one scheduling hiccup of a few tens of ms in a 5 s window sets its p99 alone
 * (measured: every process's event loop stalls at once, with no GC or database event behind it).
 */
const HALF_PEAK_WINDOWS = 3;
const GATEWAY_ENV = { SALE_WAIT_MS: '10000', FILING_RETRY_MS: '1000' };

function salePlan(merchants: Merchant[], branches: number): RequestPlan {
  let n = 0;
  return {
    method: 'POST',
    path: '/api/v1/sales',
    next: () => ({
      headers: { 'content-type': 'application/json', authorization: `Bearer ${merchants[n++ % branches]!.token}` },
      body: SALE_BODY,
    }),
    verify: (body) => body.includes('"status":"uploaded"'),
  };
}

function connectionsFor(branches: number): number {
  return Math.min(128, Math.max(16, branches * 4));
}

/** One load split over several API processes (a round-robin balancer), figures summed. */
async function splitOver(urls: string[], load: (url: string) => Promise<Throughput>): Promise<Throughput> {
  const parts = await Promise.all(urls.map(load));
  return {
    perSecond: parts.reduce((n, p) => n + p.perSecond, 0),
    p50Ms: Math.max(...parts.map((p) => p.p50Ms)),
    p99Ms: Math.max(...parts.map((p) => p.p99Ms)),
    ok: parts.reduce((n, p) => n + p.ok, 0),
    bad: parts.reduce((n, p) => n + p.bad, 0),
    seconds: Math.max(...parts.map((p) => p.seconds)),
  };
}

const peakOver = (urls: string[], plan: () => RequestPlan, connections: number, seconds: number) =>
  splitOver(urls, (url) => closedLoop(url, plan(), { connections: Math.ceil(connections / urls.length), seconds }));

const halfPeakOver = (urls: string[], plan: () => RequestPlan, rate: number, seconds: number) =>
  splitOver(urls, (url) => openLoop(url, plan(), { rate: Math.max(1, Math.round(rate / urls.length)), seconds }));

async function onlineRun(
  api: GatewayProcess[],
  all: GatewayProcess[],
  sim: ChildServer,
  merchants: Merchant[],
  branches: number,
  seconds: number,
): Promise<OnlineRun> {
  const urls = api.map((g) => g.url);
  const connections = connectionsFor(branches);
  const plan = () => salePlan(merchants, branches);
  await peakOver(urls, plan, connections, 2); // warm-up: JIT, pools, the branches' first claims
  const { result: peak, budget: cpu } = await cpuBudget(
    all.map((g) => g.pid),
    sim.pid,
    () => peakOver(urls, plan, connections, seconds),
    (r) => r.ok,
  );
  const halfRate = Math.max(1, Math.round(peak.perSecond / 2));
  // Settle first: the peak leaves requests in flight and a queue behind it; the latency a till
  // sees at half the peak rate is the steady state's.
  await halfPeakOver(urls, plan, halfRate, 2);
  const windows: Throughput[] = [];
  for (let i = 0; i < HALF_PEAK_WINDOWS; i++) windows.push(await halfPeakOver(urls, plan, halfRate, seconds));
  const halfPeak = [...windows].sort((a, b) => a.p99Ms - b.p99Ms)[Math.floor(HALF_PEAK_WINDOWS / 2)]!;
  halfPeak.bad = windows.reduce((n, w) => n + w.bad, 0);
  return { branches, connections, peak, halfPeak, halfPeakP99sMs: windows.map((w) => w.p99Ms), cpu };
}

async function filedTotal(simOrigin: string): Promise<number> {
  const res = await request(`${simOrigin}/_sim/devices`);
  const { devices } = (await res.body.json()) as { devices: { filedCount: number }[] };
  return devices.reduce((n, d) => n + d.filedCount, 0);
}

export interface DrainRun {
  branches: number;
  documents: number;
  seconds: number;
  documentsPerSecond: number;
  workersReadyMs: number;
}

async function drain(engine: Engine, settings: SalesSettings, merchants: Merchant[], simOrigin: string): Promise<DrainRun> {
  const api = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env: { ...engine.env, ...GATEWAY_ENV, SALE_WAIT_MS: '0' },
    args: ['--api-only'],
    label: `${engine.name}-drain-api`,
  });
  let n = 0;
  const stored = await closedLoop(
    api.url,
    {
      method: 'POST',
      path: '/api/v1/sales',
      next: () => ({
        headers: { 'content-type': 'application/json', authorization: `Bearer ${merchants[n++ % merchants.length]!.token}` },
        body: SALE_BODY,
      }),
    },
    { connections: 32, amount: settings.drainDocuments },
  );
  await api.stop();
  const before = await filedTotal(simOrigin);
  const workers = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env: { ...engine.env, ...GATEWAY_ENV },
    args: ['--workers-only'],
    label: `${engine.name}-drain-workers`,
    profile: settings.profile,
  });
  const started = performance.now();
  while ((await filedTotal(simOrigin)) - before < stored.ok) {
    if (performance.now() - started > 600_000) throw new Error('the drain took more than 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await workers.stop();
  return {
    branches: merchants.length,
    documents: stored.ok,
    seconds: Math.round(seconds * 100) / 100,
    documentsPerSecond: Math.round(stored.ok / seconds),
    workersReadyMs: workers.readyMs,
  };
}

export interface ScaleOutRun {
  apiProcesses: number;
  workerProcesses: number;
  run: OnlineRun;
}

async function scaleOut(engine: Engine, settings: SalesSettings, sim: ChildServer, merchants: Merchant[]): Promise<ScaleOutRun[]> {
  const runs: ScaleOutRun[] = [];
  for (const [apiCount, workerCount] of settings.scaleOut) {
    const env = { ...engine.env, ...GATEWAY_ENV };
    const api = await Promise.all(
      Array.from({ length: apiCount }, (_, i) =>
        startGateway({
          root: settings.root,
          workDir: settings.workDir,
          env,
          args: ['--api-only'],
          label: `scale-${apiCount}x${workerCount}-api${i}`,
        }),
      ),
    );
    const workers = await Promise.all(
      Array.from({ length: workerCount }, (_, i) =>
        startGateway({
          root: settings.root,
          workDir: settings.workDir,
          env,
          args: ['--workers-only'],
          label: `scale-${apiCount}x${workerCount}-workers${i}`,
          profile: settings.profile,
        }),
      ),
    );
    try {
      runs.push({
        apiProcesses: apiCount,
        workerProcesses: workerCount,
        run: await onlineRun(api, [...api, ...workers], sim, merchants, MERCHANTS, settings.seconds),
      });
    } finally {
      await Promise.all([...api, ...workers].map((g) => g.stop()));
    }
  }
  return runs;
}

export interface SalesResults {
  firstStartMs: number;
  online: OnlineRun[];
  peakRssMb: number;
  /** Start-ups on the existing database, in order. */
  readyMs: number[];
  drain: DrainRun | null;
  scaleOut: ScaleOutRun[];
}

export async function salesScenarios(
  engine: Engine,
  settings: SalesSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<SalesResults> {
  const env = { ...engine.env, ...GATEWAY_ENV };
  const first = await startGateway({ root: settings.root, workDir: settings.workDir, env, label: `${engine.name}-seed` });
  let merchants: Merchant[];
  try {
    const partner = await createPartner(first.url, 'Bench partner');
    merchants = await seedMerchants(first.url, partner, sim.urls.url!, MERCHANTS, tpinBase);
    // Every merchant's first sale, so the measured ones are steady-state sales (a merchant's
    // first sale also drafts items for its product names, which later sales do not).
    const firsts = await closedLoop(first.url, salePlan(merchants, MERCHANTS), { connections: 16, amount: MERCHANTS });
    if (firsts.bad > 0) throw new Error(`${firsts.bad} of the merchants' first sales failed`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  } finally {
    await first.stop();
  }
  log(`${engine.name}: seeded ${merchants.length} merchants (first start ${first.readyMs} ms)`);

  const readyMs: number[] = [];
  const online: OnlineRun[] = [];
  const gateway = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env,
    label: `${engine.name}-online`,
    profile: settings.profile,
  });
  readyMs.push(gateway.readyMs);
  let peakRssMb: number;
  try {
    for (const branches of settings.branchCounts) {
      const run = await onlineRun([gateway], [gateway], sim, merchants, branches, settings.seconds);
      log(
        `${engine.name} online ${branches} branches: peak ${run.peak.perSecond}/s p99 ${run.peak.p99Ms} ms; half ${run.halfPeak.perSecond}/s p50 ${run.halfPeak.p50Ms} p99 ${run.halfPeak.p99Ms} ms (windows ${run.halfPeakP99sMs?.join(', ')}); ` +
          `CPU µs/sale gateway ${run.cpu.gateway}, postgres ${run.cpu.postgres}, simulator ${run.cpu.simulator}, load ${run.cpu.loadGenerator}`,
      );
      online.push(run);
    }
    peakRssMb = gateway.stats().peakRssMb;
  } finally {
    await gateway.stop();
  }
  for (let i = 0; i < 2; i++) {
    const again = await startGateway({ root: settings.root, workDir: settings.workDir, env, label: `${engine.name}-restart${i}` });
    readyMs.push(again.readyMs);
    await again.stop();
  }
  log(`${engine.name}: peak RSS ${peakRssMb} MB, ready in ${readyMs.join(', ')} ms`);

  const drained = settings.drainDocuments > 0 ? await drain(engine, settings, merchants, sim.urls.origin!) : null;
  if (drained) log(`${engine.name} drain: ${drained.documents} documents in ${drained.seconds} s = ${drained.documentsPerSecond}/s`);

  const scaled = engine.name === 'postgres' ? await scaleOut(engine, settings, sim, merchants) : [];
  for (const s of scaled)
    log(
      `${engine.name} scale-out ${s.apiProcesses} api + ${s.workerProcesses} workers: peak ${s.run.peak.perSecond}/s, half p99 ${s.run.halfPeak.p99Ms} ms`,
    );
  return { firstStartMs: first.readyMs, online, peakRssMb, readyMs, drain: drained, scaleOut: scaled };
}
