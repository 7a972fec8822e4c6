// A VSDC outage as tills live it (PostgreSQL: two gateway processes share the database):
//   answer    sales on branches whose VSDC is known down (in backoff after a failed attempt),
//             answered by a full gateway (SALE_WAIT_MS 3 s), beside the same sales answered by an
//             --api-only process with SALE_WAIT_MS=0 (the cost of a normal `pending` answer);
//             the target is p99 ≤ 50 ms above the baseline's;
//   recovery  the branches' backoff at 5 minutes (as after a long outage), the VSDC back: seconds
//             until the backlog starts filing (the target is ≤ 10 s) and until all of it is
//             filed, with the default probe interval (5 s).
import { request } from 'undici';
import type { Engine } from '../lib/engines.ts';
import { closedLoop, type Throughput } from '../lib/load.ts';
import { startGateway, type ChildServer } from '../lib/processes.ts';
import { createPartner, SALE_BODY, salePlan, seedMerchants } from '../lib/seed.ts';

export interface OutageSettings {
  root: string;
  workDir: string;
  seconds: number;
}

export interface OutageResults {
  branches: number;
  /** Sales on known-down branches, through the full gateway. */
  knownDown: Throughput;
  /** The same sales through an --api-only process that never waits (SALE_WAIT_MS=0). */
  pendingBaseline: Throughput;
  /** knownDown p99 − baseline p99. */
  p99OverBaselineMs: number;
  /** From the VSDC's return to the first pending document filed (the target: ≤ 10 s). */
  resumeSeconds: number;
  /** From the VSDC's return to the last pending document filed. */
  recoverySeconds: number;
  recoveredDocuments: number;
  probeIntervalMs: number;
}

const BRANCHES = 8;
const PROBE_MS = 5_000;

async function simulator(origin: string, method: 'PUT' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  const res = await request(`${origin}/_sim${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return res.body.json();
}

async function filedTotal(origin: string, tpins: Set<string>): Promise<number> {
  const res = await request(`${origin}/_sim/devices`);
  const { devices } = (await res.body.json()) as { devices: { tpin: string; filedCount: number }[] };
  return devices.filter((d) => tpins.has(d.tpin)).reduce((n, d) => n + d.filedCount, 0);
}

export async function outageScenario(
  engine: Engine,
  settings: OutageSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<OutageResults> {
  const origin = sim.urls.origin!;
  // No retry within the run (the backoff is 5 minutes from the first failure): only a probe or
  // the VSDC's return can start filing again.
  const env = { ...engine.env, SALE_WAIT_MS: '3000', FILING_RETRY_MS: '300000', VSDC_PROBE_MS: String(PROBE_MS) };
  const gateway = await startGateway({ root: settings.root, workDir: settings.workDir, env, label: `${engine.name}-outage` });
  const baseline = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env: { ...env, SALE_WAIT_MS: '0' },
    args: ['--api-only'],
    label: `${engine.name}-outage-pending`,
  });
  try {
    const partner = await createPartner(gateway.url, 'Outage bench partner');
    const merchants = await seedMerchants(gateway.url, partner, sim.urls.url!, BRANCHES, tpinBase);
    const tpins = new Set(merchants.map((m) => m.tpin));
    // A sale each while the VSDC answers: the catalogue is fetched, the items drafted.
    const online = await closedLoop(gateway.url, salePlan(merchants), { connections: BRANCHES, amount: BRANCHES });
    if (online.bad > 0) throw new Error(`${online.bad} of the sales before the outage were not uploaded`);
    // 838 on every call: the VSDC answers but cannot reach the authority (and probes say so too).
    for (const m of merchants) await simulator(origin, 'PUT', `/devices/${m.tpin}/000/faults`, { forcedResult: '838' });
    // Each branch's first sale finds the outage (and waits SALE_WAIT_MS for nothing): now known down.
    await Promise.all(
      merchants.map(async (m) => {
        const res = await request(`${gateway.url}/api/v1/sales`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${m.token}` },
          body: SALE_BODY,
        });
        const text = await res.body.text();
        if (!text.includes('"status":"pending"'))
          throw new Error(`a first sale was not answered pending: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
      }),
    );
    const first = { ok: merchants.length };

    const connections = BRANCHES;
    await closedLoop(gateway.url, salePlan(merchants, 'pending'), { connections, seconds: 1 }); // warm-up
    await closedLoop(baseline.url, salePlan(merchants, 'pending'), { connections, seconds: 1 });
    const knownDown = await closedLoop(gateway.url, salePlan(merchants, 'pending'), { connections, seconds: settings.seconds });
    const pendingBaseline = await closedLoop(baseline.url, salePlan(merchants, 'pending'), { connections, seconds: settings.seconds });
    const p99OverBaselineMs = Math.round((knownDown.p99Ms - pendingBaseline.p99Ms) * 10) / 10;
    log(
      `${engine.name} outage: known-down sales p50 ${knownDown.p50Ms} / p99 ${knownDown.p99Ms} ms; pending baseline p50 ${pendingBaseline.p50Ms} / p99 ${pendingBaseline.p99Ms} ms`,
    );

    const pending = first.ok + knownDown.ok + pendingBaseline.ok;
    const before = await filedTotal(origin, tpins);
    for (const m of merchants) await simulator(origin, 'DELETE', `/devices/${m.tpin}/000/faults`);
    const back = performance.now();
    const since = () => Math.round((performance.now() - back) / 10) / 100;
    let resumeSeconds: number | undefined;
    for (;;) {
      const filed = (await filedTotal(origin, tpins)) - before;
      if (filed > 0) resumeSeconds ??= since();
      if (filed >= pending) break;
      if (performance.now() - back > 300_000) throw new Error("the backlog was not filed within 5 minutes of the VSDC's return");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const recoverySeconds = since();
    log(
      `${engine.name} outage: the backlog started filing ${resumeSeconds} s after the VSDC came back; all ${pending} documents in ${recoverySeconds} s`,
    );
    return {
      branches: BRANCHES,
      knownDown,
      pendingBaseline,
      p99OverBaselineMs,
      resumeSeconds: resumeSeconds!,
      recoverySeconds,
      recoveredDocuments: pending,
      probeIntervalMs: PROBE_MS,
    };
  } finally {
    await Promise.all([gateway.stop(), baseline.stop()]);
  }
}
