// The simulator's own tax tables (code classes 04 and 60–62), independent of the client's.

export interface SimulatedTaxType {
  code: string;
  name: string;
  /** Percent × 10 000 (the VSDC's 4 decimals): 16 % is 160 000, 1.5 % is 15 000. */
  rate4: bigint;
  /** Suffix of the saveSales header trio (`taxblAmtRvat`). */
  headerBucket: string;
}

const percent = (value: number): bigint => BigInt(Math.round(value * 10_000));

/** VAT categories (class 04): a line's `vatCatCd`. */
export const SIMULATED_TAX_TYPES: readonly SimulatedTaxType[] = [
  { code: 'A', name: 'Standard Rated', rate4: percent(16), headerBucket: 'A' },
  { code: 'B', name: 'Minimum Taxable Value (MTV)', rate4: percent(16), headerBucket: 'B' },
  { code: 'C1', name: 'Exports', rate4: percent(0), headerBucket: 'C1' },
  { code: 'C2', name: 'Zero-rating LPO', rate4: percent(0), headerBucket: 'C2' },
  { code: 'C3', name: 'Zero-rated by nature', rate4: percent(0), headerBucket: 'C3' },
  { code: 'D', name: 'Exempt', rate4: percent(0), headerBucket: 'D' },
  { code: 'RVAT', name: 'Reverse VAT', rate4: percent(16), headerBucket: 'Rvat' },
  { code: 'E', name: 'Disbursement', rate4: percent(0), headerBucket: 'E' },
  { code: 'F', name: 'Service charge', rate4: percent(10), headerBucket: 'F' },
];

/** Which line field names a levy, with its taxable amount and levy amount fields. */
interface LevyField {
  category: 'iplCatCd' | 'tlCatCd' | 'exciseTxCatCd';
  taxable: 'iplTaxblAmt' | 'tlTaxblAmt' | 'exciseTaxblAmt';
  amount: 'iplAmt' | 'tlAmt' | 'exciseTxAmt';
  /** The code class that lists its codes. */
  codeClass: string;
}

export const LEVY_FIELDS: readonly LevyField[] = [
  { category: 'iplCatCd', taxable: 'iplTaxblAmt', amount: 'iplAmt', codeClass: '61' },
  { category: 'tlCatCd', taxable: 'tlTaxblAmt', amount: 'tlAmt', codeClass: '62' },
  { category: 'exciseTxCatCd', taxable: 'exciseTaxblAmt', amount: 'exciseTxAmt', codeClass: '60' },
];

export interface SimulatedLevy extends SimulatedTaxType {
  field: LevyField;
}

/** Levies (classes 60–62), with the rates the sandbox publishes and real bodies carry. */
export const SIMULATED_LEVIES: readonly SimulatedLevy[] = [
  { code: 'IPL1', name: 'Insurance Premium Levy', rate4: percent(5), headerBucket: 'Ipl1', field: LEVY_FIELDS[0]! },
  { code: 'IPL2', name: 'Re-insurance', rate4: percent(0), headerBucket: 'Ipl2', field: LEVY_FIELDS[0]! },
  { code: 'TL', name: 'Tourism Levy', rate4: percent(1.5), headerBucket: 'Tl', field: LEVY_FIELDS[1]! },
  { code: 'ECM', name: 'Excise on Coal', rate4: percent(5), headerBucket: 'Ecm', field: LEVY_FIELDS[2]! },
  { code: 'EXEEG', name: 'Excise Electricity', rate4: percent(3), headerBucket: 'Exeeg', field: LEVY_FIELDS[2]! },
];

/** Header buckets nothing on a line maps to (turnover tax): their amounts must be 0. */
export const UNUSED_BUCKETS: readonly string[] = ['Tot'];

export const TAX_TYPE_BY_CODE: ReadonlyMap<string, SimulatedTaxType> = new Map(SIMULATED_TAX_TYPES.map((t) => [t.code, t]));
export const LEVY_BY_CODE: ReadonlyMap<string, SimulatedLevy> = new Map(SIMULATED_LEVIES.map((l) => [l.code, l]));
