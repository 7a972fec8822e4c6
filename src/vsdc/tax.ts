// VAT categories and the exact decimal arithmetic of a document's lines and totals.
import { Decimal } from 'decimal.js';

/** Decimal.js clone for money: ROUND_HALF_UP, so rounding never depends on a global setting. */
/** Decimal arithmetic as the VSDC does it (ROUND_HALF_UP), independent of global settings. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = InstanceType<typeof Money>;

export const VAT_CATEGORY_CODES = ['A', 'B', 'C1', 'C2', 'C3', 'D', 'RVAT', 'E', 'F'] as const;
export type VatCategoryCode = (typeof VAT_CATEGORY_CODES)[number];

export interface VatCategory {
  code: VatCategoryCode;
  name: string;
  /** Percent, as the authority's code class 04 publishes it (16 means 16 %). */
  rate: number;
}

export const VAT_CATEGORIES: readonly VatCategory[] = [
  { code: 'A', name: 'Standard rated', rate: 16 },
  { code: 'B', name: 'Minimum taxable value (MTV)', rate: 16 },
  { code: 'C1', name: 'Exports', rate: 0 },
  { code: 'C2', name: 'Zero-rated LPO', rate: 0 },
  { code: 'C3', name: 'Zero-rated by nature', rate: 0 },
  { code: 'D', name: 'Exempt', rate: 0 },
  { code: 'RVAT', name: 'Reverse VAT', rate: 16 },
  { code: 'E', name: 'Disbursement', rate: 0 },
  { code: 'F', name: 'Service charge', rate: 10 },
];

const BY_CODE = new Map<string, VatCategory>(VAT_CATEGORIES.map((c) => [c.code, c]));

export function isVatCategoryCode(code: unknown): code is VatCategoryCode {
  return typeof code === 'string' && BY_CODE.has(code);
}

export function vatCategory(code: VatCategoryCode): VatCategory {
  const category = BY_CODE.get(code);
  if (!category) throw new SaleAmountsError(`unknown VAT category "${code}"`);
  return category;
}

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
  vatCategory: VatCategoryCode;
  /**
   * Credit-note lines: the share of the original line this credit takes back (allocated by
   * modules/sales/credit-allocation.ts so that the credits of a line add up to exactly its
   * amounts). Filed as given: splyAmt = totAmt = amount, vatTaxblAmt = net, vatAmt = vat.
   * Absent: computed from quantity × price.
   */
  allocated?: AllocatedAmounts | null;
}

export interface AllocatedAmounts {
  amount: number | string;
  net: number | string;
  vat: number | string;
}

export interface ComputedLine {
  seq: number;
  name: string;
  classificationCode: string;
  itemCode: string | null;
  vatCategory: VatCategoryCode;
  /** Percent. */
  rate: number;
  quantity: number;
  price: number;
  /** `splyAmt` = round2(quantity × price), or a credit line's allocated amount. */
  supplyAmount: number;
  /** `dcAmt`, always 0: the gateway has no discounts. */
  discountAmount: number;
  /** `totAmt` = supply − discount: what the line costs before VAT when prices exclude it. */
  lineAmount: number;
  /** `vatTaxblAmt`. */
  taxableAmount: number;
  /** `vatAmt`. */
  vatAmount: number;
}

export interface CategoryTotals {
  code: VatCategoryCode;
  rate: number;
  taxable: number;
  vat: number;
}

export interface SaleTotals {
  net: number;
  vat: number;
  /** net + vat: what the customer pays. */
  total: number;
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

function exactInput(value: number | string, what: string, maxDecimals: number): Money {
  const parsed = parseAmount(value, what);
  if (parsed.decimalPlaces() > maxDecimals) {
    throw new SaleAmountsError(`${what} ${parsed.toString()} has more than ${maxDecimals} decimals`);
  }
  return parsed;
}

/** A credit line's allocated amounts, checked for what holds of every line (the VSDC checks the rest). */
function allocatedAmounts(allocated: AllocatedAmounts, index: number, taxInclusive: boolean): { supply: Money; taxable: Money; vat: Money } {
  const supply = exactInput(allocated.amount, `line ${index + 1} amount`, 2);
  const taxable = exactInput(allocated.net, `line ${index + 1} net`, 2);
  const vat = exactInput(allocated.vat, `line ${index + 1} VAT`, 2);
  if (supply.lt(0) || taxable.lt(0) || vat.lt(0)) throw new SaleAmountsError(`line ${index + 1} amounts must not be negative`);
  if (taxInclusive ? !taxable.plus(vat).eq(supply) : !taxable.eq(supply)) {
    throw new SaleAmountsError(`line ${index + 1} amounts do not add up (amount ${supply.toString()}, net ${taxable.toString()}, VAT ${vat.toString()})`);
  }
  return { supply, taxable, vat };
}

/**
 * Lines and totals of one document. Per line: splyAmt = round2(qty × prc), dcAmt = 0,
 * totAmt = splyAmt − dcAmt. Tax-inclusive: vatTaxblAmt = round2(totAmt / (1 + rate)),
 * vatAmt = totAmt − vatTaxblAmt. Tax-exclusive: vatTaxblAmt = totAmt, vatAmt = round2(totAmt × rate).
 * A line with `allocated` amounts (a credit-note line) takes them as they are instead. Category
 * and document totals are sums of the rounded line amounts, so they always add up.
 */
export function computeSale(inputs: readonly SaleLineInput[], taxInclusive: boolean): ComputedSale {
  if (inputs.length === 0) throw new SaleAmountsError('a document needs at least one line');
  const taxable = new Map<VatCategoryCode, Money>();
  const vat = new Map<VatCategoryCode, Money>();

  const lines = inputs.map((input, index): ComputedLine => {
    const category = vatCategory(input.vatCategory);
    const quantity = exactInput(input.quantity, `line ${index + 1} quantity`, 4);
    const price = exactInput(input.price, `line ${index + 1} price`, 4);
    if (quantity.lte(0)) throw new SaleAmountsError(`line ${index + 1} quantity must be positive`);
    if (price.lt(0)) throw new SaleAmountsError(`line ${index + 1} price must not be negative`);

    const rate = new Money(category.rate).div(100);
    const allocated = input.allocated ? allocatedAmounts(input.allocated, index, taxInclusive) : null;
    const supply = allocated ? allocated.supply : round2(quantity.times(price));
    const discount = new Money(0);
    const lineAmount = supply.minus(discount);
    let lineTaxable: Money;
    let lineVat: Money;
    if (allocated) {
      lineTaxable = allocated.taxable;
      lineVat = allocated.vat;
    } else if (taxInclusive) {
      lineTaxable = round2(lineAmount.div(rate.plus(1)));
      lineVat = lineAmount.minus(lineTaxable);
    } else {
      lineTaxable = lineAmount;
      lineVat = round2(lineAmount.times(rate));
    }
    taxable.set(category.code, (taxable.get(category.code) ?? new Money(0)).plus(lineTaxable));
    vat.set(category.code, (vat.get(category.code) ?? new Money(0)).plus(lineVat));

    return {
      seq: index + 1,
      name: input.name,
      classificationCode: input.classificationCode,
      itemCode: input.itemCode ?? null,
      vatCategory: category.code,
      rate: category.rate,
      quantity: quantity.toNumber(),
      price: price.toNumber(),
      supplyAmount: supply.toNumber(),
      discountAmount: discount.toNumber(),
      lineAmount: lineAmount.toNumber(),
      taxableAmount: lineTaxable.toNumber(),
      vatAmount: lineVat.toNumber(),
    };
  });

  let net = new Money(0);
  let totalVat = new Money(0);
  const byCategory = VAT_CATEGORIES.map((category): CategoryTotals => {
    const categoryTaxable = taxable.get(category.code) ?? new Money(0);
    const categoryVat = vat.get(category.code) ?? new Money(0);
    net = net.plus(categoryTaxable);
    totalVat = totalVat.plus(categoryVat);
    return { code: category.code, rate: category.rate, taxable: categoryTaxable.toNumber(), vat: categoryVat.toNumber() };
  });

  return {
    taxInclusive,
    lines,
    byCategory,
    totals: { net: net.toNumber(), vat: totalVat.toNumber(), total: net.plus(totalVat).toNumber() },
  };
}

/** A line's `splyAmt`: round2(quantity × price), exactly as computeSale files it. */
export function lineSupplyAmount(quantity: number | string, price: number | string): number {
  return round2(exactInput(quantity, 'quantity', 4).times(exactInput(price, 'price', 4))).toNumber();
}

/** True when two money amounts agree within 0.01 (the VSDC's tolerance; used for 924 reconciliation). */
export function amountsMatch(a: number | string, b: number | string): boolean {
  return new Money(String(a)).minus(new Money(String(b))).abs().lte('0.01');
}
