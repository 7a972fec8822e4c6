import { merchantProfile } from '../../../authorities/index.ts';
import { authorityOfTaxpayerId } from '../../kernel/devices/authorities.ts';
import type { SaleResource } from './resource-schemas.ts';
import type { SaleLineRow, SaleRow } from './store.ts';
import type { NewLine } from './document-columns.ts';
import type { DocumentStatus, SaleStatus } from '../../../platform/db/tables/sales.ts';
import { iso } from '../../../platform/lib/time.ts';
import { Money } from '../../../authorities/port/amounts.ts';
import { documentStock, type DocumentStockResource } from '../stock/document-stock.ts';

type SaleLineResource = SaleResource['items'][number];

const num = (value: string | number): number => (typeof value === 'number' ? value : Number(value));

export function presentLineRow(row: SaleLineRow): SaleLineResource {
  return {
    line: row.line,
    name: row.name,
    classificationCode: row.classification_code,
    itemCode: row.item_code,
    quantity: num(row.quantity),
    price: num(row.price),
    vatCategory: row.vat_category,
    vatRate: num(row.vat_rate),
    rrp: row.rrp === null ? null : num(row.rrp),
    amount: num(row.amount),
    discount: num(row.discount),
    net: num(row.net),
    vat: num(row.vat),
    total: num(row.total),
    originalLine: row.original_line,
  };
}

export function presentNewLine(line: NewLine): SaleLineResource {
  return {
    line: line.line,
    name: line.name,
    classificationCode: line.classification_code,
    itemCode: line.item_code,
    quantity: line.quantity,
    price: line.price,
    vatCategory: line.vat_category,
    vatRate: line.vat_rate,
    rrp: line.rrp,
    amount: line.amount,
    discount: line.discount,
    net: line.net,
    vat: line.vat,
    total: line.total,
    originalLine: line.original_line,
  };
}

/**
 * The number printed on a fiscal receipt, in the form of the merchant's authority (its profile's
 * authorityInvoiceNo: ZRA `INV{sdcId without "SDC"}/{receiptNo}`, KRA `{sdcId}/{invoiceNo}`).
 */
export function authorityInvoiceNo(sdcId: string | null, receiptNo: number | null, invoiceNo: number, authority: string): string | null {
  if (sdcId === null || receiptNo === null) return null;
  return merchantProfile(authority).authorityInvoiceNo({ sdcId, invoiceNo, receiptNo });
}

/** Σ line discounts, exact to the cent. */
function totalDiscount(items: readonly SaleLineResource[]): number {
  let sum: Money | null = null;
  for (const item of items) if (item.discount !== 0) sum = (sum ?? new Money(0)).plus(String(item.discount));
  return sum === null ? 0 : sum.toNumber();
}

/** An amount of the document's currency in kwacha, rounded to the cent (what reports add up). */
function inKwacha(amount: string | number, exchangeRate: string | number): number {
  return new Money(String(amount)).times(String(exchangeRate)).toDecimalPlaces(2).toNumber();
}

/** `resolved_by` is stored as `type:id` (`tenant_token:12`). */
function resolverOf(resolvedBy: string | null): { type: string; id: number | null } {
  const [type = 'unknown', id] = (resolvedBy ?? '').split(':');
  return { type: type || 'unknown', id: id === undefined || id === '' ? null : Number(id) };
}

/** The status a resource shows: a resolved document is still `failed` (spec 2.2); `resolution` says it was dealt with. */
export function presentedStatus(stored: DocumentStatus): SaleStatus {
  return stored === 'resolved' ? 'failed' : stored;
}

export function presentResolution(
  row: Pick<SaleRow, 'status' | 'resolution_kind' | 'resolved_by' | 'resolved_at' | 'resolution_note' | 'replaced_by_sale_id'>,
): SaleResource['resolution'] {
  if (row.status !== 'resolved' || row.resolution_kind === null || row.resolved_at === null) return null;
  return {
    kind: row.resolution_kind,
    by: resolverOf(row.resolved_by),
    at: iso(row.resolved_at)!,
    note: row.resolution_note,
    replacedBySaleId: row.replaced_by_sale_id === null ? null : Number(row.replaced_by_sale_id),
  };
}

/** Who issued a document (`issued_by_*`, the name as read with the row); null before issuers were recorded. */
export function presentIssuer(row: Pick<SaleRow, 'issued_by_type' | 'issued_by_id' | 'issued_by_name'>): SaleResource['issuedBy'] {
  if (row.issued_by_type === null || row.issued_by_id === null) return null;
  return { type: row.issued_by_type, id: Number(row.issued_by_id), name: row.issued_by_name ?? null };
}

/**
 * The sale resource of spec 2.2 (plus type, items, paymentMethod, occurredAt, createdAt, notes'
 * fields). `stock`: as read with the document (stockOfDocuments); absent, as a document just written.
 */
export function presentSale(row: SaleRow, items: SaleLineResource[], stock?: DocumentStockResource): SaleResource {
  const uploaded = row.status === 'uploaded';
  const receiptNo = uploaded && row.receipt_no !== null ? Number(row.receipt_no) : null;
  return {
    id: Number(row.id),
    type: row.type,
    reference: row.reference,
    clientInvoiceNo: row.client_invoice_no,
    invoiceNo: Number(row.invoice_no),
    authorityInvoiceNo: uploaded
      ? authorityInvoiceNo(row.sdc_id, receiptNo, Number(row.invoice_no), authorityOfTaxpayerId(row.tpin))
      : null,
    status: presentedStatus(row.status),
    tpin: row.tpin,
    branch: row.branch,
    salesType: row.sales_type,
    customer: { name: row.customer_name, tpin: row.customer_tpin, address: row.customer_address },
    paymentMethod: row.payment_method,
    taxInclusive: row.tax_inclusive,
    destinationCountryCode: row.destination_country_code,
    occurredAt: iso(row.occurred_at),
    items,
    totals: { net: num(row.net), vat: num(row.vat), total: num(row.total), discount: totalDiscount(items), currency: row.currency },
    exchangeRate: num(row.exchange_rate),
    totalInKwacha: inKwacha(row.total, row.exchange_rate),
    lpoNumber: row.lpo_number,
    principalId: row.principal_id,
    fiscal: {
      receiptNo,
      totalReceiptNo: uploaded && row.total_receipt_no !== null ? Number(row.total_receipt_no) : null,
      internalData: uploaded ? row.internal_data : null,
      receiptSignature: uploaded ? row.receipt_signature : null,
      sdcId: uploaded ? row.sdc_id : null,
      mrcNo: uploaded ? row.mrc_no : null,
      qrCodeUrl: uploaded ? row.qr_code_url : null,
      publishedAt: uploaded && row.published_at ? iso(row.published_at) : null,
    },
    resultCode: row.result_code,
    lastError: row.last_error,
    originalSaleId: row.original_sale_id === null ? null : Number(row.original_sale_id),
    reasonCode: row.reason_code,
    stock:
      stock ??
      documentStock(
        row,
        items.map((i) => i.itemCode),
      ),
    replacesSaleId: row.replaces_sale_id === null ? null : Number(row.replaces_sale_id),
    resolution: presentResolution(row),
    issuedBy: presentIssuer(row),
    createdAt: iso(row.created_at),
    fiscalisedAt: iso(row.updated_at),
  };
}
