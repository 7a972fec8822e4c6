// The names a till may give each field of POST /zm/api/Invoice. Two families: ours (`gateway`,
// shared/compat-dialect.md: ClientInvoiceNumber, Items, …) and those of the product /zm/api
// imitates (`product`: InvoiceNumber, invoiceItems, …). That product was ASP.NET, which binds
// JSON names without regard to case, so every name of both families is matched that way. A body
// may mix the families across fields; a field given twice — under two names, or one name in two
// casings — is refused (422 naming both), never guessed.
import { FieldErrors } from '../../../platform/errors/errors.ts';
import { CreateSaleBody, SaleLineInput } from '../sales/schemas.ts';

export type Family = 'gateway' | 'product';

export interface FieldSpec {
  /** What the field gives, in words: used when it is given twice. */
  label: string;
  /** The field's name in each family; one name for both when both use it. */
  gateway?: string;
  product?: string;
}

/** The invoice's fields, by what they give (the keys are ours, not a till's). */
export const INVOICE_FIELDS = {
  number: { label: "the till's invoice number", gateway: 'ClientInvoiceNumber', product: 'InvoiceNumber' },
  originalInvoiceNumber: { label: 'the number of the invoice credited or debited', product: 'OriginalInvoiceNumber' },
  registrantName: { label: 'the registrant name', product: 'RegistrantName' },
  registrantId: { label: 'the registrant id', product: 'RegistrantId' },
  issuerName: { label: 'the issuer name', product: 'IssuerName' },
  issuerId: { label: 'the issuer id', product: 'IssuerId' },
  customerMobileNumber: { label: "the customer's mobile number", product: 'CustomerMobileNumber' },
  reportNumber: { label: 'the report number', product: 'ReportNumber' },
  receiptType: { label: 'the receipt type', gateway: 'ReceiptTypeCode', product: 'ReceiptTypeCode' },
  paymentMethod: { label: 'the payment type', gateway: 'PaymentTypeCode', product: 'PaymentTypeCode' },
  currency: { label: 'the currency', product: 'currencyType' },
  conversionRate: { label: 'the conversion rate', product: 'conversionRate' },
  occurredAt: { label: 'the sale date', gateway: 'SalesDate', product: 'SaleDate' },
  customerName: { label: "the customer's name", gateway: 'CustomerName', product: 'CustomerName' },
  customerTpin: { label: "the customer's TPIN", gateway: 'CustomerTPIN', product: 'CustomerTpin' },
  refundedReasonCode: { label: 'the refund reason', product: 'refundedReasonCode' },
  sdcId: { label: 'the SDC id', product: 'sdcId' },
  taxInclusive: { label: 'whether prices include tax', gateway: 'TaxInclusive' },
  destinationCountryCode: { label: 'the destination country', gateway: 'DestinationCountryCode' },
  items: { label: 'the lines', gateway: 'Items', product: 'invoiceItems' },
} as const satisfies Record<string, FieldSpec>;

/** A line's fields, by what they give. */
export const LINE_FIELDS = {
  sequence: { label: 'the line number', product: 'ItemSequenceNumber' },
  name: { label: 'the line name', gateway: 'ItemName', product: 'ItemDesc' },
  classificationCode: { label: 'the classification code', gateway: 'ItemClassificationCode', product: 'itemClsCd' },
  packagingUnitCode: { label: 'the packaging unit', product: 'PackagingUnitCode' },
  packages: { label: 'the number of packages', product: 'Package' },
  quantityUnitCode: { label: 'the quantity unit', product: 'QuantityUnitCode' },
  quantity: { label: 'the quantity', gateway: 'Quantity', product: 'Quantity' },
  price: { label: 'the unit price', gateway: 'UnitPrice', product: 'UnitPrice' },
  discount: { label: 'the discount', product: 'DiscountAmount' },
  total: { label: "the line's total", product: 'TotalAmount' },
  barcode: { label: 'the barcode', product: 'Barcode' },
  vatCategory: { label: 'the tax category', gateway: 'VATCategoryCode', product: 'TaxCodes' },
  taxInclusive: { label: 'whether prices include tax', product: 'isTaxInclusive' },
  rrp: { label: 'the recommended retail price', product: 'rrp' },
} as const satisfies Record<string, FieldSpec>;

export type InvoiceField = keyof typeof INVOICE_FIELDS;
export type LineField = keyof typeof LINE_FIELDS;

/**
 * The spelling a field is held under once read: its gateway name, or its product name when that
 * is another name (not merely another casing). The body schema (schemas.ts) uses these.
 */
export function spellings(spec: FieldSpec): string[] {
  const names = [spec.gateway, spec.product].filter((n): n is string => n !== undefined);
  return names.filter((name, i) => names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === i);
}

/** The name a family uses for a field (the other family's when it has none). */
function familyName(spec: FieldSpec, family: Family): string {
  return (family === 'product' ? (spec.product ?? spec.gateway) : (spec.gateway ?? spec.product))!;
}

interface Accepted<F extends string> {
  field: F;
  spelling: string;
}

function acceptedNames<F extends string>(fields: Record<F, FieldSpec>): Map<string, Accepted<F>> {
  const byLowerCase = new Map<string, Accepted<F>>();
  for (const [field, spec] of Object.entries(fields) as Array<[F, FieldSpec]>) {
    for (const spelling of spellings(spec)) byLowerCase.set(spelling.toLowerCase(), { field, spelling });
  }
  return byLowerCase;
}

const INVOICE_NAMES = acceptedNames<InvoiceField>(INVOICE_FIELDS);
const LINE_NAMES = acceptedNames<LineField>(LINE_FIELDS);

/** An object of the body read by name: its known fields under their spellings, and the keys the till used. */
interface ReadObject<F extends string> {
  /** Known fields under their spellings (the body schema's property names); other keys left out. */
  values: Record<string, unknown>;
  /** Spelling → the key as the till sent it. */
  sentKeys: Map<string, string>;
  /** Field → the key as the till sent it. */
  sentFields: Map<F, string>;
}

const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

function readObject<F extends string>(
  object: Record<string, unknown>,
  names: Map<string, Accepted<F>>,
  specs: Record<F, FieldSpec>,
  path: string,
  errors: FieldErrors,
): ReadObject<F> {
  const byField = new Map<F, Array<{ key: string; spelling: string }>>();
  for (const key of Object.keys(object)) {
    const accepted = names.get(key.toLowerCase());
    if (!accepted) continue; // unknown fields are ignored
    const keys = byField.get(accepted.field) ?? [];
    keys.push({ key, spelling: accepted.spelling });
    byField.set(accepted.field, keys);
  }
  const read: ReadObject<F> = { values: {}, sentKeys: new Map(), sentFields: new Map() };
  for (const [field, keys] of byField) {
    if (keys.length > 1) {
      const shown = keys.map((k) => child(path, k.key));
      const list = `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]!}`;
      const message = `The ${list} fields ${shown.length === 2 ? 'both' : 'all'} give ${specs[field].label} (names are matched without regard to case) and must not be sent together: send one of them.`;
      for (const name of shown) errors.add(name, message);
      continue;
    }
    const [{ key, spelling }] = keys as [{ key: string; spelling: string }];
    read.values[spelling] = object[key];
    read.sentKeys.set(spelling, key);
    read.sentFields.set(field, key);
  }
  return read;
}

/** The body of POST /zm/api/Invoice read by name, before any value is checked. */
export interface ReadInvoice {
  family: Family;
  invoice: ReadObject<InvoiceField>;
  /** Each line read by name; undefined for an element that is not an object (the schema says so). */
  lines: Array<ReadObject<LineField> | undefined>;
  /** The body with every known field under its spelling: what the body schema checks. */
  normalised: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the body's fields by name in either family and any casing. The body is in the product's
 * family when it names the invoice number or the lines the product's way (InvoiceNumber,
 * invoiceItems); the answer then carries that product's names too. Fields given twice are
 * collected in `errors`.
 */
export function readInvoice(body: Record<string, unknown>, errors: FieldErrors): ReadInvoice {
  const invoice = readObject(body, INVOICE_NAMES, INVOICE_FIELDS, '', errors);
  const productish = [INVOICE_FIELDS.number.product, INVOICE_FIELDS.items.product].some((spelling) => invoice.sentKeys.has(spelling));
  const family: Family = productish ? 'product' : 'gateway';
  const normalised = { ...invoice.values };
  let lines: ReadInvoice['lines'] = [];
  for (const spelling of spellings(INVOICE_FIELDS.items)) {
    const value = normalised[spelling];
    if (!Array.isArray(value)) continue;
    const sent = invoice.sentKeys.get(spelling)!;
    lines = value.map((line: unknown, i) =>
      isObject(line) ? readObject(line, LINE_NAMES, LINE_FIELDS, `${sent}.${i}`, errors) : undefined,
    );
    normalised[spelling] = value.map((line: unknown, i) => lines[i]?.values ?? line);
  }
  return { family, invoice, lines, normalised };
}

/** The key the till used for a field of the invoice, else the name its family uses. */
export function invoiceName(read: ReadInvoice, field: InvoiceField): string {
  return read.invoice.sentFields.get(field) ?? familyName(INVOICE_FIELDS[field], read.family);
}

/** The key the till used for a field of a line, else the name its family uses. */
export function lineKey(read: ReadInvoice, index: number, field: LineField): string {
  return read.lines[index]?.sentFields.get(field) ?? familyName(LINE_FIELDS[field], read.family);
}

/** `Items.2.UnitPrice`: the path of a line's field, with the keys the till used. */
export function lineName(read: ReadInvoice, index: number, field: LineField): string {
  return `${invoiceName(read, 'items')}.${index}.${lineKey(read, index, field)}`;
}

/**
 * A path of the normalised body (`invoiceItems.0.UnitPrice`, as the body schema reports it) with
 * the keys the till sent (`InvoiceItems.0.unitprice`).
 */
export function sentPath(read: ReadInvoice, segments: readonly string[]): string[] {
  const [first, ...rest] = segments;
  if (first === undefined) return [];
  const top = read.invoice.sentKeys.get(first) ?? first;
  const isLines = spellings(INVOICE_FIELDS.items).includes(first);
  if (!isLines || rest.length < 2) return [top, ...rest];
  const [index, key, ...deeper] = rest as [string, string, ...string[]];
  const line = read.lines[Number(index)];
  return [top, index, line?.sentKeys.get(key) ?? key, ...deeper];
}

// ---- a modern body sent to the legacy route ----

const modernInvoiceNames = Object.keys(CreateSaleBody.properties);
const modernLineNames = Object.keys(SaleLineInput.properties);
const lowerCased = (names: Iterable<string>) => new Set([...names].map((name) => name.toLowerCase()));

/** Names only POST /api/v1/sales takes: no legacy name is the same without regard to case (`items`, `quantity`, `taxInclusive`, `rrp` are). */
const MODERN_ONLY_INVOICE = new Set(modernInvoiceNames.filter((name) => !INVOICE_NAMES.has(name.toLowerCase())));
const MODERN_ONLY_LINE = new Set(modernLineNames.filter((name) => !LINE_NAMES.has(name.toLowerCase())));
/** Legacy names (lower case) that no name of POST /api/v1/sales shares. */
const LEGACY_ONLY_INVOICE = new Set([...INVOICE_NAMES.keys()].filter((name) => !lowerCased(modernInvoiceNames).has(name)));
const LEGACY_ONLY_LINE = new Set([...LINE_NAMES.keys()].filter((name) => !lowerCased(modernLineNames).has(name)));
const LINES_KEYS = lowerCased(spellings(INVOICE_FIELDS.items));

/**
 * The modern fields of a body written for POST /api/v1/sales rather than for a till (`clientInvoiceNo`,
 * `items[].price`, …): names only the modern body has, spelt exactly as it spells them. Empty when
 * the body has none of them, or has any name only the legacy dialect has (in any casing, on the
 * invoice or a line). A till's invoice number and receipt type are required and legacy-only, so a
 * body that could be fiscalised here is never taken for a modern one.
 */
export function modernFieldsOf(body: Record<string, unknown>): string[] {
  const keys = Object.keys(body);
  if (keys.some((key) => LEGACY_ONLY_INVOICE.has(key.toLowerCase()))) return [];
  const modern = keys.filter((key) => MODERN_ONLY_INVOICE.has(key));
  for (const key of keys) {
    const lines = body[key];
    if (!LINES_KEYS.has(key.toLowerCase()) || !Array.isArray(lines)) continue;
    for (const line of lines) {
      if (!isObject(line)) continue;
      const lineKeys = Object.keys(line);
      if (lineKeys.some((lineKey) => LEGACY_ONLY_LINE.has(lineKey.toLowerCase()))) return [];
      for (const lineKey of lineKeys) {
        const shown = `${key}[].${lineKey}`;
        if (MODERN_ONLY_LINE.has(lineKey) && !modern.includes(shown)) modern.push(shown);
      }
    }
  }
  return modern;
}
