// The legacy invoice body's mapping (invoice-body.ts reads and checks it): a checked till invoice
// as a POST /api/v1/sales body plus the filing details that body has no field for, and back, the
// sales module's field names and times as the till knows them.
import type { FilingDetails, FilingLineDetails, FilingPerson } from '../../../authorities/port/index.ts';
import { FieldErrors, type ValidationError } from '../../../platform/errors/errors.ts';
import { toCompactLocal } from '../../../platform/lib/time-zones.ts';
import type { CreateSaleBody } from '../sales/schemas.ts';
import { invoiceName, lineName, type InvoiceField, type LineField, type ReadInvoice } from './field-names.ts';
import type { TillInvoiceBody, TillInvoiceLine } from './schemas.ts';

/** The instant as `yyyyMMddHHmmss` on the till's clock: its merchant's zone (`tenants.timezone`, Africa/Lusaka for a Zambian one). */
export function toTillDateTime(at: Date, timeZone: string): string {
  return toCompactLocal(at, timeZone);
}

/** A sales line as this surface sends it: the modern line, and the fields the discounts work adds to it. */
type SaleLineBody = CreateSaleBody['items'][number] & { discount?: number; rrp?: number; levy?: string };
type SaleBody = Omit<CreateSaleBody, 'items'> & { items: SaleLineBody[] };

export interface TillInvoiceRequest {
  read: ReadInvoice;
  /** The till's own number (ClientInvoiceNumber or InvoiceNumber). */
  number: string;
  sale: SaleBody;
  filingDetails: FilingDetails | undefined;
  /** For each line of the sale, the index of the till's line it came from (lines are filed in ItemSequenceNumber order). */
  tillLines: number[];
}

/** The value trimmed; undefined when it is blank. */
export const text = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** A line's VAT category and levy, from its TaxCodes or VATCategoryCode. */
export interface LineTax {
  vatCategory?: string;
  levy?: string;
}

function person(id: string | null | undefined, name: string | null | undefined): FilingPerson | undefined {
  const givenId = text(id);
  const givenName = text(name);
  if (!givenId && !givenName) return undefined;
  return { id: givenId ?? givenName!, name: givenName ?? givenId! };
}

function lineDetails(line: TillInvoiceLine): FilingLineDetails | null {
  const details: FilingLineDetails = {
    ...(text(line.Barcode) ? { barcode: text(line.Barcode)! } : {}),
    ...(line.PackagingUnitCode ? { packagingUnitCode: line.PackagingUnitCode } : {}),
    ...(typeof line.Package === 'number' && line.Package > 0 ? { packages: line.Package } : {}),
    ...(line.QuantityUnitCode ? { quantityUnitCode: line.QuantityUnitCode } : {}),
  };
  return Object.keys(details).length > 0 ? details : null;
}

export function filingDetailsOf(body: TillInvoiceBody, lines: readonly TillInvoiceLine[]): FilingDetails | undefined {
  const registrant = person(body.RegistrantId, body.RegistrantName);
  const modifier = person(body.IssuerId, body.IssuerName);
  const details = lines.map(lineDetails);
  const filing: FilingDetails = {
    ...(registrant ? { registrant } : {}),
    ...(modifier ? { modifier } : {}),
    ...(details.some((d) => d !== null) ? { lines: details } : {}),
  };
  return Object.keys(filing).length > 0 ? filing : undefined;
}

/**
 * The sales body of a checked till invoice, its lines in filing order. Only what the till sent is
 * set, so the sales defaults apply and one body always gives one sales body (idempotency compares
 * bodies).
 */
export function saleBodyOf(
  invoice: TillInvoiceBody,
  number: string,
  lines: ReadonlyArray<{ line: TillInvoiceLine; tax: LineTax }>,
  resolved: { taxInclusive: boolean | null | undefined; occurredAt: string | null | undefined },
): SaleBody {
  const sale: SaleBody = {
    items: lines.map(({ line, tax }): SaleLineBody => ({
      name: (line.ItemName ?? line.ItemDesc)!,
      classificationCode: (line.ItemClassificationCode ?? line.itemClsCd)!,
      quantity: line.Quantity!,
      price: line.UnitPrice!,
      ...(tax.vatCategory ? { vatCategory: tax.vatCategory } : {}),
      ...(typeof line.DiscountAmount === 'number' && line.DiscountAmount > 0 ? { discount: line.DiscountAmount } : {}),
      ...(tax.vatCategory === 'B' && typeof line.rrp === 'number' && line.rrp > 0 ? { rrp: line.rrp } : {}),
      ...(tax.levy ? { levy: tax.levy } : {}),
    })),
    clientInvoiceNo: number,
  };
  const customerName = text(invoice.CustomerName);
  const customerTpin = invoice.CustomerTPIN || undefined;
  if (customerName || customerTpin)
    sale.customer = { ...(customerName ? { name: customerName } : {}), ...(customerTpin ? { tpin: customerTpin } : {}) };
  if (invoice.PaymentTypeCode) sale.paymentMethod = invoice.PaymentTypeCode;
  if (typeof resolved.taxInclusive === 'boolean') sale.taxInclusive = resolved.taxInclusive;
  if (resolved.occurredAt) sale.occurredAt = resolved.occurredAt;
  if (invoice.DestinationCountryCode) sale.destinationCountryCode = invoice.DestinationCountryCode;
  if (invoice.currencyType) sale.currency = invoice.currencyType;
  // A ZMW invoice's rate of 1 is the product's default, not a rate: the sales body leaves it out.
  if (typeof invoice.conversionRate === 'number' && !(invoice.conversionRate === 1 && (invoice.currencyType ?? 'ZMW') === 'ZMW'))
    sale.exchangeRate = invoice.conversionRate;
  return sale;
}

// ---- the sales module's names → the till's ----

const INVOICE_FIELD_OF = new Map<string, InvoiceField>(
  Object.entries({
    clientInvoiceNo: 'number',
    paymentMethod: 'paymentMethod',
    customer: 'customerName',
    'customer.name': 'customerName',
    'customer.tpin': 'customerTpin',
    taxInclusive: 'taxInclusive',
    occurredAt: 'occurredAt',
    destinationCountryCode: 'destinationCountryCode',
    currency: 'currency',
    exchangeRate: 'conversionRate',
    items: 'items',
  }) as Array<[string, InvoiceField]>,
);

const LINE_FIELD_OF = new Map<string, LineField>(
  Object.entries({
    name: 'name',
    classificationCode: 'classificationCode',
    quantity: 'quantity',
    price: 'price',
    vatCategory: 'vatCategory',
    discount: 'discount',
    rrp: 'rrp',
    levy: 'vatCategory',
  }) as Array<[string, LineField]>,
);

/** `items.2.price` → `invoiceItems.0.UnitPrice` (the till's line and key), `occurredAt` → `SaleDate`; other names unchanged. */
function tillFieldName(request: TillInvoiceRequest, field: string): string {
  const line = /^items\.(\d+)\.(\w+)$/.exec(field);
  if (line) {
    const tillIndex = request.tillLines[Number(line[1])] ?? Number(line[1]);
    const known = LINE_FIELD_OF.get(line[2]!);
    return known ? lineName(request.read, tillIndex, known) : `${invoiceName(request.read, 'items')}.${tillIndex}.${line[2]!}`;
  }
  const known = INVOICE_FIELD_OF.get(field);
  return known ? invoiceName(request.read, known) : field;
}

const FIELD_MENTION =
  /\bitems\.\d+\.\w+\b|\b(?:customer\.name|customer\.tpin|paymentMethod|taxInclusive|occurredAt|destinationCountryCode|clientInvoiceNo|currency|exchangeRate)\b/g;

/** A sales-module message with the till's names. */
export function inTillText(request: TillInvoiceRequest, message: string): string {
  return message.replace(FIELD_MENTION, (field) => tillFieldName(request, field));
}

/** A sales-module ValidationError keyed and worded with the till's names. */
export function inTillNames(request: TillInvoiceRequest, refusal: ValidationError): ValidationError {
  const errors = new FieldErrors();
  for (const [field, messages] of Object.entries(refusal.errors))
    for (const message of messages) errors.add(tillFieldName(request, field), inTillText(request, message));
  return errors.toError();
}
