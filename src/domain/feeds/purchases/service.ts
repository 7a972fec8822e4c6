// Purchases: what suppliers sold to the merchant, pulled per branch from its VSDC
// (selectTrnsPurchaseSales, from the previous answer's resultDt on) and stored as received —
// inconsistent supplier data is flagged, never refused — then answered by the merchant (accept,
// optionally mapping lines to its items, or reject). The decision stands at once; filing it with
// the authority (savePurchase) is a separate fact that may fail or wait for the VSDC, as for
// customs lines (authority/imports). An accepted purchase of goods raises stock (sarTyCd 02).
// A purchase captured by hand (capture.ts, `source` manual) is filed by the same code, regTyCd M.
import { createHash } from 'node:crypto';
import { formatVsdcDate, formatVsdcDateTime, parseVsdcDateTime, PURCHASE_STATUS, STOCK_MOVEMENT_TYPES, type PurchaseSale, type SavePurchaseLine, type SavePurchaseRequest } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { ApiError, NotFoundError, ValidationError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { receivedDecimal, receivedText } from '../../../authorities/zra-vsdc/received.ts';
import { pullBranch, type ClaimedPull, pullDueBranchesOf } from '../pulls/branch-pulls.ts';
import { sendOutcomeOf, vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { GATEWAY_REGISTRANT_FIELDS } from '../../../authorities/zra-vsdc/registrant.ts';
import { findItemByCode } from '../../merchant/items/store.ts';
import { queueStockMovement } from '../../fiscal/stock/movements.ts';
import { presentPurchase } from './present.ts';
import type { AcceptBody, ListPurchasesQuery, PurchaseResource, RejectBody } from './schemas.ts';
import { claimDueFilings, decide, findPurchase, leasedFiling, listPurchases, recordFilingOutcome, savePurchasePull, type ClaimedFiling, type Decision, type PurchaseLineRow, type PurchaseRow, type ReceivedPurchase, type ReceivedPurchaseLine } from './store.ts';

export const FILING_RETRY_BATCH = 20;

// ---- the pull ----

type Raw = Record<string, unknown>;

const isRecord = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Two amounts differ by more than rounding. */
const differ = (a: number, b: number): boolean => Math.abs(a - b) > 0.005;
const sumOf = (values: Array<number | null>): number | null => (values.some((v) => v === null) ? null : values.reduce<number>((t, v) => t + v!, 0));

function toReceivedLine(raw: unknown, index: number): ReceivedPurchaseLine {
  const line = isRecord(raw) ? raw : {};
  return {
    line_no: index + 1,
    item_seq: receivedDecimal(line.itemSeq),
    item_code: receivedText(line.itemCd),
    item_class_code: receivedText(line.itemClsCd),
    item_name: receivedText(line.itemNm),
    barcode: receivedText(line.bcd),
    packaging_unit_code: receivedText(line.pkgUnitCd),
    packages: receivedDecimal(line.pkg),
    quantity_unit_code: receivedText(line.qtyUnitCd),
    quantity: receivedDecimal(line.qty),
    unit_price: receivedDecimal(line.prc),
    supply_amount: receivedDecimal(line.splyAmt),
    discount_rate: receivedDecimal(line.dcRt),
    discount_amount: receivedDecimal(line.dcAmt),
    vat_category: receivedText(line.vatCatCd),
    taxable_amount: receivedDecimal(line.vatTaxblAmt ?? line.taxblAmt),
    vat_amount: receivedDecimal(line.vatAmt),
    total_amount: receivedDecimal(line.totAmt),
    line: raw,
  };
}

/** A line's levy amounts (the VSDC's names), beside its VAT. */
const LEVY_AMOUNT_FIELDS = [
  { taxable: 'iplTaxblAmt', amount: 'iplAmt' },
  { taxable: 'tlTaxblAmt', amount: 'tlAmt' },
  { taxable: 'exciseTaxblAmt', amount: 'exciseTxAmt' },
] as const;

/** What does not add up in a supplier's document, in words; it is stored all the same. */
function inconsistenciesOf(sale: Raw, purchase: Omit<ReceivedPurchase, 'inconsistencies' | 'dedupe_key'>): string[] {
  const found: string[] = [];
  if (purchase.supplier_tpin === null || !/^\d{10}$/.test(purchase.supplier_tpin)) found.push('spplrTpin is not a 10-digit TPIN');
  if (purchase.supplier_invoice_no === null || !/^\d{1,15}$/.test(purchase.supplier_invoice_no)) found.push('spplrInvcNo is not a whole number');
  if (parseVsdcDateTime(purchase.confirmed_dt) === null || purchase.confirmed_dt?.length !== 14) found.push('cfmDt is not a YYYYMMDDHHmmss date-time');
  if (parseVsdcDateTime(purchase.sales_date) === null || purchase.sales_date?.length !== 8) found.push('salesDt is not a YYYYMMDD date');
  if (!Array.isArray(sale.itemList) || sale.itemList.length === 0) found.push('itemList is empty');
  const lines = purchase.lines;
  if (purchase.total_item_count !== null && purchase.total_item_count !== lines.length) found.push(`totItemCnt ${purchase.total_item_count} does not match the ${lines.length} lines`);
  // Levies (insurance premium, tourism, excise) count in the header's taxable and tax totals; a
  // tax-exclusive document's totAmt also carries each line's VAT and levies on top of its totAmt.
  const rawLines = Array.isArray(sale.itemList) ? sale.itemList.map((line) => (isRecord(line) ? line : {})) : [];
  const levyOf = (index: number, part: 'taxable' | 'amount'): number =>
    LEVY_AMOUNT_FIELDS.reduce((sum, fields) => sum + (receivedDecimal(rawLines[index]?.[fields[part]]) ?? 0), 0);
  const withLevies = (part: 'taxable' | 'amount', own: (l: ReceivedPurchaseLine) => number | null) => sumOf(lines.map((l, i) => (own(l) === null ? null : own(l)! + levyOf(i, part))));
  const cashDiscount = receivedDecimal(sale.cashDcAmt) ?? 0;
  const inclusiveTotal = sumOf(lines.map((l) => l.total_amount));
  const exclusiveTotal = sumOf(lines.map((l, i) => (l.total_amount === null ? null : l.total_amount + (l.vat_amount ?? 0) + levyOf(i, 'amount'))));
  const totals: Array<[field: string, given: number | null, readings: Array<number | null>]> = [
    ['totAmt', purchase.total_amount, [inclusiveTotal, exclusiveTotal].map((t) => (t === null ? null : t - cashDiscount))],
    ['totTaxAmt', purchase.total_tax_amount, [withLevies('amount', (l) => l.vat_amount)]],
    ['totTaxblAmt', purchase.total_taxable_amount, [withLevies('taxable', (l) => l.taxable_amount)]],
  ];
  for (const [field, given, readings] of totals) {
    const summed = readings.filter((r): r is number => r !== null);
    if (given === null || summed.length === 0 || lines.length === 0) continue;
    if (summed.every((r) => differ(given, r))) found.push(`${field} ${given} is not the sum of the lines (${Number(summed[0]!.toFixed(4))})`);
  }
  for (const l of lines) {
    if (l.quantity === null || l.quantity <= 0) found.push(`line ${l.line_no}: qty is missing or not above 0`);
    else if (l.unit_price !== null && l.supply_amount !== null && differ(l.quantity * l.unit_price, l.supply_amount)) found.push(`line ${l.line_no}: qty × prc is not splyAmt`);
  }
  return found;
}

/**
 * A supplier's document as the gateway keeps it. The key that makes a document pulled again the
 * same row: supplier TPIN, supplier branch, supplier invoice number and receipt type (a sale and a
 * credit note may share a number); a hash of the whole document when the TPIN or number is missing.
 */
function toReceivedPurchase(raw: unknown): ReceivedPurchase {
  const sale = (isRecord(raw) ? raw : {}) as Raw & Partial<PurchaseSale>;
  const purchase = {
    supplier_tpin: receivedText(sale.spplrTpin),
    supplier_name: receivedText(sale.spplrNm),
    supplier_branch: receivedText(sale.spplrBhfId),
    supplier_invoice_no: receivedText(sale.spplrInvcNo),
    supplier_sdc_id: receivedText(sale.spplrSdcId),
    receipt_type_code: receivedText(sale.rcptTyCd),
    payment_type_code: receivedText(sale.pmtTyCd),
    confirmed_dt: receivedText(sale.cfmDt),
    sales_date: receivedText(sale.salesDt),
    stock_release_dt: receivedText(sale.stockRlsDt),
    total_item_count: receivedDecimal(sale.totItemCnt),
    total_taxable_amount: receivedDecimal(sale.totTaxblAmt),
    total_tax_amount: receivedDecimal(sale.totTaxAmt),
    total_amount: receivedDecimal(sale.totAmt),
    remark: receivedText(sale.remark),
    sale: raw,
    lines: (Array.isArray(sale.itemList) ? (sale.itemList as unknown[]) : []).map(toReceivedLine),
  };
  const dedupeKey =
    purchase.supplier_tpin !== null && purchase.supplier_invoice_no !== null
      ? ['supplier', purchase.supplier_tpin, purchase.supplier_branch ?? '', purchase.supplier_invoice_no, purchase.receipt_type_code ?? ''].join('/')
      : `sha256/${createHash('sha256').update(JSON.stringify(raw) ?? 'null').digest('hex')}`;
  return { ...purchase, dedupe_key: dedupeKey, inconsistencies: inconsistenciesOf(sale, purchase) };
}

/** Pulls one leased branch: what suppliers sold since its last answer's resultDt. */
async function pullPurchaseBranch(ctx: AppContext, pull: ClaimedPull, intervalMs: number): Promise<void> {
  await pullBranch(ctx, 'purchase_pulls', pull, intervalMs, ctx.vsdc.selectTrnsPurchaseSales, async (data, resultDt) => {
    const list: unknown = data?.saleList;
    const purchases = (Array.isArray(list) ? (list as unknown[]) : []).map(toReceivedPurchase);
    const added = await savePurchasePull(ctx.db, pull, purchases, resultDt, intervalMs, (row) => ({ purchase: presentPurchase(row) }), ctx.database.notifier);
    if (added.length > 0) ctx.log.info({ tenantId: pull.tenantId, branch: pull.target.bhfId, purchases: added.length }, 'purchases received');
  });
}

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDuePurchaseBranches(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranchesOf(ctx, 'purchase_pulls', (pull) => pullPurchaseBranch(ctx, pull, intervalMs));
}

// ---- reading ----

/** All branches, or the one X-Branch names. */
export async function listPurchasesPage(ctx: AppContext, tenantId: number, deviceId: number | undefined, query: ListPurchasesQuery): Promise<Page<PurchaseResource>> {
  const { rows, total } = await listPurchases(ctx.db, tenantId, { deviceId, status: query.status, filing: query.filing, source: query.source }, query.page);
  return pageOf(rows.map(presentPurchase), total, query.page);
}

export async function getPurchase(ctx: AppContext, tenantId: number, id: number): Promise<PurchaseResource> {
  const row = await findPurchase(ctx.db, tenantId, id);
  if (!row) throw new NotFoundError('Purchase not found.');
  return presentPurchase(row);
}

// ---- answering ----

function alreadyAnswered(decision: string): ApiError {
  return new ApiError('purchase_already_answered', `This purchase was already ${decision}; an answer cannot be changed. GET it to see where its filing stands.`);
}

/** A registered (not draft) item of the merchant with that code, or undefined. */
async function registeredItem(ctx: AppContext, tenantId: number, itemCode: string) {
  const item = await findItemByCode(ctx.db, tenantId, itemCode);
  return item && item.registration_state !== 'draft' ? item : undefined;
}

/**
 * Records the decision (and, for an accepted purchase, its stock movement) in one transaction,
 * then makes the first attempt to file it; the filing worker retries what the VSDC did not take.
 */
async function answer(ctx: AppContext, tenantId: number, id: number, decision: Decision, purchase: PurchaseRow): Promise<PurchaseResource> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    const decided = await decide(trx, tenantId, id, decision, vsdcLeaseMs(ctx.config));
    if (decided.kind === 'decided' && decision.decision === 'accepted') {
      const lines = purchase.lines.flatMap((line) => {
        const itemCode = decision.mappedItemCodes.get(line.line_no);
        return itemCode !== undefined && line.quantity !== null ? [{ itemCode, quantity: line.quantity, unitPrice: line.unit_price ?? '0' }] : [];
      });
      if (lines.length > 0) {
        await queueStockMovement(trx, {
          tenantId,
          deviceId: purchase.device_id,
          sarTyCd: STOCK_MOVEMENT_TYPES.purchaseIn,
          source: { kind: 'purchase', id },
          lines,
          counterparty: { tpin: purchase.supplier_tpin, name: purchase.supplier_name, branch: purchase.supplier_branch },
          ...(decision.remark === null ? {} : { remark: decision.remark }),
        });
      }
    }
    return decided;
  });
  if (result.kind === 'not_found') throw new NotFoundError('Purchase not found.');
  if (result.kind === 'already_decided') throw alreadyAnswered(result.decision);
  const filing = await leasedFiling(ctx.db, id);
  if (filing) await sendFiling(ctx, filing);
  return getPurchase(ctx, tenantId, id);
}

export async function acceptPurchase(ctx: AppContext, tenantId: number, id: number, body: AcceptBody): Promise<PurchaseResource> {
  const purchase = await findPurchase(ctx.db, tenantId, id);
  if (!purchase) throw new NotFoundError('Purchase not found.');
  if (purchase.decision !== null) throw alreadyAnswered(purchase.decision);
  const errors: Record<string, string[]> = {};
  const mapped = new Map<number, string>();
  for (const [index, entry] of (body.lines ?? []).entries()) {
    const field = `lines.${index}`;
    if (!purchase.lines.some((l) => l.line_no === entry.line)) {
      errors[`${field}.line`] = [`This purchase has no line ${entry.line}; its lines are numbered 1 to ${purchase.lines.length}.`];
    } else if (mapped.has(entry.line)) {
      errors[`${field}.line`] = [`Line ${entry.line} is mapped twice; map each line at most once.`];
    } else if (!(await registeredItem(ctx, tenantId, entry.itemCode.trim()))) {
      errors[`${field}.itemCode`] = [`${entry.itemCode} is not one of your registered items; GET /api/v1/items lists them (a draft must be released first).`];
    } else {
      mapped.set(entry.line, entry.itemCode.trim());
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  // A line left out keeps the supplier's item code; it counts as yours when it names one of your items.
  for (const line of purchase.lines) {
    if (!mapped.has(line.line_no) && line.item_code !== null && (await registeredItem(ctx, tenantId, line.item_code))) mapped.set(line.line_no, line.item_code);
  }
  return answer(ctx, tenantId, id, { decision: 'accepted', remark: body.remark?.trim() || null, mappedItemCodes: mapped }, purchase);
}

export async function rejectPurchase(ctx: AppContext, tenantId: number, id: number, body: RejectBody): Promise<PurchaseResource> {
  const purchase = await findPurchase(ctx.db, tenantId, id);
  if (!purchase) throw new NotFoundError('Purchase not found.');
  return answer(ctx, tenantId, id, { decision: 'rejected', remark: body.reason?.trim() || null, mappedItemCodes: new Map() }, purchase);
}

// ---- filing the answer (savePurchase) ----

const amount = (value: string | null): number | null => (value === null ? null : Number(value));

async function filingLine(ctx: AppContext, filing: ClaimedFiling, line: PurchaseLineRow): Promise<SavePurchaseLine> {
  const own = line.mapped_item_code === null ? undefined : await findItemByCode(ctx.db, filing.tenant_id, line.mapped_item_code);
  const quantity = amount(line.quantity);
  const supply = amount(line.supply_amount);
  const taxable = amount(line.taxable_amount) ?? supply;
  const vat = amount(line.vat_amount) ?? 0;
  // Required fields the supplier left out go as null: the authority's refusal says which.
  return {
    itemSeq: line.line_no,
    itemCd: (own?.item_code ?? line.item_code)!,
    itemClsCd: (own?.item_class_code ?? line.item_class_code)!,
    itemNm: (own?.name ?? line.item_name)!,
    bcd: own?.barcode ?? line.barcode,
    spplrItemClsCd: line.item_class_code,
    spplrItemCd: line.item_code,
    spplrItemNm: line.item_name,
    pkgUnitCd: (own?.packaging_unit_code ?? line.packaging_unit_code)!,
    pkg: (amount(line.packages) ?? quantity)!,
    qtyUnitCd: (own?.quantity_unit_code ?? line.quantity_unit_code)!,
    qty: quantity!,
    prc: amount(line.unit_price)!,
    splyAmt: supply!,
    dcRt: amount(line.discount_rate) ?? 0,
    dcAmt: amount(line.discount_amount) ?? 0,
    taxblAmt: taxable!,
    vatCatCd: line.vat_category!,
    vatAmt: vat,
    taxAmt: vat,
    totAmt: amount(line.total_amount)!,
  };
}

/**
 * The savePurchase body of an answer: the pulled sale (`regTyCd` A), approved (02) or rejected
 * (04); or of a purchase captured by hand (`regTyCd` M, approved), whose supplier may have no
 * TPIN and whose invoice number, when it is not a whole number, goes in the remark.
 */
async function filingPayload(ctx: AppContext, filing: ClaimedFiling): Promise<SavePurchaseRequest> {
  const decidedAt = filing.decided_at!;
  const itemList = await Promise.all(filing.lines.map((line) => filingLine(ctx, filing, line)));
  const salesDate = filing.sales_date !== null && filing.sales_date.length === 8 && parseVsdcDateTime(filing.sales_date) ? filing.sales_date : formatVsdcDate(decidedAt);
  const invoiceNo = filing.supplier_invoice_no !== null && /^\d{1,15}$/.test(filing.supplier_invoice_no) ? Number(filing.supplier_invoice_no) : null;
  const sum = (pick: (l: SavePurchaseLine) => number | null): number => Number(itemList.reduce((t, l) => t + (pick(l) ?? 0), 0).toFixed(4));
  const manual = filing.source === 'manual';
  const remark = manual && invoiceNo === null && filing.supplier_invoice_no !== null ? `Supplier invoice ${filing.supplier_invoice_no}` : filing.answer_remark;
  return {
    invcNo: filing.purchase_invoice_no!,
    orgInvcNo: 0,
    spplrTpin: filing.supplier_tpin,
    spplrBhfId: filing.supplier_branch,
    spplrNm: filing.supplier_name!,
    spplrInvcNo: invoiceNo,
    spplrSdcId: filing.supplier_sdc_id,
    regTyCd: manual ? 'M' : 'A',
    pchsTyCd: 'N',
    rcptTyCd: filing.receipt_type_code === 'R' ? 'R' : 'P',
    pmtTyCd: filing.payment_type_code ?? '01',
    pchsSttsCd: filing.decision === 'accepted' ? PURCHASE_STATUS.approved : PURCHASE_STATUS.rejected,
    cfmDt: formatVsdcDateTime(decidedAt),
    pchsDt: salesDate,
    totItemCnt: itemList.length,
    totTaxblAmt: amount(filing.total_taxable_amount) ?? sum((l) => l.taxblAmt),
    totTaxAmt: amount(filing.total_tax_amount) ?? sum((l) => l.taxAmt),
    totAmt: amount(filing.total_amount) ?? sum((l) => l.totAmt),
    remark,
    ...GATEWAY_REGISTRANT_FIELDS,
    itemList,
  };
}

/** One attempt to file the merchant's answer with the authority; records the outcome. */
export async function sendFiling(ctx: AppContext, filing: ClaimedFiling): Promise<void> {
  const outcome = await ctx.vsdc.savePurchase(filing.target, await filingPayload(ctx, filing));
  await recordFilingOutcome(ctx.db, Number(filing.id), sendOutcomeOf(ctx.config, outcome, filing.retry_attempts));
}

/** One background round: sends answers whose time has come. Returns how many it handled. */
export async function fileDuePurchaseAnswers(ctx: AppContext): Promise<number> {
  const due = await claimDueFilings(ctx.db, vsdcLeaseMs(ctx.config), FILING_RETRY_BATCH);
  await Promise.all(due.map((filing) => sendFiling(ctx, filing)));
  return due.length;
}
