import { Gauge } from 'prom-client';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { Metrics } from '../../../platform/observability/metrics.ts';
import type { ContextMember } from '../../kernel/context.ts';

// Read from the database at scrape time (at most once per CACHE_MS, so a busy scraper never
// costs more than one round of queries), so every process reports the same fiscal truth.
const CACHE_MS = 10_000;

interface FiscalState {
  documents: Array<{ status: string; n: number }>;
  backlog: Array<{ tenant_id: number; branch: string; n: number; oldest_age: number }>;
  deliveries: Array<{ status: string; n: number }>;
}

async function readState(db: Kysely<DB>): Promise<FiscalState> {
  const documents = await sql<{ status: string; n: number }>`select status, count(*)::int as n from sales group by status`.execute(db);
  const backlog = await sql<{ tenant_id: number; branch: string; n: number; oldest_age: number }>`
    select tenant_id, branch, count(*)::int as n, extract(epoch from (now() - min(created_at)))::float8 as oldest_age
    from sales where status = 'pending' group by tenant_id, branch`.execute(db);
  const deliveries = await sql<{ status: string; n: number }>`select status, count(*)::int as n from webhook_deliveries group by status`.execute(db);
  return { documents: documents.rows, backlog: backlog.rows, deliveries: deliveries.rows };
}

function registerFiscalGauges(metrics: Metrics, db: Kysely<DB>): void {
  let cached: { at: number; state: Promise<FiscalState> } | undefined;
  const state = () => {
    if (!cached || Date.now() - cached.at > CACHE_MS) {
      cached = { at: Date.now(), state: readState(db) };
      cached.state.catch(() => (cached = undefined));
    }
    return cached.state;
  };
  const registers = [metrics.registry];

  new Gauge({
    name: 'fiscal_gateway_documents',
    help: 'Fiscal documents (sales, credit and debit notes) by status',
    labelNames: ['status'],
    registers,
    async collect() {
      this.reset();
      for (const status of ['pending', 'uploaded', 'failed', 'resolved']) this.set({ status }, 0);
      for (const row of (await state()).documents) this.set({ status: row.status }, Number(row.n));
    },
  });
  new Gauge({
    name: 'fiscal_gateway_backlog_documents',
    help: 'Pending documents per branch',
    labelNames: ['tenant', 'branch'],
    registers,
    async collect() {
      this.reset();
      for (const row of (await state()).backlog) this.set({ tenant: String(row.tenant_id), branch: row.branch }, Number(row.n));
    },
  });
  new Gauge({
    name: 'fiscal_gateway_backlog_oldest_age_seconds',
    help: 'Age of the oldest pending document per branch',
    labelNames: ['tenant', 'branch'],
    registers,
    async collect() {
      this.reset();
      for (const row of (await state()).backlog) this.set({ tenant: String(row.tenant_id), branch: row.branch }, Number(row.oldest_age));
    },
  });
  new Gauge({
    name: 'fiscal_gateway_webhook_deliveries',
    help: 'Webhook delivery rows by status (pending, delivered, failed)',
    labelNames: ['status'],
    registers,
    async collect() {
      this.reset();
      for (const status of ['pending', 'delivered', 'failed']) this.set({ status }, 0);
      for (const row of (await state()).deliveries) this.set({ status: row.status }, Number(row.n));
    },
  });
}

/** The fiscal gauges on the context's registry: a member, so the kernel need not know them. */
export const FISCAL_GAUGES: ContextMember<void> = {
  name: 'the fiscal gauges',
  create: (ctx) => registerFiscalGauges(ctx.metrics, ctx.db),
};
