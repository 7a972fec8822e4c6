// Feeds pulled per initialised branch from its VSDC with `lastReqDt` (customs lines, purchases,
// principals, the stock ledger):
// one row per branch in the feed's pull table says where the pull stands (the previous answer's
// `resultDt`, the next pull's time, failures) and who runs it now (a lease). Claimed with
// lease-sql's vocabulary, so any number of processes share the pulls; a branch is pulled by one
// at a time.
import { sql, type Kysely } from 'kysely';
import type { Config } from '../../../platform/config.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { DeviceTarget } from '../../../authorities/zra-vsdc/client.ts';
import type { SelectOutcome } from '../../../authorities/outcome.ts';
import { claimDueRows, fromNow, releasedSql } from '../../../platform/workers/lease-sql.ts';
import { fullBackfillDue } from '../../../platform/workers/backfill.ts';
import { initializedSql } from '../../kernel/devices/store.ts';
import { pullRequestDate, pullStepOf, vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import type { AppContext } from '../../kernel/context.ts';

/** The pull tables: same columns (ImportPullsTable), one per feed. */
export type BranchPullTable = 'import_pulls' | 'purchase_pulls' | 'principal_pulls' | 'stock_ledger_pulls';

export interface ClaimedPull {
  deviceId: number;
  tenantId: number;
  /** The previous answer's `resultDt`; null before the first answer. */
  lastReqDt: string | null;
  failures: number;
  target: DeviceTarget;
}

/**
 * Leases up to `limit` initialised branches whose next pull is due, first giving every
 * initialised branch its row (every branch on the process's first round and hourly, else those
 * initialised recently: backfill.ts). SKIP LOCKED plus the lease: two processes never pull one
 * branch. The due rows are an index range (0033's `<table>_due`), not every branch.
 */
export async function claimDuePulls(db: Kysely<DB>, table: BranchPullTable, leaseMs: number, limit: number): Promise<ClaimedPull[]> {
  const t = sql.table(table);
  await sql`
    insert into ${t} (device_id)
    select d.id from devices d
    where ${initializedSql('d', !fullBackfillDue(db, table))} and not exists (select 1 from ${t} p where p.device_id = d.id)
    on conflict (device_id) do nothing`.execute(db);
  const result = await sql<{ device_id: number; tenant_id: number; last_req_dt: string | null; failures: number; vsdc_base_url: string; branch: string; tpin: string }>`
    ${claimDueRows(table, { waiting: sql`d.initialized`, join: sql`join devices d on d.id = r.device_id`, leaseMs, limit })}
    select claimed.device_id, claimed.last_req_dt, claimed.failures, d.tenant_id, d.vsdc_base_url, d.branch, t.tpin
    from claimed
    join devices d on d.id = claimed.device_id
    join tenants t on t.id = d.tenant_id`.execute(db);
  return result.rows.map((r) => ({
    deviceId: r.device_id,
    tenantId: r.tenant_id,
    lastReqDt: r.last_req_dt,
    failures: r.failures,
    target: { baseUrl: r.vsdc_base_url, tpin: r.tpin, bhfId: r.branch },
  }));
}

/**
 * The pull got its answer: the branch's `lastReqDt` moves on to `resultDt` (kept when the answer
 * has none), the next pull is `intervalMs` away, the lease is released. Run it in the
 * transaction that stores what the answer brought.
 */
export async function finishPull(db: Kysely<DB>, table: BranchPullTable, deviceId: number, resultDt: string | null, intervalMs: number): Promise<void> {
  await sql`
    update ${sql.table(table)} set
      last_req_dt = coalesce(${resultDt}::text, last_req_dt),
      next_pull_at = ${fromNow(intervalMs)},
      ${releasedSql(table)},
      failures = 0,
      last_pulled_at = now(),
      last_error = null,
      updated_at = now()
    where device_id = ${deviceId}`.execute(db);
}

/** The pull got no usable answer: try again after `retryInMs`, keep `lastReqDt`. */
async function deferPull(db: Kysely<DB>, table: BranchPullTable, deviceId: number, retryInMs: number, error: string): Promise<void> {
  await sql`
    update ${sql.table(table)} set
      next_pull_at = ${fromNow(retryInMs)},
      ${releasedSql(table)},
      failures = failures + 1,
      last_error = ${error.slice(0, 1000)},
      updated_at = now()
    where device_id = ${deviceId}`.execute(db);
}

/**
 * One pull of a leased branch: `select` asks its VSDC for what changed since its `lastReqDt` (from one second before: pullRequestDate);
 * `save` stores an answer's data (null when nothing changed) and must call finishPull in its
 * transaction. A refusal waits the whole interval; no answer is retried sooner, with backoff.
 */
export async function pullBranch<T>(
  deps: { db: Kysely<DB>; config: Pick<Config, 'filingRetryMs'> },
  table: BranchPullTable,
  pull: ClaimedPull,
  intervalMs: number,
  select: (target: DeviceTarget, payload: { lastReqDt: string }) => Promise<SelectOutcome<T>>,
  save: (data: T | null, resultDt: string | null) => Promise<void>,
): Promise<void> {
  const step = pullStepOf(deps.config, await select(pull.target, { lastReqDt: pullRequestDate(pull.lastReqDt) }), intervalMs, pull.failures);
  if (step.kind === 'defer') return deferPull(deps.db, table, pull.deviceId, step.retryInMs, step.error);
  return save(step.data, step.resultDt);
}

/** Branches one round of a feed's pull leases at most. */
export const PULL_BATCH = 20;

/** A newly initialised branch is pulled within this long, whatever the feed's interval. */
const MAX_PULL_POLL_MS = 10_000;

/** One round of a feed's pull: every initialised branch whose pull is due, each pulled by `pullOne`. Returns how many. */
export async function pullDueBranchesOf(ctx: AppContext, table: BranchPullTable, pullOne: (pull: ClaimedPull) => Promise<void>): Promise<number> {
  const due = await claimDuePulls(ctx.db, table, vsdcLeaseMs(ctx.config), PULL_BATCH);
  await Promise.all(due.map(pullOne));
  return due.length;
}

/** The worker of a feed pulled every `intervalMs` (`round`: one round of its pull, pullDueBranchesOf). */
export function branchPullWorker(ctx: AppContext, name: string, intervalMs: number, round: (intervalMs: number) => Promise<number>): Worker {
  return pollingWorker({ name, pollMs: Math.min(intervalMs, MAX_PULL_POLL_MS), batchSize: PULL_BATCH, log: ctx.log, round: () => round(intervalMs) });
}
