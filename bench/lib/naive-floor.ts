// The naive floor (issue 22): a minimal sale server written plainly — node:http and pg, no
// framework, no batching — doing per sale only what a correct gateway cannot skip, one round
// trip per step (the steps and their SQL: bench/lib/floor-core.ts):
//   1. parse the JSON body and compute the totals (the saveSales body);
//   2. one SELECT of the token's SHA-256 → tenant and device;
//   3. one autocommit statement that takes the device's next invoice number (the gateway's own
//      counter row, so the two servers can share the seeded branches) and stores the document
//      `pending` in its own table;
//   4. the VSDC call, one at a time per device, in invoice order;
//   5. one autocommit statement storing the outcome;
//   6. answer 201.
// No authentication beyond the lookup, no rate limit, no idempotency, no lines, no events, no
// logs. Run as a child process (bench/lib/processes.ts startFloor) against the gateway's
// database: `node --import tsx bench/lib/naive-floor.ts` with DATABASE_URL and PORT.
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import {
  BranchLines,
  FLOOR_TABLE_SQL,
  OUTCOME_SQL,
  outcomeOf,
  saleBody,
  saveSalesUrl,
  STORE_SQL,
  TOKEN_SQL,
  tokenHash,
  type SaleInput,
  type TokenRow,
} from './floor-core.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const vsdcAgent = new Agent({ keepAlive: true, maxSockets: 64 });

await pool.query(FLOOR_TABLE_SQL);
const lines = new BranchLines((await pool.query<{ id: number; next_invoice_no: string }>('select id, next_invoice_no from devices')).rows);

function post(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: vsdcAgent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function sale(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const input = JSON.parse(await readBody(req)) as SaleInput;
  const found = await pool.query<TokenRow>({ name: 'floor_token', text: TOKEN_SQL, values: [tokenHash(req.headers.authorization)] });
  const device = found.rows[0];
  if (!device) return answer(res, 401, { error: 'unauthorized' });
  const body = saleBody(device, input);
  const stored = await pool.query<{ id: number; invoice_no: number }>({
    name: 'floor_store',
    text: STORE_SQL,
    values: [device.device_id, body.totAmt, body.totTaxAmt],
  });
  const { id, invoice_no: invoiceNo } = stored.rows[0]!;
  await lines.turnOf(device.device_id, Number(invoiceNo));
  let reply: { status: number; text: string };
  try {
    reply = await post(saveSalesUrl(device), JSON.stringify({ ...body, cisInvcNo: String(invoiceNo) }));
  } finally {
    lines.done(device.device_id, Number(invoiceNo));
  }
  const outcome = outcomeOf(reply.text);
  await pool.query({
    name: 'floor_outcome',
    text: OUTCOME_SQL,
    values: [id, outcome.status, outcome.receiptNo, outcome.signature, outcome.internalData],
  });
  answer(res, 201, {
    data: { id: Number(id), invoiceNo: Number(invoiceNo), status: outcome.status, receiptNo: outcome.receiptNo, total: body.totAmt },
  });
}

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/api/v1/sales') {
    sale(req, res).catch((err: unknown) => answer(res, 500, { error: String(err) }));
  } else {
    req.resume();
    answer(res, 404, { error: 'not found' });
  }
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
process.on('disconnect', () => process.exit(0));
