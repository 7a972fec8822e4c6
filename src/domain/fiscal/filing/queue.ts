// The filing queue is the sales table itself (status `pending`); this adds one row per branch
// in `filing_queues` for its lease (who files it now) and its backoff (when to try again).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityDevice, AuthorityProfileId } from '../../../authorities/port/index.ts';
import { BRANCHES_WITH_BACKLOG_CTE } from '../sales/backlog.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import {
  fromNow,
  heldBy,
  isDue,
  isFree,
  isFreeOrHeldBy,
  leased,
  leasedInsertSql,
  released,
  releasedSql,
} from '../../../platform/workers/lease-sql.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { deviceSecrets, sealedDeviceColumns, type DeviceSecrets, type SealedDeviceColumns } from '../../kernel/authority-rows/devices.ts';
import { pendingJson, toPending, type PendingDocument, type PendingJson } from './pending-documents.ts';

/**
 * Branches with pending documents that nobody leases and whose backoff has passed.
 *
 * One row per branch, not per document (a national backlog is 100,000s of documents): the
 * branches with a backlog come from BRANCHES_WITH_BACKLOG_CTE, and each one's queue row is looked
 * up by its key (a scalar subquery, so the planner cannot turn it into a
 * scan of every queue row); the walk stops at `limit` ready branches.
 */
export async function branchesReady(db: Kysely<DB>, owner: string, limit: number): Promise<number[]> {
  const result = await branchesReadySql(owner, limit).execute(db);
  return result.rows.map((r) => Number(r.device_id));
}

/** branchesReady's statement (its text: docs/sql/, `npm run sql`). */
export function branchesReadySql(owner: string, limit: number) {
  return sql<{ device_id: number }>`
    with recursive ${BRANCHES_WITH_BACKLOG_CTE}
    select b.device_id from backlog b
    where b.device_id is not null
      and coalesce((select ${isFreeOrHeldBy('filing_queues', owner, 'q')} and ${isDue('filing_queues', 'q')} from filing_queues q where q.device_id = b.device_id), true)
    limit ${limit}`;
}

export interface BranchTarget {
  deviceId: number;
  /** Which adapter files for the branch (its tenant's authority and its protocol). */
  profile: AuthorityProfileId;
  baseUrl: string;
  branch: string;
  sdcId: string | null;
  mrcNo: string | null;
  tenantId: number;
  partnerId: number | null;
  /** The device's key, credential and production mark, opened from the claim's own row. */
  secrets: DeviceSecrets;
}

export interface ClaimedBranch {
  /** The current backoff (null while the VSDC answers). */
  retryDelayMs: number | null;
  target: BranchTarget;
  /** The first pending documents, in invoice order. */
  batch: PendingDocument[];
}

/**
 * Takes the leases of those branches that are free and past their backoff (creating their rows
 * on first use), and in the same statement reads where to file each and its first pending
 * documents. Rows are locked in device order, so processes claiming overlapping sets never
 * deadlock; two processes claiming one branch serialise on its row and only one gets it. The
 * branches not claimed are missing from the answer.
 *
 * A branch another process holds (as this statement's snapshot sees it) is not even tried: its
 * row may be locked by that process's open outcome transaction (the outcomes' group commit keeps
 * several branches' rows locked until its one commit), and waiting on it would queue every
 * claimer behind every other process's commits. Nothing is lost by skipping it: the holder hears
 * the same wake-up and looks for that branch's next documents when its turn ends.
 */
export async function claimBranches(
  db: Kysely<DB>,
  box: SecretBox,
  deviceIds: readonly number[],
  owner: string,
  leaseMs: number,
  batchSize: number,
): Promise<Map<number, ClaimedBranch>> {
  const result = await claimBranchesSql(deviceIds, owner, leaseMs, batchSize).execute(db);
  const claimed = new Map<number, ClaimedBranch>();
  for (const row of result.rows) {
    const deviceId = Number(row.device_id);
    claimed.set(deviceId, {
      retryDelayMs: row.retry_delay_ms,
      target: {
        deviceId,
        profile: profileOf(row.authority, row.protocol),
        baseUrl: row.vsdc_base_url,
        branch: row.branch,
        sdcId: row.sdc_id,
        mrcNo: row.mrc_no,
        tenantId: row.tenant_id,
        partnerId: row.partner_id,
        secrets: deviceSecrets(box, row),
      },
      batch: toPending(row.batch),
    });
  }
  return claimed;
}

/** claimBranches' statement (its text: docs/sql/, `npm run sql`). */
export function claimBranchesSql(deviceIds: readonly number[], owner: string, leaseMs: number, batchSize: number) {
  const ids = [...new Set(deviceIds)].sort((a, b) => a - b);
  const lease = leasedInsertSql('filing_queues', { holder: owner, ms: leaseMs });
  return sql<
    {
      device_id: number;
      retry_delay_ms: number | null;
      vsdc_base_url: string;
      branch: string;
      sdc_id: string | null;
      mrc_no: string | null;
      tenant_id: number;
      partner_id: number | null;
      batch: PendingJson[];
      authority: string;
      protocol: string;
    } & SealedDeviceColumns
  >`${prepared}
    with claim as (
      insert into filing_queues (device_id, ${lease.columns}, next_attempt_at)
      select wanted.id, ${lease.values}, now()
      from unnest(${ids}::int[]) with ordinality as wanted(id, n)
      where not exists (select 1 from filing_queues held where held.device_id = wanted.id and not (${isFreeOrHeldBy('filing_queues', owner, 'held')} and ${isDue('filing_queues', 'held')}))
      order by wanted.n
      on conflict (device_id) do update set ${lease.fromExcluded}, updated_at = now()
      where ${isFreeOrHeldBy('filing_queues', owner, 'filing_queues')} and ${isDue('filing_queues', 'filing_queues')}
      returning device_id, retry_delay_ms
    )
    select claim.device_id, claim.retry_delay_ms, d.vsdc_base_url, d.branch, d.sdc_id, d.mrc_no, t.id as tenant_id, t.partner_id, t.authority, d.protocol, ${sealedDeviceColumns('d')},
      ${pendingJson(sql<number>`claim.device_id`, batchSize)} as batch
    from claim join devices d on d.id = claim.device_id join tenants t on t.id = d.tenant_id`;
}

/**
 * The branch's next pending documents; when there are none, the lease is released in the same
 * statement. (A document stored just after is announced by its own wake-up.)
 */
export async function nextBatchOrRelease(db: Kysely<DB>, deviceId: number, owner: string, batchSize: number): Promise<PendingDocument[]> {
  const result = await sql<{ batch: PendingJson[] }>`${prepared}
    with next as (select ${pendingJson(deviceId, batchSize)} as batch),
    released as (
      update filing_queues set ${releasedSql('filing_queues')}, updated_at = now()
      where device_id = ${deviceId} and ${heldBy('filing_queues', owner)} and json_array_length((select batch from next)) = 0
    )
    select batch from next`.execute(db);
  return toPending(result.rows[0]?.batch ?? []);
}

/** Extends the lease; false when another process holds it now. */
export async function renewLease(db: Kysely<DB>, deviceId: number, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('filing_queues')
    .set({ ...leased('filing_queues', { ms: leaseMs }), updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('filing_queues', owner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Extends the leases `owner` holds on these branches, in one statement (the worker's heartbeat:
 * a branch waiting for a VSDC host slot or a slow VSDC records no outcome to renew it by).
 */
export async function renewLeases(db: Kysely<DB>, deviceIds: readonly number[], owner: string, leaseMs: number): Promise<number> {
  if (deviceIds.length === 0) return 0;
  const result = await db
    .updateTable('filing_queues')
    .set({ ...leased('filing_queues', { ms: leaseMs }), updated_at: sql`now()` })
    .where(sql<boolean>`device_id = any(${[...deviceIds]}::int[])`)
    .where(heldBy('filing_queues', owner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function releaseBranch(db: Kysely<DB>, deviceId: number, owner: string): Promise<void> {
  await db
    .updateTable('filing_queues')
    .set({ ...released('filing_queues'), updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .where(heldBy('filing_queues', owner))
    .execute();
}

/** The VSDC did not answer: release the branch until `delayMs` from now and grow the backoff. */
export async function deferBranch(
  db: Kysely<DB>,
  deviceId: number,
  owner: string,
  delayMs: number,
  nextDelayMs: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('filing_queues')
    .set({
      ...released('filing_queues'),
      next_attempt_at: fromNow(delayMs),
      retry_delay_ms: nextDelayMs,
      last_error: error.slice(0, 1000),
      updated_at: sql`now()`,
    })
    .where('device_id', '=', deviceId)
    .where(heldBy('filing_queues', owner))
    .execute();
}

/**
 * The VSDC addresses with branches in backoff that were not probed in the last `intervalMs`, each
 * with the branch there probed longest ago (so the branches of an address take turns, should
 * one of them fail for reasons of its own); that branch is marked probed in the same statement.
 * Two processes may rarely probe one address in the same interval; a probe only reads. The
 * update finds its rows by key (`= any(array(…))`): as a join, its plan read every queue row to
 * mark the few probed.
 */
/** Each: one branch of a VSDC address whose branches are in backoff, what a probe of that address calls. */
export async function claimProbes(db: Kysely<DB>, box: SecretBox, intervalMs: number): Promise<AuthorityDevice[]> {
  const result = await sql<
    { vsdc_base_url: string; tpin: string; branch: string; authority: string; protocol: string } & SealedDeviceColumns
  >`
    with backed_off as (
      select q.device_id, q.probed_at, d.vsdc_base_url, d.branch, d.tenant_id, d.protocol
      from filing_queues q join devices d on d.id = q.device_id
      where q.retry_delay_ms is not null and not ${isDue('filing_queues', 'q')} and ${isFree('filing_queues', 'q')}
    ),
    due as (
      select distinct on (b.vsdc_base_url) b.device_id, b.vsdc_base_url, b.branch, b.tenant_id, b.protocol
      from backed_off b
      where not exists (
        select 1 from backed_off recent
        where recent.vsdc_base_url = b.vsdc_base_url and recent.probed_at > now() - make_interval(secs => ${intervalMs / 1000}))
      order by b.vsdc_base_url, b.probed_at nulls first, b.device_id
    ),
    probed as (
      update filing_queues q set probed_at = now()
      where q.device_id = any(array(select due.device_id from due)) and q.retry_delay_ms is not null
      returning q.device_id)
    select due.vsdc_base_url, t.tpin, due.branch, t.authority, due.protocol, ${sealedDeviceColumns('d')}
    from due join probed on probed.device_id = due.device_id join tenants t on t.id = due.tenant_id join devices d on d.id = due.device_id`.execute(
    db,
  );
  return result.rows.map((r) => ({
    profile: profileOf(r.authority, r.protocol),
    baseUrl: r.vsdc_base_url,
    tpin: r.tpin,
    branch: r.branch,
    ...deviceSecrets(box, r),
  }));
}

/**
 * The VSDC at `baseUrl` answers again: every branch there that waits out a backoff is due now
 * (its backoff length is kept until a document is filed). Returns those branches.
 */
export async function wakeAddress(db: Kysely<DB>, baseUrl: string): Promise<number[]> {
  const result = await sql<{ device_id: number }>`
    update filing_queues q set next_attempt_at = now()
    from devices d
    where d.id = q.device_id and d.vsdc_base_url = ${baseUrl} and q.retry_delay_ms is not null and not ${isDue('filing_queues', 'q')}
    returning q.device_id`.execute(db);
  return result.rows.map((r) => Number(r.device_id));
}

/** Embedded database: one process only, so any lease found at start-up was left by a crash. */
export async function clearLeases(db: Kysely<DB>): Promise<void> {
  await db.updateTable('filing_queues').set(released('filing_queues')).where('lease_owner', 'is not', null).execute();
}
