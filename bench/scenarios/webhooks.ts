// Webhook deliveries by a real `serve --workers-only` process to receivers in a child process.
// Events and their deliveries are seeded in bulk with SQL (the delivery queue is a table), then
// the worker starts and the healthy receiver counts what arrives:
//   healthy      `events` events to each of 8 healthy endpoints;
//   with stalled the same again while a 9th endpoint (another partner's) never answers, with
//                `stalledDeliveries` due before everything else: each of its attempts waits the
//                whole WEBHOOK_TIMEOUT_MS. The healthy rate should not move.
//   one endpoint `events` × 8 events to a single healthy endpoint, once at the default
//                WEBHOOK_ENDPOINT_CONCURRENCY and once at 4 (the cap before issue 35's soak):
//                what one partner's busy endpoint takes.
import { request } from 'undici';
import type { Engine } from '../lib/engines.ts';
import { startChild, startGateway } from '../lib/processes.ts';
import { createPartner, registerEndpoint } from '../lib/seed.ts';

export interface WebhookSettings {
  root: string;
  workDir: string;
  /** Events per healthy endpoint and phase. */
  events: number;
  stalledDeliveries: number;
  timeoutMs: number;
  profile: boolean;
}

export interface DeliveryRun {
  deliveries: number;
  seconds: number;
  deliveriesPerSecond: number;
}

export interface WebhookResults {
  healthyEndpoints: number;
  timeoutMs: number;
  healthy: DeliveryRun;
  withStalled: DeliveryRun & { stalledDeliveries: number };
  /** withStalled rate ÷ healthy rate: 1 means the stalled endpoint slowed nobody. */
  ratio: number;
  /** All deliveries to one endpoint: at the default cap, and at the old cap of 4 in the same run. */
  oneEndpoint: { atDefaultCap: DeliveryRun; atCap4: DeliveryRun; ratio: number };
}

const HEALTHY_ENDPOINTS = 8;
/** WEBHOOK_ENDPOINT_CONCURRENCY's default (src/platform/config.ts). */
const DEFAULT_ENDPOINT_CONCURRENCY = 16;

/** An `invoice.fiscalised` envelope as the gateway stores it (about 1.3 KB). */
function envelope(): string {
  const invoice = {
    id: 1042,
    type: 'sale',
    reference: 'till7-000123',
    clientInvoiceNo: 'TILL7-000123',
    invoiceNo: 1042,
    authorityInvoiceNo: 'INV0010002115/5317',
    status: 'uploaded',
    tpin: '2000000001',
    branch: '000',
    customer: { name: 'Chanda Mwila', tpin: '1002345678' },
    paymentMethod: '06',
    taxInclusive: true,
    destinationCountryCode: null,
    occurredAt: '2026-11-21T09:30:00.000Z',
    items: [
      {
        line: 1,
        name: 'Maize meal 25kg',
        classificationCode: '50221200',
        itemCode: null,
        quantity: 2,
        price: 185,
        vatCategory: 'A',
        vatRate: 16,
        rrp: null,
        amount: 370,
        discount: 0,
        net: 318.97,
        vat: 51.03,
        total: 370,
        originalLine: null,
      },
      {
        line: 2,
        name: 'Delivery',
        classificationCode: '78101800',
        itemCode: null,
        quantity: 1,
        price: 50,
        vatCategory: 'A',
        vatRate: 16,
        rrp: null,
        amount: 50,
        discount: 0,
        net: 43.1,
        vat: 6.9,
        total: 50,
        originalLine: null,
      },
    ],
    totals: { net: 362.07, vat: 57.93, total: 420, discount: 0, currency: 'ZMW' },
    fiscal: {
      receiptNo: 5317,
      internalData: 'I6H7EAWI6NF3TXRECQLK2N5LBY',
      receiptSignature: 'EU24KDP6C5E5MVUF',
      sdcId: 'SDC0010002115',
      mrcNo: 'WIS00003036',
      qrCodeUrl: 'https://example.invalid/qr/5317',
      publishedAt: '2026-11-21T09:30:01.000Z',
    },
    resultCode: '000',
    lastError: null,
    originalSaleId: null,
    reasonCode: null,
    createdAt: '2026-11-21T09:30:00.412Z',
    fiscalisedAt: '2026-11-21T09:30:00.431Z',
  };
  return JSON.stringify({ id: 'EVENT_ID', event: 'invoice.fiscalised', created: '2026-11-21T09:30:00.431Z', data: { invoice } });
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** `events` events of a partner, each queued for every endpoint in `endpointIds`, due now (or earlier with `dueAgo`). */
function seedDeliveries(
  phase: string,
  partnerId: number,
  tenantId: number,
  endpointIds: number[],
  events: number,
  dueAgo = '0 seconds',
): string[] {
  const body = quote(envelope());
  return [
    `insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
     select '${phase}-' || lpad(g::text, 8, '0'), 'invoice.fiscalised', ${partnerId}, ${tenantId}, replace(${body}, 'EVENT_ID', '${phase}-' || lpad(g::text, 8, '0')), now()
     from generate_series(1, ${events}) g`,
    `insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
     select '${phase}-' || lpad(g::text, 8, '0'), e, now() - interval '${dueAgo}', now()
     from generate_series(1, ${events}) g cross join unnest(array[${endpointIds.join(',')}]::int[]) e`,
  ];
}

async function receivedDeliveries(countUrl: string): Promise<number> {
  const res = await request(countUrl);
  return ((await res.body.json()) as { deliveries: number }).deliveries;
}

export async function webhookScenario(engine: Engine, settings: WebhookSettings, log: (line: string) => void): Promise<WebhookResults> {
  const receivers = await startChild('receivers');
  const devEnv = { ...engine.env, GATEWAY_ENV: 'development', WEBHOOK_TIMEOUT_MS: String(settings.timeoutMs) };
  try {
    const api = await startGateway({
      root: settings.root,
      workDir: settings.workDir,
      env: devEnv,
      args: ['--api-only'],
      label: `${engine.name}-webhooks-seed`,
    });
    let healthyIds: number[];
    let stalledId: number;
    let owner: { partnerId: number; tenantId: number };
    let stranger: { partnerId: number; tenantId: number };
    try {
      const partner = await createPartner(api.url, 'Webhook bench partner');
      const other = await createPartner(api.url, 'Stalled receiver partner');
      healthyIds = [];
      for (let i = 0; i < HEALTHY_ENDPOINTS; i++)
        healthyIds.push(await registerEndpoint(api.url, partner, `${receivers.urls.healthy}/e${i}`));
      stalledId = await registerEndpoint(api.url, other, `${receivers.urls.stalled}/hook`);
      owner = { partnerId: partner.partnerId, tenantId: 0 };
      stranger = { partnerId: other.partnerId, tenantId: 0 };
    } finally {
      await api.stop();
    }
    // Events need a tenant row; any will do for the bench.
    const [tenantRow] = await engine.sql([
      `insert into tenants (partner_id, name, tpin) values (${owner.partnerId}, 'Webhook bench merchant', '2999999999') returning id`,
    ]);
    owner.tenantId = Number(tenantRow!.id);
    const [strangerTenant] = await engine.sql([
      `insert into tenants (partner_id, name, tpin) values (${stranger.partnerId}, 'Stalled merchant', '2999999998') returning id`,
    ]);
    stranger.tenantId = Number(strangerTenant!.id);
    const countUrl = `${receivers.urls.healthy}/count`;

    const phase = async (label: string, withStalled: boolean, oneEndpointCap?: number): Promise<DeliveryRun> => {
      // Each phase starts from the same tables: the deliveries an earlier phase left (and the
      // autovacuum they would start mid-phase) slowed whichever phase ran second by 15–30 %.
      await engine.sql([
        'delete from webhook_deliveries',
        'delete from webhook_events',
        'vacuum analyze webhook_deliveries',
        'vacuum analyze webhook_events',
      ]);
      const statements = oneEndpointCap
        ? seedDeliveries(label, owner.partnerId, owner.tenantId, [healthyIds[0]!], settings.events * HEALTHY_ENDPOINTS)
        : seedDeliveries(label, owner.partnerId, owner.tenantId, healthyIds, settings.events);
      if (withStalled)
        statements.unshift(
          ...seedDeliveries(`${label}-stalled`, stranger.partnerId, stranger.tenantId, [stalledId], settings.stalledDeliveries, '1 minute'),
        );
      await engine.sql(statements);
      const expected = (await receivedDeliveries(countUrl)) + settings.events * HEALTHY_ENDPOINTS;
      const env = oneEndpointCap ? { ...devEnv, WEBHOOK_ENDPOINT_CONCURRENCY: String(oneEndpointCap) } : devEnv;
      const workers = await startGateway({
        root: settings.root,
        workDir: settings.workDir,
        env,
        args: ['--workers-only'],
        label: `${engine.name}-webhooks-${label}`,
        profile: settings.profile,
      });
      const started = performance.now();
      try {
        while ((await receivedDeliveries(countUrl)) < expected) {
          if (performance.now() - started > 300_000) throw new Error('webhook deliveries took more than 5 minutes');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        // Stalled attempts would hold a graceful stop for the whole timeout.
        await (withStalled ? workers.kill() : workers.stop());
      }
      const seconds = (performance.now() - started) / 1000;
      const deliveries = settings.events * HEALTHY_ENDPOINTS;
      return { deliveries, seconds: Math.round(seconds * 100) / 100, deliveriesPerSecond: Math.round(deliveries / seconds) };
    };

    const healthy = await phase('a', false);
    log(`${engine.name} webhooks: ${healthy.deliveries} deliveries in ${healthy.seconds} s = ${healthy.deliveriesPerSecond}/s`);
    const stalled = await phase('b', true);
    log(`${engine.name} webhooks with a stalled endpoint: ${stalled.deliveriesPerSecond}/s`);
    const atDefaultCap = await phase('c', false, DEFAULT_ENDPOINT_CONCURRENCY);
    const atCap4 = await phase('d', false, 4);
    log(
      `${engine.name} webhooks to one endpoint: ${atDefaultCap.deliveriesPerSecond}/s at ${DEFAULT_ENDPOINT_CONCURRENCY} in flight, ${atCap4.deliveriesPerSecond}/s at 4`,
    );
    return {
      healthyEndpoints: HEALTHY_ENDPOINTS,
      timeoutMs: settings.timeoutMs,
      healthy,
      withStalled: { ...stalled, stalledDeliveries: settings.stalledDeliveries },
      ratio: Math.round((stalled.deliveriesPerSecond / healthy.deliveriesPerSecond) * 100) / 100,
      oneEndpoint: { atDefaultCap, atCap4, ratio: Math.round((atDefaultCap.deliveriesPerSecond / atCap4.deliveriesPerSecond) * 100) / 100 },
    };
  } finally {
    await receivers.stop();
  }
}
