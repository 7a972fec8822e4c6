// The sale's arithmetic as the KRA profiles check it: per line splyAmt = prc × qty, dcAmt,
// taxblAmt the VAT-exclusive base (either the discounted amount itself, or backed out of it
// when the price includes VAT), taxAmt = taxblAmt × rate, totAmt = taxblAmt + taxAmt; the header
// buckets the sums per letter and the totals their sums. Rates come from the profile's own class
// 04 table. Exported for the gateway's property tests.
import { kraTaxRate, TAX_LETTERS } from './codes.js';

export interface KraTolerance {
  /** Per line (default 0.01). */
  line: number;
  /** Per header amount, times the number of lines (default 0.01). */
  headerPerLine: number;
}

export const DEFAULT_KRA_TOLERANCE: KraTolerance = { line: 0.01, headerPerLine: 0.01 };

/** The first amount that does not add up: the field (`itemList[2].taxAmt`, `taxblAmtB`) and what it should be. */
export interface KraArithmeticError {
  field: string;
  expected: number;
  actual: number;
  message: string;
}

/** A JSON number, or a string holding a plain decimal number (KRA's clients send both); else null. */
export function kraNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

const round2 = (x: number): number => Math.round((x + Math.sign(x) * 1e-9) * 100) / 100;
const near = (a: number, b: number, tolerance: number): boolean => Math.abs(a - b) <= tolerance + 1e-9;

function mismatch(field: string, expected: number, actual: number): KraArithmeticError {
  const e = round2(expected);
  return {
    field,
    expected: e,
    actual,
    message: `Request parameter error: [${field}] ${actual} does not add up (expected ${e.toFixed(2)})`,
  };
}

type Line = Record<string, unknown>;

/**
 * Checks the amounts of a sale or credit note body whose fields are present and numeric (the
 * shape check runs first). Null when everything adds up within the tolerance.
 */
export function checkKraSaleArithmetic(
  body: Record<string, unknown>,
  tolerance: KraTolerance = DEFAULT_KRA_TOLERANCE,
): KraArithmeticError | null {
  const lines = Array.isArray(body.itemList) ? (body.itemList as Line[]) : [];
  const sums = new Map<string, { taxbl: number; tax: number }>(TAX_LETTERS.map((l) => [l, { taxbl: 0, tax: 0 }]));
  let total = 0;
  const tol = tolerance.line;
  for (const [i, line] of lines.entries()) {
    const at = (f: string): string => `itemList[${i}].${f}`;
    const n = (f: string): number => kraNumber(line[f]) ?? 0;
    const [prc, qty, splyAmt, dcAmt, taxblAmt, taxAmt, totAmt] = ['prc', 'qty', 'splyAmt', 'dcAmt', 'taxblAmt', 'taxAmt', 'totAmt'].map(
      n,
    ) as [number, number, number, number, number, number, number];
    const rate = (kraTaxRate(String(line.taxTyCd)) ?? 0) / 100;
    if (!near(splyAmt, prc * qty, tol)) return mismatch(at('splyAmt'), prc * qty, splyAmt);
    const dcRt = kraNumber(line.dcRt);
    if (dcRt !== null && dcRt !== 0 && !near(dcAmt, (splyAmt * dcRt) / 100, tol))
      return mismatch(at('dcAmt'), (splyAmt * dcRt) / 100, dcAmt);
    const net = splyAmt - dcAmt;
    // Exclusive: the net amount is the base. Inclusive: the net amount is the total, the base backed out of it.
    const exclusive = near(taxblAmt, net, tol);
    if (!exclusive && !near(totAmt, net, tol)) return mismatch(at('taxblAmt'), net, taxblAmt);
    if (!exclusive && !near(taxblAmt, net / (1 + rate), tol)) return mismatch(at('taxblAmt'), net / (1 + rate), taxblAmt);
    if (!near(taxAmt, taxblAmt * rate, tol)) return mismatch(at('taxAmt'), taxblAmt * rate, taxAmt);
    if (!near(totAmt, taxblAmt + taxAmt, tol)) return mismatch(at('totAmt'), taxblAmt + taxAmt, totAmt);
    const sum = sums.get(String(line.taxTyCd));
    if (sum) {
      sum.taxbl += taxblAmt;
      sum.tax += taxAmt;
    }
    total += totAmt;
  }
  const headerTol = tolerance.headerPerLine * Math.max(1, lines.length);
  const head = (f: string): number => kraNumber(body[f]) ?? 0;
  let totTaxbl = 0;
  let totTax = 0;
  for (const letter of TAX_LETTERS) {
    const rate = kraTaxRate(letter)!;
    if (!near(head(`taxRt${letter}`), rate, 0)) return mismatch(`taxRt${letter}`, rate, head(`taxRt${letter}`));
    const sum = sums.get(letter)!;
    if (!near(head(`taxblAmt${letter}`), sum.taxbl, headerTol)) return mismatch(`taxblAmt${letter}`, sum.taxbl, head(`taxblAmt${letter}`));
    if (!near(head(`taxAmt${letter}`), sum.tax, headerTol)) return mismatch(`taxAmt${letter}`, sum.tax, head(`taxAmt${letter}`));
    totTaxbl += head(`taxblAmt${letter}`);
    totTax += head(`taxAmt${letter}`);
  }
  if (!near(head('totTaxblAmt'), totTaxbl, headerTol)) return mismatch('totTaxblAmt', totTaxbl, head('totTaxblAmt'));
  if (!near(head('totTaxAmt'), totTax, headerTol)) return mismatch('totTaxAmt', totTax, head('totTaxAmt'));
  if (!near(head('totAmt'), total, headerTol)) return mismatch('totAmt', total, head('totAmt'));
  return null;
}
