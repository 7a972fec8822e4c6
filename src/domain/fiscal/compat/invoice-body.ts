// The body of POST /zm/api/Invoice, in either family of names (field-names.ts): read by name,
// checked, and turned into a POST /api/v1/sales body plus the filing details that body has no
// field for (invoice-mapping.ts). Every refusal names the field as the till sent it.
import type { ErrorObject } from 'ajv';
import { FieldErrors, ValidationError } from '../../../platform/errors/errors.ts';
import { compileBodyCheck, toValidationError } from '../../../platform/http/validation.ts';
import { Money, parseAmount, round2 } from '../../../authorities/port/amounts.ts';
import { fromCompactLocal } from '../../../platform/lib/time-zones.ts';
import { CreateSaleBody } from '../sales/schemas.ts';
import {
  invoiceName,
  lineKey,
  lineName,
  modernFieldsOf,
  readInvoice,
  sentPath,
  type InvoiceField,
  type LineField,
  type ReadInvoice,
} from './field-names.ts';
import { filingDetailsOf, inTillNames, saleBodyOf, text, type LineTax, type TillInvoiceRequest } from './invoice-mapping.ts';
import { TillInvoiceBody, ZAMBIA, type TillInvoiceLine } from './schemas.ts';

/** The VAT categories and the levy codes a till may list in TaxCodes. */
const VAT_CATEGORY_CODES: readonly string[] = ZAMBIA.taxCategories.map((c) => c.code);
const LEVY_CODES: readonly string[] = ZAMBIA.levies.map((l) => l.code);

const checkTillBody = compileBodyCheck(TillInvoiceBody);
const checkSaleBody = compileBodyCheck(CreateSaleBody);

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const pointerSegments = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** ajv's errors on the normalised body, with the paths the till sent. */
function inSentNames(read: ReadInvoice, errors: readonly ErrorObject[]): ErrorObject[] {
  return errors.map((error) => ({
    ...error,
    instancePath: sentPath(read, pointerSegments(error.instancePath))
      .map((s) => `/${escapePointer(s)}`)
      .join(''),
  }));
}

function addAll(errors: FieldErrors, refusal: ValidationError): void {
  for (const [field, messages] of Object.entries(refusal.errors)) for (const message of messages) errors.add(field, message);
}

const REQUIRED_INVOICE_FIELDS: readonly InvoiceField[] = ['number', 'receiptType', 'items'];
const REQUIRED_LINE_FIELDS: readonly LineField[] = ['name', 'classificationCode', 'quantity', 'price'];

/** The fields without which there is no invoice, named in the body's family. */
function checkRequired(read: ReadInvoice, errors: FieldErrors): void {
  for (const field of REQUIRED_INVOICE_FIELDS) {
    if (read.invoice.sentFields.has(field)) continue;
    const name = invoiceName(read, field);
    errors.add(name, `The ${name} field is required.`);
  }
  read.lines.forEach((line, i) => {
    if (!line) return;
    for (const field of REQUIRED_LINE_FIELDS) {
      if (line.sentFields.has(field)) continue;
      const name = lineName(read, i, field);
      errors.add(name, `The ${name} field is required.`);
    }
  });
}

/** TaxCodes → the VAT category and the levy, or an error on the field. */
function taxCodesOf(codes: readonly string[], field: string, errors: FieldErrors): LineTax {
  const vat: string[] = [];
  const levies: string[] = [];
  for (const code of codes) {
    const upper = code.trim().toUpperCase();
    const category = VAT_CATEGORY_CODES.find((c) => c === upper);
    if (category) vat.push(category);
    else if (LEVY_CODES.includes(upper)) levies.push(upper);
    else {
      errors.add(
        field,
        `The ${field} field lists "${code}", which is neither a VAT category (${VAT_CATEGORY_CODES.join(', ')}) nor a levy (${LEVY_CODES.join(', ')}): send the line's VAT category and any levy.`,
      );
      return {};
    }
  }
  if (vat.length > 1)
    errors.add(field, `The ${field} field must list one VAT category, not ${vat.join(' and ')}: a line is taxed in one category.`);
  if (levies.length > 1) errors.add(field, `The ${field} field must list at most one levy, not ${levies.join(' and ')}.`);
  return { ...(vat[0] ? { vatCategory: vat[0] } : {}), ...(levies[0] ? { levy: levies[0] } : {}) };
}

/** The agreed isTaxInclusive of the lines (undefined when none says), or errors on those that disagree. */
function lineTaxInclusive(
  read: ReadInvoice,
  body: TillInvoiceBody,
  lines: readonly TillInvoiceLine[],
  errors: FieldErrors,
): boolean | undefined {
  const given = lines
    .map((line, i) => ({ i, value: line.isTaxInclusive }))
    .filter((g): g is { i: number; value: boolean } => typeof g.value === 'boolean');
  const first = given[0];
  if (!first) return undefined;
  if (typeof body.TaxInclusive === 'boolean') {
    const invoiceField = invoiceName(read, 'taxInclusive');
    const lineField = lineName(read, first.i, 'taxInclusive');
    const message = `The ${invoiceField} and ${lineField} fields both say whether prices include tax and must not be sent together: send ${invoiceField} for the invoice or isTaxInclusive on its lines.`;
    errors.add(invoiceField, message);
    errors.add(lineField, message);
    return undefined;
  }
  for (const { i, value } of given) {
    if (value === first.value) continue;
    const field = lineName(read, i, 'taxInclusive');
    errors.add(
      field,
      `The ${field} field must be the same on every line of an invoice: ${lineName(read, first.i, 'taxInclusive')} is ${String(first.value)}, this line ${String(value)}. An invoice's prices either all include VAT or all exclude it.`,
    );
  }
  return first.value;
}

/** The order lines are filed in: by ItemSequenceNumber when the lines have one (unique, on every line or none). */
function lineOrder(read: ReadInvoice, lines: readonly TillInvoiceLine[], errors: FieldErrors): number[] {
  const natural = lines.map((_, i) => i);
  const numbered = natural.filter((i) => typeof lines[i]!.ItemSequenceNumber === 'number');
  if (numbered.length === 0) return natural;
  if (numbered.length < lines.length) {
    for (const i of natural.filter((i) => !numbered.includes(i))) {
      const field = lineName(read, i, 'sequence');
      errors.add(field, `The ${field} field is required when other lines have one: send it on every line or on none.`);
    }
  }
  const seen = new Map<number, number>();
  for (const i of numbered) {
    const sequence = lines[i]!.ItemSequenceNumber!;
    const earlier = seen.get(sequence);
    if (earlier !== undefined) {
      const field = lineName(read, i, 'sequence');
      errors.add(field, `The ${field} field must be unique in the invoice: ${lineName(read, earlier, 'sequence')} is ${sequence} too.`);
    } else seen.set(sequence, i);
  }
  return [...natural].sort((a, b) => (lines[a]!.ItemSequenceNumber ?? 0) - (lines[b]!.ItemSequenceNumber ?? 0));
}

/** A line's TotalAmount against Quantity × UnitPrice − DiscountAmount, as the till computed it. */
function checkLineTotal(read: ReadInvoice, i: number, line: TillInvoiceLine, errors: FieldErrors): void {
  if (typeof line.TotalAmount !== 'number' || line.Quantity === undefined || line.UnitPrice === undefined) return;
  let expected: Money;
  try {
    expected = round2(parseAmount(line.Quantity, 'quantity').times(parseAmount(line.UnitPrice, 'price'))).minus(
      parseAmount(line.DiscountAmount ?? 0, 'discount'),
    );
  } catch {
    return; // the sales rules name the amount that is not a number
  }
  if (new Money(String(line.TotalAmount)).minus(expected.toFixed(2)).abs().lte(ZAMBIA.amountTolerance)) return;
  const field = lineName(read, i, 'total');
  const formula = `${lineKey(read, i, 'quantity')} × ${lineKey(read, i, 'price')}${line.DiscountAmount ? ` − ${lineKey(read, i, 'discount')}` : ''}`;
  errors.add(
    field,
    `The ${field} field must be ${formula} = ${expected.toFixed(2)}, not ${line.TotalAmount}: send the line total the gateway files (a difference over 0.01 is refused).`,
  );
}

/**
 * A body in the shape of POST /api/v1/sales (modernFieldsOf): a 422 that says which dialect this
 * route speaks and where that body belongs, instead of a list of legacy fields it lacks.
 */
function refuseModernBody(body: Record<string, unknown>): void {
  const modern = modernFieldsOf(body);
  if (modern.length === 0) return;
  throw new ValidationError({
    body: [
      `This route speaks the legacy till dialect (docs/compat.md), and this body is in the shape of POST /api/v1/sales (${modern.join(', ')}) with none of the legacy fields. ` +
        'A modern client files sales through POST /api/v1/sales with Authorization: Bearer <tenant token>; ' +
        'a till sends ClientInvoiceNumber, ReceiptTypeCode "S" and Items[] with ItemName, ItemClassificationCode, Quantity and UnitPrice.',
    ],
  });
}

/**
 * Reads and checks a till's invoice body and translates it. `sdcId` is the SDC id of the branch
 * X-SdcId named: a body `sdcId` must be the same. Throws a ValidationError (422) naming the
 * fields as the till sent them.
 */
/** `timeZone`: the till's clock, its merchant's zone. */
export function parseTillInvoice(body: unknown, sdcId: string, timeZone: string): TillInvoiceRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError({ body: ['The request body must be a JSON object.'] });
  refuseModernBody(body as Record<string, unknown>);
  const errors = new FieldErrors();
  const read = readInvoice(body as Record<string, unknown>, errors);
  errors.throwIfAny();

  const schemaErrors = checkTillBody(read.normalised);
  if (schemaErrors.length > 0) addAll(errors, toValidationError(inSentNames(read, schemaErrors)));
  checkRequired(read, errors);
  errors.throwIfAny();

  const invoice = read.normalised as TillInvoiceBody;
  const lines = (invoice.Items ?? invoice.invoiceItems)!;
  const number = (invoice.ClientInvoiceNumber ?? invoice.InvoiceNumber)!;

  const bodySdcId = text(invoice.sdcId);
  if (bodySdcId !== undefined && bodySdcId !== sdcId) {
    const field = invoiceName(read, 'sdcId');
    errors.add(
      field,
      `The ${field} field must be the SDC id of the branch X-SdcId (or Terminal-Id) names, ${sdcId}, not ${bodySdcId}: the header selects the branch. Send the same SDC id in both, or leave ${field} out.`,
    );
  }
  const linesTaxInclusive = lineTaxInclusive(read, invoice, lines, errors);
  const taxInclusive = invoice.TaxInclusive ?? linesTaxInclusive;
  const order = lineOrder(read, lines, errors);

  const taxes = lines.map((line, i): LineTax => {
    if (Array.isArray(line.TaxCodes)) return taxCodesOf(line.TaxCodes, lineName(read, i, 'vatCategory'), errors);
    return line.VATCategoryCode ? { vatCategory: line.VATCategoryCode } : {};
  });
  lines.forEach((line, i) => {
    checkLineTotal(read, i, line, errors);
    // The product required the RRP on MTV lines; the VSDC refuses a B line without it.
    if (Array.isArray(line.TaxCodes) && taxes[i]!.vatCategory === 'B' && !(typeof line.rrp === 'number' && line.rrp > 0)) {
      const field = lineName(read, i, 'rrp');
      errors.add(
        field,
        `The ${field} field is required on a line whose tax code is B (MTV: VAT is computed on the recommended retail price): send the item's RRP, greater than 0.`,
      );
    }
  });

  let occurredAt = invoice.SalesDate ?? undefined;
  if (typeof invoice.SaleDate === 'string') {
    const at = fromCompactLocal(invoice.SaleDate, timeZone);
    const field = invoiceName(read, 'occurredAt');
    if (at) occurredAt = at.toISOString();
    else
      errors.add(
        field,
        `The ${field} field must be a real date and time as yyyyMMddHHmmss (the till's local time), e.g. 20261121093000, not ${invoice.SaleDate}.`,
      );
  }
  errors.throwIfAny();

  const ordered = order.map((i) => ({ line: lines[i]!, tax: taxes[i]! }));
  const sale = saleBodyOf(invoice, number, ordered, { taxInclusive, occurredAt });
  const request: TillInvoiceRequest = {
    read,
    number,
    sale,
    filingDetails: filingDetailsOf(
      invoice,
      ordered.map((o) => o.line),
    ),
    tillLines: order,
  };
  // The sales schema, as POST /api/v1/sales applies it: a field the sales module does not take
  // (yet) is refused here by its till name, never dropped.
  const saleErrors = checkSaleBody(sale);
  if (saleErrors.length > 0) throw inTillNames(request, toValidationError(saleErrors));
  return request;
}
