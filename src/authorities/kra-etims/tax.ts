// KRA's tax types (code class 04) and the exact decimal arithmetic of a document (research §4.2):
// splyAmt = prc × qty, dcAmt the line's discount, the VAT-exclusive base taxblAmt = splyAmt − dcAmt
// (tax-exclusive prices) or round2((splyAmt − dcAmt) ÷ (1 + rate)) backed out of tax-inclusive ones,
// taxAmt = round2(taxblAmt × rate) or the rest, totAmt = taxblAmt + taxAmt; 2 decimals, half up;
// each letter's header amounts the sums of its lines.
import { Decimal } from 'decimal.js';
import {
  Money,
  parseAmount,
  round2,
  SaleAmountsError,
  type AllocatedAmounts,
  type CategoryTotals,
  type ComputedLine,
  type ComputedSale,
  type SaleLineInput,
} from '../port/amounts.ts';
import type { TaxCategory } from '../port/profile.ts';

export const KRA_TAX_LETTERS = ['A', 'B', 'C', 'D', 'E'] as const;

/** The published rates, the profile's starting values (selectCodeList class 04 `userDfnCd1` refreshes them). */
export const KRA_TAX_CATEGORIES: readonly TaxCategory[] = [
  { code: 'A', name: 'Exempt', rate: 0 },
  { code: 'B', name: 'Standard rated 16%', rate: 16 },
  { code: 'C', name: 'Zero rated', rate: 0 },
  { code: 'D', name: 'Non-VAT', rate: 0 },
  { code: 'E', name: 'Reduced rate 8%', rate: 8 },
];

const PUBLISHED_RATE = new Map(KRA_TAX_CATEGORIES.map((c) => [c.code, c.rate]));
const ZERO = new Money(0);
const HUNDRED = new Money(100);

function exactInput(value: number | string, what: string, maxDecimals: number): Money {
  const parsed = parseAmount(value, what);
  if (parsed.decimalPlaces() > maxDecimals)
    throw new SaleAmountsError(`${what} ${parsed.toString()} has more than ${maxDecimals} decimals`);
  return parsed;
}

/** A letter's rate in percent: the refreshed one when given and sane, else the published one. */
function rateOf(letter: string, rates: Readonly<Record<string, number>> | undefined): number {
  if (!PUBLISHED_RATE.has(letter)) throw new SaleAmountsError(`unknown tax type "${letter}": KRA's are ${KRA_TAX_LETTERS.join(', ')}`);
  const refreshed = rates?.[letter];
  return typeof refreshed === 'number' && Number.isFinite(refreshed) && refreshed >= 0 && refreshed < 100
    ? refreshed
    : PUBLISHED_RATE.get(letter)!;
}

interface LineAmounts {
  supply: Money;
  discount: Money;
  taxable: Money;
  tax: Money;
}

/** A credit line's share of the original, taken as allocated: its parts must add up as KRA adds them. */
function allocatedAmounts(allocated: AllocatedAmounts, what: string, taxInclusive: boolean): LineAmounts {
  const supply = exactInput(allocated.amount, `${what} amount`, 2);
  const discount = allocated.discount == null ? ZERO : exactInput(allocated.discount, `${what} discount`, 2);
  const taxable = exactInput(allocated.net, `${what} net`, 2);
  const tax = exactInput(allocated.vat, `${what} VAT`, 2);
  if (supply.lt(0) || discount.lt(0) || taxable.lt(0) || tax.lt(0)) throw new SaleAmountsError(`${what} amounts must not be negative`);
  if (discount.gt(supply)) throw new SaleAmountsError(`${what} discount ${discount.toString()} exceeds its amount ${supply.toString()}`);
  const base = taxInclusive ? taxable.plus(tax) : taxable;
  if (!base.eq(supply.minus(discount))) {
    throw new SaleAmountsError(
      `${what} amounts do not add up (amount ${supply.toString()}, discount ${discount.toString()}, net ${taxable.toString()}, VAT ${tax.toString()})`,
    );
  }
  return { supply, discount, taxable, tax };
}

function computedAmounts(
  input: SaleLineInput,
  what: string,
  quantity: Money,
  price: Money,
  rate: Money,
  taxInclusive: boolean,
): LineAmounts {
  const supply = round2(quantity.times(price));
  const discount = input.discount == null ? ZERO : round2(exactInput(input.discount, `${what} discount`, 4));
  if (discount.lt(0)) throw new SaleAmountsError(`${what} discount must not be negative`);
  if (discount.gt(supply)) throw new SaleAmountsError(`${what} discount ${discount.toString()} exceeds its amount ${supply.toString()}`);
  const base = supply.minus(discount);
  if (taxInclusive) {
    const taxable = round2(base.div(rate.plus(1)));
    return { supply, discount, taxable, tax: base.minus(taxable) };
  }
  return { supply, discount, taxable: base, tax: round2(base.times(rate)) };
}

/** `dcRt`: the discount as a percentage of splyAmt, at 4 decimals. */
function discountRate(discount: Money, supply: Money): Money {
  if (discount.isZero() || supply.isZero()) return ZERO;
  return discount.div(supply).times(HUNDRED).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
}

/**
 * Lines and totals of one document by KRA's arithmetic. `rates`: each letter's rate in percent as
 * KRA's code table now publishes it (absent: the published starting values). A credit-note line
 * with `allocated` amounts files them as they are. Totals are sums of the rounded line amounts.
 */
export function computeKraSale(
  inputs: readonly SaleLineInput[],
  taxInclusive: boolean,
  rates?: Readonly<Record<string, number>>,
): ComputedSale {
  if (inputs.length === 0) throw new SaleAmountsError('a document needs at least one line');
  // A stored line's own rate (what it was sold at) before the rates passed, before KRA's published ones.
  const soldAt: Record<string, number> = { ...rates };
  for (const input of inputs) if (input.rate != null) soldAt[input.vatCategory] = input.rate;
  const taxable = new Map<string, Money>();
  const tax = new Map<string, Money>();
  let total = ZERO;
  let discount = ZERO;

  const lines = inputs.map((input, index): ComputedLine => {
    const what = `line ${index + 1}`;
    const rate = rateOf(input.vatCategory, soldAt);
    const quantity = exactInput(input.quantity, `${what} quantity`, 4);
    const price = exactInput(input.price, `${what} price`, 4);
    if (quantity.lte(0)) throw new SaleAmountsError(`${what} quantity must be positive`);
    if (price.lt(0)) throw new SaleAmountsError(`${what} price must not be negative`);
    if (input.rrp != null) throw new SaleAmountsError(`${what} has an rrp: KRA has no minimum taxable value`);
    const amounts = input.allocated
      ? allocatedAmounts(input.allocated, what, taxInclusive)
      : computedAmounts(input, what, quantity, price, new Money(rate).div(100), taxInclusive);
    const lineAmount = amounts.supply.minus(amounts.discount);
    const lineTotal = amounts.taxable.plus(amounts.tax);
    taxable.set(input.vatCategory, (taxable.get(input.vatCategory) ?? ZERO).plus(amounts.taxable));
    tax.set(input.vatCategory, (tax.get(input.vatCategory) ?? ZERO).plus(amounts.tax));
    total = total.plus(lineTotal);
    discount = discount.plus(amounts.discount);
    return {
      seq: index + 1,
      name: input.name,
      classificationCode: input.classificationCode,
      itemCode: input.itemCode ?? null,
      vatCategory: input.vatCategory,
      rate,
      quantity: quantity.toNumber(),
      price: price.toNumber(),
      rrp: null,
      grossAmount: amounts.supply.toNumber(),
      supplyAmount: amounts.supply.toNumber(),
      discountAmount: amounts.discount.toNumber(),
      discountRate: discountRate(amounts.discount, amounts.supply).toNumber(),
      lineAmount: lineAmount.toNumber(),
      taxableAmount: amounts.taxable.toNumber(),
      vatAmount: amounts.tax.toNumber(),
      total: lineTotal.toNumber(),
    };
  });

  let net = ZERO;
  let totalTax = ZERO;
  const byCategory = KRA_TAX_CATEGORIES.map((category): CategoryTotals => {
    const rate = rateOf(category.code, soldAt);
    const t = taxable.get(category.code);
    const v = tax.get(category.code);
    if (t === undefined || v === undefined) return { code: category.code, rate, taxable: 0, vat: 0 };
    net = net.plus(t);
    totalTax = totalTax.plus(v);
    return { code: category.code, rate, taxable: t.toNumber(), vat: v.toNumber() };
  });

  return {
    taxInclusive,
    lines,
    byCategory,
    totals: { net: net.toNumber(), vat: totalTax.toNumber(), total: total.toNumber(), discount: discount.toNumber() },
  };
}

/** A line's splyAmt, round2(quantity × price), exactly as computeKraSale computes it. */
export function kraLineGross(quantity: number | string, price: number | string): number {
  return round2(exactInput(quantity, 'quantity', 4).times(exactInput(price, 'price', 4))).toNumber();
}
