// `npm run bench`: every benchmark in one command. It starts what it needs — the simulator, a
// bare Fastify server, webhook receivers, gateway processes on real ports, a fresh PostgreSQL
// database at 127.0.0.1:5432 (BENCH_DATABASE_URL names the server) and an embedded database in
// a temporary directory — runs each scenario, writes bench/results/<date>.json and the tables
// of BENCHMARKS.md. Every figure sits beside two yardsticks measured in the same run: a bare
// Fastify endpoint (the HTTP ceiling) and the simulator's own saveSales rate.
//
//   npm run bench [-- --quick] [--only sale-path,baselines,sales,webhooks,listing,outage,exports] [--engines postgres,embedded]
//                 [--root <source tree>] [--label <name>] [--profile] [--no-report]
//   npm run bench -- sale-path [--rounds 2] [--seconds 5] [--branches 20] [--authority kra]   (kra: the Kenyan sale path beside the Zambian one)
//                 the gateway beside the naive floor and the stack floor only (issue 22): prints the ratios and table
//   npm run bench -- soak [--minutes 25] [--branches 40] [--clients 16]
//                 a long run under faults with nothing lost (issue 35; PostgreSQL): results in
//                 bench/results/<date>-soak.json, the summary in BENCHMARKS.md (not with --no-report);
//                 exits 1 when an invariant broke or a series grew (a leak)
//   npm run bench -- soak --reanalyse bench/results/<file>.json
//                 the leak checks again on a run's saved samples (after a change to them); the
//                 file keeps the first analysis as leaksFirstAnalysis
//   npm run bench -- fleet [--branches 1000] [--docs 5] [--latency 0,250,2000] [--no-before] [--deadline 60] [--authority kra]
//                 a fleet's backlog after an outage filed by one serve at each VSDC latency, beside the same
//                 build at FILING_CONCURRENCY=64 (issue 36): prints its table (PostgreSQL only)
//   npm run bench -- scale [--tenants 100000] [--partners 50] [--rounds 6] [--seconds 3] [--poll-seconds 40]
//                 flat at a hundred thousand merchants (issue 36): a small and a seeded big PostgreSQL
//                 database side by side, big ÷ small per figure, and every worker's idle poll's plans
//
// --quick       a short smoke run (a minute or two); its results do not touch BENCHMARKS.md
// --root        measure another checkout with the same harness (before/after comparisons)
// --profile     CPU profiles of the gateway processes in the work directory (see its path)
// exports       opt-in (not in the default --only): a month of 1,000,000 documents exported as CSV
//               and XLSX, peak RSS of the gateway (`--only exports --engines postgres`; --quick: 20,000)
import { loadavg } from 'node:os';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_ADMIN_URL, embeddedEngine, postgresEngine, postgresReachable, type Engine, type EngineName } from './lib/engines.ts';
import { machine, withLoad } from './lib/probe.ts';
import { applyDatabaseFault, startPgCluster } from './lib/pg-cluster.ts';
import { startChild } from './lib/processes.ts';
import { renderTables, replaceTables, type BenchResults } from './report.ts';
import { fastifyCeiling, postgresRoundTrips, simulatorCeiling } from './scenarios/baselines.ts';
import { listingScenario } from './scenarios/listing.ts';
import { exportScenario } from './scenarios/exports.ts';
import { fleetScenario, renderFleet } from './scenarios/fleet.ts';
import { outageScenario } from './scenarios/outage.ts';
import { renderSalePath, salePathScenario } from './scenarios/sale-path.ts';
import { salesScenarios } from './scenarios/sales.ts';
import { leakChecks, processesOf, renderSoak, soakScenario, type SoakResults } from './scenarios/soak.ts';
import { renderScale, scaleScenario } from './scenarios/scale.ts';
import { webhookScenario } from './scenarios/webhooks.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    branches: { type: 'string' },
    authority: { type: 'string' },
    minutes: { type: 'string', default: '25' },
    clients: { type: 'string', default: '16' },
    reanalyse: { type: 'string' },
    docs: { type: 'string', default: '5' },
    latency: { type: 'string', default: '0,250,2000' },
    'no-before': { type: 'boolean', default: false },
    deadline: { type: 'string', default: '60' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    engines: { type: 'string', default: 'postgres,embedded' },
    root: { type: 'string', default: REPO },
    label: { type: 'string' },
    profile: { type: 'boolean', default: false },
    tenants: { type: 'string', default: '100000' },
    partners: { type: 'string', default: '50' },
    'poll-seconds': { type: 'string', default: '40' },
    'no-report': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  // The usage is this file's opening comment.
  const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  const usage = lines
    .slice(
      0,
      lines.findIndex((line) => !line.startsWith('//')),
    )
    .map((line) => line.replace(/^\/\/ ?/, ''));
  process.stdout.write(`${usage.join('\n')}\n`);
  process.exit(0);
}

const quick = values.quick!;
// A scenario named without --only (`npm run bench -- sale-path`) runs alone.
if (values.authority !== undefined && values.authority !== 'kra')
  throw new Error(`--authority takes kra (the Kenyan sale path beside the Zambian one), got "${values.authority}"`);
const only = new Set(
  (values.only ?? (positionals.length > 0 ? positionals.join(',') : 'sale-path,baselines,sales,webhooks,listing,outage')).split(','),
);
const root = resolve(values.root!);
const settings = quick
  ? {
      seconds: 2,
      branchCounts: [1, 10, 100],
      drain: 1_000,
      scaleOut: [[2, 1]] as Array<[number, number]>,
      events: { postgres: 150, embedded: 50 },
      stalled: 100,
      listing: [2_000, 20_000],
    }
  : {
      seconds: 5,
      branchCounts: [1, 10, 100],
      drain: 10_000,
      scaleOut: [
        [1, 1],
        [2, 1],
        [2, 2],
      ] as Array<[number, number]>,
      // Events per healthy endpoint (8 of them): the embedded database delivers ~10× slower.
      events: { postgres: 2_500, embedded: 250 },
      stalled: 2_000,
      listing: [10_000, 1_000_000],
    };
const WEBHOOK_TIMEOUT_MS = 10_000;
const LISTING_PAGE = 100;

const workDir = mkdtempSync(join(tmpdir(), 'fg-bench-run-'));
mkdirSync(join(workDir, 'profiles'), { recursive: true });
const startedAt = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const SOAK_START = '<!-- bench:soak:start -->';
const SOAK_END = '<!-- bench:soak:end -->';

function writeSoakSummary(summary: string): void {
  const path = join(REPO, 'BENCHMARKS.md');
  const markdown = readFileSync(path, 'utf8');
  const from = markdown.indexOf(SOAK_START);
  const to = markdown.indexOf(SOAK_END);
  writeFileSync(
    path,
    from < 0 || to < from
      ? `${markdown.trimEnd()}\n\n${SOAK_START}\n${summary}\n${SOAK_END}\n`
      : `${markdown.slice(0, from + SOAK_START.length)}\n${summary}\n${markdown.slice(to)}`,
  );
  log('BENCHMARKS.md soak section updated');
}

type SavedSoak = SoakResults & {
  date: string;
  machine: { loadAverageBefore: number[]; loadAverageAfter: number[] };
  leaksFirstAnalysis?: SoakResults['leaks'];
};

function soakLoad(r: SavedSoak): string {
  return `load average (1/5/15 min) ${r.machine.loadAverageBefore.join(' / ')} at the start, ${r.machine.loadAverageAfter.join(' / ')} at the end, median ${median(r.samples.database.map((d) => d.load1))} over the run on ${machine().cpus} cores`;
}

/** The leak checks again, on a saved run's samples. */
function reanalyseSoak(file: string): void {
  const r = JSON.parse(readFileSync(file, 'utf8')) as SavedSoak;
  r.leaksFirstAnalysis ??= r.leaks;
  r.leaks = leakChecks(r.settings, r.samples.processes, r.samples.database, r.processes ?? processesOf(r));
  r.pass = r.violations.length === 0 && r.leaks.every((l) => l.pass);
  writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  const summary = renderSoak(r, `bench/results/${basename(file)}`, r.date, soakLoad(r));
  process.stdout.write(`\n${summary}\n\n`);
  if (!values['no-report'] && r.minutes >= 10) writeSoakSummary(summary);
  if (!r.pass) process.exitCode = 1;
}

/** `npm run bench -- soak`: alone, on PostgreSQL; exits 1 when it failed. */
async function soak(adminUrl: string): Promise<void> {
  const minutes = Number(values.minutes);
  const branches = Number(values.branches ?? 40);
  const perMerchant = 5;
  const sim = await startChild('simulator');
  // A server of the run's own, whose faults are part of the soak (it restarts, crashes, fails over).
  const cluster = await startPgCluster();
  await cluster.createDatabase('soak');
  const date = new Date().toISOString();
  const loadBefore = loadavg().map((v) => Math.round(v * 100) / 100);
  let results;
  try {
    results = await soakScenario({
      root,
      workDir,
      databaseUrl: cluster.proxyUrl('soak'),
      sim: { url: sim.urls.url!, origin: sim.urls.origin! },
      tpinBase: 3_200_000_000,
      minutes,
      merchants: Math.ceil(branches / perMerchant),
      branchesPerMerchant: perMerchant,
      clients: Number(values.clients),
      thinkMs: 20,
      // A long run: a fault phase a minute (a cycle of five: 5 minutes), a worker killed at each
      // cycle's start; a short one (< 10 min) scales down to 6 s phases.
      killEverySeconds: minutes >= 10 ? 300 : 30,
      faultPhaseSeconds: minutes >= 10 ? 60 : 6,
      sampleEverySeconds: minutes >= 10 ? 5 : 2,
      restartWarmupSeconds: minutes >= 10 ? 30 : 4,
      yesterdayPerBranch: minutes >= 10 ? 25 : 10,
      webhookFailShare: 0.2,
      drainTimeoutSeconds: 600,
      // The database's own faults: one every 2 minutes (20 s in a short run), each outage 5 s.
      databaseFaults: { everySeconds: minutes >= 10 ? 120 : 20, apply: (fault) => applyDatabaseFault(cluster, 'soak', fault, 5_000) },
      log,
    });
  } finally {
    await sim.stop();
    await cluster.close();
  }
  const loadAfter = loadavg().map((v) => Math.round(v * 100) / 100);
  const day = date.slice(0, 10);
  const resultsDir = join(REPO, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  let resultsPath = join(resultsDir, `${day}-soak${values.label ? `-${values.label}` : ''}.json`);
  for (let n = 2; existsSync(resultsPath); n++)
    resultsPath = join(resultsDir, `${day}-soak${values.label ? `-${values.label}` : ''}-${n}.json`);
  writeFileSync(
    resultsPath,
    `${JSON.stringify({ date, machine: { ...machine(), postgres: await postgresReachable(adminUrl), loadAverageBefore: loadBefore, loadAverageAfter: loadAfter }, durationSeconds: Math.round((Date.now() - startedAt) / 1000), ...results }, null, 2)}\n`,
  );
  log(`results in ${resultsPath}`);
  const summary = renderSoak(
    results,
    `bench/results/${basename(resultsPath)}`,
    date,
    soakLoad({ ...results, date, machine: { loadAverageBefore: loadBefore, loadAverageAfter: loadAfter } }),
  );
  process.stdout.write(`\n${summary}\n\n`);
  if (results.violations.length > 0) process.stdout.write(`VIOLATIONS:\n${results.violations.map((v) => `  ${v}`).join('\n')}\n`);
  for (const leak of results.leaks.filter((l) => !l.pass))
    process.stdout.write(
      `LEAK: ${leak.process} ${leak.series} ${leak.start} → ${leak.end} (+${leak.changePercent} %, allowed +${leak.allowed})\n`,
    );
  if (!values['no-report'] && minutes >= 10) writeSoakSummary(summary);
  rmSync(workDir, { recursive: true, force: true });
  if (!results.pass) process.exitCode = 1;
}

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_URL;
  const postgresVersion = await postgresReachable(adminUrl);
  if (only.has('soak') && values.reanalyse) return reanalyseSoak(resolve(values.reanalyse));
  if (only.has('soak')) {
    if (only.size > 1) throw new Error('the soak runs alone: `npm run bench -- soak`');
    if (!postgresVersion) throw new Error(`the soak needs PostgreSQL at ${adminUrl.replace(/\/\/[^@]*@/, '//')} (set BENCH_DATABASE_URL)`);
    return soak(adminUrl);
  }
  const engines = values.engines!.split(',').filter((e): e is EngineName => e === 'postgres' || e === 'embedded');
  const results: BenchResults = {
    date: new Date().toISOString(),
    label: values.label ?? null,
    quick,
    root: root === REPO ? '.' : root,
    machine: { ...machine(), postgres: postgresVersion ?? null },
    baselines: {},
    engines: {},
  };
  log(`work directory ${workDir}`);

  const sim = await startChild('simulator');
  try {
    if (only.has('sale-path')) {
      if (!postgresVersion)
        throw new Error(`the sale path needs PostgreSQL at ${adminUrl.replace(/\/\/[^@]*@/, '//')} (set BENCH_DATABASE_URL)`);
      const engines = values.engines!.split(',');
      const postgres = await postgresEngine(adminUrl);
      const embedded = engines.includes('embedded') ? embeddedEngine() : undefined;
      try {
        results.salePath = await salePathScenario(
          postgres,
          embedded,
          {
            root,
            workDir,
            profile: values.profile!,
            branches: Number(values.branches ?? 20),
            rounds: Number(values.rounds ?? '2'),
            seconds: Number(values.seconds ?? (quick ? 3 : 5)),
            ...(values.authority === 'kra' ? { authority: 'kra' as const } : {}),
          },
          sim,
          3_050_000_000,
          log,
        );
        process.stdout.write(`\n${renderSalePath(results.salePath)}\n\n`);
      } finally {
        await postgres.dispose();
        await embedded?.dispose();
      }
    }
    if (only.has('fleet')) {
      if (!postgresVersion)
        throw new Error(`the fleet benchmark needs PostgreSQL at ${adminUrl.replace(/\/\/[^@]*@/, '//')} (set BENCH_DATABASE_URL)`);
      const postgres = await postgresEngine(adminUrl);
      try {
        const settings = {
          root,
          workDir,
          branches: Number(values.branches ?? '1000'),
          docs: Number(values.docs),
          latenciesMs: values.latency!.split(',').map(Number),
          before: !values['no-before'],
          deadlineSeconds: Number(values.deadline),
          ...(values.authority === 'kra' ? { authority: 'kra' as const } : {}),
        };
        results.fleet = await withLoad(() => fleetScenario(postgres, settings, sim, 3_200_000_000, log));
        process.stdout.write(`\n${renderFleet(results.fleet)}\n\n`);
      } finally {
        await postgres.dispose();
      }
    }
    if (only.has('scale')) {
      if (!postgresVersion)
        throw new Error(`the scale benchmark needs PostgreSQL at ${adminUrl.replace(/\/\/[^@]*@/, '//')} (set BENCH_DATABASE_URL)`);
      const small = await postgresEngine(adminUrl);
      const big = await postgresEngine(adminUrl);
      try {
        results.scale = await scaleScenario(
          { small, big },
          {
            root,
            workDir,
            tenants: Number(values.tenants),
            partners: Number(values.partners),
            rounds: Number(values.rounds ?? '6'),
            seconds: Number(values.seconds ?? (quick ? 1 : 3)),
            pollSeconds: Number(values['poll-seconds']),
          },
          sim,
          3_060_000_000,
          log,
        );
        process.stdout.write(`\n${renderScale(results.scale)}\n\n`);
      } finally {
        await small.dispose();
        await big.dispose();
      }
    }
    const others = [...only].some((scenario) => scenario !== 'sale-path' && scenario !== 'fleet' && scenario !== 'scale');
    // Yardsticks first, on a quiet machine.
    const fastify = others ? await withLoad(async () => ({ result: await fastifyCeiling(settings.seconds) })) : undefined;
    if (fastify) {
      results.baselines.fastify = { ...fastify.result, load: fastify.load };
      log(`bare Fastify: ${fastify.result.perSecond} req/s, p99 ${fastify.result.p99Ms} ms`);
      const vsdc = await withLoad(async () => ({ result: await simulatorCeiling(sim, settings.seconds) }));
      results.baselines.simulator = { ...vsdc.result, load: vsdc.load };
      log(`simulator saveSales: ${vsdc.result.parallel.perSecond}/s (64 connections), ${vsdc.result.sequential.perSecond}/s one at a time`);
      if (postgresVersion) {
        results.baselines.postgresRoundTripsPerSecond = await postgresRoundTrips(adminUrl, 2);
        log(`PostgreSQL ${postgresVersion}: ${results.baselines.postgresRoundTripsPerSecond} sequential round trips/s`);
      }
    }

    let tpinBase = 3_100_000_000;
    for (const name of others ? engines : []) {
      if (name === 'postgres' && !postgresVersion) {
        results.engines.postgres = { skipped: `no PostgreSQL at ${adminUrl.replace(/\/\/[^@]*@/, '//')} (set BENCH_DATABASE_URL)` };
        log(results.engines.postgres.skipped!);
        continue;
      }
      const entry: NonNullable<BenchResults['engines'][EngineName]> = {};
      results.engines[name] = entry;
      const fresh = (): Promise<Engine> => (name === 'postgres' ? postgresEngine(adminUrl) : Promise.resolve(embeddedEngine()));
      const common = { root, workDir, profile: values.profile! };

      if (only.has('sales')) {
        const engine = await fresh();
        try {
          const sales = await withLoad(() =>
            salesScenarios(
              engine,
              {
                ...common,
                seconds: settings.seconds,
                branchCounts: settings.branchCounts,
                drainDocuments: settings.drain,
                scaleOut: settings.scaleOut,
              },
              sim,
              (tpinBase += 1_000),
              log,
            ),
          );
          entry.sales = sales;
        } finally {
          await engine.dispose();
        }
      }
      if (only.has('webhooks')) {
        const engine = await fresh();
        try {
          entry.webhooks = await withLoad(() =>
            webhookScenario(
              engine,
              { ...common, events: settings.events[name], stalledDeliveries: settings.stalled, timeoutMs: WEBHOOK_TIMEOUT_MS },
              log,
            ),
          );
        } finally {
          await engine.dispose();
        }
      }
      // Two processes share the database: PostgreSQL only.
      if (only.has('outage') && name === 'postgres') {
        const engine = await fresh();
        try {
          entry.outage = await withLoad(() =>
            outageScenario(engine, { ...common, seconds: settings.seconds }, sim, (tpinBase += 1_000), log),
          );
        } finally {
          await engine.dispose();
        }
      }
      if (only.has('exports')) {
        const engine = await fresh();
        try {
          entry.exports = await withLoad(() =>
            exportScenario(engine, { ...common, documents: quick ? 20_000 : 1_000_000 }, sim, (tpinBase += 1_000), log),
          );
        } finally {
          await engine.dispose();
        }
      }
      if (only.has('listing')) {
        const engine = await fresh();
        try {
          entry.listing = await withLoad(() =>
            listingScenario(
              engine,
              { ...common, seconds: settings.seconds, sizes: settings.listing, page: LISTING_PAGE },
              sim,
              (tpinBase += 1_000),
              log,
            ),
          );
        } finally {
          await engine.dispose();
        }
      }
    }
  } finally {
    await sim.stop();
  }

  results.durationSeconds = Math.round((Date.now() - startedAt) / 1000);
  const day = results.date.slice(0, 10);
  const salePathOnly = only.size === 1 && only.has('sale-path');
  const fleetOnly = only.size === 1 && only.has('fleet');
  const scaleOnly = only.size === 1 && only.has('scale');
  const name = [
    day,
    quick ? 'quick' : null,
    salePathOnly ? 'sale-path' : null,
    fleetOnly ? 'fleet' : null,
    scaleOnly ? 'scale' : null,
    values.label ?? null,
  ]
    .filter(Boolean)
    .join('-');
  const resultsDir = join(REPO, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  // Never overwrite an earlier run of the same day: its figures may be quoted somewhere.
  let resultsPath = join(resultsDir, `${name}.json`);
  for (let n = 2; existsSync(resultsPath); n++) resultsPath = join(resultsDir, `${name}-${n}.json`);
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  log(`results in ${resultsPath}`);
  const tables = renderTables(results, `bench/results/${basename(resultsPath)}`);
  if (salePathOnly || fleetOnly || scaleOnly) {
    // One of these alone: its table was printed above; BENCHMARKS.md's section is written by hand.
  } else if (!quick && !values['no-report']) {
    const path = join(REPO, 'BENCHMARKS.md');
    writeFileSync(path, replaceTables(readFileSync(path, 'utf8'), tables));
    log('BENCHMARKS.md tables updated');
  } else {
    process.stdout.write(`${tables}\n`);
  }
  if (!values.profile) rmSync(workDir, { recursive: true, force: true });
  else log(`profiles kept in ${join(workDir, 'profiles')}`);
}

await main();
