// The naive floor (issue 22): a minimal sale server written plainly — node:http and pg, no
// framework, no batching — doing per sale only what a correct gateway cannot skip, one round
// trip per step:
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
import { createHash } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildSaveSalesBody } from '../../src/vsdc/sales-body.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const vsdcAgent = new Agent({ keepAlive: true, maxSockets: 64 });

await pool.query(`create table if not exists floor_documents (
  id bigserial primary key,
  device_id integer not null,
  invoice_no bigint not null,
  status text not null,
  total numeric not null,
  vat numeric not null,
  receipt_no bigint,
  receipt_signature text,
  internal_data text,
  created_at timestamptz not null default now(),
  unique (device_id, invoice_no))`);

interface Device {
  id: number;
  tpin: string;
  branch: string;
  url: string;
}

/** Per device: the next invoice number to file and the documents stored ahead of it. */
interface Line {
  next: number;
  waiting: Map<number, () => void>;
}
const lines = new Map<number, Line>();

// Each device's line starts at its counter as this process found it (the bench starts the floor
// while no other server stores documents).
for (const d of (await pool.query<{ id: number; next_invoice_no: string }>('select id, next_invoice_no from devices')).rows) {
  lines.set(d.id, { next: Number(d.next_invoice_no), waiting: new Map() });
}

/** Resolves when every earlier invoice of the device has had its VSDC call. */
function turnOf(deviceId: number, invoiceNo: number): Promise<void> {
  const line = lines.get(deviceId)!;
  if (line.next === invoiceNo) return Promise.resolve();
  return new Promise((resolve) => line.waiting.set(invoiceNo, resolve));
}

function done(deviceId: number, invoiceNo: number): void {
  const line = lines.get(deviceId)!;
  line.next = invoiceNo + 1;
  const go = line.waiting.get(line.next);
  if (go) {
    line.waiting.delete(line.next);
    go();
  }
}

function post(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: vsdcAgent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
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
  const input = JSON.parse(await readBody(req)) as { items: { name: string; classificationCode: string; quantity: number; price: number; vatCategory?: string }[] };
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const found = await pool.query<{ device_id: number; tpin: string; branch: string; vsdc_base_url: string }>({
    name: 'floor_token',
    text: `select d.id as device_id, t.tpin, d.branch, d.vsdc_base_url
      from tenant_tokens k join tenants t on t.id = k.tenant_id join devices d on d.tenant_id = t.id and d.initialized and d.branch = '000'
      where k.token_hash = $1 and k.revoked_at is null`,
    values: [createHash('sha256').update(token).digest('hex')],
  });
  const row = found.rows[0];
  if (!row) return answer(res, 401, { error: 'unauthorized' });
  const device: Device = { id: row.device_id, tpin: row.tpin, branch: row.branch, url: row.vsdc_base_url.replace(/\/$/, '') };
  const occurredAt = new Date();
  const body = buildSaveSalesBody({
    tpin: device.tpin,
    bhfId: device.branch,
    invoiceNo: 1, // set below, once the number is taken
    receiptType: 'S',
    customer: { tpin: null, name: 'Walk-in customer' },
    paymentMethod: '01',
    occurredAt,
    taxInclusive: true,
    currency: 'ZMW',
    lines: input.items.map((i) => ({ name: i.name, classificationCode: i.classificationCode, quantity: i.quantity, price: i.price, vatCategory: (i.vatCategory ?? 'A') as 'A' })),
  });
  const stored = await pool.query<{ id: number; invoice_no: number }>({
    name: 'floor_store',
    text: `with counter as (update devices set next_invoice_no = next_invoice_no + 1 where id = $1 returning next_invoice_no - 1 as invoice_no)
      insert into floor_documents (device_id, invoice_no, status, total, vat)
      select $1, counter.invoice_no, 'pending', $2, $3 from counter returning id, invoice_no`,
    values: [device.id, body.totAmt, body.totTaxAmt],
  });
  const { id, invoice_no: invoiceNo } = stored.rows[0]!;
  await turnOf(device.id, Number(invoiceNo));
  let reply: { status: number; text: string };
  try {
    reply = await post(`${device.url}/trnsSales/saveSales`, JSON.stringify({ ...body, cisInvcNo: String(invoiceNo) }));
  } finally {
    done(device.id, Number(invoiceNo));
  }
  const parsed = JSON.parse(reply.text) as { resultCd: string; data?: { rcptNo: number; rcptSign: string; intrlData: string } };
  const ok = parsed.resultCd === '000' && parsed.data !== undefined;
  await pool.query({
    name: 'floor_outcome',
    text: `update floor_documents set status = $2, receipt_no = $3, receipt_signature = $4, internal_data = $5 where id = $1`,
    values: [id, ok ? 'uploaded' : 'failed', parsed.data?.rcptNo ?? null, parsed.data?.rcptSign ?? null, parsed.data?.intrlData ?? null],
  });
  answer(res, 201, { data: { id: Number(id), invoiceNo: Number(invoiceNo), status: ok ? 'uploaded' : 'failed', receiptNo: parsed.data?.rcptNo ?? null, total: body.totAmt } });
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
