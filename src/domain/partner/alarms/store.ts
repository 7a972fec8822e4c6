// SQL of the backlog alarms: which branches to look at, their backlog, their alarm row.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { BacklogAlarmsTable } from '../../../platform/db/tables/console.ts';
import { BRANCHES_WITH_BACKLOG_CTE } from '../../fiscal/sales/backlog.ts';

export type AlarmRow = Selectable<BacklogAlarmsTable>;

/**
 * Branches whose oldest pending document is older than `cutoff`, and branches with an open episode.
 * One row per branch with a backlog, not per pending document (BRANCHES_WITH_BACKLOG_CTE); each
 * branch's first pending document by id is its oldest (ids are drawn as documents are stored; two
 * commits racing may swap a few milliseconds, which can delay a branch by one pass — the decision
 * itself reads the exact age).
 */
export async function branchesToEvaluate(db: Kysely<DB>, cutoff: Date, limit: number): Promise<number[]> {
  const result = await sql<{ device_id: number }>`
    with recursive ${BRANCHES_WITH_BACKLOG_CTE}
    (select b.device_id from backlog b
     where b.device_id is not null
       and (select s.created_at from sales s where s.status = 'pending' and s.device_id = b.device_id order by s.id limit 1) <= ${cutoff}::timestamptz
     union
     select device_id from backlog_alarms where threshold_sec is not null)
    limit ${limit}`.execute(db);
  return result.rows.map((r) => Number(r.device_id));
}

/**
 * The branch's alarm row, locked for this transaction; undefined when another process holds it
 * (it is deciding for this branch right now, so this one need not).
 */
export async function claimAlarmRow(trx: Kysely<DB>, deviceId: number): Promise<AlarmRow | undefined> {
  await trx
    .insertInto('backlog_alarms')
    .values({ device_id: deviceId })
    .onConflict((oc) => oc.column('device_id').doNothing())
    .execute();
  return trx.selectFrom('backlog_alarms').selectAll().where('device_id', '=', deviceId).forUpdate().skipLocked().executeTakeFirst();
}

export interface PendingStats {
  pending: number;
  oldestPendingAt: Date | null;
  newestPendingId: number | null;
  /** Whether a document with an id up to the watermark is still pending. */
  watermarkPending: boolean;
}

export async function pendingStats(db: Kysely<DB>, deviceId: number, watermark: number | null): Promise<PendingStats> {
  const result = await sql<{ n: number; oldest: Date | null; newest: string | null; watermark_pending: boolean }>`
    select count(*)::int as n, min(created_at) as oldest, max(id)::text as newest,
      coalesce(bool_or(id <= ${watermark ?? 0}), false) as watermark_pending
    from sales where device_id = ${deviceId} and status = 'pending'`.execute(db);
  const row = result.rows[0]!;
  return {
    pending: Number(row.n),
    oldestPendingAt: row.oldest ? new Date(row.oldest) : null,
    newestPendingId: row.newest === null ? null : Number(row.newest),
    watermarkPending: Boolean(row.watermark_pending),
  };
}

export interface AlarmBranch {
  deviceId: number;
  tenantId: number;
  partnerId: number | null;
  tenantName: string;
  tpin: string;
  branch: string;
  branchName: string | null;
  deviceSerial: string;
  sdcId: string | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
}

export async function alarmBranch(db: Kysely<DB>, deviceId: number): Promise<AlarmBranch | undefined> {
  const row = await db
    .selectFrom('devices as d')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .leftJoin('filing_queues as q', 'q.device_id', 'd.id')
    .select([
      'd.id',
      't.id as tenant_id',
      't.partner_id',
      't.name',
      't.tpin',
      'd.branch',
      'd.branch_name',
      'd.device_serial',
      'd.sdc_id',
      'q.last_error',
      'q.next_attempt_at',
      'q.retry_delay_ms',
    ])
    .where('d.id', '=', deviceId)
    .executeTakeFirst();
  if (!row) return undefined;
  const unreachable = row.retry_delay_ms !== null && row.retry_delay_ms !== undefined;
  return {
    deviceId: row.id,
    tenantId: row.tenant_id,
    partnerId: row.partner_id,
    tenantName: row.name,
    tpin: row.tpin,
    branch: row.branch,
    branchName: row.branch_name,
    deviceSerial: row.device_serial,
    sdcId: row.sdc_id,
    lastError: row.last_error ?? null,
    nextAttemptAt: unreachable ? (row.next_attempt_at ?? null) : null,
  };
}

export async function openEpisode(
  db: Kysely<DB>,
  deviceId: number,
  values: { thresholdSec: number; episodeStartedAt: Date; watermarkSaleId: number; firedAt: Date },
): Promise<void> {
  await db
    .updateTable('backlog_alarms')
    .set({
      threshold_sec: values.thresholdSec,
      episode_started_at: values.episodeStartedAt,
      watermark_sale_id: values.watermarkSaleId,
      fired_at: values.firedAt,
      updated_at: sql`now()`,
    })
    .where('device_id', '=', deviceId)
    .execute();
}

export async function closeEpisode(db: Kysely<DB>, deviceId: number, at: Date): Promise<void> {
  await db
    .updateTable('backlog_alarms')
    .set({ threshold_sec: null, episode_started_at: null, watermark_sale_id: null, fired_at: at, updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .execute();
}
