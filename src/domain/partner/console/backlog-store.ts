// Per-branch backlog: pending documents, the oldest one's age, refusals, and how its VSDC is doing.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { offsetOf, PER_PAGE } from '../../../platform/http/pagination.ts';
import { scopeConditions, type Scope } from './scope.ts';

export interface BacklogRow {
  tenant_id: number;
  tenant_name: string;
  tpin: string;
  partner_id: number | null;
  branch: string;
  branch_name: string | null;
  device_serial: string;
  initialized: boolean;
  sdc_id: string | null;
  pending: number;
  oldest_pending_at: Date | null;
  failed: number;
  retry_delay_ms: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  last_status: 'uploaded' | 'failed' | null;
  last_outcome_at: Date | null;
  threshold_sec: number | null;
  fired_at: Date | null;
}

/** Branches in scope, the longest-waiting backlog first, 20 a page. */
export async function listBacklog(db: Kysely<DB>, scope: Scope, options: { page: number; pendingOnly?: boolean }): Promise<{ rows: BacklogRow[]; total: number }> {
  const where = sql`where true ${scopeConditions(scope)}${options.pendingOnly ? sql` and p.pending > 0` : sql``}`;
  const from = sql`
    from devices d
    join tenants t on t.id = d.tenant_id
    left join lateral (select count(*)::int as pending, min(created_at) as oldest_pending_at from sales s where s.device_id = d.id and s.status = 'pending') p on true`;
  const rows = await sql<BacklogRow>`
    select t.id as tenant_id, t.name as tenant_name, t.tpin, t.partner_id, d.branch, d.branch_name, d.device_serial,
      d.initialized, d.sdc_id, p.pending, p.oldest_pending_at,
      (select count(*)::int from sales s where s.device_id = d.id and s.status = 'failed') as failed,
      q.retry_delay_ms, q.last_error, q.next_attempt_at,
      last.status as last_status, last.updated_at as last_outcome_at,
      a.threshold_sec, a.fired_at
    ${from}
    left join filing_queues q on q.device_id = d.id
    left join lateral (select s.status, s.updated_at from sales s where s.device_id = d.id and s.status <> 'pending' order by s.id desc limit 1) last on true
    left join backlog_alarms a on a.device_id = d.id
    ${where}
    order by p.oldest_pending_at asc nulls last, t.id, d.branch
    limit ${PER_PAGE} offset ${offsetOf(options.page)}`.execute(db);
  const count = await sql<{ n: number }>`select count(*)::int as n ${from} ${where}`.execute(db);
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}
