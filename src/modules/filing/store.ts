// The filing queue is the sales table itself (status `pending`); this adds one row per branch
// in `filing_queues` for its lease (who files it now) and its backoff (when to try again).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { FiscalReceipt } from '../../vsdc/sales-body.ts';
import type { SaleLineRow, SaleRow } from '../sales/store.ts';

/** Branches with pending documents that nobody leases and whose backoff has passed. */
export async function branchesReady(db: Kysely<DB>, limit: number): Promise<number[]> {
  const result = await sql<{ device_id: number }>`
    select p.device_id from (select distinct device_id from sales where status = 'pending') p
    left join filing_queues q on q.device_id = p.device_id
    where q.device_id is null
       or ((q.lease_until is null or q.lease_until < now()) and q.next_attempt_at <= now())
    limit ${limit}`.execute(db);
  return result.rows.map((r) => Number(r.device_id));
}

export interface BranchTarget {
  deviceId: number;
  baseUrl: string;
  branch: string;
  sdcId: string | null;
  mrcNo: string | null;
  tenantId: number;
  partnerId: number | null;
}

export interface PendingDocument {
  row: SaleRow;
  lines: SaleLineRow[];
}

export interface ClaimedBranch {
  /** The current backoff (null while the VSDC answers). */
  retryDelayMs: number | null;
  target: BranchTarget;
  /** The first pending documents, in invoice order. */
  batch: PendingDocument[];
}

/** The branch's next pending documents with their lines, as one json array (invoice order). */
function pendingJson(deviceId: number, limit: number) {
  return sql<PendingJson[]>`coalesce((
    select json_agg(p order by p.invoice_no) from (
      select s.*, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'amount', l.amount::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = ${deviceId} and s.status = 'pending'
      order by s.invoice_no
      limit ${limit}) p), '[]'::json)`;
}

/** A sales row as json_agg renders it: timestamps as text, numerics as numbers. */
type PendingJson = Omit<SaleRow, 'occurred_at' | 'created_at' | 'updated_at' | 'published_at' | 'net' | 'vat' | 'total'> & {
  occurred_at: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  net: number | string;
  vat: number | string;
  total: number | string;
  lines: SaleLineRow[];
};

function toPending(docs: PendingJson[]): PendingDocument[] {
  return docs.map(({ lines, ...row }) => ({
    row: {
      ...row,
      occurred_at: new Date(row.occurred_at),
      created_at: new Date(row.created_at),
      updated_at: new Date(row.updated_at),
      published_at: row.published_at === null ? null : new Date(row.published_at),
      net: String(row.net),
      vat: String(row.vat),
      total: String(row.total),
    },
    lines,
  }));
}

/**
 * Takes the branch's lease if it is free and its backoff has passed (creating its row on first
 * use), and in the same statement reads where to file and the first pending documents. Two
 * processes claiming at once serialise on the row and only one gets it. Undefined when not
 * claimed.
 */
export async function claimBranch(db: Kysely<DB>, deviceId: number, owner: string, leaseMs: number, batchSize: number): Promise<ClaimedBranch | undefined> {
  const result = await sql<{
    retry_delay_ms: number | null;
    vsdc_base_url: string;
    branch: string;
    sdc_id: string | null;
    mrc_no: string | null;
    tenant_id: number;
    partner_id: number | null;
    batch: PendingJson[];
  }>`
    with claim as (
      insert into filing_queues (device_id, lease_owner, lease_until, next_attempt_at)
      values (${deviceId}, ${owner}, now() + make_interval(secs => ${leaseMs / 1000}), now())
      on conflict (device_id) do update set lease_owner = excluded.lease_owner, lease_until = excluded.lease_until, updated_at = now()
      where (filing_queues.lease_until is null or filing_queues.lease_until < now()) and filing_queues.next_attempt_at <= now()
      returning device_id, retry_delay_ms
    )
    select claim.retry_delay_ms, d.vsdc_base_url, d.branch, d.sdc_id, d.mrc_no, t.id as tenant_id, t.partner_id,
      ${pendingJson(deviceId, batchSize)} as batch
    from claim join devices d on d.id = claim.device_id join tenants t on t.id = d.tenant_id`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    retryDelayMs: row.retry_delay_ms,
    target: { deviceId, baseUrl: row.vsdc_base_url, branch: row.branch, sdcId: row.sdc_id, mrcNo: row.mrc_no, tenantId: row.tenant_id, partnerId: row.partner_id },
    batch: toPending(row.batch),
  };
}

/**
 * The branch's next pending documents; when there are none, the lease is released in the same
 * statement. (A document stored just after is announced by its own wake-up.)
 */
export async function nextBatchOrRelease(db: Kysely<DB>, deviceId: number, owner: string, batchSize: number): Promise<PendingDocument[]> {
  const result = await sql<{ batch: PendingJson[] }>`
    with next as (select ${pendingJson(deviceId, batchSize)} as batch),
    released as (
      update filing_queues set lease_owner = null, lease_until = null, updated_at = now()
      where device_id = ${deviceId} and lease_owner = ${owner} and json_array_length((select batch from next)) = 0
    )
    select batch from next`.execute(db);
  return toPending(result.rows[0]?.batch ?? []);
}

/** Extends the lease; false when another process holds it now. */
export async function renewLease(db: Kysely<DB>, deviceId: number, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('filing_queues')
    .set({ lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000})`, updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseBranch(db: Kysely<DB>, deviceId: number, owner: string): Promise<void> {
  await db
    .updateTable('filing_queues')
    .set({ lease_owner: null, lease_until: null, updated_at: sql`now()` })
    .where('device_id', '=', deviceId)
    .where('lease_owner', '=', owner)
    .execute();
}

/** The VSDC did not answer: release the branch until `delayMs` from now and grow the backoff. */
export async function deferBranch(db: Kysely<DB>, deviceId: number, owner: string, delayMs: number, nextDelayMs: number, error: string): Promise<void> {
  await db
    .updateTable('filing_queues')
    .set({
      lease_owner: null,
      lease_until: null,
      next_attempt_at: sql`now() + make_interval(secs => ${delayMs / 1000})`,
      retry_delay_ms: nextDelayMs,
      last_error: error.slice(0, 1000),
      updated_at: sql`now()`,
    })
    .where('device_id', '=', deviceId)
    .where('lease_owner', '=', owner)
    .execute();
}

/** Embedded database: one process only, so any lease found at start-up was left by a crash. */
export async function clearLeases(db: Kysely<DB>): Promise<void> {
  await db.updateTable('filing_queues').set({ lease_owner: null, lease_until: null }).where('lease_owner', 'is not', null).execute();
}

interface OutcomeOptions {
  owner: string;
  leaseMs: number;
  /** PostgreSQL: announce the outcome to the other processes (delivered at commit). */
  notify?: { channel: string; payload: string };
}

type RecordedRow = SaleRow & { lease_held: boolean };

/**
 * Moves a still-pending document to its outcome and, in the same statement, extends the
 * branch's lease and clears its backoff (the VSDC answered). Undefined when the document was
 * no longer pending (another filer recorded it first).
 */
async function recordOutcome(db: Kysely<DB>, saleId: number, deviceId: number, set: ReturnType<typeof sql>, options: OutcomeOptions): Promise<RecordedRow | undefined> {
  const notify = options.notify ? sql`, pg_notify(${options.notify.channel}, ${options.notify.payload})` : sql``;
  const result = await sql<RecordedRow>`
    with lease as (
      update filing_queues set lease_until = now() + make_interval(secs => ${options.leaseMs / 1000}),
        retry_delay_ms = null, last_error = null, updated_at = now()
      where device_id = ${deviceId} and lease_owner = ${options.owner}
      returning device_id
    )
    update sales set ${set}, updated_at = now()
    where id = ${saleId} and status = 'pending'
    returning sales.*, exists (select 1 from lease) as lease_held ${notify}`.execute(db);
  return result.rows[0];
}

export function recordUploaded(db: Kysely<DB>, saleId: number, deviceId: number, receipt: FiscalReceipt & { sdcId: string | null; mrcNo: string | null }, options: OutcomeOptions) {
  return recordOutcome(
    db,
    saleId,
    deviceId,
    sql`status = 'uploaded', result_code = '000', last_error = null, receipt_no = ${receipt.receiptNo},
      internal_data = ${receipt.internalData}, receipt_signature = ${receipt.receiptSignature}, sdc_id = ${receipt.sdcId},
      mrc_no = ${receipt.mrcNo}, qr_code_url = ${receipt.qrCodeUrl}, published_at = ${receipt.publishedAt}`,
    options,
  );
}

export function recordFailed(db: Kysely<DB>, saleId: number, deviceId: number, resultCode: string | null, lastError: string, options: OutcomeOptions) {
  return recordOutcome(db, saleId, deviceId, sql`status = 'failed', result_code = ${resultCode}, last_error = ${lastError.slice(0, 2000)}`, options);
}
