// A purchase captured by hand: the merchant bought from a supplier the
// authority does not know (no TPIN, or one whose sale never reaches the merchant's pull), so no
// purchase is pulled for it. The merchant types in the supplier's invoice; the gateway computes
// its amounts as it computes a sale's (the authority's arithmetic, tax-inclusive prices), stores it as a
// purchase (`source` manual) accepted at once with the branch's next purchase number, raises
// stock for the goods lines naming the merchant's registered items (as an accepted pulled
// purchase), records `purchase.captured`, and files it (the adapter's sendPurchase, approved)
// as answers are filed: the request makes the first attempt, `purchases.file` retries.
import type { FiscalAuthority, SaleLineInput } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import type { BranchDevice } from '../../kernel/devices/store.ts';
import { actorOfParty, recordAudit, type Party } from '../../kernel/audit/store.ts';
import { ApiError, FieldErrors } from '../../../platform/errors/errors.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { checkClassifications, checkDecimals, compute, occurredAtOf } from '../../fiscal/sales/validation.ts';
import { queueStockMovement } from '../../fiscal/stock/movements.ts';
import { findItemByCode } from '../../merchant/items/store.ts';
import type { CapturePurchaseBody, PurchaseResource } from './schemas.ts';
import { getPurchase, sendFiling } from './service.ts';
import { deviceProfileOf, insertCapturedPurchase, leasedFiling, type CapturedPurchase } from './store.ts';

type CapturedLine = CapturePurchaseBody['items'][number];

/** Spaces at the ends dropped, runs of them made one. */
const tidy = (text: string): string => text.trim().replace(/\s+/g, ' ');

/** Decimals, a priced line that rounds to nothing, and the RRP of MTV lines: the sale path's rules. */
function checkLines(errors: FieldErrors, items: readonly CapturedLine[], authority: FiscalAuthority): void {
  items.forEach((item, i) => {
    const decimalsOk = [
      checkDecimals(errors, `items.${i}.quantity`, item.quantity),
      checkDecimals(errors, `items.${i}.price`, item.price),
    ].every(Boolean);
    if (decimalsOk && item.price > 0 && authority.arithmetic.lineGross(item.quantity, item.price) === 0) {
      errors.add(
        `items.${i}.price`,
        `The line comes to ${item.quantity} × ${item.price}, which rounds to 0.00: send a price of 0 for a free line, or a higher price or quantity.`,
      );
    }
    if (tidy(item.name) === '')
      errors.add(`items.${i}.name`, "The name field must not be blank: send the line as the supplier's invoice names it.");
    const category = item.vatCategory ?? authority.profile.defaultTaxCategory;
    if (category === 'B' && item.rrp == null) {
      errors.add(
        `items.${i}.rrp`,
        `The items.${i}.rrp field is required on an MTV (vatCategory B) line: send the recommended retail price per unit.`,
      );
    } else if (category === 'B') {
      checkDecimals(errors, `items.${i}.rrp`, item.rrp!);
    } else if (item.rrp != null) {
      errors.add(
        `items.${i}.rrp`,
        `The items.${i}.rrp field applies only to MTV (vatCategory B) lines; this line is ${category}. Leave rrp out, or make the line B.`,
      );
    }
  });
}

type OwnItem = NonNullable<Awaited<ReturnType<typeof findItemByCode>>>;

/** Each line's item (itemCode): one of the merchant's registered items, else the field's error. */
async function ownItemsOf(
  ctx: AppContext,
  errors: FieldErrors,
  tenantId: number,
  items: readonly CapturedLine[],
): Promise<Array<OwnItem | null>> {
  const found = new Map<string, OwnItem | undefined>();
  const owned: Array<OwnItem | null> = [];
  for (const [i, line] of items.entries()) {
    const code = line.itemCode?.trim();
    if (!code) {
      owned.push(null);
      continue;
    }
    if (!found.has(code)) found.set(code, await findItemByCode(ctx.db, tenantId, code));
    const item = found.get(code);
    if (!item || item.registration_state === 'draft') {
      errors.add(
        `items.${i}.itemCode`,
        `${code} is not one of your registered items${item ? ' (it is a draft: release it first)' : ''}: send the itemCode of one of your items (GET /api/v1/items lists them), or leave itemCode out for a line that is not one of them.`,
      );
    }
    owned.push(item ?? null);
  }
  return owned;
}

/**
 * What makes a capture the same purchase: the branch, the supplier (its TPIN, or without one its
 * name, case and spacing aside) and its invoice number (case aside).
 */
function dedupeKeyOf(device: BranchDevice, tpin: string | null, name: string, invoiceNo: string): string {
  const supplier = tpin === null ? `name:${name.toLowerCase()}` : `tpin:${tpin}`;
  return ['manual', device.id, supplier, invoiceNo.toUpperCase()].join('/');
}

export async function capturePurchase(
  ctx: AppContext,
  tenantId: number,
  device: BranchDevice,
  body: CapturePurchaseBody,
  by: Party,
): Promise<PurchaseResource> {
  const authority = ctx.authorities.of(await deviceProfileOf(ctx.db, device.id));
  const errors = new FieldErrors();
  const occurredAt = occurredAtOf(ctx, errors, body.occurredAt);
  const supplierName = tidy(body.supplier.name);
  const supplierTpin = body.supplier.tpin ?? null;
  const invoiceNo = tidy(body.supplierInvoiceNo);
  if (supplierName === '')
    errors.add('supplier.name', "The supplier.name field must not be blank: send the supplier's name as on its invoice.");
  if (invoiceNo === '')
    errors.add('supplierInvoiceNo', "The supplierInvoiceNo field must not be blank: send the number on the supplier's invoice.");
  checkLines(errors, body.items, authority);
  const owned = await ownItemsOf(ctx, errors, tenantId, body.items);
  errors.throwIfAny();
  await checkClassifications(ctx, authority.profile.authority, body.items, { whenUnavailable: 'refuse' });
  const inputs = body.items.map((item): SaleLineInput => ({
    name: tidy(item.name),
    classificationCode: item.classificationCode,
    quantity: item.quantity,
    price: item.price,
    vatCategory: item.vatCategory ?? authority.profile.defaultTaxCategory,
    rrp: item.rrp ?? null,
  }));
  const computed = compute(ctx, errors, authority.profile, inputs, true);
  errors.throwIfAny();

  const dates = authority.purchases.purchaseDatesOf(occurredAt);
  const captured: CapturedPurchase = {
    tenantId,
    deviceId: device.id,
    dedupeKey: dedupeKeyOf(device, supplierTpin, supplierName, invoiceNo),
    supplierTpin,
    supplierName,
    supplierInvoiceNo: invoiceNo,
    confirmedDt: dates.confirmedAt,
    salesDate: dates.salesDate,
    totals: { itemCount: computed.lines.length, taxable: computed.totals.net, tax: computed.totals.vat, amount: computed.totals.total },
    captured: { ...body, occurredAt: occurredAt.toISOString() },
    lines: computed.lines.map((line, i) => ({
      line_no: line.seq,
      item_seq: line.seq,
      item_code: null,
      item_class_code: line.classificationCode,
      item_name: line.name,
      barcode: owned[i]?.barcode ?? null,
      packaging_unit_code: owned[i]?.packaging_unit_code ?? 'NT',
      packages: line.quantity,
      quantity_unit_code: owned[i]?.quantity_unit_code ?? 'U',
      quantity: line.quantity,
      unit_price: line.price,
      supply_amount: line.supplyAmount,
      discount_rate: 0,
      discount_amount: 0,
      vat_category: line.vatCategory,
      taxable_amount: line.taxableAmount,
      vat_amount: line.vatAmount,
      total_amount: line.total,
      line: body.items[i],
      mapped_item_code: owned[i]?.item_code ?? null,
    })),
  };

  const id = await ctx.db.transaction().execute(async (trx) => {
    const stored = await insertCapturedPurchase(trx, captured, vsdcLeaseMs(ctx.config));
    if (stored.kind === 'duplicate') {
      throw new ApiError(
        'purchase_already_captured',
        `Branch ${device.branch} already holds invoice ${invoiceNo} of ${supplierTpin === null ? supplierName : `TPIN ${supplierTpin}`}: purchase ${stored.id} (GET /api/v1/purchases/${stored.id}). ` +
          'A purchase is captured once; for another invoice of the same supplier send its own supplierInvoiceNo.',
      );
    }
    // Goods lines naming a registered goods item raise stock (services and items the authority has
    // not registered are dropped by the stock module), exactly as an accepted pulled purchase does.
    const stockLines = captured.lines.flatMap((line) =>
      line.mapped_item_code === null
        ? []
        : [{ itemCode: line.mapped_item_code, quantity: String(line.quantity), unitPrice: String(line.unit_price) }],
    );
    if (stockLines.length > 0) {
      await queueStockMovement(trx, {
        tenantId,
        deviceId: device.id,
        sarTyCd: authority.purchases.stockInType,
        source: { kind: 'purchase', id: stored.id },
        lines: stockLines,
        counterparty: { tpin: supplierTpin, name: supplierName, branch: null },
      });
    }
    await recordAudit(trx, {
      actor: actorOfParty(by),
      action: 'purchase.captured',
      tenantId,
      targetType: 'purchase',
      targetId: stored.id,
      details: {
        branch: device.branch,
        supplier: { name: supplierName, tpin: supplierTpin },
        supplierInvoiceNo: invoiceNo,
        lines: captured.lines.length,
        total: computed.totals.total,
      },
    });
    return stored.id;
  });
  const filing = await leasedFiling(ctx.db, ctx.secretBox, id);
  if (filing) await sendFiling(ctx, filing);
  return getPurchase(ctx, tenantId, id);
}
