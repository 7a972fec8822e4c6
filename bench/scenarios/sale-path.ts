// The sale path against the naive floor (issue 22), side by side in one run: the same
// simulator, the same PostgreSQL database, the same seeded branches (one merchant each) and the
// same closed-loop tills. The gateway (one full `serve` process, every sale answered `uploaded`)
// and the floor (bench/lib/naive-floor.ts) take turns, `rounds` times each, so that a burst of
// load on the shared machine hits both alike. For each: sales/s, p50/p99, and CPU per sale of
// the server's process tree and of PostgreSQL (the backends of this database and the server's
// shared processes), from /proc — the load generator and the simulator are not counted.
// A third server takes its turn too: the stack floor (bench/lib/stack-floor.ts), the naive
// floor's steps on the gateway's own stack, which parts what the stack costs from what the
// gateway's work costs.
// With an embedded engine too, the gateway on the embedded database in the same run.
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { postgresCpuSeconds, treeCpuSeconds } from '../lib/cpu.ts';
import type { Engine } from '../lib/engines.ts';
import { closedLoop, type Throughput } from '../lib/load.ts';
import { startFloor, startGateway, type ChildServer } from '../lib/processes.ts';
import { createPartner, salePlan, seedMerchants, type Merchant } from '../lib/seed.ts';

export interface SalePathSettings {
  root: string;
  workDir: string;
  seconds: number;
  branches: number;
  rounds: number;
  profile: boolean;
  /** `kra`: a Kenyan sale path (KRA merchants on the simulator's OSCU profile) beside the Zambian one, in the same gateway. */
  authority?: 'kra';
}

export interface ServerRun {
  throughput: Throughput;
  /** Microseconds of CPU per sale: the server's process tree, and PostgreSQL. */
  serverCpuUs: number;
  postgresCpuUs: number;
  load: number;
}

export interface SalePathResults {
  branches: number;
  connections: number;
  gateway: ServerRun[];
  floor: ServerRun[];
  stackFloor?: ServerRun[];
  embedded?: ServerRun[];
  /** The same gateway's Kenyan sale path, measured right after its Zambian one in each round. */
  kenya?: ServerRun[];
  /**
   * Sums over the rounds: gateway ÷ floor; with the stack floor, gateway ÷ stack floor and stack
   * floor ÷ naive floor (throughput and CPU per sale).
   */
  ratios: {
    throughput: number;
    cpuPerSale: number;
    embeddedThroughput?: number;
    stack?: { gatewayThroughput: number; gatewayCpuPerSale: number; overFloorThroughput: number; overFloorCpuPerSale: number };
    /** Kenyan ÷ Zambian sale path of the same gateway. */
    kenya?: { throughput: number; cpuPerSale: number };
  };
}

const GATEWAY_ENV = { SALE_WAIT_MS: '10000', FILING_RETRY_MS: '1000' };

async function measure(
  url: string,
  pid: number,
  database: string | undefined,
  merchants: Merchant[],
  connections: number,
  seconds: number,
  authority: 'zra' | 'kra' = 'zra',
): Promise<ServerRun> {
  // Warm-up by count, not by time: every request answered (JIT, pools, the branches' first
  // claims), so no request abandoned by a timed warm-up is still being served when the clock starts.
  await closedLoop(url, salePlan(merchants, 'uploaded', authority), { connections, amount: connections * 3 });
  const load = Math.round(loadavg()[0]! * 100) / 100;
  const before = { server: treeCpuSeconds(pid), postgres: database === undefined ? 0 : postgresCpuSeconds(database) };
  const throughput = await closedLoop(url, salePlan(merchants, 'uploaded', authority), { connections, seconds });
  const sales = Math.max(1, throughput.ok);
  return {
    throughput,
    serverCpuUs: Math.round(((treeCpuSeconds(pid) - before.server) * 1e6) / sales),
    postgresCpuUs: database === undefined ? 0 : Math.round(((postgresCpuSeconds(database) - before.postgres) * 1e6) / sales),
    load,
  };
}

async function seed(
  engine: Engine,
  settings: SalePathSettings,
  sim: ChildServer,
  tpinBase: number,
  authority: 'zra' | 'kra' = 'zra',
): Promise<Merchant[]> {
  const env = { ...engine.env, ...GATEWAY_ENV };
  const first = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env,
    label: `${engine.name}-sale-path-seed-${authority}`,
  });
  try {
    const vsdc = authority === 'kra' ? sim.urls.kraOscu! : sim.urls.url!;
    const merchants = await seedMerchants(
      first.url,
      await createPartner(first.url, `Sale-path partner (${authority})`),
      vsdc,
      settings.branches,
      tpinBase,
      [authority === 'kra' ? '00' : '000'],
      authority,
    );
    // Each merchant's first sale drafts its items; the measured sales are steady-state ones.
    const firsts = await closedLoop(first.url, salePlan(merchants, 'uploaded', authority), { connections: 16, amount: merchants.length });
    if (firsts.bad > 0) throw new Error(`${firsts.bad} of the merchants' first sales failed`);
    return merchants;
  } finally {
    await first.stop();
  }
}

const databaseOf = (engine: Engine) => (engine.env.DATABASE_URL ? new URL(engine.env.DATABASE_URL).pathname.slice(1) : undefined);

export async function salePathScenario(
  postgres: Engine,
  embedded: Engine | undefined,
  settings: SalePathSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<SalePathResults> {
  const connections = settings.branches * 4;
  const merchants = await seed(postgres, settings, sim, tpinBase);
  const kenyanMerchants = settings.authority === 'kra' ? await seed(postgres, settings, sim, tpinBase + 1000, 'kra') : undefined;
  const kenya: ServerRun[] = [];
  const database = databaseOf(postgres);
  const env = { ...postgres.env, ...GATEWAY_ENV };
  const gateway: ServerRun[] = [];
  const floor: ServerRun[] = [];
  const stackFloor: ServerRun[] = [];
  const show = (who: string, r: ServerRun) =>
    log(
      `${who}: ${r.throughput.perSecond} sales/s, p50 ${r.throughput.p50Ms} ms, p99 ${r.throughput.p99Ms} ms, ${r.throughput.bad} bad; CPU µs/sale server ${r.serverCpuUs}, PostgreSQL ${r.postgresCpuUs} (load ${r.load}, ${cpus().length} cores)`,
    );
  for (let round = 0; round < settings.rounds; round++) {
    const g = await startGateway({
      root: settings.root,
      workDir: settings.workDir,
      env,
      label: `sale-path-gateway-${round}`,
      profile: settings.profile,
    });
    try {
      gateway.push(await measure(g.url, g.pid, database, merchants, connections, settings.seconds));
      show(`gateway (round ${round + 1})`, gateway.at(-1)!);
      if (kenyanMerchants) {
        kenya.push(await measure(g.url, g.pid, database, kenyanMerchants, connections, settings.seconds, 'kra'));
        show(`gateway, Kenyan sales (round ${round + 1})`, kenya.at(-1)!);
      }
    } finally {
      await g.stop();
    }
    const f = await startFloor(postgres.env.DATABASE_URL!);
    try {
      floor.push(await measure(f.urls.url!, f.pid, database, merchants, connections, settings.seconds));
      show(`naive floor (round ${round + 1})`, floor.at(-1)!);
    } finally {
      await f.stop();
    }
    const s = await startFloor(postgres.env.DATABASE_URL!, 'stack', join(settings.workDir, `stack-floor-${round}.log`));
    try {
      stackFloor.push(await measure(s.urls.url!, s.pid, database, merchants, connections, settings.seconds));
      show(`stack floor (round ${round + 1})`, stackFloor.at(-1)!);
    } finally {
      await s.stop();
    }
  }
  let embeddedRuns: ServerRun[] | undefined;
  if (embedded) {
    const embeddedMerchants = await seed(embedded, settings, sim, tpinBase + 500);
    embeddedRuns = [];
    for (let round = 0; round < settings.rounds; round++) {
      const g = await startGateway({
        root: settings.root,
        workDir: settings.workDir,
        env: { ...embedded.env, ...GATEWAY_ENV },
        label: `sale-path-embedded-${round}`,
      });
      try {
        embeddedRuns.push(await measure(g.url, g.pid, undefined, embeddedMerchants, connections, settings.seconds));
        show(`gateway embedded (round ${round + 1})`, embeddedRuns.at(-1)!);
      } finally {
        await g.stop();
      }
    }
  }
  const sum = (runs: ServerRun[], f: (r: ServerRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  const cpuPerSale = (runs: ServerRun[]) =>
    sum(runs, (r) => (r.serverCpuUs + r.postgresCpuUs) * r.throughput.ok) /
    Math.max(
      1,
      sum(runs, (r) => r.throughput.ok),
    );
  const rate = (runs: ServerRun[]) => sum(runs, (r) => r.throughput.perSecond);
  const round2 = (x: number) => Math.round(x * 100) / 100;
  const ratios = {
    throughput: round2(rate(gateway) / Math.max(1, rate(floor))),
    cpuPerSale: round2(cpuPerSale(gateway) / Math.max(1, cpuPerSale(floor))),
    ...(embeddedRuns ? { embeddedThroughput: round2(rate(embeddedRuns) / Math.max(1, rate(gateway))) } : {}),
    stack: {
      gatewayThroughput: round2(rate(gateway) / Math.max(1, rate(stackFloor))),
      gatewayCpuPerSale: round2(cpuPerSale(gateway) / Math.max(1, cpuPerSale(stackFloor))),
      overFloorThroughput: round2(rate(stackFloor) / Math.max(1, rate(floor))),
      overFloorCpuPerSale: round2(cpuPerSale(stackFloor) / Math.max(1, cpuPerSale(floor))),
    },
    ...(kenyanMerchants
      ? {
          kenya: {
            throughput: round2(rate(kenya) / Math.max(1, rate(gateway))),
            cpuPerSale: round2(cpuPerSale(kenya) / Math.max(1, cpuPerSale(gateway))),
          },
        }
      : {}),
  };
  log(
    `gateway ÷ floor: throughput ×${ratios.throughput}, CPU per sale ×${ratios.cpuPerSale}${ratios.embeddedThroughput !== undefined ? `; embedded ÷ PostgreSQL throughput ×${ratios.embeddedThroughput}` : ''}`,
  );
  log(
    `stack floor ÷ floor: throughput ×${ratios.stack.overFloorThroughput}, CPU per sale ×${ratios.stack.overFloorCpuPerSale}; gateway ÷ stack floor: throughput ×${ratios.stack.gatewayThroughput}, CPU per sale ×${ratios.stack.gatewayCpuPerSale}`,
  );
  if (ratios.kenya) log(`Kenyan ÷ Zambian sale path: throughput ×${ratios.kenya.throughput}, CPU per sale ×${ratios.kenya.cpuPerSale}`);
  return {
    branches: settings.branches,
    connections,
    gateway,
    floor,
    stackFloor,
    ...(embeddedRuns ? { embedded: embeddedRuns } : {}),
    ...(kenyanMerchants ? { kenya } : {}),
    ratios,
  };
}

export function renderSalePath(r: SalePathResults): string {
  const row = (who: string, runs: ServerRun[]) =>
    runs.map(
      (x, i) =>
        `| ${who} | ${i + 1} | ${x.throughput.perSecond.toLocaleString('en')} /s | ${x.throughput.p50Ms} ms / ${x.throughput.p99Ms} ms | ${x.serverCpuUs.toLocaleString('en')} µs | ${x.postgresCpuUs ? `${x.postgresCpuUs.toLocaleString('en')} µs` : '–'} | ${(x.serverCpuUs + x.postgresCpuUs).toLocaleString('en')} µs | ${x.throughput.bad} | ${x.load} |`,
    );
  return [
    `Sale path, ${r.branches} branches, ${r.connections} closed-loop tills: gateway ÷ naive floor = **×${r.ratios.throughput} throughput**, **×${r.ratios.cpuPerSale} CPU per sale**` +
      (r.ratios.embeddedThroughput !== undefined
        ? `; embedded ÷ PostgreSQL gateway = **×${r.ratios.embeddedThroughput}** throughput.`
        : '.'),
    ...(r.ratios.stack
      ? [
          '',
          `The naive floor's steps on the gateway's stack (Fastify, TypeBox, pino, Kysely, undici): stack floor ÷ naive floor = ×${r.ratios.stack.overFloorThroughput} throughput, ×${r.ratios.stack.overFloorCpuPerSale} CPU per sale; gateway ÷ stack floor = ×${r.ratios.stack.gatewayThroughput} throughput, ×${r.ratios.stack.gatewayCpuPerSale} CPU per sale.`,
        ]
      : []),
    ...(r.ratios.kenya
      ? [
          '',
          `The Kenyan sale path (KRA eTIMS OSCU on the simulator) of the same gateway, right after its Zambian one: Kenyan ÷ Zambian = ×${r.ratios.kenya.throughput} throughput, ×${r.ratios.kenya.cpuPerSale} CPU per sale.`,
        ]
      : []),
    '',
    '| Server | Round | Sales/s | p50 / p99 | CPU per sale: server | PostgreSQL | Total | Errors | Load avg |',
    '|---|---|---|---|---|---|---|---|---|',
    ...row('gateway (PostgreSQL)', r.gateway),
    ...(r.kenya ? row('gateway, Kenyan sales (PostgreSQL)', r.kenya) : []),
    ...row('naive floor (PostgreSQL)', r.floor),
    ...row('stack floor (PostgreSQL)', r.stackFloor ?? []),
    ...(r.embedded ? row('gateway (embedded)', r.embedded) : []),
  ].join('\n');
}
