// The results of one `npm run bench` and the tables of BENCHMARKS.md made from them. The tables
// live between two markers in BENCHMARKS.md; the prose around them is written by hand.
import type { MachineLoad } from './lib/probe.ts';
import type { Throughput } from './lib/load.ts';
import type { VsdcCeiling } from './scenarios/baselines.ts';
import type { ExportResults } from './scenarios/exports.ts';
import type { FleetResults } from './scenarios/fleet.ts';
import type { ListingResults } from './scenarios/listing.ts';
import type { OutageResults } from './scenarios/outage.ts';
import type { SalePathResults } from './scenarios/sale-path.ts';
import type { SalesResults } from './scenarios/sales.ts';
import type { ScaleResults } from './scenarios/scale.ts';
import type { WebhookResults } from './scenarios/webhooks.ts';

type Loaded<T> = T & { load: MachineLoad };

export interface EngineResults {
  skipped?: string;
  sales?: Loaded<SalesResults>;
  webhooks?: Loaded<WebhookResults>;
  listing?: Loaded<ListingResults>;
  outage?: Loaded<OutageResults>;
  /** Opt-in (`--only exports`); its figures are quoted by hand in BENCHMARKS.md. */
  exports?: Loaded<ExportResults>;
}

export interface BenchResults {
  date: string;
  label: string | null;
  quick: boolean;
  root: string;
  machine: { cpus: number; cpuModel: string; node: string; platform: string; postgres: string | null };
  baselines: {
    fastify?: Loaded<Throughput>;
    simulator?: Loaded<VsdcCeiling>;
    postgresRoundTripsPerSecond?: number;
  };
  engines: Partial<Record<'postgres' | 'embedded', EngineResults>>;
  durationSeconds?: number;
  /** The gateway beside the naive floor (issue 22). */
  salePath?: SalePathResults;
  /** `npm run bench -- fleet` (issue 36), with the machine's load while it ran. */
  fleet?: FleetResults & { load: MachineLoad };
  scale?: ScaleResults;
}

const START = '<!-- bench:tables:start -->';
const END = '<!-- bench:tables:end -->';

export function replaceTables(markdown: string, tables: string): string {
  const from = markdown.indexOf(START);
  const to = markdown.indexOf(END);
  if (from < 0 || to < from) return `${markdown.trimEnd()}\n\n${START}\n${tables}\n${END}\n`;
  return `${markdown.slice(0, from + START.length)}\n${tables}\n${markdown.slice(to)}`;
}

const n = (value: number) => Math.round(value).toLocaleString('en');
const pct = (part: number, whole: number | undefined) => (whole ? `${Math.round((100 * part) / whole)} %` : '–');
const ms = (value: number) => `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
const check = (ok: boolean) => (ok ? '✓' : '✗');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function renderTables(r: BenchResults, source: string): string {
  const fastify = r.baselines.fastify?.perSecond;
  const sim = r.baselines.simulator?.parallel.perSecond;
  const simSequential = r.baselines.simulator?.sequential.perSecond;
  const pgTrips = r.baselines.postgresRoundTripsPerSecond;
  const out: string[] = [];
  out.push(
    `Run of ${r.date.slice(0, 16).replace('T', ' ')} UTC${r.label ? ` (${r.label})` : ''}: ${r.machine.cpus} × ${r.machine.cpuModel}, Node ${r.machine.node}, PostgreSQL ${r.machine.postgres ?? 'not available'}; ` +
      `${r.durationSeconds ? `${Math.round(r.durationSeconds / 60)} min; ` : ''}raw figures in \`${source}\`.`,
  );

  out.push('\n### Yardsticks (same run)\n');
  const rows: string[][] = [];
  if (r.baselines.fastify)
    rows.push([
      'Bare Fastify JSON endpoint (the HTTP ceiling), 100 connections',
      `${n(r.baselines.fastify.perSecond)} req/s`,
      `p99 ${ms(r.baselines.fastify.p99Ms)}`,
      `${r.baselines.fastify.load.loadBefore}`,
    ]);
  if (r.baselines.simulator) {
    rows.push([
      'Simulator saveSales, called directly, 64 connections (the VSDC ceiling)',
      `${n(r.baselines.simulator.parallel.perSecond)} /s`,
      `p99 ${ms(r.baselines.simulator.parallel.p99Ms)}`,
      `${r.baselines.simulator.load.loadBefore}`,
    ]);
    rows.push([
      "Simulator saveSales, one at a time (one document's VSDC round trip)",
      `${n(r.baselines.simulator.sequential.perSecond)} /s`,
      `${ms(1000 / Math.max(1, r.baselines.simulator.sequential.perSecond))} each`,
      '',
    ]);
  }
  if (pgTrips)
    rows.push(['PostgreSQL `select 1`, one at a time (one database round trip)', `${n(pgTrips)} /s`, `${ms(1000 / pgTrips)} each`, '']);
  out.push(table(['Yardstick', 'Rate', 'Latency', 'Load avg'], rows));

  const engines = (['postgres', 'embedded'] as const).filter((e) => r.engines[e]);
  const onlineRows: string[][] = [];
  for (const e of engines) {
    for (const o of r.engines[e]?.sales?.online ?? []) {
      const targets =
        e === 'postgres' && o.branches > 1
          ? `${check(o.peak.perSecond >= 0.5 * (sim ?? Infinity) && o.peak.perSecond >= 0.15 * (fastify ?? Infinity))} rate, ${check(o.halfPeak.p99Ms <= 25)} p99`
          : e === 'postgres'
            ? `${check(o.halfPeak.p99Ms <= 25)} p99`
            : '';
      onlineRows.push([
        e,
        String(o.branches),
        `${n(o.peak.perSecond)} /s`,
        pct(o.peak.perSecond, sim),
        pct(o.peak.perSecond, fastify),
        `${ms(o.peak.p50Ms)} / ${ms(o.peak.p99Ms)}`,
        `${n(o.halfPeak.perSecond)} /s`,
        `${ms(o.halfPeak.p50Ms)} / ${ms(o.halfPeak.p99Ms)}${o.halfPeakP99sMs ? ` (p99s ${o.halfPeakP99sMs.map(ms).join(', ')})` : ''}`,
        `${n(o.cpu.gateway)} / ${e === 'postgres' ? n(o.cpu.postgres) : '–'} / ${n(o.cpu.simulator)} µs`,
        String(o.peak.bad + o.halfPeak.bad),
        targets,
      ]);
    }
  }
  if (onlineRows.length) {
    out.push('\n### Online sales (`POST /api/v1/sales`, every answer `uploaded`)\n');
    out.push(
      table(
        [
          'Database',
          'Branches',
          'Peak',
          'of VSDC ceiling',
          'of HTTP ceiling',
          'Peak p50 / p99',
          'Half peak',
          'Half-peak p50 / p99 (median of 3 windows)',
          'CPU per sale: gateway / PostgreSQL / simulator',
          'Errors',
          'Targets (50 % / 15 %, p99 ≤ 25 ms)',
        ],
        onlineRows,
      ),
    );
    const busiest = r.engines.postgres?.sales?.online.at(-1);
    if (busiest) {
      const c = busiest.cpu;
      const total = c.gateway + c.postgres + c.simulator + c.loadGenerator;
      out.push(
        `\nWhere the CPU goes (PostgreSQL, ${busiest.branches} branches, at the peak): a sale costs ${n(total)} µs of CPU on this machine — ` +
          `gateway ${n(c.gateway)}, PostgreSQL ${n(c.postgres)} (every server process), simulator ${n(c.simulator)}, load generator ${n(c.loadGenerator)} — ` +
          `so ${r.machine.cpus} cores cannot do more than ≈ ${n((r.machine.cpus * 1e6) / Math.max(total, 1))} sales/s, however the work is scheduled.`,
      );
    }
    if (simSequential && pgTrips) {
      const bound = 1 / (1 / simSequential + 1 / pgTrips);
      out.push(
        `\nOne strictly ordered branch files one document at a time: one VSDC round trip plus one database statement each, at best ≈ ${n(bound)} documents/s here (${ms(1000 / simSequential)} + ${ms(1000 / pgTrips)}), before any HTTP or CPU cost of the sale itself.`,
      );
    }
  }

  const scale = r.engines.postgres?.sales?.scaleOut ?? [];
  if (scale.length) {
    out.push('\n### Scale-out on one PostgreSQL (100 branches)\n');
    out.push(
      table(
        [
          'API processes',
          'Worker processes',
          'Peak',
          'of VSDC ceiling',
          'Half-peak p50 / p99 (median of 3 windows)',
          'CPU per sale: gateways / PostgreSQL',
        ],
        scale.map((s) => [
          String(s.apiProcesses),
          String(s.workerProcesses),
          `${n(s.run.peak.perSecond)} /s`,
          pct(s.run.peak.perSecond, sim),
          `${ms(s.run.halfPeak.p50Ms)} / ${ms(s.run.halfPeak.p99Ms)}`,
          `${n(s.run.cpu.gateway)} / ${n(s.run.cpu.postgres)} µs`,
        ]),
      ),
    );
  }

  const drainRows = engines.flatMap((e) => {
    const d = r.engines[e]?.sales?.drain;
    return d
      ? [
          [
            e,
            `${n(d.documents)} over ${d.branches} branches`,
            `${d.seconds} s`,
            `${n(d.documentsPerSecond)} /s`,
            pct(d.documentsPerSecond, sim),
            e === 'postgres' ? check(d.documentsPerSecond >= 0.8 * (sim ?? Infinity)) : '',
          ],
        ]
      : [];
  });
  if (drainRows.length) {
    out.push('\n### Offline backlog drain (VSDC back up, one `--workers-only` process)\n');
    out.push(table(['Database', 'Pending documents', 'Time', 'Rate', 'of VSDC ceiling', 'Target 80 %'], drainRows));
  }

  const outage = r.engines.postgres?.outage;
  if (outage) {
    out.push(`\n### A VSDC outage (PostgreSQL, ${outage.branches} branches known down, closed loop)\n`);
    out.push(
      table(
        ['', 'Rate', 'p50 / p99', 'Target'],
        [
          [
            'Sales on known-down branches (full gateway, SALE_WAIT_MS 3 s)',
            `${n(outage.knownDown.perSecond)} /s`,
            `${ms(outage.knownDown.p50Ms)} / ${ms(outage.knownDown.p99Ms)}`,
            `${check(outage.p99OverBaselineMs <= 50)} p99 ≤ 50 ms above the baseline (${outage.p99OverBaselineMs} ms)`,
          ],
          [
            'Baseline: the same sales answered `pending` without waiting (`--api-only`, SALE_WAIT_MS 0)',
            `${n(outage.pendingBaseline.perSecond)} /s`,
            `${ms(outage.pendingBaseline.p50Ms)} / ${ms(outage.pendingBaseline.p99Ms)}`,
            '',
          ],
          [
            `Recovery: backoff at 5 min, VSDC back → filing starts (probe every ${outage.probeIntervalMs / 1000} s)`,
            '',
            `${outage.resumeSeconds} s`,
            `${check(outage.resumeSeconds <= 10)} ≤ 10 s`,
          ],
          [
            `… and all ${n(outage.recoveredDocuments)} pending documents are filed`,
            `${n(outage.recoveredDocuments / Math.max(0.01, outage.recoverySeconds - outage.resumeSeconds))} /s`,
            `${outage.recoverySeconds} s`,
            '',
          ],
        ],
      ),
    );
  }

  const hookRows = engines.flatMap((e) => {
    const w = r.engines[e]?.webhooks;
    return w
      ? [
          [
            e,
            `${n(w.healthy.deliveries)} to ${w.healthyEndpoints} endpoints`,
            `${n(w.healthy.deliveriesPerSecond)} /s`,
            `${n(w.withStalled.deliveriesPerSecond)} /s (${n(w.withStalled.stalledDeliveries)} queued, ${w.timeoutMs / 1000} s timeout)`,
            `×${w.ratio}`,
            `${check(w.withStalled.deliveriesPerSecond >= 2000)} rate, ${check(w.ratio >= 0.9)} isolation`,
          ],
        ]
      : [];
  });
  if (hookRows.length) {
    out.push('\n### Webhook deliveries (one `--workers-only` process)\n');
    out.push(
      table(['Database', 'Deliveries', 'Healthy only', 'With a stalled endpoint', 'Ratio', 'Targets (≥ 2,000/s, not slowed)'], hookRows),
    );
  }
  const oneEndpointRows = engines.flatMap((e) => {
    const one = r.engines[e]?.webhooks?.oneEndpoint;
    return one
      ? [
          [
            e,
            n(one.atDefaultCap.deliveries),
            `${n(one.atDefaultCap.deliveriesPerSecond)} /s`,
            `${n(one.atCap4.deliveriesPerSecond)} /s`,
            `×${one.ratio}`,
          ],
        ]
      : [];
  });
  if (oneEndpointRows.length) {
    out.push('\n#### Webhook deliveries to one endpoint (`WEBHOOK_ENDPOINT_CONCURRENCY`)\n');
    out.push(table(['Database', 'Deliveries', 'At the default (16 in flight)', 'At 4 in flight (the old cap)', 'Ratio'], oneEndpointRows));
  }

  const listRows: string[][] = [];
  for (const e of engines) {
    const l = r.engines[e]?.listing;
    if (!l || l.runs.length === 0) continue;
    const base = l.runs[0]!;
    for (const run of l.runs) {
      const ratio = (a: Throughput, b: Throughput) => Math.max(b.p50Ms / Math.max(a.p50Ms, 0.1), a.perSecond / Math.max(b.perSecond, 1));
      const worst = Math.max(ratio(base.byReference, run.byReference), ratio(base.firstPage, run.firstPage), ratio(base.pageN, run.pageN));
      listRows.push([
        e,
        n(run.documents),
        `${n(run.byReference.perSecond)} /s, ${ms(run.byReference.p50Ms)} / ${ms(run.byReference.p99Ms)}`,
        `${n(run.firstPage.perSecond)} /s, ${ms(run.firstPage.p50Ms)} / ${ms(run.firstPage.p99Ms)}`,
        `${n(run.pageN.perSecond)} /s, ${ms(run.pageN.p50Ms)} / ${ms(run.pageN.p99Ms)}`,
        run === base ? '' : `×${worst.toFixed(2)} ${check(worst <= 2)}`,
      ]);
    }
  }
  if (listRows.length) {
    const page = r.engines.postgres?.listing?.page ?? r.engines.embedded?.listing?.page ?? 0;
    out.push('\n### Reading sales back (one merchant, 8 connections; rate, p50 / p99)\n');
    out.push(
      table(['Database', 'Sales held', '`?reference=`', '`?page=1`', `\`?page=${page}\``, 'Worst slowdown (target ≤ 2×)'], listRows),
    );
  }

  const memRows = engines.flatMap((e) => {
    const s = r.engines[e]?.sales;
    if (!s) return [];
    const ready = median(s.readyMs);
    return [
      [
        e,
        `${n(s.peakRssMb)} MB`,
        e === 'postgres' ? check(s.peakRssMb <= 250) : '',
        `${n(s.firstStartMs)} ms`,
        `${n(ready)} ms (${s.readyMs.map(n).join(', ')})`,
        check(ready <= 3000),
      ],
    ];
  });
  if (memRows.length) {
    out.push('\n### Memory and start-up (gateway process)\n');
    out.push(
      table(
        [
          'Database',
          'Peak RSS under the online load',
          '≤ 250 MB',
          'First start (empty database, migrations)',
          'Ready on the existing database (median of runs)',
          '≤ 3 s',
        ],
        memRows,
      ),
    );
  }

  const loads = engines.map((e) => {
    const entry = r.engines[e];
    const l = [entry?.sales?.load, entry?.webhooks?.load, entry?.outage?.load, entry?.listing?.load].filter((x): x is MachineLoad =>
      Boolean(x),
    );
    return `${e} ${l.map((x) => `${x.loadBefore}→${x.loadAfter}`).join(', ')}`;
  });
  out.push(`\n1-minute load average before→after each engine's scenarios: ${loads.join('; ')}.`);
  return out.join('\n');
}
