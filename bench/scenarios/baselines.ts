// The two yardsticks every figure is set against, measured in the same run:
//   HTTP ceiling     a bare Fastify JSON endpoint (response schema, no logger) on this machine;
//   VSDC ceiling     the simulator's own saveSales rate, driven directly over keep-alive
//                    connections (64 at once, and one at a time: the per-document round trip
//                    that bounds one strictly ordered branch).
// Plus one database round trip (sequential `select 1`), for the same single-branch bound.
import pg from 'pg';
import { request } from 'undici';
import { buildZraSaleBody } from '../../src/authorities/zra-vsdc/sales-body.ts';
import { closedLoop, type Throughput } from '../lib/load.ts';
import { startChild, type ChildServer } from '../lib/processes.ts';

export async function fastifyCeiling(seconds: number): Promise<Throughput> {
  const child = await startChild('fastify');
  try {
    const plan = { method: 'GET' as const, path: '/', next: () => ({ headers: {} }) };
    await closedLoop(child.urls.url!, plan, { connections: 100, seconds: 1 });
    return await closedLoop(child.urls.url!, plan, { connections: 100, seconds });
  } finally {
    await child.stop();
  }
}

const BASELINE_TPIN = '1000000009';

/** saveSales bodies with distinct invoice numbers, for a device preset as installed. */
async function saveSalesPlan(sim: ChildServer) {
  const preset = await request(`${sim.urls.origin}/_sim/devices/${BASELINE_TPIN}/000`, {
    method: 'PUT',
    body: JSON.stringify({ installed: true }),
  });
  await preset.body.dump();
  const body = buildZraSaleBody({
    tpin: BASELINE_TPIN,
    bhfId: '000',
    invoiceNo: 999_999_999,
    receiptType: 'S',
    customer: { tpin: null, name: 'Walk-in customer' },
    paymentMethod: '01',
    occurredAt: new Date(),
    taxInclusive: true,
    currency: 'ZMW',
    lines: [
      { name: 'Roller mealie meal 25kg', classificationCode: '50221200', quantity: 2, price: 185, vatCategory: 'A' },
      { name: 'Fresh bread', classificationCode: '50221200', quantity: 3, price: 24.5, vatCategory: 'D' },
    ],
  });
  const [before, after] = JSON.stringify({ ...body, tpin: BASELINE_TPIN, bhfId: '000' }).split('"cisInvcNo":"999999999"') as [
    string,
    string,
  ];
  let next = 1;
  return {
    method: 'POST' as const,
    path: `${new URL(sim.urls.url!).pathname.replace(/\/$/, '')}/trnsSales/saveSales`,
    next: () => ({ headers: { 'content-type': 'application/json' }, body: `${before}"cisInvcNo":"${next++}"${after}` }),
    verify: (b: string) => b.startsWith('{"resultCd":"000"'),
  };
}

export interface VsdcCeiling {
  parallel: Throughput;
  /** One request at a time: 1000 / perSecond is the per-document VSDC round trip. */
  sequential: Throughput;
}

export async function simulatorCeiling(sim: ChildServer, seconds: number): Promise<VsdcCeiling> {
  const plan = await saveSalesPlan(sim);
  await closedLoop(sim.urls.origin!, plan, { connections: 64, seconds: 1 });
  const parallel = await closedLoop(sim.urls.origin!, plan, { connections: 64, seconds });
  const sequential = await closedLoop(sim.urls.origin!, plan, { connections: 1, seconds: Math.min(seconds, 3) });
  return { parallel, sequential };
}

/** Sequential `select 1` round trips a second over one connection. */
export async function postgresRoundTrips(adminUrl: string, seconds: number): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    let n = 0;
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      await client.query('select 1');
      n++;
    }
    return Math.round(n / seconds);
  } finally {
    await client.end();
  }
}
