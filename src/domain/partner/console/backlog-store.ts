// Per-branch backlog: pending documents, the oldest one's age, refusals, and how its VSDC is doing.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { offsetOf, PER_PAGE } from '../../../platform/http/pagination.ts';
import { branchesByOldestBacklog } from '../../fiscal/sales/backlog.ts';
import { partnerLookup, scopeConditions, type Scope } from './scope.ts';

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
 * their oldest pending document (two stored at the same time: the one stored first), then every
 * other branch by (merchant, branch).
 *
 * A page reads only what it shows (200,000 branches). The branches with a backlog come
 * from a walk of the oldest pending documents (`branchesByOldestBacklog`), the rest in the (tenant_id,
 * branch) order of `devices_tenant_id_branch_key`, skipping those with a backlog by a probe of
 * `sales_pending` per row; the details (counts, refusals, last outcome, queue, alarm) are read for
 * the page's 20 branches alone, and the total of branches in scope is the partner's kept count
 * (`partner_branch_counts`). Only `pendingOnly`'s total, once the walk has not met every branch
 * with a backlog, still counts them.
 */
export async function listBacklog(
  db: Kysely<DB>,
  scope: Scope,
  options: { page: number; pendingOnly?: boolean },
): Promise<{ rows: BacklogRow[]; total: number }> {
  const offset = offsetOf(options.page);
  const backlog = await oldestBacklogs(db, scope, offset + PER_PAGE);
  const shown = backlog.devices.slice(offset, offset + PER_PAGE);
  const fromRest = options.pendingOnly || !backlog.all ? 0 : PER_PAGE - shown.length;
  if (fromRest > 0) shown.push(...(await branchesWithoutBacklog(db, scope, fromRest, Math.max(0, offset - backlog.devices.length))));
  const rows =
    shown.length === 0
      ? []
      : (
          await sql<BacklogRow>`
    select t.id as tenant_id, t.name as tenant_name, t.tpin, t.partner_id, d.branch, d.branch_name, d.device_serial,
      d.initialized, d.sdc_id, p.pending, p.oldest_pending_at,
      (select count(*)::int from sales s where s.device_id = d.id and s.status = 'failed') as failed,
      q.retry_delay_ms, q.last_error, q.next_attempt_at,
      last.status as last_status, last.updated_at as last_outcome_at,
      a.threshold_sec, a.fired_at
    from unnest(${shown}::int[]) with ordinality as shown(device_id, position)
    join devices d on d.id = shown.device_id
    join tenants t on t.id = d.tenant_id
    cross join lateral (select count(*)::int as pending, min(s.created_at) as oldest_pending_at from sales s where s.device_id = d.id and s.status = 'pending') p
    left join filing_queues q on q.device_id = d.id
    left join lateral (select s.status, s.updated_at from sales s where s.device_id = d.id and s.status <> 'pending' order by s.id desc limit 1) last on true
    left join backlog_alarms a on a.device_id = d.id
    order by shown.position`.execute(db)
        ).rows;
  const total = options.pendingOnly
    ? backlog.all
      ? backlog.devices.length
      : await countBacklogs(db, scope)
    : await countBranches(db, scope);
  return { rows, total };
}

/**
 * The devices of the branches in scope with a backlog, the oldest pending document first (two
 * stored at the same time: the one stored first): the first `wanted` at least, or every one
 * (`all`). A partner's and the operator's come from the walk of the oldest pending documents; a
 * merchant's are its own pending documents, all of them.
 */
async function oldestBacklogs(db: Kysely<DB>, scope: Scope, wanted: number): Promise<{ devices: number[]; all: boolean }> {
  if (scope.tenantId !== undefined) {
    const rows = await sql<{ device_id: number }>`
      select s.device_id from sales s join tenants t on t.id = s.tenant_id
      where s.status = 'pending' and s.tenant_id = ${scope.tenantId} ${scopeConditions(scope)}
      group by s.device_id
      order by min(s.created_at), (array_agg(s.id order by s.created_at, s.id))[1]`.execute(db);
    return { devices: rows.rows.map((r) => r.device_id), all: true };
  }
  // A partner's merchants are told by a lookup per document read: with the partner in the scan's
  // filter, a generic plan expects few of them and reads and sorts every pending document instead
  // of the oldest few.
  return branchesByOldestBacklog(db, wanted, scope.partnerId === undefined ? undefined : partnerLookup('w', scope.partnerId));
}

/** The devices of branches in scope without a backlog, by merchant and branch. */
async function branchesWithoutBacklog(db: Kysely<DB>, scope: Scope, limit: number, offset: number): Promise<number[]> {
  const scoped = scope.partnerId !== undefined || scope.tenantId !== undefined;
  // Limits and offsets are literals (integers computed here): under generic plans a parameter
  // would hide how few rows are wanted from the planner.
  const rows = await sql<{ id: number }>`
    select d.id from devices d${scoped ? sql` join tenants t on t.id = d.tenant_id` : sql``}
    where not exists (select 1 from sales s where s.device_id = d.id and s.status = 'pending') ${scopeConditions(scope)}
    order by d.tenant_id, d.branch
    limit ${sql.lit(limit)} offset ${sql.lit(offset)}`.execute(db);
  return rows.rows.map((r) => r.id);
}

/** Branches in scope with a backlog: every one with a pending document is met once. */
async function countBacklogs(db: Kysely<DB>, scope: Scope): Promise<number> {
  const scoped = scope.partnerId !== undefined || scope.tenantId !== undefined;
  const counted = scoped
    ? await sql<{ n: number }>`
        select count(*)::int as n
        from (select distinct s.device_id, s.tenant_id from sales s where s.status = 'pending'${scope.tenantId === undefined ? sql`` : sql` and s.tenant_id = ${scope.tenantId}`}) p
        join tenants t on t.id = p.tenant_id where true ${scopeConditions(scope)}`.execute(db)
    : await sql<{ n: number }>`select count(distinct s.device_id)::int as n from sales s where s.status = 'pending'`.execute(db);
  return Number(counted.rows[0]?.n ?? 0);
}

/** Branches in scope: a merchant's are counted, a partner's and everyone's are kept (partner_branch_counts). */
async function countBranches(db: Kysely<DB>, scope: Scope): Promise<number> {
  const counted =
    scope.tenantId !== undefined
      ? await sql<{
          n: number;
        }>`select count(*)::int as n from devices d join tenants t on t.id = d.tenant_id where d.tenant_id = ${scope.tenantId} ${scopeConditions(scope)}`.execute(
          db,
        )
      : scope.partnerId !== undefined
        ? await sql<{
            n: number;
          }>`select coalesce(sum(branches), 0)::int as n from partner_branch_counts where partner_id = ${scope.partnerId}`.execute(db)
        : await sql<{ n: number }>`select coalesce(sum(branches), 0)::int as n from partner_branch_counts`.execute(db);
  return Number(counted.rows[0]?.n ?? 0);
}
