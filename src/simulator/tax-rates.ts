// The simulator's own VAT table (code class 04), independent of the client's.

export interface SimulatedTaxType {
  code: string;
  name: string;
  /** Whole percent. */
  ratePercent: bigint;
  /** Suffix of the saveSales header trio (`taxblAmtRvat`). */
  headerBucket: string;
}

export const SIMULATED_TAX_TYPES: readonly SimulatedTaxType[] = [
  { code: 'A', name: 'Standard Rated', ratePercent: 16n, headerBucket: 'A' },
  { code: 'B', name: 'Minimum Taxable Value (MTV)', ratePercent: 16n, headerBucket: 'B' },
  { code: 'C1', name: 'Exports', ratePercent: 0n, headerBucket: 'C1' },
  { code: 'C2', name: 'Zero-rating LPO', ratePercent: 0n, headerBucket: 'C2' },
  { code: 'C3', name: 'Zero-rated by nature', ratePercent: 0n, headerBucket: 'C3' },
  { code: 'D', name: 'Exempt', ratePercent: 0n, headerBucket: 'D' },
  { code: 'RVAT', name: 'Reverse VAT', ratePercent: 16n, headerBucket: 'Rvat' },
  { code: 'E', name: 'Disbursement', ratePercent: 0n, headerBucket: 'E' },
  { code: 'F', name: 'Service charge', ratePercent: 10n, headerBucket: 'F' },
];

/** Header buckets for levies the gateway never charges: their amounts must be 0. */
export const LEVY_BUCKETS: readonly string[] = ['Ipl1', 'Ipl2', 'Tl', 'Ecm', 'Exeeg', 'Tot'];

export const TAX_TYPE_BY_CODE: ReadonlyMap<string, SimulatedTaxType> = new Map(SIMULATED_TAX_TYPES.map((t) => [t.code, t]));
