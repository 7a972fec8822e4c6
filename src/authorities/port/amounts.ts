// A document's lines and their amounts, as the domain hands them to an authority's arithmetic
// and gets them back: the vocabulary every authority's adapter computes in. The categories are
// the authority's own letters (its profile lists them); the rules of each are the adapter's.
import { Decimal } from 'decimal.js';

/** Decimal arithmetic as the authorities do it (ROUND_HALF_UP), independent of global settings. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = InstanceType<typeof Money>;

export class SaleAmountsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SaleAmountsError';
  }
}

export interface SaleLineInput {
  name: string;
  classificationCode: string;
  itemCode?: string | null;
  /** Up to 4 decimals; a string keeps the exact decimal the caller received. */
  quantity: number | string;
  /** Unit price, up to 4 decimals; tax-inclusive unless the document says otherwise. */
  price: number | string;
  vatCategory: string;
  /**
   * The line's discount (`dcAmt`), an amount: up to 4 decimals, filed rounded to the cent; at
   * most the line's gross round2(quantity × price). Absent: none.
   */
  discount?: number | string | null;
  /**
   * MTV (category `B`) only: the recommended retail price per unit, in the same terms as `price`
   * (tax-inclusive unless the document says otherwise). VAT is computed on quantity × RRP when
   * the line sells below it.
   */
  rrp?: number | string | null;
  /**
   * Credit-note lines: the share of the original line this credit takes back (allocated by
   * src/domain/fiscal/sales/credit-allocation.ts so that the credits of a line add up to exactly its
   * amounts). Filed as given: splyAmt = supply (MTV) or amount, dcAmt = discount,
   * totAmt = amount − discount, vatTaxblAmt = net, vatAmt = vat.
   * Absent: computed from quantity × price.
   */
  allocated?: AllocatedAmounts | null;
  /**
   * The rate (percent) the line was computed with when it was stored: a document is filed with
   * the rates it was sold at, though the authority's tables may have changed since. Absent: the
   * rates passed to the arithmetic, else the authority's own.
   */
  rate?: number | null;
}

export interface AllocatedAmounts {
  /** The share of the line's gross (quantity × price). */
  amount: number | string;
  /** The share of its discount; absent: 0. */
  discount?: number | string | null;
  /** MTV lines: the share of its `splyAmt` (quantity × the higher of RRP and price). */
  supply?: number | string | null;
  net: number | string;
  vat: number | string;
}

export interface ComputedLine {
  seq: number;
  name: string;
  classificationCode: string;
  itemCode: string | null;
  vatCategory: string;
  /** Percent. */
  rate: number;
  quantity: number;
  price: number;
  /** MTV lines: the RRP per unit; null on every other line. */
  rrp: number | null;
  /** round2(quantity × price), or a credit line's allocated amount: the line before its discount. */
  grossAmount: number;
  /**
   * `splyAmt`: the gross, except on an MTV line sold below its RRP, where it is
   * round2(quantity × RRP) (the authority's own MTV sample files it so).
   */
  supplyAmount: number;
  /** `dcAmt`. */
  discountAmount: number;
  /** `dcRt`: the discount as a percentage of the gross, at 4 decimals (0 without a discount). */
  discountRate: number;
  /** `totAmt` = gross − discount: what the line costs before VAT when prices exclude it. */
  lineAmount: number;
  /** `vatTaxblAmt`. */
  taxableAmount: number;
  /** `vatAmt`. */
  vatAmount: number;
  /**
   * What the customer pays for the line: `lineAmount`, plus `vatAmount` when prices exclude VAT.
   * taxable + VAT, except on an MTV line sold below its RRP (its VAT is on the RRP).
   */
  total: number;
}

export interface CategoryTotals {
  code: string;
  rate: number;
  taxable: number;
  vat: number;
}

interface SaleTotals {
  /** Σ taxable amounts (`totTaxblAmt`). */
  net: number;
  /** Σ VAT (`totTaxAmt`). */
  vat: number;
  /** What the customer pays (`totAmt`): net + vat, except when an MTV line sells below its RRP. */
  total: number;
  /** Σ line discounts. */
  discount: number;
}

export interface ComputedSale {
  taxInclusive: boolean;
  lines: ComputedLine[];
  /** Every category, zeros when unused, in the order of VAT_CATEGORIES. */
  byCategory: CategoryTotals[];
  totals: SaleTotals;
}

export function round2(value: Money): Money {
  return value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** An exact decimal from a JSON number or a numeric column's text. */
export function parseAmount(value: number | string, what: string): Money {
  let parsed: Money;
  try {
    parsed = new Money(typeof value === 'number' ? String(value) : value.trim());
  } catch {
    throw new SaleAmountsError(`${what} "${String(value)}" is not a number`);
  }
  if (!parsed.isFinite()) throw new SaleAmountsError(`${what} must be finite`);
  return parsed;
}
