import { sql, type Kysely, type Selectable } from 'kysely';
import type { Notifier } from '../../../platform/db/notifier.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type {
  PurchaseDecision,
  PurchaseFilingState,
  PurchaseLinesTable,
  PurchaseSource,
  PurchasesTable,
} from '../../../platform/db/tables/purchases.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityDevice, AuthorityProfileId, SupplierSale } from '../../../authorities/port/index.ts';
import type { ClaimedBranchPull } from '../pulls/template.ts';
import { claimDueRows, leased, released } from '../../../platform/workers/lease-sql.ts';
import { answerFilingColumns, type VsdcSendOutcome } from '../../kernel/authority-rows/answers.ts';
import { authorityDeviceOf, withAuthorityDevice } from '../../kernel/authority-rows/devices.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { enqueueEvent, PURCHASE_RECEIVED_EVENT } from '../../kernel/outbox/events.ts';

export type PurchaseLineRow = Selectable<PurchaseLinesTable>;
export type PurchaseRow = Selectable<PurchasesTable> & { branch: string; lines: PurchaseLineRow[] };

function purchasesWithBranch(db: Kysely<DB>) {
  return db.selectFrom('purchases as p').innerJoin('devices as d', 'd.id', 'p.device_id').selectAll('p').select('d.branch');
}

async function withLines(db: Kysely<DB>, rows: Array<Omit<PurchaseRow, 'lines'>>): Promise<PurchaseRow[]> {
  if (rows.length === 0) return [];
  const lines = await db
    .selectFrom('purchase_lines')
    .selectAll()
    .where(
      'purchase_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('purchase_id')
    .orderBy('line_no')
    .execute();
  return rows.map((row) => ({ ...row, lines: lines.filter((l) => Number(l.purchase_id) === Number(row.id)) }));
}

/** A supplier's sale as a purchases row (see PurchasesTable), without its keys. */
function purchaseColumnsOf(sale: SupplierSale) {
  return {
    dedupe_key: sale.dedupeKey,
    supplier_tpin: sale.supplierTpin,
    supplier_name: sale.supplierName,
    supplier_branch: sale.supplierBranch,
    supplier_invoice_no: sale.supplierInvoiceNo,
    supplier_sdc_id: sale.supplierSdcId,
    receipt_type_code: sale.receiptTypeCode,
    payment_type_code: sale.paymentTypeCode,
    confirmed_dt: sale.confirmedAt,
    sales_date: sale.salesDate,
    stock_release_dt: sale.stockReleasedAt,
    total_item_count: sale.totalItemCount,
    total_taxable_amount: sale.totalTaxableAmount,
    total_tax_amount: sale.totalTaxAmount,
    total_amount: sale.totalAmount,
    remark: sale.remark,
    sale: JSON.stringify(sale.raw),
    inconsistencies: JSON.stringify(sale.inconsistencies),
  };
}

function lineColumnsOf(line: SupplierSale['lines'][number]) {
  return {
    line_no: line.lineNo,
    item_seq: line.itemSeq,
    item_code: line.itemCode,
    item_class_code: line.classificationCode,
    item_name: line.itemName,
    barcode: line.barcode,
    packaging_unit_code: line.packagingUnitCode,
    packages: line.packages,
    quantity_unit_code: line.quantityUnitCode,
    quantity: line.quantity,
    unit_price: line.unitPrice,
    supply_amount: line.supplyAmount,
    discount_rate: line.discountRate,
    discount_amount: line.discountAmount,
    vat_category: line.vatCategory,
    taxable_amount: line.taxableAmount,
    vat_amount: line.vatAmount,
    total_amount: line.totalAmount,
    line: JSON.stringify(line.raw),
  };
}

/**
 * Stores the documents not held yet (a document pulled again, through this branch or another, is
 * left as it is) with their lines and, for each new one, the `purchase.received` event, in the
 * pull's transaction. Returns the new rows.
 */
export async function storeSupplierSales(
  trx: Kysely<DB>,
  pull: ClaimedBranchPull,
  sales: readonly SupplierSale[],
  eventData: (row: PurchaseRow) => Record<string, unknown>,
  notifier: Notifier,
): Promise<PurchaseRow[]> {
  const added: PurchaseRow[] = [];
  const tenant =
    sales.length === 0
      ? undefined
      : await trx.selectFrom('tenants').select('partner_id').where('id', '=', pull.tenantId).executeTakeFirstOrThrow();
  for (const sale of sales) {
    const inserted = await trx
      .insertInto('purchases')
      .values({ ...purchaseColumnsOf(sale), tenant_id: pull.tenantId, device_id: pull.deviceId })
      .onConflict((oc) => oc.columns(['tenant_id', 'dedupe_key']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) continue;
    if (sale.lines.length > 0) {
      await trx
        .insertInto('purchase_lines')
        .values(sale.lines.map((l) => ({ ...lineColumnsOf(l), purchase_id: inserted.id })))
        .execute();
    }
    const [row] = await withLines(trx, [{ ...inserted, branch: pull.device.branch }]);
    await enqueueEvent(
      trx,
      { type: PURCHASE_RECEIVED_EVENT, partnerId: tenant!.partner_id, tenantId: pull.tenantId, data: eventData(row!) },
      notifier,
    );
    added.push(row!);
  }
  return added;
}

/** The authority profile a branch's device speaks to. */
export async function deviceProfileOf(db: Kysely<DB>, deviceId: number): Promise<AuthorityProfileId> {
  const row = await db
    .selectFrom('devices as d')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .select(['t.authority', 'd.protocol'])
    .where('d.id', '=', deviceId)
    .executeTakeFirstOrThrow();
  return profileOf(row.authority, row.protocol);
}

// ---- reading ----

interface PurchaseFilter {
  deviceId?: number | undefined;
  status?: 'pending' | PurchaseDecision | undefined;
  filing?: PurchaseFilingState | undefined;
  source?: PurchaseSource | undefined;
}

export async function listPurchases(
  db: Kysely<DB>,
  tenantId: number,
  filter: PurchaseFilter,
  page: number,
): Promise<{ rows: PurchaseRow[]; total: number }> {
  let query = purchasesWithBranch(db).where('p.tenant_id', '=', tenantId);
  if (filter.deviceId !== undefined) query = query.where('p.device_id', '=', filter.deviceId);
  if (filter.status === 'pending') query = query.where('p.decision', 'is', null);
  else if (filter.status !== undefined) query = query.where('p.decision', '=', filter.status);
  if (filter.filing !== undefined) query = query.where('p.filing_state', '=', filter.filing);
  if (filter.source !== undefined) query = query.where('p.source', '=', filter.source);
  const [rows, count] = await Promise.all([
    query.orderBy('p.id', 'desc').limit(PER_PAGE).offset(offsetOf(page)).execute(),
    query
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: await withLines(db, rows), total: Number(count.n) };
}

export async function findPurchase(db: Kysely<DB>, tenantId: number, id: number): Promise<PurchaseRow | undefined> {
  const row = await purchasesWithBranch(db).where('p.tenant_id', '=', tenantId).where('p.id', '=', id).executeTakeFirst();
  return row ? (await withLines(db, [row]))[0] : undefined;
}

// ---- the merchant's answer and its filing ----

export interface Decision {
  decision: PurchaseDecision;
  remark: string | null;
  /** line number → your item code (accept). */
  mappedItemCodes: Map<number, string>;
}

/**
 * Sets the decision, once, in the caller's transaction: the row is locked, so of two concurrent
 * answers one wins and the other sees it. The branch's next purchase number is taken; the filing
 * starts as `sending`, leased by the caller who sends it next.
 */
export async function decide(
  trx: Kysely<DB>,
  tenantId: number,
  id: number,
  decision: Decision,
  leaseMs: number,
): Promise<{ kind: 'decided' } | { kind: 'already_decided'; decision: PurchaseDecision } | { kind: 'not_found' }> {
  const row = await trx
    .selectFrom('purchases')
    .select(['decision', 'device_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return { kind: 'not_found' };
  if (row.decision !== null) return { kind: 'already_decided', decision: row.decision };
  await trx
    .updateTable('purchases')
    .set({
      decision: decision.decision,
      decided_at: sql<Date>`now()`,
      answer_remark: decision.remark,
      purchase_invoice_no: await nextPurchaseInvoiceNo(trx, row.device_id),
      filing_state: 'sending',
      next_attempt_at: sql<Date>`now()`,
      ...leased('purchases', { ms: leaseMs }),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
  for (const [line, itemCode] of decision.mappedItemCodes) {
    await trx
      .updateTable('purchase_lines')
      .set({ mapped_item_code: itemCode })
      .where('purchase_id', '=', id)
      .where('line_no', '=', line)
      .execute();
  }
  return { kind: 'decided' };
}

/**
 * The branch's next purchase number (savePurchase `invcNo`, continuing the VSDC's
 * lastPchsInvcNo), in the caller's transaction: the counter row stays locked until it commits.
 */
async function nextPurchaseInvoiceNo(trx: Kysely<DB>, deviceId: number): Promise<number> {
  const counter = await sql<{ last_invoice_no: number }>`
    insert into purchase_invoice_counters (device_id, last_invoice_no)
    select d.id, coalesce(d.last_pchs_invc_no, 0) + 1 from devices d where d.id = ${deviceId}
    on conflict (device_id) do update set last_invoice_no = purchase_invoice_counters.last_invoice_no + 1
    returning last_invoice_no`.execute(trx);
  return Number(counter.rows[0]!.last_invoice_no);
}

/** A purchase line as the gateway writes it, amounts as numbers. */
type PurchaseLineValues = Omit<PurchaseLineRow, 'purchase_id' | 'mapped_item_code' | NumericLineColumn> & {
  [K in NumericLineColumn]: number | null;
};
type NumericLineColumn =
  | 'item_seq'
  | 'packages'
  | 'quantity'
  | 'unit_price'
  | 'supply_amount'
  | 'discount_rate'
  | 'discount_amount'
  | 'taxable_amount'
  | 'vat_amount'
  | 'total_amount';

/** A purchase captured by hand, as the service computed it (amounts as exact decimal text). */
export interface CapturedPurchase {
  tenantId: number;
  deviceId: number;
  dedupeKey: string;
  supplierTpin: string | null;
  supplierName: string;
  supplierInvoiceNo: string;
  /** cfmDt and salesDt of the purchase (YYYYMMDDHHmmss, YYYYMMDD). */
  confirmedDt: string;
  salesDate: string;
  totals: { itemCount: number; taxable: number; tax: number; amount: number };
  /** The request as captured, kept as a pulled purchase keeps the supplier's document. */
  captured: unknown;
  lines: Array<Omit<PurchaseLineValues, 'line'> & { line: unknown; mapped_item_code: string | null }>;
}

/**
 * Stores a captured purchase, `accepted` at once with the branch's next purchase number and its
 * filing `sending` (leased by the caller, who sends it next), with its lines, in the caller's
 * transaction. `duplicate` (with the purchase held) when the branch already holds the same
 * supplier invoice (`dedupe_key`; a concurrent capture of it waits for this one's commit and finds
 * it): the caller rolls back, so the purchase number taken is not used up.
 */
export async function insertCapturedPurchase(
  trx: Kysely<DB>,
  purchase: CapturedPurchase,
  leaseMs: number,
): Promise<{ kind: 'captured' | 'duplicate'; id: number }> {
  const inserted = await trx
    .insertInto('purchases')
    .values({
      tenant_id: purchase.tenantId,
      device_id: purchase.deviceId,
      source: 'manual',
      dedupe_key: purchase.dedupeKey,
      supplier_tpin: purchase.supplierTpin,
      supplier_name: purchase.supplierName,
      supplier_branch: null,
      supplier_invoice_no: purchase.supplierInvoiceNo,
      supplier_sdc_id: null,
      receipt_type_code: null,
      payment_type_code: null,
      confirmed_dt: purchase.confirmedDt,
      sales_date: purchase.salesDate,
      stock_release_dt: null,
      total_item_count: purchase.totals.itemCount,
      total_taxable_amount: purchase.totals.taxable,
      total_tax_amount: purchase.totals.tax,
      total_amount: purchase.totals.amount,
      remark: null,
      sale: JSON.stringify(purchase.captured),
      inconsistencies: '[]',
      decision: 'accepted',
      decided_at: sql<Date>`now()`,
      answer_remark: null,
      purchase_invoice_no: await nextPurchaseInvoiceNo(trx, purchase.deviceId),
      filing_state: 'sending',
      next_attempt_at: sql<Date>`now()`,
      ...leased('purchases', { ms: leaseMs }),
      received_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'dedupe_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    const held = await trx
      .selectFrom('purchases')
      .select('id')
      .where('tenant_id', '=', purchase.tenantId)
      .where('dedupe_key', '=', purchase.dedupeKey)
      .executeTakeFirstOrThrow();
    return { kind: 'duplicate', id: Number(held.id) };
  }
  await trx
    .insertInto('purchase_lines')
    .values(purchase.lines.map((l) => ({ ...l, line: JSON.stringify(l.line), purchase_id: inserted.id })))
    .execute();
  return { kind: 'captured', id: Number(inserted.id) };
}

export type ClaimedFiling = PurchaseRow & { device: AuthorityDevice };

type FilingRow = Selectable<PurchasesTable> & Parameters<typeof authorityDeviceOf>[0];

async function filingsFrom(db: Kysely<DB>, box: SecretBox, rows: FilingRow[]): Promise<ClaimedFiling[]> {
  const withTheirLines = await withLines(db, rows);
  return withTheirLines.map((row, i) => ({ ...row, device: authorityDeviceOf(rows[i]!, box) }));
}

/** A filing whose lease the caller already holds (it just decided). */
export async function leasedFiling(db: Kysely<DB>, box: SecretBox, id: number): Promise<ClaimedFiling | undefined> {
  const result = await sql<FilingRow>`
    with leased as (select * from purchases where id = ${id} and filing_state = 'sending')
    ${withAuthorityDevice('leased')}`.execute(db);
  return (await filingsFrom(db, box, result.rows))[0];
}

/** Leases up to `limit` answers still on their way whose next attempt is due. */
export async function claimDueFilings(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedFiling[]> {
  const result = await sql<FilingRow>`
    ${claimDueRows('purchases', { waiting: sql`filing_state = 'sending'`, leaseMs, limit })}
    ${withAuthorityDevice('claimed')}`.execute(db);
  return filingsFrom(db, box, result.rows);
}

/** Records the authority's answer to the filing (never touching the decision) and frees the lease. */
export async function recordFilingOutcome(db: Kysely<DB>, id: number, outcome: VsdcSendOutcome): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ ...answerFilingColumns(outcome), ...released('purchases'), updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('filing_state', '=', 'sending')
    .execute();
}
