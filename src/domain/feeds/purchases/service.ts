// Purchases: what suppliers sold to the merchant, pulled per branch from its authority (the
// adapter's supplierSales, from the previous answer's cursor on) and stored as received —
// inconsistent supplier data is flagged, never refused — then answered by the merchant (accept,
// optionally mapping lines to its items, or reject). The decision stands at once; filing it with
// the authority (the adapter's sendPurchase) is a separate fact that may fail or wait, as for
// customs lines (feeds/imports). An accepted purchase of goods raises stock (the adapter's
// stockInType). A purchase captured by hand (capture.ts, `source` manual) is filed by the same code.
import type { PurchaseLineItem, PurchaseToSend, SupplierSale } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import { ApiError, FieldErrors, NotFoundError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { pullDueBranches, type BranchFeedOf } from '../pulls/template.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { answerOutcomeOf } from '../answers.ts';
import { findItemByCode } from '../../merchant/items/store.ts';
import { queueStockMovement } from '../../fiscal/stock/movements.ts';
import { presentPurchase } from './present.ts';
import type { AcceptBody, ListPurchasesQuery, PurchaseResource, RejectBody } from './schemas.ts';
import {
  claimDueFilings,
  decide,
  deviceProfileOf,
  findPurchase,
  leasedFiling,
  listPurchases,
  recordFilingOutcome,
  storeSupplierSales,
  type ClaimedFiling,
  type Decision,
  type PurchaseLineRow,
  type PurchaseRow,
} from './store.ts';

export const FILING_RETRY_BATCH = 20;

// ---- the pull ----

function supplierSalesFeed(ctx: AppContext): BranchFeedOf<SupplierSale, PurchaseRow[]> {
  return {
    name: 'purchases',
    read: (authority) => authority.feeds.supplierSales,
    store: (trx, pull, sales) => storeSupplierSales(trx, pull, sales, (row) => ({ purchase: presentPurchase(row) }), ctx.database.notifier),
    stored: (pull, added) => {
      if (added.length > 0)
        ctx.log.info({ tenantId: pull.tenantId, branch: pull.device.branch, purchases: added.length }, 'purchases received');
    },
  };
}

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDuePurchaseBranches(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranches(ctx, supplierSalesFeed(ctx), intervalMs);
}

// ---- reading ----

/** All branches, or the one X-Branch names. */
export async function listPurchasesPage(
  ctx: AppContext,
  tenantId: number,
  deviceId: number | undefined,
  query: ListPurchasesQuery,
): Promise<Page<PurchaseResource>> {
  const { rows, total } = await listPurchases(
    ctx.db,
    tenantId,
    { deviceId, status: query.status, filing: query.filing, source: query.source },
    query.page,
  );
  return pageOf(rows.map(presentPurchase), total, query.page);
}

export async function getPurchase(ctx: AppContext, tenantId: number, id: number): Promise<PurchaseResource> {
  const row = await findPurchase(ctx.db, tenantId, id);
  if (!row) throw new NotFoundError('Purchase not found.');
  return presentPurchase(row);
}

// ---- answering ----

function alreadyAnswered(decision: string): ApiError {
  return new ApiError(
    'purchase_already_answered',
    `This purchase was already ${decision}; an answer cannot be changed. GET it to see where its filing stands.`,
  );
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
  const { stockInType } = ctx.authorities.of(await deviceProfileOf(ctx.db, purchase.device_id)).purchases;
  const result = await ctx.db.transaction().execute(async (trx) => {
    const decided = await decide(trx, tenantId, id, decision, vsdcLeaseMs(ctx.config));
    if (decided.kind === 'decided' && decision.decision === 'accepted') {
      const lines = purchase.lines.flatMap((line) => {
        const itemCode = decision.mappedItemCodes.get(line.line_no);
        return itemCode !== undefined && line.quantity !== null
          ? [{ itemCode, quantity: line.quantity, unitPrice: line.unit_price ?? '0' }]
          : [];
      });
      if (lines.length > 0) {
        await queueStockMovement(trx, {
          tenantId,
          deviceId: purchase.device_id,
          sarTyCd: stockInType,
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
  const filing = await leasedFiling(ctx.db, ctx.secretBox, id);
  if (filing) await sendFiling(ctx, filing);
  return getPurchase(ctx, tenantId, id);
}

export async function acceptPurchase(ctx: AppContext, tenantId: number, id: number, body: AcceptBody): Promise<PurchaseResource> {
  const purchase = await findPurchase(ctx.db, tenantId, id);
  if (!purchase) throw new NotFoundError('Purchase not found.');
  if (purchase.decision !== null) throw alreadyAnswered(purchase.decision);
  const errors = new FieldErrors();
  const mapped = new Map<number, string>();
  for (const [index, entry] of (body.lines ?? []).entries()) {
    const field = `lines.${index}`;
    if (!purchase.lines.some((l) => l.line_no === entry.line)) {
      errors.add(`${field}.line`, `This purchase has no line ${entry.line}; its lines are numbered 1 to ${purchase.lines.length}.`);
    } else if (mapped.has(entry.line)) {
      errors.add(`${field}.line`, `Line ${entry.line} is mapped twice; map each line at most once.`);
    } else if (!(await registeredItem(ctx, tenantId, entry.itemCode.trim()))) {
      errors.add(
        `${field}.itemCode`,
        `${entry.itemCode} is not one of your registered items; GET /api/v1/items lists them (a draft must be released first).`,
      );
    } else {
      mapped.set(entry.line, entry.itemCode.trim());
    }
  }
  errors.throwIfAny();
  // A line left out keeps the supplier's item code; it counts as yours when it names one of your items.
  for (const line of purchase.lines) {
    if (!mapped.has(line.line_no) && line.item_code !== null && (await registeredItem(ctx, tenantId, line.item_code)))
      mapped.set(line.line_no, line.item_code);
  }
  return answer(ctx, tenantId, id, { decision: 'accepted', remark: body.remark?.trim() || null, mappedItemCodes: mapped }, purchase);
}

export async function rejectPurchase(ctx: AppContext, tenantId: number, id: number, body: RejectBody): Promise<PurchaseResource> {
  const purchase = await findPurchase(ctx.db, tenantId, id);
  if (!purchase) throw new NotFoundError('Purchase not found.');
  return answer(ctx, tenantId, id, { decision: 'rejected', remark: body.reason?.trim() || null, mappedItemCodes: new Map() }, purchase);
}

// ---- filing the answer ----

const supplierItemOf = (line: PurchaseLineRow): PurchaseLineItem => ({
  itemCode: line.item_code,
  classificationCode: line.item_class_code,
  name: line.item_name,
  barcode: line.barcode,
  packagingUnitCode: line.packaging_unit_code,
  quantityUnitCode: line.quantity_unit_code,
});

/** The answer as the adapter sends it: each line with the merchant's own item where the line maps to one. */
async function purchaseToSend(ctx: AppContext, filing: ClaimedFiling): Promise<PurchaseToSend> {
  const lines = await Promise.all(
    filing.lines.map(async (line) => {
      const own = line.mapped_item_code === null ? undefined : await findItemByCode(ctx.db, filing.tenant_id, line.mapped_item_code);
      return {
        seq: line.line_no,
        own: own
          ? {
              itemCode: own.item_code,
              classificationCode: own.item_class_code,
              name: own.name,
              barcode: own.barcode,
              packagingUnitCode: own.packaging_unit_code,
              quantityUnitCode: own.quantity_unit_code,
            }
          : null,
        supplier: supplierItemOf(line),
        packages: line.packages,
        quantity: line.quantity,
        unitPrice: line.unit_price,
        supplyAmount: line.supply_amount,
        discountRate: line.discount_rate,
        discountAmount: line.discount_amount,
        taxableAmount: line.taxable_amount,
        vatAmount: line.vat_amount,
        totalAmount: line.total_amount,
        vatCategory: line.vat_category,
      };
    }),
  );
  return {
    number: filing.purchase_invoice_no!,
    source: filing.source,
    decision: filing.decision!,
    decidedAt: filing.decided_at!,
    supplier: {
      tpin: filing.supplier_tpin,
      branch: filing.supplier_branch,
      name: filing.supplier_name,
      invoiceNo: filing.supplier_invoice_no,
      sdcId: filing.supplier_sdc_id,
    },
    receiptTypeCode: filing.receipt_type_code,
    paymentTypeCode: filing.payment_type_code,
    salesDate: filing.sales_date,
    totals: { taxable: filing.total_taxable_amount, tax: filing.total_tax_amount, amount: filing.total_amount },
    remark: filing.answer_remark,
    lines,
  };
}

/** One attempt to file the merchant's answer with the authority; records the outcome. */
export async function sendFiling(ctx: AppContext, filing: ClaimedFiling): Promise<void> {
  const sent = await ctx.authorities.of(filing.device.profile).purchases.sendPurchase(filing.device, await purchaseToSend(ctx, filing));
  await recordFilingOutcome(ctx.db, Number(filing.id), answerOutcomeOf(ctx.config, sent, filing.retry_attempts));
}

/** One background round: sends answers whose time has come. Returns how many it handled. */
export async function fileDuePurchaseAnswers(ctx: AppContext): Promise<number> {
  const due = await claimDueFilings(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), FILING_RETRY_BATCH);
  await Promise.all(due.map((filing) => sendFiling(ctx, filing)));
  return due.length;
}
