// Field rules of sales and notes beyond the schema: decimals, lines that come to nothing,
// discounts, MTV's RRP, levies (refused), the export rule, the occurredAt window, the
// classification check, the amounts (`compute`), and the document's terms: its kind, currency and
// rate, LPO number (`documentTermsOf`) and RVAT principal (`checkPrincipal`).
import type { AppContext } from '../../kernel/context.ts';
import { ApiError, FieldErrors, ValidationError, fieldError } from '../../../platform/errors/errors.ts';
import { principalOf } from '../../merchant/principals/store.ts';
import { parseAmount, round2, SaleAmountsError, type ComputedSale, type SaleLineInput } from '../../../authorities/port/amounts.ts';
import type { AuthorityProfile, SalesType } from '../../../authorities/port/index.ts';
import { classificationCatalogue } from '../../kernel/catalogue/service.ts';
import { MAX_DOCUMENT_TOTAL, type CreateSaleBody } from './schemas.ts';
import { taxCategoryOf } from './authority-fields.ts';
import { authoritySalesTypes } from '../../../authorities/index.ts';

/** ISO 4217 codes this runtime knows: the currencies a document may be in (with the authority's own). */
const ISO_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
/** The authority refuses documents dated more than 180 days back or in the future. */
const MAX_AGE_MS = 180 * 86_400_000;
const MAX_FUTURE_SKEW_MS = 5 * 60_000;
const FOUR_DECIMALS = /^\d+(\.\d{1,4})?$/;

/** False (with the field's error) when the value has more than 4 decimals. */
export function checkDecimals(errors: FieldErrors, field: string, value: number): boolean {
  if (FOUR_DECIMALS.test(String(value))) return true;
  errors.add(field, `The ${field} field must have at most 4 decimal places.`);
  return false;
}

export function occurredAtOf(ctx: AppContext, errors: FieldErrors, text: string | undefined): Date {
  const now = ctx.clock.now();
  if (text === undefined) return now;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) errors.add('occurredAt', 'The occurredAt field must be an ISO 8601 date-time.');
  else if (at.getTime() > now.getTime() + MAX_FUTURE_SKEW_MS) errors.add('occurredAt', 'The occurredAt field must not be in the future.');
  else if (now.getTime() - at.getTime() > MAX_AGE_MS)
    errors.add('occurredAt', 'The occurredAt field must not be more than 180 days ago: the authority refuses older documents.');
  return at;
}

type BodyLine = CreateSaleBody['items'][number];

/**
 * Levies (`items[].levy`): the gateway computes none, so a line naming one is refused before
 * anything is stored — filing it without its levy would be a wrong fiscal document.
 */
export function refuseLevies(profile: AuthorityProfile, items: readonly BodyLine[]): void {
  const named = items.flatMap((item, i) => (item.levy == null ? [] : [{ field: `items.${i}.levy`, code: item.levy }]));
  if (named.length === 0) return;
  const levies = profile.levies;
  const described = named.map(({ field, code }) => {
    const levy = levies.find((l) => l.code === code.toUpperCase());
    return levy
      ? `${field} ${code} (${levy.name}, ${levy.rate} %)`
      : `${field} ${code} (not a levy the authority publishes: ${levies.map((l) => l.code).join(', ')})`;
  });
  throw new ApiError(
    'levy_not_supported',
    `This gateway does not compute levies, so it cannot file ${described.join(', ')}. Nothing was stored; ` +
      'file such lines through a system that computes the levy, or leave out levy if the line carries none.',
  );
}

/**
 * Field rules of sale lines beyond the schema: decimals, no line that comes to nothing, a
 * discount within the line, the RRP of MTV lines, and the export rule (each category's needs
 * from the merchant's authority profile).
 */
export function checkLines(
  errors: FieldErrors,
  profile: AuthorityProfile,
  items: readonly BodyLine[],
  destinationCountryCode: string | null | undefined,
): void {
  const categoryOf = (item: BodyLine): string => item.vatCategory ?? profile.defaultTaxCategory;
  const exportCategory = profile.taxCategories.find((c) => c.requires === 'export')?.code;
  const mtv = profile.taxCategories.filter((c) => c.requires === 'rrp').map((c) => c.code);
  items.forEach((item, i) => {
    const decimalsOk = [
      checkDecimals(errors, `items.${i}.quantity`, item.quantity),
      checkDecimals(errors, `items.${i}.price`, item.price),
    ].every(Boolean);
    const gross = decimalsOk ? lineGross(item.quantity, item.price) : null;
    // A priced line filed as 0.00 would be a fiscal line that charges nothing: refuse it.
    if (gross === 0 && item.price > 0) {
      errors.add(
        `items.${i}.price`,
        `The line comes to ${item.quantity} × ${item.price}, which rounds to 0.00: quantity × price must be at least 0.005 (amounts are rounded to the cent). Send a higher price or quantity, or leave the line out.`,
      );
    }
    if (item.discount != null && checkDecimals(errors, `items.${i}.discount`, item.discount) && gross !== null && gross > 0) {
      const discount = round2(parseAmount(item.discount, 'discount')).toNumber();
      if (discount > gross) {
        errors.add(`items.${i}.discount`, `The discount (${discount}) must not exceed the line's amount, quantity × price = ${gross}.`);
      }
    }
    const category = categoryOf(item);
    if (mtv.includes(category)) {
      if (item.rrp == null) {
        errors.add(
          `items.${i}.rrp`,
          `The items.${i}.rrp field is required on an MTV (vatCategory ${category}) line: send the recommended retail price per unit (VAT is computed on quantity × rrp when the line sells below it).`,
        );
      } else {
        checkDecimals(errors, `items.${i}.rrp`, item.rrp);
      }
    } else if (item.rrp != null) {
      const named =
        mtv.length === 0
          ? "this merchant's authority has no MTV category"
          : `this line is ${category}. Leave rrp out, or make the line ${mtv.join(' or ')}`;
      errors.add(
        `items.${i}.rrp`,
        `The items.${i}.rrp field applies only to MTV (vatCategory ${mtv.join(' or ') || 'none'}) lines; ${named}.`,
      );
    }
  });
  const categories = items.map(categoryOf);
  if (exportCategory !== undefined && categories.includes(exportCategory)) {
    if (!destinationCountryCode) {
      errors.add(
        'destinationCountryCode',
        `The destinationCountryCode field is required when a line is category ${exportCategory} (export).`,
      );
    }
    categories.forEach((category, i) => {
      if (category !== exportCategory)
        errors.add(
          `items.${i}.vatCategory`,
          `An export (${exportCategory}) invoice cannot mix other VAT categories: every line must be ${exportCategory}.`,
        );
    });
  }
}

/** A line's gross, round2(quantity × price), as the authority's arithmetic computes it. */
function lineGross(quantity: number, price: number): number {
  return round2(parseAmount(quantity, 'quantity').times(parseAmount(price, 'price'))).toNumber();
}

/**
 * The document's amounts by the authority's arithmetic (ctx.authorities): a line it cannot compute
 * is the items' 422. The rates its code tables publish (KRA's) are the in-memory copy's, as the
 * classification check last read it: no query here; before any read, the profile's rates.
 */
export function compute(
  ctx: AppContext,
  errors: FieldErrors,
  profile: AuthorityProfile,
  inputs: SaleLineInput[],
  taxInclusive: boolean,
): ComputedSale {
  let computed: ComputedSale;
  try {
    computed = ctx.authorities
      .of(profile.id)
      .arithmetic.computeSale(inputs, taxInclusive, classificationCatalogue(ctx).ratesOf(profile.authority));
  } catch (err) {
    if (err instanceof SaleAmountsError) throw new ValidationError({ items: [err.message] });
    throw err;
  }
  if (computed.totals.total > MAX_DOCUMENT_TOTAL)
    errors.add('items', `The document total must not exceed ${MAX_DOCUMENT_TOTAL.toLocaleString('en')}.`);
  return computed;
}

/**
 * Refuses a line whose classification code is not in the catalogue of `authority` (the merchant's). A document the
 * gateway files (`whenUnavailable: 'accept'`) is accepted when the catalogue was never fetched and
 * no VSDC answers now (a new gateway's first day in an outage): the filer checks its codes before
 * it is filed (filing/filer.ts). Otherwise that is a 503 catalogue_unavailable.
 */
export async function checkClassifications(
  ctx: AppContext,
  authority: string,
  items: readonly { classificationCode: string }[],
  options: { whenUnavailable: 'accept' | 'refuse' },
): Promise<void> {
  const codes = items.map((i) => i.classificationCode);
  const catalogue = classificationCatalogue(ctx);
  const unknown =
    options.whenUnavailable === 'accept'
      ? await catalogue.uncheckedOrUnknown(authority, codes, { fill: 'unless-failed' })
      : await catalogue.unknownCodes(authority, codes);
  if (unknown === null || unknown.length === 0) return;
  const where = items
    .map((item, i) => (unknown.includes(item.classificationCode) ? `items.${i}.classificationCode ${item.classificationCode}` : null))
    .filter((x) => x !== null);
  throw new ApiError(
    'unknown_classification_code',
    `Not in the authority's classification catalogue: ${where.join(', ')}. Nothing was stored; GET /api/v1/item-classes lists the valid codes.`,
  );
}

export function lineInput(profile: AuthorityProfile, item: BodyLine): SaleLineInput {
  return {
    name: item.name,
    classificationCode: item.classificationCode,
    itemCode: item.itemCode ?? null,
    quantity: item.quantity,
    price: item.price,
    vatCategory: item.vatCategory ?? profile.defaultTaxCategory,
    discount: item.discount ?? null,
    rrp: item.rrp ?? null,
  };
}

/** What a sale is beyond its lines: its kind, its currency and rate, the buyer's LPO. */
export interface DocumentTerms {
  salesType: SalesType;
  currency: string;
  exchangeRate: number;
  lpoNumber: string | null;
}

type TermsFields = Pick<CreateSaleBody, 'salesType' | 'currency' | 'exchangeRate' | 'lpoNumber' | 'items'>;

/**
 * The kind (a training credential issues training documents only, whatever the body says, so a
 * till switches to training without changing its requests), the currency (ISO 4217; a foreign
 * one needs its rate to kwacha, as the VSDC refuses a rate of 1 for it) and the LPO number a
 * zero-rated LPO line needs.
 */
export function documentTermsOf(errors: FieldErrors, profile: AuthorityProfile, body: TermsFields, training: boolean): DocumentTerms {
  const salesType = training ? 'training' : (body.salesType ?? 'normal');
  // A kind some unit of the authority files passes here; whether the branch's own unit files it is
  // checked where the document is stored (document-insert.ts), before it takes a number.
  const kinds = authoritySalesTypes(profile.authority);
  if (!kinds.includes(salesType)) {
    errors.add(
      'salesType',
      `The unit of this merchant's authority (${profile.name}) files no ${salesType} documents${training ? ' (this credential was minted in training mode)' : ''}: send salesType ${kinds.join(' or ')}.`,
    );
  }
  const home = profile.currency;
  const currency = body.currency ?? home;
  let exchangeRate = 1;
  if (currency !== home && !profile.foreignCurrencies) {
    errors.add(
      'currency',
      `This merchant's authority (${profile.name}) takes documents in ${home} only: send currency ${home}, or leave it out.`,
    );
  } else if (currency !== home && !ISO_CURRENCIES.has(currency)) {
    errors.add(
      'currency',
      `The currency field must be an ISO 4217 code the authority knows (${home}, USD, EUR, ZAR, …); ${currency} is not one.`,
    );
  } else if (currency === home) {
    if (body.exchangeRate != null && body.exchangeRate !== 1) {
      errors.add(
        'exchangeRate',
        `A ${home} document has no exchange rate: leave exchangeRate out (or send 1), or send the currency the amounts are in.`,
      );
    }
  } else if (body.exchangeRate == null) {
    errors.add(
      'exchangeRate',
      `The exchangeRate field is required for a ${currency} document: send how many ${home} one ${currency} is worth (up to 4 decimals), as the VSDC files it (exchangeRt).`,
    );
  } else if (checkDecimals(errors, 'exchangeRate', body.exchangeRate)) {
    if (body.exchangeRate === 1) {
      errors.add(
        'exchangeRate',
        `The exchangeRate of a ${currency} document cannot be 1 (the authority refuses it, code 910): send today's rate in ${home} per ${currency}.`,
      );
    } else {
      exchangeRate = body.exchangeRate;
    }
  }
  const lpoCategories = profile.taxCategories.filter((c) => c.requires === 'lpo').map((c) => c.code);
  const hasLpoLine = body.items.some(
    (item) => item.vatCategory !== undefined && taxCategoryOf(profile, item.vatCategory)?.requires === 'lpo',
  );
  const lpoNumber = body.lpoNumber ?? null;
  const lpoWords = lpoCategories.join(' or ');
  if (hasLpoLine && lpoNumber === null) {
    errors.add(
      'lpoNumber',
      `The lpoNumber field is required when a line is category ${lpoWords} (a zero-rated LPO sale): send the buyer's Local Purchase Order number.`,
    );
  } else if (!hasLpoLine && lpoNumber !== null) {
    errors.add(
      'lpoNumber',
      `The lpoNumber field applies only to zero-rated LPO sales: leave it out, or make the LPO lines category ${lpoWords || 'of an LPO sale'}.`,
    );
  }
  return { salesType, currency, exchangeRate, lpoNumber };
}

/** An RVAT agent's sale names a principal the authority lists for the merchant (GET /api/v1/principals). */
export async function checkPrincipal(ctx: AppContext, tenantId: number, principalId: string): Promise<string> {
  const principal = await principalOf(ctx.db, tenantId, principalId);
  if (!principal) {
    throw fieldError(
      'principalId',
      `The authority lists no principal ${principalId} for this merchant: send the id of a principal you sell for (GET /api/v1/principals lists them; they are pulled from the VSDC hourly), or leave principalId out.`,
    );
  }
  return principal.id;
}
