// What a printed fiscal receipt shows, read from an uploaded document and its branch.
import { sql, type Kysely } from 'kysely';
import { Decimal } from 'decimal.js';
import type { AppContext } from '../../kernel/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError, NotFoundError } from '../../../platform/errors/errors.ts';
import { localDateTime } from '../../../platform/lib/time-zones.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import type {
  AuthorityProfile,
  CodeLabel,
  DocumentType,
  ReceiptLabels,
  ReceiptLayout,
  SalesType,
} from '../../../authorities/port/index.ts';
import { authorityBranchesFor } from '../../kernel/devices/register.ts';
import type { AuthorityBranchResource } from '../../kernel/devices/schemas.ts';
import type { SaleResource } from '../sales/resource-schemas.ts';
import { getSale } from '../sales/reads.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';

/** The supplier's address from the authority's register: location, sector, district, province (what it has of them). */
function registeredAddress(branch: AuthorityBranchResource | undefined): string | null {
  if (!branch) return null;
  const parts = [branch.location, branch.sector, branch.district, branch.province].map((p) => p?.trim() ?? '').filter((p) => p !== '');
  return parts.length === 0 ? null : parts.join(', ');
}

/** What `code` means in the authority's table; a code the table does not hold stands for itself. */
function labelOf(list: readonly CodeLabel[] | null, code: string): string | undefined {
  return list?.find((c) => c.code === code)?.label;
}

/** `03 Damaged goods`: the code the authority holds and what it means. */
function reasonLabel(profile: AuthorityProfile, type: SaleResource['type'], code: string | null): string | null {
  if (code === null || type === 'sale') return null;
  const label = labelOf(type === 'credit_note' ? profile.creditNoteReasons : profile.debitNoteReasons, code);
  return label === undefined ? code : `${code} ${label}`;
}

const KIND_WORDS: Record<SalesType, string> = { normal: 'Normal', training: 'Training', proforma: 'Proforma' };
const TYPE_WORDS: Record<DocumentType, string> = { sale: 'Sale', credit_note: 'Credit note', debit_note: 'Debit note' };

/** The invoice type in words: `Normal Sale`, `Training Credit note`, `Proforma Debit note`, … */
function invoiceTypeWords(salesType: SalesType, type: DocumentType): string {
  return `${KIND_WORDS[salesType]} ${TYPE_WORDS[type]}`;
}

/** The title at the head of the receipt: a normal document's by its type, else its kind's banner (NOT A TAX INVOICE). */
function receiptTitle(profile: AuthorityProfile, salesType: SalesType, type: DocumentType): string {
  return profile.receiptTitles[salesType === 'normal' ? type : salesType];
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
  /** Printed under the line when not 0, with its rate (of amount). */
  discount: number;
  discountRate: number;
  /** The line's amount excluding tax (the taxable amount filed). */
  net: number;
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
  /** TAX INVOICE, CREDIT NOTE, DEBIT NOTE, or the training / proforma banner. */
  title: string;
  /** Whether this document is a tax invoice at all (a normal one): training and proforma are not. */
  fiscal: boolean;
  /** The invoice type in words (`Normal Sale`, `Training Credit note`, …). */
  invoiceType: string;
  /** The supplier: the merchant's registered name (tenants.name), not the VSDC's taxpayer name. */
  merchantName: string;
  tpin: string;
  branch: string;
  branchName: string | null;
  /** The supplier's address from the authority's branch register; null when it has none. */
  address: string | null;
  /** The merchant's IANA zone every printed time is in. */
  timezone: string;
  sdcId: string;
  mrcNo: string | null;
  receiptNo: number;
  /** The unit's count of all its receipts (KRA's `totRcptNo`); null when the authority gives none. */
  totalReceiptNo: number | null;
  /** How many lines the document has. */
  itemCount: number;
  authorityInvoiceNo: string | null;
  invoiceNo: number;
  clientInvoiceNo: string | null;
  internalData: string;
  receiptSignature: string;
  publishedAt: string;
  occurredAt: string;
  /**
   * `publishedAt` and `occurredAt` as printed: local time with the zone (`2026-11-27 17:29:47 CAT`);
   * internal data and signature as the authority's receipts print them (in groups of four, or as given).
   */
  printed: { publishedAt: string; occurredAt: string; internalData: string; receiptSignature: string };
  customer: { name: string; tpin: string | null; address: string | null };
  paymentMethod: string;
  lpoNumber: string | null;
  principalId: string | null;
  /** A foreign-currency document: the rate (units of the authority's currency per unit, 4 decimals) and the total in the authority's currency (`home`). */
  exchange: { currency: string; rate: string; home: string; totalInHome: number } | null;
  items: ReceiptLine[];
  categories: ReceiptCategoryTotal[];
  totals: { net: number; vat: number; total: number; discount: number; currency: string };
  /** The total discount as a % of the lines' amounts before discounts. */
  discountRate: number;
  /** "Total excl. VAT", or what the net is when it is not that (an MTV line taxed on its RRP). */
  netLabel: string;
  qrCodeUrl: string | null;
  /** The authority's words for its identifiers and fiscal block. */
  labels: ReceiptLabels;
  /** What the fiscal block prints, and how. */
  layout: ReceiptLayout;
  originalSaleId: number | null;
  /** A note: the invoice it corrects, and why (`reason`). */
  original: OriginalInvoice | null;
  reason: string | null;
  /** The document's kind, for the file's name (receipt, credit-note, debit-note; training, proforma). */
  type: SaleResource['type'];
  salesType: SaleResource['salesType'];
  /**
   * `original`: the first print. `copy`: a print after the first, marked COPY. `preview`: not a
   * print (counted nothing), marked PREVIEW — NOT A RECEIPT so it cannot pass for either.
   */
  mark: ReceiptMark;
  /** How many times the receipt was printed before this one (a preview tells the next print's mark). */
  printedBefore: number;
}

type ReceiptMark = 'original' | 'copy' | 'preview';

/** Category totals are sums of the document's rounded lines, as the authority was sent them; in the profile's table order. */
function categoryTotals(profile: AuthorityProfile, sale: SaleResource): ReceiptCategoryTotal[] {
  const sums = new Map<string, { taxable: Decimal; vat: Decimal; total: Decimal }>();
  for (const line of sale.items) {
    const sum = sums.get(line.vatCategory) ?? { taxable: new Decimal(0), vat: new Decimal(0), total: new Decimal(0) };
    sums.set(line.vatCategory, { taxable: sum.taxable.plus(line.net), vat: sum.vat.plus(line.vat), total: sum.total.plus(line.total) });
  }
  const ordered = profile.receiptLayout.taxTableOrder
    .map((code) => profile.taxCategories.find((c) => c.code === code))
    .filter((c) => c !== undefined);
  return ordered
    .filter((c) => sums.has(c.code))
    .map((c) => {
      const sum = sums.get(c.code)!;
      return {
        code: c.code,
        name: c.name,
        rate: c.rate,
        taxable: sum.taxable.toNumber(),
        vat: sum.vat.toNumber(),
        total: sum.total.toNumber(),
      };
    });
}

/** What the receipt reads beside the sale resource: the merchant (registered name, zone) and its branch. */
export interface ReceiptSource {
  /** The merchant's authority: its titles, labels, categories and currency. */
  profile: AuthorityProfile;
  merchantName: string;
  timezone: string;
  branchName: string | null;
  address: string | null;
}

/** `WOAW-BLHI-MNZS-…`: in groups of four joined by hyphens when the authority prints it so. */
function fiscalCode(text: string, grouped: boolean): string {
  return grouped ? (text.match(/.{1,4}/g) ?? []).join('-') : text;
}

/** `part` as a % of `whole`, to 2 decimals (0 when whole is 0). */
function percentOf(part: number, whole: number): number {
  return whole === 0 ? 0 : new Decimal(part).times(100).div(whole).toDecimalPlaces(2).toNumber();
}

/** Builds the receipt of a document; only an uploaded document is a fiscal receipt (spec 1.3). */
export function receiptOf(
  sale: SaleResource,
  source: ReceiptSource,
  print: { original?: OriginalInvoice | null; mark?: ReceiptMark; printedBefore?: number } = {},
): Receipt {
  const fiscal = sale.fiscal;
  if (
    sale.status !== 'uploaded' ||
    fiscal.receiptNo === null ||
    fiscal.sdcId === null ||
    fiscal.internalData === null ||
    fiscal.receiptSignature === null ||
    fiscal.publishedAt === null
  ) {
    throw new ApiError(
      'receipt_not_available',
      sale.status === 'failed'
        ? 'This document was refused by the authority, so it has no fiscal receipt. Only uploaded documents may be printed.'
        : 'This document is still pending: the authority has not fiscalised it yet. Only uploaded documents may be printed; try again once its status is uploaded.',
    );
  }
  const { profile } = source;
  const currency = sale.totals.currency;
  // Filed positive; printed negative where the authority's credit notes are (never -0).
  const signed =
    sale.type === 'credit_note' && profile.receiptLayout.creditNoteAmountsNegative ? (n: number) => (n === 0 ? 0 : -n) : (n: number) => n;
  const gross = sale.items.reduce((sum, l) => sum.plus(l.amount), new Decimal(0)).toNumber();
  return {
    title: receiptTitle(profile, sale.salesType, sale.type),
    fiscal: sale.salesType === 'normal',
    invoiceType: invoiceTypeWords(sale.salesType, sale.type),
    merchantName: source.merchantName,
    tpin: sale.tpin,
    branch: sale.branch,
    branchName: source.branchName,
    address: source.address,
    timezone: source.timezone,
    sdcId: fiscal.sdcId,
    mrcNo: fiscal.mrcNo,
    receiptNo: fiscal.receiptNo,
    // Absent from documents of an authority that gives no such count.
    totalReceiptNo: (fiscal as { totalReceiptNo?: number | null }).totalReceiptNo ?? null,
    itemCount: sale.items.length,
    authorityInvoiceNo: sale.authorityInvoiceNo,
    invoiceNo: sale.invoiceNo,
    clientInvoiceNo: sale.clientInvoiceNo,
    internalData: fiscal.internalData,
    receiptSignature: fiscal.receiptSignature,
    publishedAt: fiscal.publishedAt,
    occurredAt: sale.occurredAt,
    printed: {
      publishedAt: localDateTime(new Date(fiscal.publishedAt), source.timezone),
      occurredAt: localDateTime(new Date(sale.occurredAt), source.timezone),
      internalData: fiscalCode(fiscal.internalData, profile.receiptLayout.groupFiscalCodes),
      receiptSignature: fiscalCode(fiscal.receiptSignature, profile.receiptLayout.groupFiscalCodes),
    },
    customer: sale.customer,
    paymentMethod: labelOf(profile.paymentMethods, sale.paymentMethod) ?? sale.paymentMethod,
    lpoNumber: sale.lpoNumber,
    principalId: sale.principalId,
    exchange:
      currency === profile.currency
        ? null
        : { currency, rate: new Decimal(sale.exchangeRate).toFixed(4), home: profile.currency, totalInHome: sale.totalInKwacha },
    items: sale.items.map((l) => ({
      name: l.name,
      quantity: l.quantity,
      price: l.price,
      amount: signed(l.amount),
      discount: l.discount,
      discountRate: percentOf(l.discount, l.amount),
      net: signed(l.net),
      rrp: l.rrp,
      vatCategory: l.vatCategory,
    })),
    categories: categoryTotals(profile, sale).map((c) => ({
      ...c,
      taxable: signed(c.taxable),
      vat: signed(c.vat),
      total: signed(c.total),
    })),
    totals: { ...sale.totals, net: signed(sale.totals.net), vat: signed(sale.totals.vat), total: signed(sale.totals.total) },
    discountRate: percentOf(sale.totals.discount, gross),
    netLabel: new Decimal(sale.totals.net).plus(sale.totals.vat).eq(sale.totals.total) ? 'Total excl. VAT' : 'Taxable value (MTV on RRP)',
    qrCodeUrl: fiscal.qrCodeUrl,
    labels: profile.receiptLabels,
    layout: profile.receiptLayout,
    originalSaleId: sale.originalSaleId,
    original: print.original ?? null,
    reason: reasonLabel(profile, sale.type, sale.reasonCode),
    type: sale.type,
    salesType: sale.salesType,
    mark: print.mark ?? 'original',
    printedBefore: print.printedBefore ?? 0,
  };
}

/**
 * The merchant (registered name, zone) and the document's branch, in one statement; then the
 * supplier's address from the authority's branch register.
 */
async function sourceOf(db: Kysely<DB>, tenantId: number, sale: SaleResource): Promise<ReceiptSource> {
  const row = await db
    .selectFrom('sales as s')
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .innerJoin('devices as d', 'd.id', 's.device_id')
    .select(['t.name', 't.timezone', 't.authority', 'd.branch_name'])
    .where('s.tenant_id', '=', tenantId)
    .where('s.id', '=', sale.id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Sale not found.');
  const register = await authorityBranchesFor(db, new Map([[tenantId, [sale.branch]]]));
  const registered = register.get(tenantId)?.find((b) => b.branch === sale.branch);
  return {
    profile: merchantProfile(row.authority),
    merchantName: row.name,
    timezone: row.timezone,
    branchName: row.branch_name ?? registered?.name ?? null,
    address: registeredAddress(registered),
  };
}

/**
 * Counts one print of an uploaded document's receipt; returns which print this is (1: the
 * original). One statement, so two prints at once get 1 and 2, never 1 and 1.
 */
export async function countPrint(db: Kysely<DB>, tenantId: number, saleId: number, now: Date): Promise<number> {
  const row = await db
    .updateTable('sales')
    .set((eb) => ({
      receipt_print_count: eb('receipt_print_count', '+', 1),
      receipt_printed_at: eb.fn.coalesce('receipt_printed_at', sql<Date>`${now}::timestamptz`),
    }))
    .where('id', '=', saleId)
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'uploaded')
    .returning('receipt_print_count')
    .executeTakeFirst();
  return row?.receipt_print_count ?? 1;
}

/** How many times the document's receipt was printed so far (0 for another tenant's or unknown). */
export async function printsOf(db: Kysely<DB>, tenantId: number, saleId: number): Promise<number> {
  const row = await db
    .selectFrom('sales')
    .select('receipt_print_count')
    .where('id', '=', saleId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row?.receipt_print_count ?? 0;
}

async function originalOf(ctx: AppContext, tenantId: number, sale: SaleResource): Promise<OriginalInvoice | null> {
  if (sale.type === 'sale' || sale.originalSaleId === null) return null;
  const original = await getSale(ctx, tenantId, sale.originalSaleId);
  return { authorityInvoiceNo: original.authorityInvoiceNo, receiptNo: original.fiscal.receiptNo, invoiceNo: original.invoiceNo };
}

/**
 * The receipt of an uploaded document (404 when not the tenant's, 409 when not uploaded), as
 * printed now: the print is counted, and every print after the first is marked COPY and recorded
 * in the merchant's audit trail with who asked for it, in the count's transaction. A `preview`
 * counts nothing and is marked PREVIEW — NOT A RECEIPT instead.
 */
export async function loadReceipt(
  ctx: AppContext,
  tenantId: number,
  saleId: number,
  by: Actor,
  options: { preview?: boolean } = {},
): Promise<Receipt> {
  const sale = await getSale(ctx, tenantId, saleId);
  const source = await sourceOf(ctx.db, tenantId, sale);
  receiptOf(sale, source); // 409 before anything is counted
  const original = await originalOf(ctx, tenantId, sale);
  if (options.preview) {
    return receiptOf(sale, source, { original, mark: 'preview', printedBefore: await printsOf(ctx.db, tenantId, saleId) });
  }
  const printNo = await ctx.db.transaction().execute(async (trx) => {
    const n = await countPrint(trx, tenantId, saleId, ctx.clock.now());
    if (n > 1) {
      await recordAudit(trx, {
        actor: by,
        action: 'sale.reprinted',
        tenantId,
        targetType: 'sale',
        targetId: saleId,
        details: { invoiceNo: sale.invoiceNo, branch: sale.branch, print: n },
      });
    }
    return n;
  });
  return receiptOf(sale, source, { original, mark: printNo > 1 ? 'copy' : 'original', printedBefore: printNo - 1 });
}
