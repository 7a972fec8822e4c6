// Delivery success per webhook endpoint over a window.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { EndpointStatus } from '../../../platform/db/tables/webhooks.ts';
import { WEBHOOK_STATS_WINDOWS, type EndpointStatsResource, type WebhookStatsWindow } from './schemas.ts';
import { iso } from '../../../platform/lib/time.ts';

interface StatsRow {
  id: number;
  url: string;
  description: string;
  status: EndpointStatus;
  delivered: number;
  failed: number;
  pending: number;
  last_delivered_at: Date | null;
  last_failure_at: Date | null;
}

export async function webhookStats(
  db: Kysely<DB>,
  partnerId: number,
  window: WebhookStatsWindow,
  now: Date,
): Promise<EndpointStatsResource[]> {
  const since = new Date(now.getTime() - WEBHOOK_STATS_WINDOWS[window] * 1000);
  const result = await sql<StatsRow>`
    select e.id, e.url, e.description, e.status, e.last_failure_at,
      count(d.id) filter (where d.status = 'delivered')::int as delivered,
      count(d.id) filter (where d.status = 'failed')::int as failed,
      count(d.id) filter (where d.status = 'pending')::int as pending,
      max(d.delivered_at) as last_delivered_at
    from webhook_endpoints e
    left join webhook_deliveries d on d.endpoint_id = e.id and d.created_at >= ${since}::timestamptz
    where e.partner_id = ${partnerId}
    group by e.id
    order by e.id`.execute(db);
  return result.rows.map((r) => {
    const settled = Number(r.delivered) + Number(r.failed);
    return {
      endpointId: r.id,
      url: r.url,
      description: r.description,
      status: r.status,
      delivered: Number(r.delivered),
      failed: Number(r.failed),
      pending: Number(r.pending),
      successRate: settled === 0 ? null : Number(r.delivered) / settled,
      lastDeliveredAt: iso(r.last_delivered_at),
      lastFailureAt: iso(r.last_failure_at),
    };
  });
}
