// Documents per minute over a window, split by their status now: the console's activity chart.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentStatus } from '../../../platform/db/tables/sales.ts';
import { FILING_WINDOWS, type FilingWindow, type FilingsResource } from './schemas.ts';
import { iso } from '../../../platform/lib/time.ts';
import { scopeConditions, type Scope } from './scope.ts';

const MINUTE_MS = 60_000;

export async function filingsPerMinute(db: Kysely<DB>, scope: Scope, window: FilingWindow, now: Date): Promise<FilingsResource> {
  // The window ends at the end of the current minute, so the newest bucket is the one under way.
  const to = new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
  const from = new Date(to.getTime() - FILING_WINDOWS[window] * 1000);
  const result = await sql<{ minute: Date; status: DocumentStatus; n: number }>`
    select date_trunc('minute', s.created_at) as minute, s.status, count(*)::int as n
    from sales s join tenants t on t.id = s.tenant_id
    where s.created_at >= ${from}::timestamptz and s.created_at < ${to}::timestamptz ${scopeConditions(scope)}
    group by 1, 2
    order by 1`.execute(db);
  const buckets = new Map<string, { at: string; uploaded: number; pending: number; failed: number; resolved: number }>();
  const totals = { uploaded: 0, pending: 0, failed: 0, resolved: 0 };
  for (const row of result.rows) {
    const at = iso(row.minute)!;
    const bucket = buckets.get(at) ?? { at, uploaded: 0, pending: 0, failed: 0, resolved: 0 };
    bucket[row.status] += Number(row.n);
    totals[row.status] += Number(row.n);
    buckets.set(at, bucket);
  }
  return { window, bucketSeconds: 60, from: from.toISOString(), to: to.toISOString(), buckets: [...buckets.values()], totals };
}
