// The sales module → the legacy dialect: sale resources as invoice payloads (with the product's
// fiscal names for an invoice sent in them), branches, and the sales module's errors in the names
// the till sent. Request bodies come in through invoice-body.ts.
import { ApiError, ValidationError } from '../../../platform/errors/errors.ts';
import { Money } from '../../../authorities/port/amounts.ts';
import type { SaleResource } from '../sales/resource-schemas.ts';
import type { Family } from './field-names.ts';
import { inTillNames, inTillText, toTillDateTime, type TillInvoiceRequest } from './invoice-mapping.ts';
import { ZAMBIA, type LegacyBranch, type LegacyInvoice } from './schemas.ts';
import type { KeyBranch } from './store.ts';

/**
 * The Idempotency-Key a till's invoice is stored under: the device (the branch named by
 * X-SdcId) and the till's number. Unique per tenant in the sales table, so per branch here.
 */
export function tillReference(deviceId: number, tillNumber: string): string {
  return `zm:${deviceId}:${tillNumber}`;
}

type TaxItem = NonNullable<LegacyInvoice['taxItems']>[number];

/** Per VAT category of the lines, in the categories' order: what the product called taxItems. */
function taxItemsOf(sale: SaleResource): TaxItem[] {
  return ZAMBIA.taxCategories.flatMap((category) => {
    const lines = sale.items.filter((line) => line.vatCategory === category.code);
    if (lines.length === 0) return [];
    const sum = (pick: (line: SaleResource['items'][number]) => number) =>
      lines.reduce((total, line) => total.plus(pick(line)), new Money(0)).toNumber();
    return [{ code: category.code, rate: category.rate, taxableAmount: sum((l) => l.net), taxAmount: sum((l) => l.vat) }];
  });
}

/**
 * The invoice payload. For an invoice sent in the product's names, its fiscal answer's names
 * (ZMFiscalDetailsDtoOut) follow ours, with the same values: `signature` = ReceiptSignature,
 * `receiptTotalCounter` and `normalReceiptTypeCounter` = ReceiptNumber, `vsdcdate` = PublishedAt
 * in the till's local time.
 */
/** `timeZone`: the till's clock, its merchant's zone. */
export function toLegacyInvoice(sale: SaleResource, timeZone: string, family: Family = 'gateway'): LegacyInvoice {
  const invoice: LegacyInvoice = {
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
  if (family === 'gateway') return invoice;
  return {
    ...invoice,
    vsdcdate: sale.fiscal.publishedAt === null ? null : toTillDateTime(new Date(sale.fiscal.publishedAt), timeZone),
    internalData: sale.fiscal.internalData,
    signature: sale.fiscal.receiptSignature,
    receiptTotalCounter: sale.fiscal.receiptNo,
    normalReceiptTypeCounter: sale.fiscal.receiptNo,
    taxItems: taxItemsOf(sale),
  };
}

/**
 * The payload with `OriginalInvoice`, the body exactly as the till sent it, spliced in as JSON
 * text (the stored text is JSON that parsed once; re-serialising it would lose its exact form,
 * such as `185.00`). Null when the body was not kept.
 */
export function withOriginalInvoice(invoice: LegacyInvoice, bodyText: string | null): string {
  const json = JSON.stringify(invoice);
  return `${json.slice(0, -1)},"OriginalInvoice":${bodyText ?? 'null'}}`;
}

export function toLegacyBranch(branch: KeyBranch): LegacyBranch {
  return { BranchId: branch.branch, SdcId: branch.sdcId, Name: branch.name, Initialized: branch.initialized };
}

/** A sales-module error as the till should read it: its names in keys and messages. */
export function toLegacyError(err: unknown, request: TillInvoiceRequest): unknown {
  if (err instanceof ValidationError) return inTillNames(request, err);
  if (err instanceof ApiError && err.status < 500) return new ApiError(err.code, inTillText(request, err.message), err.headers);
  return err;
}
