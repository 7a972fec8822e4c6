// Flat at a hundred thousand merchants (issue 36, item 3). Two PostgreSQL databases in one run:
// a small one (the bench partner's few merchants and a handful of filler) and a big one (the same
// merchants inside a national fleet: 100,000 merchants under 50 partners, 200,000 branches;
// bench/lib/scale-seed.ts). One `serve` process on each; the figures are taken in rounds that
// alternate small and big (which one goes first alternates too), so a burst of load on the
// shared machine hits both alike:
//   sale path          closed-loop POST /api/v1/sales (the bench merchants, 8 connections)
//   credential lookup  GET /api/v1/me with a tenant token (the GET figures: 20 sequences a round, 2 callers)
//   partner views      GET /api/v1/partner/backlog, /api/v1/partner/documents
//   operator views     GET /admin/v1/backlog, /admin/v1/documents
//   /metrics           one scrape a round after the gauges' cache ran out (10 s; the rounds are
//                      longer): what a scraper waits for. It answers the last state read and reads
//                      the next in the background; what that read costs is in the plans below
//   console            the first page of each console: the partner's (its backlog), the
//                      operator's (GET /admin/v1/partners) and the merchant's (GET /api/v1/me,
//                      then GET /api/v1/sales), one after the other
// Each figure is big ÷ small (latency medians; the sale path's throughput small ÷ big), passing at
// ×1.10 or better. Then every background worker's idle poll: a workers-only process on each
// database with auto_explain (bench/lib/plans.ts) for `pollSeconds`, each statement's plan with
// its rows scanned, buffers and time, and any Seq Scan over the fleet's big tables. The same for
// one call of each HTTP figure (the plans of what the API runs).
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { Engine } from '../lib/engines.ts';
import { closedLoop } from '../lib/load.ts';
import { byStatement, explainingUrl, logOffset, plansSince, type StatementFigures } from '../lib/plans.ts';
import { ADMIN_TOKEN, SECRET_KEY, startGateway, type ChildServer, type GatewayProcess } from '../lib/processes.ts';
import { seedScale, type ScaleSeedResult } from '../lib/scale-seed.ts';
import { createPartner, salePlan, seedMerchants, type Merchant, type SeededPartner } from '../lib/seed.ts';

export interface ScaleSettings {
  root: string;
  workDir: string;
  /** Filler merchants of the big database (100,000). */
  tenants: number;
  partners: number;
  rounds: number;
  /** Seconds of each closed loop per round. */
  seconds: number;
  pollSeconds: number;
}

/** Tables whose Seq Scan in a poll means the poll reads the whole fleet. */
const FLEET_TABLES = [
  'tenants',
  'devices',
  'filing_queues',
  'sales',
  'sale_lines',
  'tenant_tokens',
  'stock_branches',
  'import_pulls',
  'purchase_pulls',
  'principal_pulls',
  'stock_ledger_pulls',
  'authority_pulls',
  'backlog_alarms',
];

export interface Figure {
  name: string;
  unit: 'ms' | 'sales/s';
  small: number;
  big: number;
  /** big ÷ small for a latency, small ÷ big for a throughput: how much worse big is. */
  ratio: number;
  pass: boolean;
  samples: { small: number[]; big: number[] };
}

export interface ScaleSide {
  database: string;
  seed: ScaleSeedResult;
  counts: Record<string, number>;
  /** Series of the /metrics answer whose name starts with fiscal_gateway_. */
  fiscalSeries: number;
  metricsBytes: number;
}

export interface PollStatement extends StatementFigures {
  fleetSeqScans: string[];
}

export interface ScaleResults {
  tenants: number;
  partners: number;
  merchantsCalled: number;
  small: ScaleSide;
  big: ScaleSide;
  figures: Figure[];
  polls: { seconds: number; small: PollStatement[]; big: PollStatement[] };
  requests: Record<string, { small: PollStatement[]; big: PollStatement[] }>;
  /** Bytes of the last answer to each GET path, per side: whether a figure compares like with like. */
  answerBytes: Record<string, { small: number; big: number }>;
}

const MERCHANTS = 4;
const CONNECTIONS = 8;
/** Callers of the GET figures at once. */
const CALLERS = 2;
/** Sequences of each GET figure per round and database. */
const GET_COUNT = 20;
/** Sequences of one side in a row before the other side's turn. */
const GET_CHUNK = 4;
const GATEWAY_ENV = { SALE_WAIT_MS: '10000', FILING_RETRY_MS: '1000' };

interface Side {
  label: 'small' | 'big';
  engine: Engine;
  database: string;
  partner: SeededPartner;
  merchants: Merchant[];
  gateway?: GatewayProcess;
  seed?: ScaleSeedResult;
}

interface Call {
  path: string;
  secret: (side: Side) => string;
}

// The GET figures: each a sequence of calls (the console's first page is several).
const GETS: Record<string, Call[]> = {
  'credential lookup (GET /api/v1/me)': [{ path: '/api/v1/me', secret: (s) => s.merchants[0]!.token }],
  'partner backlog': [{ path: '/api/v1/partner/backlog', secret: (s) => s.partner.secret }],
  'partner documents': [{ path: '/api/v1/partner/documents', secret: (s) => s.partner.secret }],
  'operator backlog': [{ path: '/admin/v1/backlog', secret: () => ADMIN_TOKEN }],
  'operator documents': [{ path: '/admin/v1/documents', secret: () => ADMIN_TOKEN }],
  'console first page (partner, operator, merchant)': [
    { path: '/api/v1/partner/backlog', secret: (s) => s.partner.secret },
    { path: '/admin/v1/partners', secret: () => ADMIN_TOKEN },
    { path: '/api/v1/me', secret: (s) => s.merchants[0]!.token },
    { path: '/api/v1/sales', secret: (s) => s.merchants[0]!.token },
  ],
};

const answerBytes: Record<string, { small: number; big: number }> = {};

async function get(pool: Pool, call: Call, side: Side): Promise<string> {
  const res = await pool.request({ path: call.path, method: 'GET', headers: { authorization: `Bearer ${call.secret(side)}` } });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${side.label}: GET ${call.path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  (answerBytes[call.path] ??= { small: 0, big: 0 })[side.label] = Buffer.byteLength(text);
  return text;
}

/**
 * `calls` one after the other, `count` times by `CALLERS` callers at once: each sequence's time.
 * By count, not by time: a partner may make 1,200 requests a minute (its rate limit), and the
 * rounds stay well under it.
 */
async function sequenceLatency(url: string, side: Side, calls: Call[], count: number): Promise<number[]> {
  const pool = new Pool(url, { connections: CALLERS });
  const times: number[] = [];
  let left = count;
  try {
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (left-- > 0) {
          const began = performance.now();
          for (const call of calls) await get(pool, call, side);
          times.push(performance.now() - began);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return times;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};
const round2 = (x: number) => Math.round(x * 100) / 100;

async function prepare(
  label: Side['label'],
  engine: Engine,
  settings: ScaleSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<Side> {
  const seeder = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env: engine.env,
    args: ['--api-only'],
    label: `scale-${label}-seed`,
  });
  let partner: SeededPartner;
  let merchants: Merchant[];
  try {
    partner = await createPartner(seeder.url, `Scale bench partner (${label})`);
    merchants = await seedMerchants(seeder.url, partner, sim.urls.url!, MERCHANTS, tpinBase);
  } finally {
    await seeder.stop();
  }
  const database = new URL(engine.env.DATABASE_URL!).pathname.slice(1);
  log(`scale: seeding the ${label} database ${database}`);
  const seed = await seedScale(
    engine.env.DATABASE_URL!,
    label === 'big'
      ? {
          tenants: settings.tenants,
          partners: settings.partners,
          benchPartnerId: partner.partnerId,
          tpinBase: 5_000_000_000,
          secretKey: SECRET_KEY,
        }
      : { tenants: 20, partners: 3, benchPartnerId: partner.partnerId, tpinBase: 5_000_000_000, secretKey: SECRET_KEY, failedEvery: 1 },
    (line) => log(`scale ${label}:${line}`),
  );
  log(`scale: ${label} seeded in ${seed.seconds} s`);
  return { label, engine, database, partner, merchants, seed };
}

async function counts(side: Side): Promise<Record<string, number>> {
  const tables = ['partners', 'tenants', 'devices', 'tenant_tokens', 'sales', 'filing_queues'];
  const rows = await side.engine.sql([`select ${tables.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`]);
  return rows[0] as Record<string, number>;
}

async function metricsScrape(side: Side): Promise<{ ms: number; series: number; bytes: number }> {
  const began = performance.now();
  const res = await fetch(`${side.gateway!.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await res.text();
  const ms = performance.now() - began;
  if (res.status !== 200) throw new Error(`${side.label}: /metrics HTTP ${res.status}`);
  const series = text.split('\n').filter((line) => line.startsWith('fiscal_gateway_')).length;
  return { ms, series, bytes: text.length };
}

function withFleetScans(statements: StatementFigures[]): PollStatement[] {
  return statements
    .map((s) => ({ ...s, fleetSeqScans: s.seqScans.filter((t) => FLEET_TABLES.includes(t)) }))
    .sort((a, b) => b.maxRowsScanned - a.maxRowsScanned);
}

export async function scaleScenario(
  engines: { small: Engine; big: Engine },
  settings: ScaleSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<ScaleResults> {
  const small = await prepare('small', engines.small, settings, sim, tpinBase, log);
  const big = await prepare('big', engines.big, settings, sim, tpinBase + 100, log);
  const sides = [small, big];

  // ---- the HTTP figures, in rounds that alternate small and big ----
  const samples: Record<string, { small: number[]; big: number[] }> = {};
  const sample = (name: string, side: Side, values: number[]) => {
    samples[name] ??= { small: [], big: [] };
    samples[name][side.label].push(...values);
  };
  const metricsInfo: Record<string, { series: number; bytes: number }> = {};
  for (const side of sides)
    side.gateway = await startGateway({
      root: settings.root,
      workDir: settings.workDir,
      env: { ...side.engine.env, ...GATEWAY_ENV },
      label: `scale-${side.label}`,
    });
  try {
    for (const side of sides) {
      // Warm-up: JIT, pools, each branch's first claim.
      await closedLoop(side.gateway!.url, salePlan(side.merchants), { connections: CONNECTIONS, amount: CONNECTIONS * 5 });
      for (const calls of Object.values(GETS)) await sequenceLatency(side.gateway!.url, side, calls, 10);
    }
    let lastScrape = 0;
    for (let round = 0; round < settings.rounds; round++) {
      // The gauges' cache (10 s) must have run out, as it has for a scraper every 15 or 30 s.
      const wait = lastScrape + 10_500 - Date.now();
      if (wait > 0) await sleep(wait);
      lastScrape = Date.now();
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const scrape = await metricsScrape(side);
        sample('/metrics (a scrape after the cache ran out)', side, [scrape.ms]);
        metricsInfo[side.label] = { series: scrape.series, bytes: scrape.bytes };
      }
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const sales = await closedLoop(side.gateway!.url, salePlan(side.merchants), {
          connections: CONNECTIONS,
          seconds: settings.seconds,
        });
        if (sales.bad > 0) log(`scale ${side.label}: ${sales.bad} sales not answered uploaded`);
        sample('sale path (throughput)', side, [sales.perSecond]);
        sample('sale path (p50 latency)', side, [sales.p50Ms]);
      }
      // The GET figures after both sale loops, small and big taking turns every GET_CHUNK
      // sequences (the first side alternating too): a burst of load on the shared machine, or a
      // gateway still busy after its own sale loop, falls on both sides alike. Measured side after
      // side, the same unchanged lookup came out between ×0.82 and ×1.31 from run to run.
      for (const [name, calls] of Object.entries(GETS)) {
        for (let chunk = 0; chunk < GET_COUNT / GET_CHUNK; chunk++) {
          for (const side of (round + chunk) % 2 === 0 ? sides : [...sides].reverse()) {
            sample(name, side, await sequenceLatency(side.gateway!.url, side, calls, GET_CHUNK));
          }
        }
      }
      log(`scale: round ${round + 1}/${settings.rounds} done`);
    }
  } finally {
    for (const side of sides) await side.gateway?.stop();
  }
  const figures: Figure[] = Object.entries(samples).map(([name, s]) => {
    const throughput = name === 'sale path (throughput)';
    const smallValue = median(s.small);
    const bigValue = median(s.big);
    const ratio = throughput ? smallValue / Math.max(bigValue, 1e-9) : bigValue / Math.max(smallValue, 1e-9);
    return {
      name,
      unit: throughput ? 'sales/s' : 'ms',
      small: round2(smallValue),
      big: round2(bigValue),
      ratio: round2(ratio),
      pass: ratio <= 1.1,
      samples: { small: s.small.length, big: s.big.length } as never,
    };
  });
  for (const f of figures)
    log(`scale: ${f.name}: small ${f.small} ${f.unit}, big ${f.big} ${f.unit}, ×${f.ratio} ${f.pass ? 'pass' : 'FAIL'}`);

  // ---- the plans: each worker's idle poll, and one call of each HTTP figure ----
  const databases = sides.map((s) => s.database);
  const offset = logOffset();
  const explaining = await Promise.all(
    sides.map((side) =>
      startGateway({
        root: settings.root,
        workDir: settings.workDir,
        env: { ...side.engine.env, ...GATEWAY_ENV, DATABASE_URL: explainingUrl(side.engine.env.DATABASE_URL!) },
        args: ['--workers-only'],
        label: `scale-${side.label}-polls`,
      }),
    ),
  );
  // The first round after a start is not an idle poll (it catches up): skip the first seconds.
  const skipMs = 12_000;
  const started = Date.now();
  await sleep(skipMs + settings.pollSeconds * 1000);
  for (const g of explaining) await g.stop();
  const all = plansSince(offset, databases).filter(
    (p) => p.at >= started + skipMs && p.at <= started + skipMs + settings.pollSeconds * 1000,
  );
  const polls = {
    seconds: settings.pollSeconds,
    small: withFleetScans(byStatement(all.filter((p) => p.database === small.database))),
    big: withFleetScans(byStatement(all.filter((p) => p.database === big.database))),
  };
  log(`scale: idle polls: ${polls.small.length} statements on small, ${polls.big.length} on big`);

  const requests: ScaleResults['requests'] = {};
  const apis = await Promise.all(
    sides.map((side) =>
      startGateway({
        root: settings.root,
        workDir: settings.workDir,
        env: { ...side.engine.env, ...GATEWAY_ENV, DATABASE_URL: explainingUrl(side.engine.env.DATABASE_URL!) },
        args: ['--api-only'],
        label: `scale-${side.label}-plans`,
      }),
    ),
  );
  try {
    const figuresToExplain: Record<string, (side: Side, url: string) => Promise<unknown>> = {
      'sale path': (side, url) => closedLoop(url, salePlan(side.merchants), { connections: 1, amount: 1 }),
      ...Object.fromEntries(
        Object.entries(GETS).map(([name, calls]) => [
          name,
          async (side: Side, url: string) => {
            const pool = new Pool(url, { connections: 1 });
            for (const call of calls) await get(pool, call, side);
            await pool.close();
          },
        ]),
      ),
      '/metrics': (side, url) => fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text()),
    };
    for (const [name, call] of Object.entries(figuresToExplain)) {
      // Twice each: the second call is the one measured (the first pays for the session's first
      // plans); /metrics's first, the one read that a scrape waits for (after it, scrapes answer
      // from the gauges' cache and the reads run in the background).
      const measured = name === '/metrics' ? 0 : 1;
      for (let i = 0; i < 2; i++) {
        const before = logOffset();
        for (const [k, side] of sides.entries()) await call(side, apis[k]!.url);
        await sleep(300);
        if (i === measured) {
          const plans = plansSince(before, databases);
          requests[name] = {
            small: withFleetScans(byStatement(plans.filter((p) => p.database === small.database))),
            big: withFleetScans(byStatement(plans.filter((p) => p.database === big.database))),
          };
        }
      }
    }
  } finally {
    for (const g of apis) await g.stop();
  }

  const side = async (s: Side): Promise<ScaleSide> => ({
    database: s.database,
    seed: s.seed!,
    counts: await counts(s),
    fiscalSeries: metricsInfo[s.label]?.series ?? 0,
    metricsBytes: metricsInfo[s.label]?.bytes ?? 0,
  });
  return {
    tenants: settings.tenants,
    partners: settings.partners,
    merchantsCalled: MERCHANTS,
    small: await side(small),
    big: await side(big),
    figures,
    polls,
    requests,
    answerBytes,
  };
}

/** The table of BENCHMARKS.md's section, and the statements that read the fleet. */
export function renderScale(results: ScaleResults): string {
  const lines = [
    `| Figure | Small (${results.small.counts.tenants} merchants) | Big (${results.big.counts.tenants} merchants) | Big ÷ small | Pass (×1.10) |`,
    '|---|---:|---:|---:|:-:|',
    ...results.figures.map((f) => `| ${f.name} | ${f.small} ${f.unit} | ${f.big} ${f.unit} | ×${f.ratio} | ${f.pass ? 'yes' : '**no**'} |`),
  ];
  lines.push(
    '',
    `/metrics: ${results.small.fiscalSeries} fiscal series on small, ${results.big.fiscalSeries} on big (${results.big.metricsBytes} bytes).`,
    '',
  );
  const bytes = Object.entries(results.answerBytes ?? {});
  if (bytes.length > 0)
    lines.push(`Answer bytes, small → big: ${bytes.map(([path, b]) => `${path} ${b.small} → ${b.big}`).join('; ')}.`, '');
  // What the database spent on one call of each figure, from the plans: at a few milliseconds an
  // HTTP median moves ±30 % from run to run on this machine, the statements' time much less.
  const dbMs = (statements: PollStatement[]) => round2(statements.reduce((sum, st) => sum + st.medianMs, 0));
  lines.push(
    `Database time of one call (its statements' execution, ms), small → big: ${Object.entries(results.requests)
      .map(([name, r]) => `${name} ${dbMs(r.small)} → ${dbMs(r.big)}`)
      .join('; ')}.`,
    '',
  );
  lines.push(
    '| Idle poll statement (big) | Calls | Median ms (small → big) | Rows scanned (small → big) | Seq Scan over the fleet |',
    '|---|---:|---:|---:|---|',
  );
  for (const s of results.polls.big) {
    const twin = results.polls.small.find((x) => x.query === s.query);
    lines.push(
      `| \`${s.query.slice(0, 110).replace(/\|/g, '\\|')}${s.query.length > 110 ? '…' : ''}\` | ${s.calls} | ${twin?.medianMs ?? '–'} → ${s.medianMs} | ${twin?.maxRowsScanned ?? '–'} → ${s.maxRowsScanned} | ${s.fleetSeqScans.join(', ') || 'none'} |`,
    );
  }
  return lines.join('\n');
}
