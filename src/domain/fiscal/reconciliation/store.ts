// All SQL of reconciliation: runs (a leased job per branch and date range), the documents each
// run checks (listed once when the run first starts, each checked once), and their outcomes.
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { deviceSecrets, sealedDeviceColumns, type DeviceSecrets, type SealedDeviceColumns } from '../../kernel/authority-rows/devices.ts';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityProfileId } from '../../../authorities/port/index.ts';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type {
  ReconciliationOutcome,
  ReconciliationRequester,
  ReconciliationResultsTable,
  ReconciliationRunsTable,
} from '../../../platform/db/tables/reconciliation.ts';
import { offsetOf, PER_PAGE } from '../../../platform/http/pagination.ts';
import {
  fromNow,
  heldBy,
  isDue,
  isFree,
  isHeld,
  leased,
  leasedSql,
  released,
  releasedSql,
  renewedOrReleasedSql,
} from '../../../platform/workers/lease-sql.ts';
import { issuedByName, type SaleLineRow, type SaleRow } from '../sales/store.ts';

export type RunRow = Selectable<ReconciliationRunsTable>;
export type ResultRow = Selectable<ReconciliationResultsTable>;

interface NewRun {
  tenantId: number;
  deviceId: number;
  branch: string;
  from: string;
  to: string;
  pendingAfterSec: number;
  requestedBy: ReconciliationRequester;
}

/** The new run, or undefined when the branch already has one that is not completed. */
export async function insertRun(db: Kysely<DB>, run: NewRun): Promise<RunRow | undefined> {
  const result = await sql<RunRow>`
    insert into reconciliation_runs (tenant_id, device_id, branch, date_from, date_to, pending_after_sec, requested_by)
    values (${run.tenantId}, ${run.deviceId}, ${run.branch}, ${run.from}, ${run.to}, ${run.pendingAfterSec}, ${run.requestedBy})
    on conflict (device_id) where status <> 'completed' do nothing
    returning *`.execute(db);
  return result.rows[0];
}

export async function openRunOfDevice(db: Kysely<DB>, deviceId: number): Promise<RunRow | undefined> {
  return db
    .selectFrom('reconciliation_runs')
    .selectAll()
    .where('device_id', '=', deviceId)
    .where('status', '<>', 'completed')
    .executeTakeFirst();
}

export async function findRun(db: Kysely<DB>, tenantId: number, id: number): Promise<RunRow | undefined> {
  return db.selectFrom('reconciliation_runs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function listRuns(
  db: Kysely<DB>,
  tenantId: number,
  filter: { branch?: string },
  page: number,
): Promise<{ rows: RunRow[]; total: number }> {
  let query = db.selectFrom('reconciliation_runs').where('tenant_id', '=', tenantId);
  if (filter.branch !== undefined) query = query.where('branch', '=', filter.branch);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** A run's checked documents, in invoice order; by default those that need a look (not `match`). */
export async function listResults(
  db: Kysely<DB>,
  runId: number,
  outcome: ReconciliationOutcome | 'attention' | 'all',
  page: number,
): Promise<{ rows: ResultRow[]; total: number }> {
  let query = db.selectFrom('reconciliation_results').where('run_id', '=', runId).where('outcome', 'is not', null);
  if (outcome === 'attention') query = query.where('outcome', 'in', ['mismatch', 'unknown', 'adopted']);
  else if (outcome !== 'all') query = query.where('outcome', '=', outcome);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('invoice_no').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** A claimed run, and whether its documents still have to be listed (its first claim). */
export interface ClaimedRun {
  run: RunRow;
  /** Which adapter looks the branch's documents up. */
  profile: AuthorityProfileId;
  tpin: string;
  baseUrl: string;
  sdcId: string | null;
  mrcNo: string | null;
  partnerId: number | null;
  /** The device's key, credential and production mark, opened. */
  secrets: DeviceSecrets;
}

/**
 * Leases one run that is not completed, free and due (oldest due first; `runId`: that run only),
 * marking it running. Any number of processes may claim: a run is held by one at a time.
 */
export async function claimRun(
  db: Kysely<DB>,
  box: SecretBox,
  owner: string,
  leaseMs: number,
  runId?: number,
): Promise<ClaimedRun | undefined> {
  const only = runId === undefined ? sql`` : sql` and r.id = ${runId}`;
  const result = await sql<
    RunRow & {
      tpin: string;
      vsdc_base_url: string;
      sdc_id: string | null;
      mrc_no: string | null;
      partner_id: number | null;
      authority: string;
      protocol: string;
    } & SealedDeviceColumns
  >`
    with due as (
      select r.id from reconciliation_runs r
      where r.status <> 'completed' and ${isFree('reconciliation_runs', 'r')} and ${isDue('reconciliation_runs', 'r')} ${only}
      order by r.next_attempt_at, r.id
      limit 1
      for update of r skip locked
    ),
    claimed as (
      update reconciliation_runs r set ${leasedSql('reconciliation_runs', { holder: owner, ms: leaseMs })}, status = 'running',
        started_at = coalesce(r.started_at, now()), updated_at = now()
      from due where r.id = due.id
      returning r.*
    )
    select claimed.*, t.tpin, t.partner_id, t.authority, d.vsdc_base_url, d.sdc_id, d.mrc_no, d.protocol, ${sealedDeviceColumns('d')}
    from claimed join devices d on d.id = claimed.device_id join tenants t on t.id = claimed.tenant_id`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  const {
    tpin,
    vsdc_base_url,
    sdc_id,
    mrc_no,
    partner_id,
    authority,
    protocol,
    device_key_id,
    device_unit_key_sealed,
    device_api_credential_sealed,
    device_production,
    ...run
  } = row;
  const secrets = deviceSecrets(box, { device_key_id, device_unit_key_sealed, device_api_credential_sealed, device_production });
  return {
    run: run as RunRow,
    profile: profileOf(authority, protocol),
    tpin,
    baseUrl: vsdc_base_url,
    sdcId: sdc_id,
    mrcNo: mrc_no,
    partnerId: partner_id,
    secrets,
  };
}

/**
 * Lists the run's documents in one statement (so a crash lists them again, never half): the
 * branch's uploaded fiscal (normal) documents of the range, and its pending ones stored at least
 * `pending_after_sec` before the run started. Sets the run's total.
 */
export async function listDocuments(db: Kysely<DB>, run: RunRow, owner: string): Promise<RunRow | undefined> {
  const from = new Date(`${run.date_from}T00:00:00Z`);
  const until = new Date(new Date(`${run.date_to}T00:00:00Z`).getTime() + 86_400_000);
  const result = await sql<RunRow>`
    with listed as (
      insert into reconciliation_results (run_id, sale_id, invoice_no)
      select ${run.id}, s.id, s.invoice_no from sales s, reconciliation_runs r
      where r.id = ${run.id} and s.device_id = ${run.device_id} and s.occurred_at >= ${from} and s.occurred_at < ${until}
        and s.sales_type = 'normal'
        and (s.status = 'uploaded' or (s.status = 'pending' and s.created_at <= r.started_at - make_interval(secs => r.pending_after_sec)))
      on conflict do nothing
      returning 1
    )
    update reconciliation_runs set total = (select count(*) from listed)::int, listed_at = now(), updated_at = now()
    where id = ${run.id} and ${heldBy('reconciliation_runs', owner)} and listed_at is null
    returning *`.execute(db);
  return result.rows[0];
}

/** The run's next documents to check, in invoice order, as they are now. */
export async function nextToCheck(db: Kysely<DB>, runId: number, limit: number): Promise<SaleRow[]> {
  const result = await sql<SaleRow>`
    select s.*, ${issuedByName('s')} as issued_by_name from reconciliation_results x join sales s on s.id = x.sale_id
    where x.run_id = ${runId} and x.outcome is null
    order by x.invoice_no limit ${limit}`.execute(db);
  return result.rows;
}

export async function linesOfSale(db: Kysely<DB>, saleId: number): Promise<SaleLineRow[]> {
  return db.selectFrom('sale_lines').selectAll().where('sale_id', '=', saleId).orderBy('line').execute();
}

export async function reloadSale(db: Kysely<DB>, saleId: number): Promise<SaleRow> {
  return db.selectFrom('sales').selectAll().where('id', '=', saleId).executeTakeFirstOrThrow();
}

/** Whether a document the device stored before document `saleId` is still pending (its turn comes first: the filing order). */
export async function earlierPending(db: Kysely<DB>, deviceId: number, saleId: number): Promise<boolean> {
  const row = await db
    .selectFrom('sales')
    .select('id')
    .where('device_id', '=', deviceId)
    .where('status', '=', 'pending')
    .where('id', '<', saleId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a filer holds the branch right now (live filing goes first). */
export async function filingInProgress(db: Kysely<DB>, deviceId: number): Promise<boolean> {
  const row = await sql<{
    held: boolean;
  }>`select ${isHeld('filing_queues', 'q')} as held from filing_queues q where q.device_id = ${deviceId}`.execute(db);
  return row.rows[0]?.held === true;
}

const COUNTER: Record<ReconciliationOutcome, string> = {
  match: 'matches',
  mismatch: 'mismatches',
  unknown: 'unknown',
  adopted: 'adopted',
  not_filed: 'not_filed',
};

/**
 * Records one document's outcome and counts it on the run, renewing the lease; the run is
 * completed when it was the last. Nothing is written when the document was already checked or
 * the lease is lost: undefined then. Call inside the transaction that stores its event.
 */
export async function recordResult(
  db: Kysely<DB>,
  run: { id: number; owner: string; leaseMs: number },
  saleId: number,
  outcome: ReconciliationOutcome,
  differences: string | null,
): Promise<{ run: RunRow; result: ResultRow } | undefined> {
  const counter = sql.ref(COUNTER[outcome]);
  const result = await sql<RunRow & { result_invoice_no: number; result_checked_at: Date }>`
    with lease as (
      select id from reconciliation_runs where id = ${run.id} and ${heldBy('reconciliation_runs', run.owner)} for update
    ),
    checked as (
      update reconciliation_results set outcome = ${outcome}, differences = ${differences}, checked_at = now()
      where run_id = (select id from lease) and sale_id = ${saleId} and outcome is null
      returning invoice_no, checked_at
    ),
    done as (select checked + 1 >= total as last from reconciliation_runs where id = ${run.id})
    update reconciliation_runs set checked = checked + 1, ${counter} = ${counter} + 1,
      retry_delay_ms = null, last_error = null, updated_at = now(),
      status = case when (select last from done) then 'completed' else status end,
      finished_at = case when (select last from done) then now() else finished_at end,
      ${renewedOrReleasedSql('reconciliation_runs', sql`(select last from done)`, fromNow(run.leaseMs))}
    where id = ${run.id} and exists (select 1 from checked)
    returning reconciliation_runs.*, (select invoice_no from checked) as result_invoice_no, (select checked_at from checked) as result_checked_at`.execute(
    db,
  );
  const row = result.rows[0];
  if (!row) return undefined;
  const { result_invoice_no, result_checked_at, ...runRow } = row;
  return {
    run: runRow as RunRow,
    result: { run_id: run.id, sale_id: saleId, invoice_no: result_invoice_no, outcome, differences, checked_at: result_checked_at },
  };
}

/** A run with nothing (left) to check: completed. */
export async function completeIfDone(db: Kysely<DB>, runId: number, owner: string): Promise<boolean> {
  const result = await sql`
    update reconciliation_runs set status = 'completed', finished_at = now(), ${releasedSql('reconciliation_runs')}, updated_at = now()
    where id = ${runId} and ${heldBy('reconciliation_runs', owner)}
      and not exists (select 1 from reconciliation_results where run_id = ${runId} and outcome is null)`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

export async function renewRunLease(db: Kysely<DB>, runId: number, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('reconciliation_runs')
    .set({ ...leased('reconciliation_runs', { ms: leaseMs }), updated_at: sql`now()` })
    .where('id', '=', runId)
    .where(heldBy('reconciliation_runs', owner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the run back, due again after `delayMs` (0: at once; the next round may take it). */
export async function releaseRun(db: Kysely<DB>, runId: number, owner: string, delayMs = 0): Promise<void> {
  await db
    .updateTable('reconciliation_runs')
    .set({ ...released('reconciliation_runs'), next_attempt_at: fromNow(delayMs), updated_at: sql`now()` })
    .where('id', '=', runId)
    .where(heldBy('reconciliation_runs', owner))
    .execute();
}

/** The VSDC did not answer: give the run back until `delayMs` from now, with the next backoff. */
export async function deferRun(
  db: Kysely<DB>,
  runId: number,
  owner: string,
  delayMs: number,
  nextDelayMs: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('reconciliation_runs')
    .set({
      ...released('reconciliation_runs'),
      next_attempt_at: fromNow(delayMs),
      retry_delay_ms: nextDelayMs,
      last_error: error.slice(0, 1000),
      updated_at: sql`now()`,
    })
    .where('id', '=', runId)
    .where(heldBy('reconciliation_runs', owner))
    .execute();
}

/** Embedded database: one process only, so a lease found at start-up was left by a crash. */
export async function clearRunLeases(db: Kysely<DB>): Promise<void> {
  await db.updateTable('reconciliation_runs').set(released('reconciliation_runs')).where('lease_owner', 'is not', null).execute();
}

export async function runById(db: Kysely<DB>, runId: number): Promise<RunRow | undefined> {
  return db.selectFrom('reconciliation_runs').selectAll().where('id', '=', runId).executeTakeFirst();
}
