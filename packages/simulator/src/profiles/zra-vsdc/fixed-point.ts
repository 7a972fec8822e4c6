// The simulator's own money arithmetic: amounts as BigInt counts of 1/10 000 (the VSDC's 4
// decimals). Deliberately shares nothing with the client's decimal.js code, so a bug in one
// cannot hide in the other.

export const SCALE = 10_000n;
/** 0.01 at SCALE. */
export const CENT = 100n;

/**
 * An amount in units of 1/10 000, or null when it is not a finite number with at most 4
 * decimals. JSON numbers are read through their shortest decimal spelling, which is the
 * spelling the sender wrote.
 */
export function toFixed4(value: unknown): bigint | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d{1,4}))?$/.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(whole + fraction.padEnd(4, '0'));
  return sign === '-' ? -units : units;
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}

/** |a − b| ≤ tolerance, all at the same scale. */
export function within(a: bigint, b: bigint, tolerance: bigint): boolean {
  return abs(a - b) <= tolerance;
}

export function fixed4ToNumber(value: bigint): number {
  const negative = value < 0n;
  const digits = abs(value).toString().padStart(5, '0');
  return Number(`${negative ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`);
}
