// What a printed fiscal receipt shows, read from an uploaded document and its branch.
import { sql, type Kysely } from 'kysely';
import { Decimal } from 'decimal.js';
import type { AppContext } from '../../kernel/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError, NotFoundError } from '../../../platform/errors/errors.ts';
import { noteReasonLabel, paymentTypeLabel } from '../../../vsdc/codes.ts';
import { VAT_CATEGORIES } from '../../../vsdc/tax.ts';
import type { SaleResource } from '../sales/schemas.ts';
import { getSale } from '../sales/service.ts';

const TITLES = { sale: 'TAX INVOICE', credit_note: 'CREDIT NOTE', debit_note: 'DEBIT NOTE' } as const;

/** `03 Damaged goods`: the code the authority holds and what it means. */
function reasonLabel(type: SaleResource['type'], code: string | null): string | null {
  if (code === null || type === 'sale') return null;
  return noteReasonLabel(type, code);
}

/** What a note's receipt says of the invoice it corrects. */
interface OriginalInvoice {
  /** `INV…/receiptNo`, as printed on the original receipt. */
  authorityInvoiceNo: string | null;
  receiptNo: number | null;
  invoiceNo: number;
}

interface ReceiptLine {
  name: string;
  quantity: number;
  price: number;
  /** quantity × price, before the discount. */
  amount: number;
  /** Printed under the line when not 0. */
  discount: number;
  /** MTV (B) lines: the RRP per unit VAT was computed on when higher. */
  rrp: number | null;
  vatCategory: string;
}

interface ReceiptCategoryTotal {
  code: string;
  name: string;
  rate: number;
  taxable: number;
  vat: number;
  total: number;
}

export interface Receipt {
  title: string;
  taxpayerName: string;
  tpin: string;
  branch: string;
  branchName: string | null;
  sdcId: string;
  mrcNo: string | null;
  receiptNo: number;
  authorityInvoiceNo: string | null;
  invoiceNo: number;
  clientInvoiceNo: string | null;
  internalData: string;
  receiptSignature: string;
  publishedAt: string;
  occurredAt: string;
  customer: { name: string; tpin: string | null };
  paymentMethod: string;
  items: ReceiptLine[];
  categories: ReceiptCategoryTotal[];
  totals: { net: number; vat: number; total: number; discount: number; currency: string };
  /** "Total excl. VAT", or what the net is when it is not that (an MTV line taxed on its RRP). */
  netLabel: string;
  qrCodeUrl: string | null;
  originalSaleId: number | null;
  /** A note: the invoice it corrects, and why (`reason`). */
  original: OriginalInvoice | null;
  reason: string | null;
  /** Printed before (this is not the first print): the receipt says COPY. */
  copy: boolean;
}

/** Category totals are sums of the document's rounded lines, as the VSDC was sent them. */
function categoryTotals(sale: SaleResource): ReceiptCategoryTotal[] {
  const sums = new Map<string, { taxable: Decimal; vat: Decimal; total: Decimal }>();
  for (const line of sale.items) {
    const sum = sums.get(line.vatCategory) ?? { taxable: new Decimal(0), vat: new Decimal(0), total: new Decimal(0) };
    sums.set(line.vatCategory, { taxable: sum.taxable.plus(line.net), vat: sum.vat.plus(line.vat), total: sum.total.plus(line.total) });
  }
  return VAT_CATEGORIES.filter((c) => sums.has(c.code)).map((c) => {
    const sum = sums.get(c.code)!;
    return { code: c.code, name: c.name, rate: c.rate, taxable: sum.taxable.toNumber(), vat: sum.vat.toNumber(), total: sum.total.toNumber() };
  });
}

/** Builds the receipt of a document; only an uploaded document is a fiscal receipt (spec 1.3). */
function receiptOf(
  sale: SaleResource,
  branch: { taxpayerName: string; branchName: string | null },
  print: { original?: OriginalInvoice | null; copy?: boolean } = {},
): Receipt {
  const fiscal = sale.fiscal;
  if (sale.status !== 'uploaded' || fiscal.receiptNo === null || fiscal.sdcId === null || fiscal.internalData === null || fiscal.receiptSignature === null || fiscal.publishedAt === null) {
    throw new ApiError('receipt_not_available',
      sale.status === 'failed'
        ? 'This document was refused by the authority, so it has no fiscal receipt. Only uploaded documents may be printed.'
        : 'This document is still pending: the authority has not fiscalised it yet. Only uploaded documents may be printed; try again once its status is uploaded.',
    );
  }
  return {
    title: TITLES[sale.type],
    taxpayerName: branch.taxpayerName,
    tpin: sale.tpin,
    branch: sale.branch,
    branchName: branch.branchName,
    sdcId: fiscal.sdcId,
    mrcNo: fiscal.mrcNo,
    receiptNo: fiscal.receiptNo,
    authorityInvoiceNo: sale.authorityInvoiceNo,
    invoiceNo: sale.invoiceNo,
    clientInvoiceNo: sale.clientInvoiceNo,
    internalData: fiscal.internalData,
    receiptSignature: fiscal.receiptSignature,
    publishedAt: fiscal.publishedAt,
    occurredAt: sale.occurredAt,
    customer: sale.customer,
    paymentMethod: paymentTypeLabel(sale.paymentMethod),
    items: sale.items.map((l) => ({ name: l.name, quantity: l.quantity, price: l.price, amount: l.amount, discount: l.discount, rrp: l.rrp, vatCategory: l.vatCategory })),
    categories: categoryTotals(sale),
    totals: sale.totals,
    netLabel: new Decimal(sale.totals.net).plus(sale.totals.vat).eq(sale.totals.total) ? 'Total excl. VAT' : 'Taxable value (MTV on RRP)',
    qrCodeUrl: fiscal.qrCodeUrl,
    originalSaleId: sale.originalSaleId,
    original: print.original ?? null,
    reason: reasonLabel(sale.type, sale.reasonCode),
    copy: print.copy ?? false,
  };
}

async function branchOf(db: Kysely<DB>, tenantId: number, branch: string): Promise<{ taxpayerName: string; branchName: string | null }> {
  const row = await db
    .selectFrom('devices as d')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .select(['d.taxpayer_name', 'd.branch_name', 't.name'])
    .where('d.tenant_id', '=', tenantId)
    .where('d.branch', '=', branch)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Sale not found.');
  return { taxpayerName: row.taxpayer_name ?? row.name, branchName: row.branch_name };
}

/**
 * Counts one print of an uploaded document's receipt; returns which print this is (1: the
 * original). One statement, so two prints at once get 1 and 2, never 1 and 1.
 */
export async function countPrint(db: Kysely<DB>, tenantId: number, saleId: number, now: Date): Promise<number> {
  const row = await db
    .updateTable('sales')
    .set((eb) => ({ receipt_print_count: eb('receipt_print_count', '+', 1), receipt_printed_at: eb.fn.coalesce('receipt_printed_at', sql<Date>`${now}::timestamptz`) }))
    .where('id', '=', saleId)
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'uploaded')
    .returning('receipt_print_count')
    .executeTakeFirst();
  return row?.receipt_print_count ?? 1;
}

/** How many times the document's receipt was printed so far (0 for another tenant's or unknown). */
export async function printsOf(db: Kysely<DB>, tenantId: number, saleId: number): Promise<number> {
  const row = await db.selectFrom('sales').select('receipt_print_count').where('id', '=', saleId).where('tenant_id', '=', tenantId).executeTakeFirst();
  return row?.receipt_print_count ?? 0;
}

async function originalOf(ctx: AppContext, tenantId: number, sale: SaleResource): Promise<OriginalInvoice | null> {
  if (sale.type === 'sale' || sale.originalSaleId === null) return null;
  const original = await getSale(ctx, tenantId, sale.originalSaleId);
  return { authorityInvoiceNo: original.authorityInvoiceNo, receiptNo: original.fiscal.receiptNo, invoiceNo: original.invoiceNo };
}

/**
 * The receipt of one of the tenant's documents, as printed now: 404 when not theirs, 409 when not
 * uploaded. Each call is a print (counted); every print after the first is marked COPY.
 */
export async function loadReceipt(ctx: AppContext, tenantId: number, saleId: number): Promise<Receipt> {
  const sale = await getSale(ctx, tenantId, saleId);
  const branch = await branchOf(ctx.db, tenantId, sale.branch);
  receiptOf(sale, branch); // 409 before anything is counted
  const [original, printNo] = await Promise.all([originalOf(ctx, tenantId, sale), countPrint(ctx.db, tenantId, saleId, ctx.clock.now())]);
  return receiptOf(sale, branch, { original, copy: printNo > 1 });
}
