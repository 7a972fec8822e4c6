// The stack floor (issue 22): the naive floor's very steps, one round trip each and no batching
// (bench/lib/floor-core.ts), written on the gateway's own stack instead of node:http and pg:
// Fastify with a TypeBox body schema validated by Ajv and a response schema, one pino request
// line per request written to a file as the gateway's is, Kysely over pg (prepared statements),
// undici for the VSDC call. What it costs beyond the naive floor is what the stack costs; what
// the gateway costs beyond it is its own work (authentication with rate limits, idempotency,
// lines, events and webhooks, batching). Run as a child process like the naive floor, with
// DATABASE_URL and LOG_PATH.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController } from 'fastify';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { Type } from 'typebox';
import { Agent, request } from 'undici';
import { PREPARED, PreparingClient } from '../../src/platform/db/prepared.ts';
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
  type TokenRow,
} from './floor-core.ts';

// Kysely carries the statements and pg prepares them once per connection, as the gateway's hot ones.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, Client: PreparingClient });
const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) });
const vsdc = new Agent({ keepAliveTimeout: 4_000 });

await sql.raw(FLOOR_TABLE_SQL).execute(db);
const lines = new BranchLines(
  (await sql<{ id: number; next_invoice_no: string }>`select id, next_invoice_no from devices`.execute(db)).rows,
);

/** A statement of floor-core.ts, run through Kysely as a prepared statement. */
async function run<R>(text: string, values: unknown[]): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(PREPARED + text, values))).rows;
}

const SaleSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      classificationCode: Type.String({ minLength: 1, maxLength: 10 }),
      quantity: Type.Number({ exclusiveMinimum: 0 }),
      price: Type.Number({ minimum: 0 }),
      vatCategory: Type.Optional(Type.String({ maxLength: 4 })),
    }),
    { minItems: 1, maxItems: 500 },
  ),
});

const AnswerSchema = Type.Object({
  data: Type.Object({
    id: Type.Integer(),
    invoiceNo: Type.Integer(),
    status: Type.String(),
    receiptNo: Type.Union([Type.Integer(), Type.Null()]),
    total: Type.Number(),
  }),
});

const log = pino({ level: 'info' }, pino.destination({ dest: process.env.LOG_PATH ?? '/dev/null', sync: false }));
const app = Fastify({
  loggerInstance: log,
  logController: new LogController({ disableRequestLogging: true }),
}).withTypeProvider<TypeBoxTypeProvider>();
app.addHook('onResponse', (request, reply, done) => {
  request.log.info(
    { method: request.method, route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
    'request',
  );
  done();
});

app.post(
  '/api/v1/sales',
  { schema: { body: SaleSchema, response: { 201: AnswerSchema, 401: Type.Object({ error: Type.String() }) } } },
  async (req, reply) => {
    const [device] = await run<TokenRow>(TOKEN_SQL, [tokenHash(req.headers.authorization)]);
    if (!device) return reply.code(401).send({ error: 'unauthorized' });
    const body = saleBody(device, req.body);
    const [stored] = await run<{ id: number; invoice_no: number }>(STORE_SQL, [device.device_id, body.totAmt, body.totTaxAmt]);
    const invoiceNo = Number(stored!.invoice_no);
    await lines.turnOf(device.device_id, invoiceNo);
    let text: string;
    try {
      const response = await request(saveSalesUrl(device), {
        method: 'POST',
        dispatcher: vsdc,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...body, cisInvcNo: String(invoiceNo) }),
      });
      text = await response.body.text();
    } finally {
      lines.done(device.device_id, invoiceNo);
    }
    const outcome = outcomeOf(text);
    await run(OUTCOME_SQL, [stored!.id, outcome.status, outcome.receiptNo, outcome.signature, outcome.internalData]);
    return reply
      .code(201)
      .send({ data: { id: Number(stored!.id), invoiceNo, status: outcome.status, receiptNo: outcome.receiptNo, total: body.totAmt } });
  },
);

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.send?.({ url: address });
process.on('disconnect', () => process.exit(0));
