// Webhook delivery benchmark. Receivers run in a child process (one answers 200 at once, one
// never answers); this process runs one delivery worker against the embedded database, or
// against a scratch database on the PostgreSQL server named by BENCH_DATABASE_URL.
//   node --import tsx bench/webhooks.ts [--events 10000] [--endpoints 8] [--stalled-events 2000] [--timeout-ms 10000]
// 1. throughput: `events` events spread over `endpoints` healthy endpoints, queued, then drained.
// 2. isolation: the same again while one more endpoint never answers (each attempt waits the
//    full timeout) with `stalled-events` queued; the healthy drain time should not move.
// Prints the result as JSON on the last line.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { openDatabase } from '../src/db/database.ts';
import { createDeliveryWorker } from '../src/modules/webhooks/delivery-worker.ts';
import { createEndpoint } from '../src/modules/webhooks/endpoints.ts';
import { enqueueEvent } from '../src/modules/webhooks/events.ts';
import { createPartner } from '../src/modules/provisioning/partners.ts';
import { createTenant } from '../src/modules/provisioning/tenants.ts';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

async function serveReceivers(): Promise<void> {
  const healthy = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  const stalled = createServer((req) => req.resume());
  await Promise.all([healthy, stalled].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const url = (s: typeof healthy) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  process.send?.({ healthy: url(healthy), stalled: url(stalled) });
  process.on('disconnect', () => process.exit(0));
}

async function scratchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `fg_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

interface Target {
  partnerId: number;
  tenantId: number;
  endpointId: number;
}

async function seedTarget(ctx: AppContext, url: string, n: number): Promise<Target> {
  const partner = await createPartner(ctx.db, ctx.secretBox, { type: 'cli' }, { name: `bench ${n}`, test: false });
  const actor = { type: 'partner_key' as const, keyId: partner.key.id, partnerId: partner.partner.id };
  const tenant = await createTenant(ctx.db, actor, partner.partner.id, { name: `merchant ${n}`, tpin: String(2_000_000_000 + n) });
  const { endpoint } = await createEndpoint(ctx.db, ctx.secretBox, ctx.config.env, actor, { url });
  return { partnerId: partner.partner.id, tenantId: tenant.id, endpointId: endpoint.id };
}

async function enqueue(ctx: AppContext, targets: Target[], count: number, firstSaleId: number): Promise<void> {
  const BATCH = 500;
  for (let start = 0; start < count; start += BATCH) {
    await ctx.db.transaction().execute(async (trx) => {
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const target = targets[i % targets.length]!;
        const saleId = firstSaleId + i;
        const invoice = { id: saleId, reference: `bench-${saleId}`, invoiceNo: saleId, status: 'uploaded', resultCode: '000', totals: { net: 100, vat: 16, total: 116, currency: 'ZMW' } };
        await enqueueEvent(trx, { type: 'invoice.fiscalised', partnerId: target.partnerId, tenantId: target.tenantId, data: { invoice } });
      }
    });
  }
}

async function delivered(ctx: AppContext, endpointIds: number[]): Promise<number> {
  const row = await ctx.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', 'in', endpointIds)
    .where('status', '=', 'delivered')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Starts a worker and waits until `expected` deliveries to the healthy endpoints are delivered. */
async function runUntilDelivered(ctx: AppContext, healthyIds: number[], expected: number) {
  const worker = createDeliveryWorker(ctx);
  const started = performance.now();
  worker.start();
  while ((await delivered(ctx, healthyIds)) < expected) await new Promise((r) => setTimeout(r, 100));
  return { seconds: (performance.now() - started) / 1000, worker };
}

async function main(): Promise<void> {
  const events = option('events', 10_000);
  const endpointCount = option('endpoints', 8);
  const stalledEvents = option('stalled-events', 2_000);
  const timeoutMs = option('timeout-ms', 10_000);

  const child = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const receivers = await new Promise<{ healthy: string; stalled: string }>((resolve) => child.once('message', (m) => resolve(m as { healthy: string; stalled: string })));

  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchDatabase(adminUrl) : undefined;
  const database = await openDatabase({ databaseUrl: scratch?.url, poolSize: 10 });
  const config = { ...loadConfig({ GATEWAY_ENV: 'development', LOG_LEVEL: 'silent', SECRET_KEY: 'bench-secret-key-0123456789abcdef0123' }), webhookTimeoutMs: timeoutMs };
  const ctx = createContext(config, database);
  try {
    // 1. throughput
    const healthy1 = await Promise.all(Array.from({ length: endpointCount }, (_, i) => seedTarget(ctx, `${receivers.healthy}/a${i}`, i)));
    await enqueue(ctx, healthy1, events, 1);
    const first = await runUntilDelivered(ctx, healthy1.map((t) => t.endpointId), events);
    await first.worker.stop();
    const throughputSec = first.seconds;

    // 2. the same with a stalled endpoint queued first
    const healthy2 = await Promise.all(Array.from({ length: endpointCount }, (_, i) => seedTarget(ctx, `${receivers.healthy}/b${i}`, 100 + i)));
    const stalled = await seedTarget(ctx, receivers.stalled, 999);
    await enqueue(ctx, [stalled], stalledEvents, 1_000_000);
    await enqueue(ctx, healthy2, events, 2_000_000);
    const second = await runUntilDelivered(ctx, healthy2.map((t) => t.endpointId), events);
    const isolationSec = second.seconds;
    // The stalled endpoint's share of the worker while the healthy ones drained: its leased attempts.
    const stalledInFlight = await ctx.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', stalled.endpointId)
      .where('locked_until', 'is not', null)
      .executeTakeFirstOrThrow();
    child.kill(); // the stalled receiver's open attempts fail at once, so the worker stops promptly
    await second.worker.stop();

    const result = {
      database: database.kind,
      events,
      healthyEndpoints: endpointCount,
      throughput: { seconds: round(throughputSec), deliveriesPerSecond: Math.round(events / throughputSec) },
      withStalledEndpoint: {
        stalledEvents,
        timeoutMs,
        seconds: round(isolationSec),
        deliveriesPerSecond: Math.round(events / isolationSec),
        slowdown: round(isolationSec / throughputSec),
        stalledAttemptsInFlight: Number(stalledInFlight.n),
      },
    };
    console.log(`throughput: ${events} deliveries to ${endpointCount} endpoints in ${result.throughput.seconds} s (${result.throughput.deliveriesPerSecond}/s)`);
    console.log(`with a stalled endpoint (${stalledEvents} queued, ${timeoutMs} ms timeout): ${result.withStalledEndpoint.seconds} s (x${result.withStalledEndpoint.slowdown})`);
    console.log(JSON.stringify(result));
  } finally {
    child.kill();
    await closeContext(ctx);
    await database.close();
    await scratch?.drop();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

if (process.argv.includes('--child')) await serveReceivers();
else await main();
