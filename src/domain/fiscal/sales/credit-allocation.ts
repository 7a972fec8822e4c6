// What one credit note takes back of one line of a sale: its quantity, amount, discount, net and VAT.
// Pure arithmetic, no I/O: the credit-note service feeds it the original line and what earlier
// credit notes took; the filer files exactly what it returns.
//
// The rule (cumulative allocation): once credits of a line add up to quantity x, they have taken
// back round2(x × price) of its amount in all (what a line of quantity x would have cost). A
// credit of q on top of c therefore takes round2((c + q) × price) − round2(c × price), and the
// credit that reaches the line's quantity Q takes round2(Q × price) − …, which is exactly the
// line's amount minus what earlier credits took. Net and VAT follow the cumulative amount the same
// way (tax-inclusive: net = round2(amount / (1 + rate)), VAT the difference; tax-exclusive:
// VAT = round2(amount × rate)). So the credits of a line always add up to exactly its amount, net
// and VAT, whatever the split, and never to more.
//
// A discounted line's credits take its discount (dcAmt) in proportion to the quantity, by the
// same cumulative rule: credits reaching x have taken round2(D × x / Q) of it, kept so that
// neither the discount nor the discounted amount left goes below zero. A credit files
// dcAmt = its share of the discount and totAmt = its amount − dcAmt, and net and VAT follow the
// cumulative discounted amount (what VAT was computed on). An MTV (B) line, whose VAT is on
// max(q × RRP, totAmt), has its own search (mtvCredit).
//
// Each credit stays within the VSDC's tolerance (0.01) of its own recomputation: the amount of a
// credit differs from q × price by less than a cent (two roundings of at most half a cent each),
// so it is filed with the sale's unit price; net and VAT likewise. Allocating by the line's amount
// instead (round2(amount × (c + q) / Q)) would add the line's own rounding (up to half a cent) and
// can miss the VSDC's `qty × prc ≈ splyAmt` check by a fraction of a cent.
//
// Earlier credits that did not follow the rule (notes issued before it, or a credit counted while
// pending and then refused by the authority) leave the running totals off the rule by up to half
// a cent per such credit. A credit that does not finish the line is then pulled back towards the
// rule, as far as the VSDC's tolerance allows; the one that finishes it still takes exactly what
// is left, with the unit price adjusted (at 4 decimals) if the sale's no longer fits the VSDC's
// check. When that cannot pass the VSDC (no 4-decimal price fits a remainder of more than 200
// units, or the rest of the net or VAT is more than a cent off its recomputation),
// CreditAllocationError says so: crediting part of the line first pulls it back.
import { Decimal } from 'decimal.js';
import { Money, parseAmount, round2 } from '../../../authorities/port/amounts.ts';

type Amount = number | string;

/** The line of the sale being credited, as stored. */
export interface CreditableLine {
  quantity: Amount;
  /** Unit price as sold (tax-inclusive or not, as the sale). */
  price: Amount;
  /** round2(quantity × price): the line before its discount. */
  amount: Amount;
  /** The line's discount (dcAmt); absent: 0. */
  discount?: Amount;
  /** MTV (B) lines: the RRP per unit. Absent or null on every other line. */
  rrp?: Amount | null;
  /** MTV (B) lines: the filed splyAmt, round2(quantity × max(rrp, price)). */
  supply?: Amount | null;
  net: Amount;
  vat: Amount;
  /** Percent: 16 means 16 %. */
  rate: Amount;
}

/** What credit notes already took back of the line (those pending or uploaded). */
export interface CreditedSoFar {
  quantity: Amount;
  amount: Amount;
  /** Absent: 0. */
  discount?: Amount;
  /** Σ filed splyAmt; absent: the amount. */
  supply?: Amount;
  net: Amount;
  vat: Amount;
}

export const NOTHING_CREDITED: CreditedSoFar = { quantity: 0, amount: 0, discount: 0, supply: 0, net: 0, vat: 0 };

/** One credit-note line: exact decimal strings, the amounts at 2 decimals. */
export interface CreditLine {
  quantity: string;
  /** The unit price to file: the sale's, unless `priceAdjusted`. */
  price: string;
  /** Its share of the line's amount (gross, before the discount). */
  amount: string;
  /** Its share of the line's discount; `totAmt` = amount − discount. */
  discount: string;
  /** MTV lines: its share of the line's splyAmt; null on every other line (splyAmt = amount). */
  supply: string | null;
  net: string;
  vat: string;
  /** What the customer gets back: amount − discount, plus VAT when prices exclude it. */
  total: string;
  /** This credit takes the rest of the line: its amounts are exactly what was left. */
  last: boolean;
  /** The sale's unit price would not pass the VSDC's check with this amount; see the module note. */
  priceAdjusted: boolean;
}

export class CreditAllocationError extends Error {
  constructor(
    message: string,
    /** `quantity`: not positive or more than is left; `arithmetic`: no filing of it would pass the VSDC. */
    readonly reason: 'quantity' | 'arithmetic',
  ) {
    super(message);
    this.name = 'CreditAllocationError';
  }
}

const ceil2 = (value: Money): Money => value.toDecimalPlaces(2, Decimal.ROUND_CEIL);
const floor2 = (value: Money): Money => value.toDecimalPlaces(2, Decimal.ROUND_FLOOR);
/** Two amounts the authority holds equal: within its tolerance of each other. */
const withinOf =
  (tolerance: Money) =>
  (a: Money, b: Money): boolean =>
    a.minus(b).abs().lte(tolerance);
const max = (...values: Money[]): Money => Money.max(...values);
const min = (...values: Money[]): Money => Money.min(...values);

/**
 * The target of the rule, moved into [lo, hi] when earlier credits drifted from it (and the
 * interval is not empty; otherwise the caller's check refuses the result).
 */
function clamp(target: Money, lo: Money, hi: Money): Money {
  if (lo.gt(hi)) return target;
  return min(max(target, lo), hi);
}

/** A share by the rule: exactly what is left for the last credit, else the target kept in [lo, hi]. */
function share(last: boolean, rest: Money, target: Money, lo: Money, hi: Money): Money {
  return last ? rest : clamp(target, lo, hi);
}

/**
 * What crediting `quantity` of `line` takes back, given what earlier credit notes took. Throws
 * CreditAllocationError when the quantity is not positive or more than is left, or (only after
 * credits that did not follow the rule) when no filing of it would pass the VSDC's arithmetic.
 * `tolerance`: how far the authority lets a filed amount stray from its own recomputation (its
 * profile's amountTolerance).
 */
export function allocateCredit(
  line: CreditableLine,
  credited: CreditedSoFar,
  quantity: Amount,
  taxInclusive: boolean,
  tolerance: Amount,
): CreditLine {
  const TOLERANCE = parseAmount(tolerance, 'tolerance');
  const within = withinOf(TOLERANCE);
  const Q = parseAmount(line.quantity, 'line quantity');
  const price = parseAmount(line.price, 'line price');
  const A = parseAmount(line.amount, 'line amount');
  const D = parseAmount(line.discount ?? 0, 'line discount');
  const rrp = line.rrp == null ? null : parseAmount(line.rrp, 'line RRP');
  const S = line.supply == null ? A : parseAmount(line.supply, 'line supply');
  const N = parseAmount(line.net, 'line net');
  const V = parseAmount(line.vat, 'line VAT');
  const rate = parseAmount(line.rate, 'line rate').div(100);
  const c = parseAmount(credited.quantity, 'credited quantity');
  const a = parseAmount(credited.amount, 'credited amount');
  const ad = parseAmount(credited.discount ?? 0, 'credited discount');
  const as = credited.supply === undefined ? a : parseAmount(credited.supply, 'credited supply');
  const an = parseAmount(credited.net, 'credited net');
  const av = parseAmount(credited.vat, 'credited VAT');
  const q = parseAmount(quantity, 'quantity');

  const left = Q.minus(c);
  if (q.lte(0)) throw new CreditAllocationError('The quantity to credit must be positive.', 'quantity');
  if (q.gt(left))
    throw new CreditAllocationError(`The quantity must not exceed what is left to credit on the line (${left.toString()}).`, 'quantity');
  const zero = new Money(0);
  const T = A.minus(D);
  const at = a.minus(ad);
  // What is left of the line. Net or VAT that notes issued before the rule over-took stays
  // over-taken: nothing more of it is taken.
  const rest = {
    amount: A.minus(a),
    discount: D.minus(ad),
    lineAmount: T.minus(at),
    net: max(zero, N.minus(an)),
    vat: max(zero, V.minus(av)),
  };
  if (rest.amount.lt(0) || rest.discount.lt(0) || rest.lineAmount.lt(0)) {
    throw new CreditAllocationError('Earlier credit notes already took back more than the line held.', 'arithmetic');
  }
  const last = q.eq(left);
  const x = c.plus(q);

  // The gross: the rule's target, kept within the VSDC's tolerance of q × price when earlier
  // credits drifted (or filed at an adjusted unit price when even that cannot hold).
  const exactAmount = q.times(price);
  const amount = share(
    last,
    rest.amount,
    round2(x.times(price)).minus(a),
    max(zero, ceil2(exactAmount.minus(TOLERANCE))),
    min(rest.amount, floor2(exactAmount.plus(TOLERANCE))),
  );
  let filedPrice = price;
  if (!within(exactAmount, amount)) {
    filedPrice = amount.div(q).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
    if (!within(q.times(filedPrice), amount)) throw unfileable();
  }

  // The discount, in proportion to the quantity: never more of it than is left, and never so
  // little that the rest of the line's discounted amount would exceed the rest of its gross.
  const discountTarget = D.isZero() ? zero : round2(D.times(x).div(Q)).minus(ad);
  const shares: Shares = { amount, discountTarget, filedPrice, salePrice: price, last, q, x, tolerance: TOLERANCE };
  if (rrp !== null) {
    const taken = { supply: as, discount: ad, lineAmount: at, net: an, vat: av };
    return mtvCredit({ Q, price, rrp, rate, taxInclusive, S, D, T, N, V }, taken, shares);
  }
  const discount = D.isZero()
    ? zero
    : share(last, rest.discount, discountTarget, max(zero, amount.minus(rest.lineAmount)), min(amount, rest.discount));
  const lineAmount = amount.minus(discount);
  if (discount.lt(0) || lineAmount.lt(0)) throw unfileable();

  // VAT is on the line's amount; so far it was on the discounted amount taken.
  let net: Money;
  let vat: Money;
  if (taxInclusive) {
    // net ≈ amount / (1 + rate); VAT is the difference.
    const exactNet = lineAmount.div(rate.plus(1));
    net = share(
      last,
      rest.net,
      round2(at.plus(lineAmount).div(rate.plus(1))).minus(an),
      max(zero, lineAmount.minus(rest.vat), ceil2(exactNet.minus(TOLERANCE))),
      min(lineAmount, rest.net, floor2(exactNet.plus(TOLERANCE))),
    );
    vat = lineAmount.minus(net);
    if (!within(net, exactNet)) throw unfileable();
  } else {
    // Net is the amount; VAT ≈ amount × rate on top.
    const exactVat = lineAmount.times(rate);
    net = lineAmount;
    vat = share(
      last,
      rest.vat,
      round2(at.plus(lineAmount).times(rate)).minus(av),
      max(zero, ceil2(exactVat.minus(TOLERANCE))),
      min(rest.vat, floor2(exactVat.plus(TOLERANCE))),
    );
    if (!within(vat, exactVat)) throw unfileable();
  }
  if (net.lt(0) || vat.lt(0) || net.gt(rest.net) || vat.gt(rest.vat)) throw unfileable();

  return creditLine(shares, { discount, lineAmount, supply: null, net, vat }, taxInclusive);
}

interface Shares {
  /** The credit's share of the gross, and the unit price it is filed at. */
  amount: Money;
  filedPrice: Money;
  salePrice: Money;
  /** The rule's share of the discount. */
  discountTarget: Money;
  last: boolean;
  /** The quantity credited, and the line's credited quantity with it. */
  q: Money;
  x: Money;
  /** The authority's tolerance. */
  tolerance: Money;
}

function creditLine(
  shares: Shares,
  filed: { discount: Money; lineAmount: Money; supply: Money | null; net: Money; vat: Money },
  taxInclusive: boolean,
): CreditLine {
  return {
    quantity: shares.q.toString(),
    price: shares.filedPrice.toString(),
    amount: shares.amount.toFixed(2),
    discount: filed.discount.toFixed(2),
    supply: filed.supply === null ? null : filed.supply.toFixed(2),
    net: filed.net.toFixed(2),
    vat: filed.vat.toFixed(2),
    total: (taxInclusive ? filed.lineAmount : filed.lineAmount.plus(filed.vat)).toFixed(2),
    last: shares.last,
    priceAdjusted: !shares.filedPrice.eq(shares.salePrice),
  };
}

const CENT = new Money('0.01');

/** Cent amounts in [lo, hi] within `spread` cents of `center`, nearest first. */
function centsAround(center: Money, lo: Money, hi: Money, spread = 3): Money[] {
  const out: Money[] = [];
  for (let step = 0; step <= spread; step++) {
    for (const value of step === 0 ? [center] : [center.minus(CENT.times(step)), center.plus(CENT.times(step))]) {
      if (value.gte(lo) && value.lte(hi)) out.push(value);
    }
  }
  return out;
}

interface MtvLine {
  Q: Money;
  price: Money;
  rrp: Money;
  /** As a fraction: 0.16. */
  rate: Money;
  taxInclusive: boolean;
  /** The line's splyAmt, discount, totAmt (gross − discount), net and VAT. */
  S: Money;
  D: Money;
  T: Money;
  N: Money;
  V: Money;
}

/**
 * A credit of an MTV (B) line. The VSDC recomputes its VAT on max(q × RRP, totAmt), a maximum
 * that does not add up across credits and is taken from the unrounded q × RRP. So besides its
 * own check, each credit is chosen so that the rest of the line, credited in one note, would
 * pass the VSDC too: the credit that finishes the line always does. Among the fillings that
 * pass both, the one nearest the rule (proportional discount, cumulative rounding) is filed;
 * when none does (a line sold within cents of its RRP, split unluckily), the partial credit is
 * refused.
 */
function mtvCredit(
  line: MtvLine,
  taken: { supply: Money; discount: Money; lineAmount: Money; net: Money; vat: Money },
  shares: Shares,
): CreditLine {
  const { Q, price, rrp, rate, taxInclusive } = line;
  const { amount, filedPrice, last, q, x } = shares;
  const within = withinOf(shares.tolerance);
  const zero = new Money(0);
  const base = (b: { net: Money; vat: Money }): Money => (taxInclusive ? b.net.plus(b.vat) : b.net);
  const rest = {
    supply: line.S.minus(taken.supply),
    discount: line.D.minus(taken.discount),
    lineAmount: line.T.minus(taken.lineAmount),
    net: line.N.minus(taken.net),
    vat: line.V.minus(taken.vat),
  };
  const restBase = base(rest);
  const baseTaken = base(taken);
  const restQuantity = Q.minus(x);
  // What the VSDC computes VAT on for a line of quantity qq costing tt (before VAT when exclusive).
  const vsdcBase = (qq: Money, tt: Money): Money => Money.max(qq.times(rrp), tt);

  // splyAmt: q × max(RRP, price), cumulatively rounded.
  const exactSupply = q.times(Money.max(rrp, filedPrice));
  const supplyOk = (s: Money): boolean =>
    within(s, exactSupply) && (last || within(rest.supply.minus(s), restQuantity.times(Money.max(rrp, price))));
  const supply = (last ? [rest.supply] : centsAround(round2(x.times(Money.max(rrp, price))).minus(taken.supply), zero, rest.supply)).find(
    supplyOk,
  );
  if (supply === undefined) throw mtvUnfileable();

  const lineAmounts = last
    ? [rest.lineAmount]
    : centsAround(amount.minus(shares.discountTarget), max(zero, amount.minus(rest.discount)), min(amount, rest.lineAmount));
  // Net and VAT of base b (checked against exact, the VSDC's base); the rest's against restExact.
  const inclusiveSplit = (b: Money, exact: Money, restExact: Money): { net: Money; vat: Money } | undefined => {
    const nets = last ? [rest.net] : centsAround(round2(baseTaken.plus(b).div(rate.plus(1))).minus(taken.net), zero, min(b, rest.net));
    const net = nets.find((n) => {
      const vat = b.minus(n);
      if (vat.lt(0) || vat.gt(rest.vat) || !within(n, exact.div(rate.plus(1)))) return false;
      return last || within(rest.net.minus(n), restExact.div(rate.plus(1)));
    });
    return net === undefined ? undefined : { net, vat: b.minus(net) };
  };
  const exclusiveSplit = (b: Money, exact: Money, restExact: Money): { net: Money; vat: Money } | undefined => {
    const vats = last ? [rest.vat] : centsAround(round2(baseTaken.plus(b).times(rate)).minus(taken.vat), zero, rest.vat);
    const vat = vats.find((v) => within(v, exact.times(rate)) && (last || within(rest.vat.minus(v), restExact.times(rate))));
    return vat === undefined ? undefined : { net: b, vat };
  };

  for (const lineAmount of lineAmounts) {
    const exactBase = vsdcBase(q, lineAmount);
    const restExactBase = vsdcBase(restQuantity, rest.lineAmount.minus(lineAmount));
    const bases = last ? [restBase] : centsAround(round2(baseTaken.plus(exactBase)).minus(baseTaken), zero, restBase);
    for (const b of bases) {
      if (!within(b, exactBase) || !(last || within(restBase.minus(b), restExactBase))) continue;
      const split = (taxInclusive ? inclusiveSplit : exclusiveSplit)(b, exactBase, restExactBase);
      if (split) return creditLine(shares, { discount: amount.minus(lineAmount), lineAmount, supply, ...split }, taxInclusive);
    }
  }
  throw mtvUnfileable();
}

function mtvUnfileable(): CreditAllocationError {
  return new CreditAllocationError(
    "This MTV line's VAT is on its RRP, and crediting this quantity of it would leave a rest the authority's arithmetic cannot take: credit the rest of the line in one note, or a different quantity.",
    'arithmetic',
  );
}

function unfileable(): CreditAllocationError {
  return new CreditAllocationError(
    "Earlier credit notes of this line were rounded differently, so crediting this quantity would not pass the authority's arithmetic: credit a smaller part of it first.",
    'arithmetic',
  );
}
