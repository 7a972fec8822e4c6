// Per-branch backlog: pending documents, the oldest one's age, refusals, and how its VSDC is doing.
import { sql, type Kysely, type RawBuilder } from 'kysely';
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

/**
 * Branches in scope, the longest-waiting backlog first, 20 a page: the branches with a backlog by
 * their oldest pending document, then every other branch by (merchant, branch).
 *
 * A page reads only what it shows (issue 36: 200,000 branches). The branches with a backlog come
 * from `sales_pending` grouped by branch — as many as are pending, not the fleet — and the rest in
 * the (tenant_id, branch) order of `devices_tenant_id_branch_key`, skipping those with a backlog by
 * a probe of `sales_pending` per row; the details (refusals, last outcome, queue, alarm) are read
 * for the page's 20 branches alone. The total still counts the branches in scope.
 */
export async function listBacklog(db: Kysely<DB>, scope: Scope, options: { page: number; pendingOnly?: boolean }): Promise<{ rows: BacklogRow[]; total: number }> {
  const offset = offsetOf(options.page);
  // A merchant's sales are on its own branches: the merchant in scope narrows the pending documents read.
  const pendingOf = scope.tenantId === undefined ? sql`` : sql` and s.tenant_id = ${scope.tenantId}`;
  // Each branch with a backlog is looked up by key (a lateral with a limit is not flattened into a
  // join, whose plan could read every branch to meet a few thousand with a backlog).
  const withBacklog = sql`
    from (select s.device_id, count(*)::int as pending, min(s.created_at) as oldest_pending_at
          from sales s where s.status = 'pending'${pendingOf} group by s.device_id) p
    join lateral (select d.tenant_id, d.branch from devices d join tenants t on t.id = d.tenant_id
                  where d.id = p.device_id ${scopeConditions(scope)} limit 1) b on true`;
  const scoped = scope.partnerId !== undefined || scope.tenantId !== undefined;
  const counted = scoped
    ? await sql<{ n: number }>`select count(*)::int as n ${withBacklog}`.execute(db)
    : await sql<{ n: number }>`select count(distinct s.device_id)::int as n from sales s where s.status = 'pending'`.execute(db);
  const backlogged = Number(counted.rows[0]?.n ?? 0);

  // How many of the page's rows are branches with a backlog, and how many are the rest. Limits and
  // offsets are literals (integers computed here): under generic plans a parameter would hide how
  // few rows are wanted from the planner.
  const fromBacklog = Math.max(0, Math.min(PER_PAGE, backlogged - offset));
  const fromRest = options.pendingOnly ? 0 : PER_PAGE - fromBacklog;
  const parts: RawBuilder<unknown>[] = [];
  if (fromBacklog > 0) {
    parts.push(sql`(select p.device_id, p.pending, p.oldest_pending_at ${withBacklog}
      order by p.oldest_pending_at, b.tenant_id, b.branch
      limit ${sql.lit(fromBacklog)} offset ${sql.lit(offset)})`);
  }
  if (fromRest > 0) {
    parts.push(sql`(select d.id as device_id, 0 as pending, null::timestamptz as oldest_pending_at
      from devices d${scoped ? sql` join tenants t on t.id = d.tenant_id` : sql``}
      where not exists (select 1 from sales s where s.device_id = d.id and s.status = 'pending') ${scopeConditions(scope)}
      order by d.tenant_id, d.branch
      limit ${sql.lit(fromRest)} offset ${sql.lit(Math.max(0, offset - backlogged))})`);
  }
  const rows = parts.length === 0 ? [] : (await sql<BacklogRow>`
    select t.id as tenant_id, t.name as tenant_name, t.tpin, t.partner_id, d.branch, d.branch_name, d.device_serial,
      d.initialized, d.sdc_id, shown.pending, shown.oldest_pending_at,
      (select count(*)::int from sales s where s.device_id = d.id and s.status = 'failed') as failed,
      q.retry_delay_ms, q.last_error, q.next_attempt_at,
      last.status as last_status, last.updated_at as last_outcome_at,
      a.threshold_sec, a.fired_at
    from (${sql.join(parts, sql` union all `)}) shown
    join devices d on d.id = shown.device_id
    join tenants t on t.id = d.tenant_id
    left join filing_queues q on q.device_id = d.id
    left join lateral (select s.status, s.updated_at from sales s where s.device_id = d.id and s.status <> 'pending' order by s.id desc limit 1) last on true
    left join backlog_alarms a on a.device_id = d.id
    order by shown.oldest_pending_at asc nulls last, t.id, d.branch`.execute(db)).rows;

  if (options.pendingOnly) return { rows, total: backlogged };
  const all = scoped
    ? await sql<{ n: number }>`select count(*)::int as n from devices d join tenants t on t.id = d.tenant_id where true ${scopeConditions(scope)}`.execute(db)
    : await sql<{ n: number }>`select count(*)::int as n from devices d`.execute(db);
  return { rows, total: Number(all.rows[0]?.n ?? 0) };
}
