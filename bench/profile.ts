// Profiles one gateway process under a steady sales load: what a sale costs each process in
// CPU, and where the gateway's own CPU goes (node --cpu-prof, read back here).
//   node --import tsx bench/profile.ts [--engine postgres|embedded] [--branches 10] [--seconds 10] [--root <tree>]
// The profile is kept (its path is printed); open it in Chrome DevTools for the call tree.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuBudget } from './lib/cpu.ts';
import { hotSpots } from './lib/cpuprofile.ts';
import { DEFAULT_ADMIN_URL, embeddedEngine, postgresEngine } from './lib/engines.ts';
import { closedLoop } from './lib/load.ts';
import { startChild, startGateway } from './lib/processes.ts';
import { createPartner, SALE_BODY, seedMerchants } from './lib/seed.ts';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    branches: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '10' },
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
  },
});
const branches = Number(values.branches);
const seconds = Number(values.seconds);
const root = resolve(values.root!);
const workDir = mkdtempSync(join(tmpdir(), 'fg-profile-'));

const engine = values.engine === 'embedded' ? embeddedEngine() : await postgresEngine(process.env.BENCH_DATABASE_URL ?? DEFAULT_ADMIN_URL);
const sim = await startChild('simulator');
try {
  const env = { ...engine.env, SALE_WAIT_MS: '10000' };
  const seeder = await startGateway({ root, workDir, env, label: 'seed' });
  const merchants = await seedMerchants(
    seeder.url,
    await createPartner(seeder.url, 'Profile partner'),
    sim.urls.url!,
    branches,
    3_800_000_000,
  );
  await seeder.stop();

  const spawned = performance.now();
  const gateway = await startGateway({ root, workDir, env, label: 'profiled', profile: true });
  let n = 0;
  const plan = {
    method: 'POST' as const,
    path: '/api/v1/sales',
    next: () => ({
      headers: { 'content-type': 'application/json', authorization: `Bearer ${merchants[n++ % branches]!.token}` },
      body: SALE_BODY,
    }),
    verify: (body: string) => body.includes('"status":"uploaded"'),
  };
  const connections = branches * 4;
  await closedLoop(gateway.url, plan, { connections, seconds: 2 });
  const measuredFrom = performance.now() - spawned;
  const { result, budget } = await cpuBudget(
    [gateway.pid],
    sim.pid,
    () => closedLoop(gateway.url, plan, { connections, seconds }),
    (r) => r.ok,
    engine.env.DATABASE_URL ? new URL(engine.env.DATABASE_URL).pathname.slice(1) : undefined,
  );
  const rss = gateway.stats().peakRssMb;
  await gateway.stop();

  console.log(
    `${engine.name}, ${branches} branches, ${connections} connections: ${result.perSecond} sales/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.bad} bad, peak RSS ${rss} MB`,
  );
  console.log(
    `CPU per sale: gateway ${budget.gateway} µs, PostgreSQL ${engine.name === 'postgres' ? `${budget.postgres} µs (every server process)` : '–'}, simulator ${budget.simulator} µs, load generator ${budget.loadGenerator} µs`,
  );
  const dir = join(workDir, 'profiles', 'profiled');
  const main = readdirSync(dir).find((f) => /\.0\.\d+\.cpuprofile$/.test(f))!;
  const spots = hotSpots(join(dir, main), { skipMs: measuredFrom });
  console.log('\nGateway CPU under load by module (self time, % of working samples):');
  for (const m of spots.modules.slice(0, 15)) console.log(`${m.self.toFixed(1).padStart(6)}  ${m.name}`);
  console.log('\nBy function:');
  for (const f of spots.functions) console.log(`${f.self.toFixed(1).padStart(6)}  ${f.name}`);
  console.log(`\nprofile: ${join(dir, main)}`);
} finally {
  await sim.stop();
  await engine.dispose();
}
