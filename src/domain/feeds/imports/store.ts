import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ImportDecision, ImportFilingState, ImportItemsTable } from '../../../platform/db/tables/items.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import type { AuthorityDevice, CustomsLine, CustomsLineAnswer } from '../../../authorities/port/index.ts';
import type { ClaimedBranchPull } from '../pulls/template.ts';
import { claimDueRows, leased, released } from '../../../platform/workers/lease-sql.ts';
import { answerFilingColumns, type VsdcSendOutcome } from '../../kernel/authority-rows/answers.ts';
import { authorityDeviceOf, withAuthorityDevice } from '../../kernel/authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';

export type ImportItemRow = Selectable<ImportItemsTable> & { branch: string };

function importItemsWithBranch(db: Kysely<DB>) {
  return db.selectFrom('import_items as m').innerJoin('devices as d', 'd.id', 'm.device_id').selectAll('m').select('d.branch');
}

// ---- the pull ----

/** Stores a page of customs lines in the pull's transaction: a line already held is left as it is. Returns how many were new. */
export async function storeCustomsLines(trx: Kysely<DB>, pull: ClaimedBranchPull, lines: readonly CustomsLine[]): Promise<number> {
  if (lines.length === 0) return 0;
  const inserted = await trx
    .insertInto('import_items')
    .values(
      lines.map((l) => ({
        task_cd: l.task,
        dcl_de: l.declarationDate,
        item_seq: l.itemSeq,
        dcl_no: l.declarationNo,
        hs_cd: l.hsCode,
        item_name: l.itemName,
        origin_country_code: l.originCountryCode,
        export_country_code: l.exportCountryCode,
        packages: l.packages,
        packaging_unit_code: l.packagingUnitCode,
        quantity: l.quantity,
        quantity_unit_code: l.quantityUnitCode,
        total_weight: l.totalWeight,
        net_weight: l.netWeight,
        supplier_name: l.supplierName,
        agent_name: l.agentName,
        invoice_foreign_amount: l.invoiceForeignAmount,
        invoice_currency: l.invoiceCurrency,
        exchange_rate: l.exchangeRate,
        line: JSON.stringify(l.raw),
        tenant_id: pull.tenantId,
        device_id: pull.deviceId,
      })),
    )
    .onConflict((oc) => oc.columns(['tenant_id', 'device_id', 'task_cd', 'dcl_de', 'item_seq']).doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

// ---- reading ----

interface ImportItemFilter {
  deviceId?: number | undefined;
  decision?: ImportDecision | 'undecided' | undefined;
  filing?: ImportFilingState | undefined;
}

export async function listImportItems(
  db: Kysely<DB>,
  tenantId: number,
  filter: ImportItemFilter,
  page: number,
): Promise<{ rows: ImportItemRow[]; total: number }> {
  let query = importItemsWithBranch(db).where('m.tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('m.device_id', '=', filter.deviceId);
  if (filter.decision === 'undecided') query = query.where('m.decision', 'is', null);
  else if (filter.decision !== undefined) query = query.where('m.decision', '=', filter.decision);
  if (filter.filing !== undefined) query = query.where('m.filing_state', '=', filter.filing);
  const [rows, count] = await Promise.all([
    query.orderBy('m.id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findImportItem(db: Kysely<DB>, tenantId: number, id: number): Promise<ImportItemRow | undefined> {
  return importItemsWithBranch(db).where('m.tenant_id', '=', tenantId).where('m.id', '=', id).executeTakeFirst();
}

// ---- the merchant's answer and its filing ----

export interface Decision {
  decision: ImportDecision;
  itemCode: string | null;
  itemClassCode: string | null;
  remark: string | null;
}

/**
 * Sets the decision, once: the row is locked, so of two concurrent answers one wins and the
 * other sees it. The filing starts as `sending`, leased by the caller who sends it next.
 */
export async function decide(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  decision: Decision,
  leaseMs: number,
): Promise<{ kind: 'decided' } | { kind: 'already_decided'; decision: ImportDecision } | { kind: 'not_found' }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('import_items')
      .select(['decision'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return { kind: 'not_found' as const };
    if (row.decision !== null) return { kind: 'already_decided' as const, decision: row.decision };
    await trx
      .updateTable('import_items')
      .set({
        decision: decision.decision,
        decided_at: sql<Date>`now()`,
        item_code: decision.itemCode,
        item_class_code: decision.itemClassCode,
        remark: decision.remark,
        filing_state: 'sending',
        next_attempt_at: sql<Date>`now()`,
        ...leased('import_items', { ms: leaseMs }),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
    return { kind: 'decided' as const };
  });
}

export interface ClaimedFiling {
  id: number;
  answer: CustomsLineAnswer;
  retryAttempts: number;
  device: AuthorityDevice;
}

type FilingRow = Selectable<ImportItemsTable> & Parameters<typeof authorityDeviceOf>[0];

function filingFrom(row: FilingRow, box: SecretBox): ClaimedFiling {
  return {
    id: Number(row.id),
    answer: {
      task: row.task_cd,
      declarationDate: row.dcl_de,
      itemSeq: row.item_seq,
      hsCode: row.hs_cd,
      decision: row.decision!,
      itemCode: row.item_code,
      classificationCode: row.item_class_code,
      remark: row.remark,
    },
    retryAttempts: row.retry_attempts,
    device: authorityDeviceOf(row, box),
  };
}

/** A filing whose lease the caller already holds (it just decided). */
export async function leasedFiling(db: Kysely<DB>, box: SecretBox, id: number): Promise<ClaimedFiling | undefined> {
  const result = await sql<FilingRow>`
    with leased as (select * from import_items where id = ${id} and filing_state = 'sending')
    ${withAuthorityDevice('leased')}`.execute(db);
  const row = result.rows[0];
  return row ? filingFrom(row, box) : undefined;
}

/** Leases up to `limit` answers still on their way whose next attempt is due. */
export async function claimDueFilings(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedFiling[]> {
  const result = await sql<FilingRow>`
    ${claimDueRows('import_items', { waiting: sql`filing_state = 'sending'`, leaseMs, limit })}
    ${withAuthorityDevice('claimed')}`.execute(db);
  return result.rows.map((row) => filingFrom(row, box));
}

/** Records the authority's answer to the filing (never touching the decision) and frees the lease. */
export async function recordFilingOutcome(db: Kysely<DB>, id: number, outcome: VsdcSendOutcome): Promise<void> {
  await db
    .updateTable('import_items')
    .set({ ...answerFilingColumns(outcome), ...released('import_items'), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('filing_state', '=', 'sending')
    .execute();
}
