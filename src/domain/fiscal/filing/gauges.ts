import { Gauge } from 'prom-client';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { Metrics } from '../../../platform/observability/metrics.ts';
import { noneWhileDatabaseAway, readInBackground } from '../../../platform/observability/read-in-background.ts';
import type { Clock, ContextMember } from '../../kernel/context.ts';
import { branchesByOldestBacklog } from '../sales/backlog.ts';

// Read from the database, so every process reports the same fiscal truth: at most once per
// CACHE_MS, so a busy scraper never costs more than one round of queries. Only the first scrape
// waits for the read; after it a scrape answers with the last state read and, when that is older
// than CACHE_MS, reads the next one in the background. Counting the pending documents is
// O(backlog): in a national outage, when the gauges matter most, a scrape must not
// slow down with the backlog it reports.
const CACHE_MS = 10_000;
/**
 * Uploaded and resolved documents only grow: counting them reads every document the gateway
 * ever stored, so they are counted at most this often, and after the first time in the
 * background (a scrape answers with the last count).
 */
const TOTALS_MS = 300_000;
/**
 * The per-branch backlog series: the branches whose backlog started first, this many at most.
 * A fleet of 200,000 branches behind a national outage must not make every branch a series;
 * `fiscal_gateway_backlog_branches` counts them all.
 */
const BACKLOG_SERIES = 100;

interface FiscalState {
  /** When the ages were read (the clock's milliseconds): they grow from it. */
  readAt: number;
  documents: Array<{ status: string; n: number }>;
  backlog: Array<{ tenant_id: number; branch: string; n: number; oldest_age: number }>;
  backlogBranches: number;
  deliveries: Array<{ status: string; n: number }>;
}

// Pending documents are few and have a partial index (sales_pending): this reads that, not the
// table; failed documents are kept per partner. The series' branches come from the walk of the
// oldest pending documents (it reads the start of a national backlog, not all of it);
// only those BACKLOG_SERIES branches are counted and looked up.
async function readState(db: Kysely<DB>, now: () => number, totals: Promise<Array<{ status: string; n: number }>>): Promise<FiscalState> {
  // One aggregate over the pending documents; the failed ones are kept per partner (migration
  // 0035). As a union of counts, the plan became a Parallel Append whose workers cost more to
  // start than the counts.
  const counted = (
    await sql<{ pending: number; branches: number; failed: number }>`
    select count(*)::int as pending, count(distinct device_id)::int as branches,
      (select coalesce(sum(documents), 0)::int from partner_failed_documents) as failed
    from sales where status = 'pending'`.execute(db)
  ).rows[0];
  const { devices } = await branchesByOldestBacklog(db, BACKLOG_SERIES);
  const readAt = now();
  const backlog =
    devices.length === 0
      ? { rows: [] }
      : await sql<{ tenant_id: number; branch: string; n: number; oldest_age: number }>`
    select d.tenant_id, d.branch, p.n, extract(epoch from (now() - p.oldest))::float8 as oldest_age
    from unnest(${devices.slice(0, BACKLOG_SERIES)}::int[]) as b(device_id)
    join devices d on d.id = b.device_id
    cross join lateral (select count(*)::int as n, min(s.created_at) as oldest from sales s where s.device_id = b.device_id and s.status = 'pending') p`.execute(
          db,
        );
  const deliveries = await sql<{
    status: string;
    n: number;
  }>`select status, count(*)::int as n from webhook_deliveries group by status`.execute(db);
  return {
    readAt,
    documents: [{ status: 'pending', n: counted?.pending ?? 0 }, { status: 'failed', n: counted?.failed ?? 0 }, ...(await totals)],
    backlog: backlog.rows,
    backlogBranches: counted?.branches ?? 0,
    deliveries: deliveries.rows,
  };
}

async function readTotals(db: Kysely<DB>): Promise<Array<{ status: string; n: number }>> {
  const result = await sql<{ status: string; n: number }>`
    select status, count(*)::int as n from sales where status in ('uploaded', 'resolved') group by status`.execute(db);
  return result.rows;
}

function registerFiscalGauges(metrics: Metrics, db: Kysely<DB>, clock: Clock): void {
  const now = () => clock.now().getTime();
  // A count of the totals that fails (a statement timeout on a large table) keeps the last one.
  const currentTotals = readInBackground(() => readTotals(db), TOTALS_MS, now, 'keep');
  const state = noneWhileDatabaseAway(readInBackground(() => readState(db, now, currentTotals()), CACHE_MS, now, 'forget'));
  const registers = [metrics.registry];

  new Gauge({
    name: 'fiscal_gateway_documents',
    help: 'Fiscal documents (sales, credit and debit notes) by status',
    labelNames: ['status'],
    registers,
    async collect() {
      this.reset();
      const current = await state();
      if (!current) return;
      for (const status of ['pending', 'uploaded', 'failed', 'resolved']) this.set({ status }, 0);
      for (const row of current.documents) this.set({ status: row.status }, Number(row.n));
    },
  });
  new Gauge({
    name: 'fiscal_gateway_backlog_branches',
    help: 'Branches with pending documents',
    registers,
    async collect() {
      this.reset();
      const current = await state();
      if (current) this.set(current.backlogBranches);
    },
  });
  new Gauge({
    name: 'fiscal_gateway_backlog_documents',
    help: `Pending documents per branch (the ${BACKLOG_SERIES} branches whose backlog started first)`,
    labelNames: ['tenant', 'branch'],
    registers,
    async collect() {
      this.reset();
      for (const row of (await state())?.backlog ?? []) this.set({ tenant: String(row.tenant_id), branch: row.branch }, Number(row.n));
    },
  });
  new Gauge({
    name: 'fiscal_gateway_backlog_oldest_age_seconds',
    help: `Age of the oldest pending document per branch (the ${BACKLOG_SERIES} branches whose backlog started first)`,
    labelNames: ['tenant', 'branch'],
    registers,
    async collect() {
      this.reset();
      // The ages as of now, not as of the read: a state answered from the cache is seconds old.
      const current = await state();
      if (!current) return;
      const since = Math.max(0, now() - current.readAt) / 1000;
      for (const row of current.backlog) this.set({ tenant: String(row.tenant_id), branch: row.branch }, Number(row.oldest_age) + since);
    },
  });
  new Gauge({
    name: 'fiscal_gateway_webhook_deliveries',
    help: 'Webhook delivery rows by status (pending, delivered, failed)',
    labelNames: ['status'],
    registers,
    async collect() {
      this.reset();
      const current = await state();
      if (!current) return;
      for (const status of ['pending', 'delivered', 'failed']) this.set({ status }, 0);
      for (const row of current.deliveries) this.set({ status: row.status }, Number(row.n));
    },
  });
}

/** The fiscal gauges on the context's registry: a member, so the kernel need not know them. */
export const FISCAL_GAUGES: ContextMember<void> = {
  name: 'the fiscal gauges',
  create: (ctx) => registerFiscalGauges(ctx.metrics, ctx.db, ctx.clock),
};
