// Load test of the VSDC simulator's saveSales: the simulator runs alone in a child process (one
// core, one event loop); this process drives it with autocannon over keep-alive connections,
// each request with a distinct cisInvcNo. Prints the result as JSON on the last line.
//   node --import tsx bench/simulator.ts [--seconds 10] [--connections 64]
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startSimulator } from '../src/simulator/index.ts';
import { buildSaveSalesBody } from '../src/vsdc/sales-body.ts';

const TPIN = '1000000009';
const BHF_ID = '000';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

async function serveChild(): Promise<void> {
  const simulator = await startSimulator({ port: 0 });
  process.send?.({ url: simulator.url, origin: simulator.origin });
  process.on('disconnect', () => void simulator.close().then(() => process.exit(0)));
}

/** A realistic three-line sale; the invoice number is spliced in per request. */
function bodyTemplate(): { before: string; after: string } {
  const body = buildSaveSalesBody({
    tpin: TPIN,
    bhfId: BHF_ID,
    invoiceNo: 999_999_999,
    receiptType: 'S',
    customer: { tpin: null, name: 'Walk-in customer' },
    paymentMethod: '01',
    occurredAt: new Date(),
    taxInclusive: true,
    currency: 'ZMW',
    lines: [
      { name: 'Roller mealie meal 25kg', classificationCode: '50221303', quantity: 2, price: 185, vatCategory: 'A' },
      { name: 'Cooking oil 2L', classificationCode: '50151513', quantity: 1, price: 79.99, vatCategory: 'A' },
      { name: 'Fresh bread', classificationCode: '50181901', quantity: 3, price: 24.5, vatCategory: 'D' },
    ],
  });
  const [before, after] = JSON.stringify(body).split('"cisInvcNo":"999999999"') as [string, string];
  return { before: `${before}"cisInvcNo":"`, after: `"${after}` };
}

interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface AutocannonResult {
  requests: { total: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: { method: string; path: string; headers: Record<string, string>; setupRequest: (request: AutocannonRequest) => AutocannonRequest }[];
  verifyBody: (body: string) => boolean;
}) => Promise<AutocannonResult>;

// autocannon ships no types; this is the slice of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

async function drive(): Promise<void> {
  const seconds = option('seconds', 10);
  const connections = option('connections', 64);

  const child = fork(fileURLToPath(import.meta.url), ['--serve-child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { url, origin } = await new Promise<{ url: string; origin: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; origin: string }));
    child.once('exit', (code) => reject(new Error(`simulator exited with ${String(code)}`)));
  });

  try {
    const preset = await request(`${origin}/_sim/devices/${TPIN}/${BHF_ID}`, { method: 'PUT', body: JSON.stringify({ installed: true }) });
    if (preset.statusCode !== 200) throw new Error(`cannot install the bench device: HTTP ${preset.statusCode}`);
    await preset.body.dump();

    const { before, after } = bodyTemplate();
    let next = 1;
    const run = (duration: number): Promise<AutocannonResult> =>
      autocannon({
        url: origin,
        connections,
        duration,
        requests: [
          {
            method: 'POST',
            path: `${new URL(url).pathname.replace(/\/$/, '')}/trnsSales/saveSales`,
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: before + next++ + after }),
          },
        ],
        verifyBody: (body) => body.startsWith('{"resultCd":"000"'),
      });

    await run(2); // warm-up: JIT and connection set-up
    const result = await run(seconds);
    const failed = result.non2xx + result.errors + result.timeouts + result.mismatches;
    const filed = (await (await request(`${origin}/_sim/devices/${TPIN}/${BHF_ID}`)).body.json()) as { filedCount: number };

    console.log(
      JSON.stringify({
        bench: 'simulator.saveSales',
        connections,
        durationS: result.duration,
        requests: result.requests.total,
        failed,
        filedTotal: filed.filedCount,
        requestsPerSecond: Math.round((result.requests.total - failed) / result.duration),
      }),
    );
  } finally {
    child.disconnect();
  }
}

if (process.argv.includes('--serve-child')) await serveChild();
else await drive();
