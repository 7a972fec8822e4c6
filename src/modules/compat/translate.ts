// The legacy dialect ↔ the sales module: request bodies in, sale resources out, and the sales
// module's field names in error messages turned back into the names the till sent.
import { ApiError, FieldErrors, ValidationError } from '../../http/errors.ts';
import type { CreateSaleBody, SaleResource } from '../sales/schemas.ts';
import type { LegacyBranch, LegacyInvoice, LegacyInvoiceBody } from './schemas.ts';
import type { KeyBranch } from './store.ts';

/**
 * The Idempotency-Key a till's invoice is stored under: the device (the branch named by
 * X-SdcId) and the till's number. Unique per tenant in the sales table, so per branch here.
 */
export function tillReference(deviceId: number, clientInvoiceNumber: string): string {
  return `zm:${deviceId}:${clientInvoiceNumber}`;
}

/**
 * The sales body of a legacy invoice. Only fields the till sent are set, so the sales module's
 * defaults apply and the same legacy body always gives the same sales body (idempotency
 * compares bodies).
 */
export function toSaleBody(legacy: LegacyInvoiceBody): CreateSaleBody {
  const body: CreateSaleBody = {
    items: legacy.Items.map((item) => ({
      name: item.ItemName,
      classificationCode: item.ItemClassificationCode,
      quantity: item.Quantity,
      price: item.UnitPrice,
      ...(item.VATCategoryCode ? { vatCategory: item.VATCategoryCode } : {}),
    })),
    clientInvoiceNo: legacy.ClientInvoiceNumber,
  };
  const customerName = legacy.CustomerName?.trim();
  const customerTpin = legacy.CustomerTPIN || undefined;
  if (customerName || customerTpin) body.customer = { ...(customerName ? { name: customerName } : {}), ...(customerTpin ? { tpin: customerTpin } : {}) };
  if (legacy.PaymentTypeCode) body.paymentMethod = legacy.PaymentTypeCode;
  if (typeof legacy.TaxInclusive === 'boolean') body.taxInclusive = legacy.TaxInclusive;
  if (legacy.SalesDate) body.occurredAt = legacy.SalesDate;
  if (legacy.DestinationCountryCode) body.destinationCountryCode = legacy.DestinationCountryCode;
  return body;
}

export function toLegacyInvoice(sale: SaleResource): LegacyInvoice {
  return {
    ClientInvoiceNumber: sale.clientInvoiceNo,
    InvoiceNumber: sale.invoiceNo,
    Status: sale.status,
    Tpin: sale.tpin,
    BranchId: sale.branch,
    TotalAmount: sale.totals.total,
    TaxableAmount: sale.totals.net,
    TaxAmount: sale.totals.vat,
    Currency: sale.totals.currency,
    ReceiptNumber: sale.fiscal.receiptNo,
    InternalData: sale.fiscal.internalData,
    ReceiptSignature: sale.fiscal.receiptSignature,
    SdcId: sale.fiscal.sdcId,
    MrcNo: sale.fiscal.mrcNo,
    QrCodeUrl: sale.fiscal.qrCodeUrl,
    PublishedAt: sale.fiscal.publishedAt,
    ResultCode: sale.resultCode,
    ResultMessage: sale.lastError,
  };
}

export function toLegacyBranch(branch: KeyBranch): LegacyBranch {
  return { BranchId: branch.branch, SdcId: branch.sdcId, Name: branch.name, Initialized: branch.initialized };
}

// Maps, not object literals: a field name looked up here may be one the till sent.
const LEGACY_LINE_FIELDS = new Map<string, string>(Object.entries({
  name: 'ItemName',
  classificationCode: 'ItemClassificationCode',
  quantity: 'Quantity',
  price: 'UnitPrice',
  vatCategory: 'VATCategoryCode',
}));

const LEGACY_FIELDS = new Map<string, string>(Object.entries({
  items: 'Items',
  customer: 'CustomerName',
  'customer.name': 'CustomerName',
  'customer.tpin': 'CustomerTPIN',
  paymentMethod: 'PaymentTypeCode',
  taxInclusive: 'TaxInclusive',
  occurredAt: 'SalesDate',
  destinationCountryCode: 'DestinationCountryCode',
  clientInvoiceNo: 'ClientInvoiceNumber',
}));

/** `items.2.price` → `Items.2.UnitPrice`, `occurredAt` → `SalesDate`; other text unchanged. */
export function legacyFieldName(field: string): string {
  const line = /^items\.(\d+)\.(\w+)$/.exec(field);
  if (line) return `Items.${line[1]}.${LEGACY_LINE_FIELDS.get(line[2]!) ?? line[2]}`;
  return LEGACY_FIELDS.get(field) ?? field;
}

const FIELD_MENTION = /\bitems\.\d+\.\w+\b|\b(?:customer\.name|customer\.tpin|paymentMethod|taxInclusive|occurredAt|destinationCountryCode|clientInvoiceNo)\b/g;

function legacyText(message: string): string {
  return message.replace(FIELD_MENTION, legacyFieldName);
}

/** A sales-module error as the till should read it: legacy field names in keys and messages. */
export function toLegacyError(err: unknown): unknown {
  if (err instanceof ValidationError) {
    const errors = new FieldErrors();
    for (const [field, messages] of Object.entries(err.errors)) for (const message of messages) errors.add(legacyFieldName(field), legacyText(message));
    return errors.toError();
  }
  if (err instanceof ApiError && err.status < 500) return new ApiError(err.status, err.code, legacyText(err.message), err.headers);
  return err;
}
