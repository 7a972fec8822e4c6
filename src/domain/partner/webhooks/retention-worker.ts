// Keeps the delivery log for 90 days (spec part 6): older delivery rows are deleted, then
// events older than that with no delivery left. Safe to run in several processes at once.
import { sql } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { intervalWorker } from '../../../platform/workers/interval.ts';

const RETENTION_WORKER_NAME = 'webhooks.retention';
const DELIVERY_RETENTION_DAYS = 90;
const BATCH = 5_000;

interface RetentionOptions {
  intervalMs?: number;
}

/** Deletes what is past retention at `now`, in batches; returns the counts deleted. */
async function purgeExpiredDeliveries(ctx: AppContext, now: Date): Promise<{ deliveries: number; events: number }> {
  const cutoff = new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000);
  let deliveries = 0;
  for (;;) {
    const deleted = await sql<{ id: number }>`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where created_at < ${cutoff}::timestamptz limit ${BATCH} for update skip locked
      ) returning id`.execute(ctx.db);
    deliveries += deleted.rows.length;
    if (deleted.rows.length < BATCH) break;
  }
  let events = 0;
  for (;;) {
    const deleted = await sql<{ id: string }>`
      delete from webhook_events where id in (
        select ev.id from webhook_events ev
        where ev.created_at < ${cutoff}::timestamptz
          and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id)
        limit ${BATCH} for update skip locked
      ) returning id`.execute(ctx.db);
    events += deleted.rows.length;
    if (deleted.rows.length < BATCH) break;
  }
  return { deliveries, events };
}

export function createRetentionWorker(ctx: AppContext, options: RetentionOptions = {}): Worker {
  return intervalWorker({
    name: RETENTION_WORKER_NAME,
    intervalMs: options.intervalMs ?? 3_600_000,
    pass: () => purgeExpiredDeliveries(ctx, ctx.clock.now()),
    log: ctx.log,
    failure: 'purging expired deliveries failed',
  });
}
