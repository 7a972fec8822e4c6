// VAT categories and the exact decimal arithmetic of a document's lines and totals.
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

export { Money, SaleAmountsError };
export type { ComputedLine, ComputedSale, SaleLineInput };

export const VAT_CATEGORY_CODES = ['A', 'B', 'C1', 'C2', 'C3', 'D', 'RVAT', 'E', 'F'] as const;
export type VatCategoryCode = (typeof VAT_CATEGORY_CODES)[number];

interface VatCategory {
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

/**
 * Levies the authority publishes (code classes 60–62) beside VAT: insurance premium levy (IPL1
 * 5 %, IPL2 0 %), tourism levy (TL 1.5 %), excise on coal (ECM 5 %) and electricity (EXEEG 3 %).
 * The gateway computes none of them (docs/decisions.md): a line naming one is refused.
 */
export const LEVIES = [
  { code: 'TL', name: 'tourism levy', rate: 1.5 },
  { code: 'IPL1', name: 'insurance premium levy', rate: 5 },
  { code: 'IPL2', name: 're-insurance premium levy', rate: 0 },
  { code: 'ECM', name: 'excise duty on coal', rate: 5 },
  { code: 'EXEEG', name: 'excise duty on electricity', rate: 3 },
] as const;

const BY_CODE = new Map<string, VatCategory>(VAT_CATEGORIES.map((c) => [c.code, c]));

function vatCategory(code: string): VatCategory {
  const category = BY_CODE.get(code);
  if (!category) throw new SaleAmountsError(`unknown VAT category "${code}"`);
  return category;
}

function exactInput(value: number | string, what: string, maxDecimals: number): Money {
  const parsed = parseAmount(value, what);
  if (parsed.decimalPlaces() > maxDecimals) {
    throw new SaleAmountsError(`${what} ${parsed.toString()} has more than ${maxDecimals} decimals`);
  }
  return parsed;
}

const ZERO = new Money(0);
const HUNDRED = new Money(100);
/** Each category's rate as a fraction (16 → 0.16), made once. */
const RATE_OF = new Map<VatCategoryCode, Money>(VAT_CATEGORIES.map((c) => [c.code, new Money(c.rate).div(100)]));

interface LineAmounts {
  gross: Money;
  discount: Money;
  supply: Money;
  taxable: Money;
  vat: Money;
}

/** A credit line's allocated amounts, checked for what holds of every line (the VSDC checks the rest). */
function allocatedAmounts(allocated: AllocatedAmounts, index: number, taxInclusive: boolean, mtv: boolean): LineAmounts {
  const what = `line ${index + 1}`;
  const gross = exactInput(allocated.amount, `${what} amount`, 2);
  const discount = allocated.discount == null ? ZERO : exactInput(allocated.discount, `${what} discount`, 2);
  const taxable = exactInput(allocated.net, `${what} net`, 2);
  const vat = exactInput(allocated.vat, `${what} VAT`, 2);
  if (gross.lt(0) || discount.lt(0) || taxable.lt(0) || vat.lt(0)) throw new SaleAmountsError(`${what} amounts must not be negative`);
  if (discount.gt(gross)) throw new SaleAmountsError(`${what} discount ${discount.toString()} exceeds its amount ${gross.toString()}`);
  let supply = gross;
  if (mtv) {
    if (allocated.supply == null) throw new SaleAmountsError(`${what} is MTV (B): its allocated supply amount is missing`);
    supply = exactInput(allocated.supply, `${what} supply amount`, 2);
  } else {
    // Without MTV, VAT is on what the line costs: taxable + VAT (inclusive) or taxable (exclusive) is gross − discount.
    const base = taxInclusive ? taxable.plus(vat) : taxable;
    if (!base.eq(gross.minus(discount))) {
      throw new SaleAmountsError(
        `${what} amounts do not add up (amount ${gross.toString()}, discount ${discount.toString()}, net ${taxable.toString()}, VAT ${vat.toString()})`,
      );
    }
  }
  return { gross, discount, supply, taxable, vat };
}

/**
 * The amounts of a line computed from quantity × price. The VAT base is what the line costs
 * (gross − discount); on an MTV line, round2(quantity × RRP) when that is higher.
 */
function computedAmounts(
  input: SaleLineInput,
  index: number,
  quantity: Money,
  price: Money,
  rate: Money,
  taxInclusive: boolean,
  rrp: Money | null,
): LineAmounts {
  const what = `line ${index + 1}`;
  const gross = round2(quantity.times(price));
  const discount = input.discount == null ? ZERO : round2(exactInput(input.discount, `${what} discount`, 4));
  if (discount.lt(0)) throw new SaleAmountsError(`${what} discount must not be negative`);
  if (discount.gt(gross)) throw new SaleAmountsError(`${what} discount ${discount.toString()} exceeds its amount ${gross.toString()}`);
  const lineAmount = gross.minus(discount);
  let supply = gross;
  let base = lineAmount;
  if (rrp !== null) {
    supply = round2(quantity.times(Money.max(rrp, price)));
    base = Money.max(round2(quantity.times(rrp)), lineAmount);
  }
  if (taxInclusive) {
    const taxable = round2(base.div(rate.plus(1)));
    return { gross, discount, supply, taxable, vat: base.minus(taxable) };
  }
  return { gross, discount, supply, taxable: base, vat: round2(base.times(rate)) };
}

/** `dcRt`: the discount as a percentage of the gross, at the VSDC's 4 decimals. */
function discountRate(discount: Money, gross: Money): Money {
  if (discount.isZero() || gross.isZero()) return ZERO;
  return discount.div(gross).times(HUNDRED).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
}

/**
 * Lines and totals of one document. Per line: gross = round2(qty × prc), dcAmt = the discount
 * (rounded to the cent), totAmt = gross − dcAmt, dcRt = dcAmt / gross × 100 (4 decimals). The
 * VAT base is totAmt; on an MTV (B) line it is round2(qty × RRP) when that is higher, and
 * splyAmt = round2(qty × max(RRP, prc)), as the authority's MTV sample files it; on every
 * other line splyAmt = gross. Tax-inclusive: vatTaxblAmt = round2(base / (1 + rate)),
 * vatAmt = base − vatTaxblAmt. Tax-exclusive: vatTaxblAmt = base, vatAmt = round2(base × rate).
 * A line with `allocated` amounts (a credit-note line) takes them as they are instead. Category
 * and document totals are sums of the rounded line amounts, so they always add up.
 */
export function computeSale(inputs: readonly SaleLineInput[], taxInclusive: boolean): ComputedSale {
  if (inputs.length === 0) throw new SaleAmountsError('a document needs at least one line');
  const taxable = new Map<string, Money>();
  const vat = new Map<string, Money>();
  let total = ZERO;
  let discount = ZERO;

  const lines = inputs.map((input, index): ComputedLine => {
    const category = vatCategory(input.vatCategory);
    const quantity = exactInput(input.quantity, `line ${index + 1} quantity`, 4);
    const price = exactInput(input.price, `line ${index + 1} price`, 4);
    if (quantity.lte(0)) throw new SaleAmountsError(`line ${index + 1} quantity must be positive`);
    if (price.lt(0)) throw new SaleAmountsError(`line ${index + 1} price must not be negative`);
    const mtv = category.code === 'B';
    let rrp: Money | null = null;
    if (mtv) {
      if (input.rrp == null) throw new SaleAmountsError(`line ${index + 1} is MTV (B) and needs its rrp`);
      rrp = exactInput(input.rrp, `line ${index + 1} rrp`, 4);
      if (rrp.lt(0)) throw new SaleAmountsError(`line ${index + 1} rrp must not be negative`);
    } else if (input.rrp != null) {
      throw new SaleAmountsError(`line ${index + 1} has an rrp but is not MTV (B)`);
    }

    const rate = RATE_OF.get(category.code)!;
    const amounts = input.allocated
      ? allocatedAmounts(input.allocated, index, taxInclusive, mtv)
      : computedAmounts(input, index, quantity, price, rate, taxInclusive, rrp);
    const lineAmount = amounts.gross.minus(amounts.discount);
    const lineTotal = taxInclusive ? lineAmount : lineAmount.plus(amounts.vat);
    taxable.set(category.code, (taxable.get(category.code) ?? ZERO).plus(amounts.taxable));
    vat.set(category.code, (vat.get(category.code) ?? ZERO).plus(amounts.vat));
    total = total.plus(lineTotal);
    discount = discount.plus(amounts.discount);

    return {
      seq: index + 1,
      name: input.name,
      classificationCode: input.classificationCode,
      itemCode: input.itemCode ?? null,
      vatCategory: category.code,
      rate: category.rate,
      quantity: quantity.toNumber(),
      price: price.toNumber(),
      rrp: rrp === null ? null : rrp.toNumber(),
      grossAmount: amounts.gross.toNumber(),
      supplyAmount: amounts.supply.toNumber(),
      discountAmount: amounts.discount.toNumber(),
      discountRate: discountRate(amounts.discount, amounts.gross).toNumber(),
      lineAmount: lineAmount.toNumber(),
      taxableAmount: amounts.taxable.toNumber(),
      vatAmount: amounts.vat.toNumber(),
      total: lineTotal.toNumber(),
    };
  });

  let net = ZERO;
  let totalVat = ZERO;
  const byCategory = VAT_CATEGORIES.map((category): CategoryTotals => {
    const categoryTaxable = taxable.get(category.code);
    const categoryVat = vat.get(category.code);
    // Most documents use one or two of the nine categories: the others are zeros, no arithmetic.
    if (categoryTaxable === undefined || categoryVat === undefined) return { code: category.code, rate: category.rate, taxable: 0, vat: 0 };
    net = net.plus(categoryTaxable);
    totalVat = totalVat.plus(categoryVat);
    return { code: category.code, rate: category.rate, taxable: categoryTaxable.toNumber(), vat: categoryVat.toNumber() };
  });

  return {
    taxInclusive,
    lines,
    byCategory,
    totals: { net: net.toNumber(), vat: totalVat.toNumber(), total: total.toNumber(), discount: discount.toNumber() },
  };
}

/** A line's gross, round2(quantity × price), exactly as computeSale computes it (`splyAmt` unless MTV). */
export function lineSupplyAmount(quantity: number | string, price: number | string): number {
  return round2(exactInput(quantity, 'quantity', 4).times(exactInput(price, 'price', 4))).toNumber();
}

/** True when two money amounts agree within 0.01 (the VSDC's tolerance; used for 924 reconciliation). */
export function amountsMatch(a: number | string, b: number | string): boolean {
  return new Money(String(a))
    .minus(new Money(String(b)))
    .abs()
    .lte('0.01');
}
