// Number and date formats shared by the HTML and PDF receipts.

export const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const quantity = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 4 });

/** `2025-01-02 03:04:05 UTC`: receipts are read by people and auditors, not parsers. */
export function printedDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function rateLabel(rate: number): string {
  return `${rate}%`;
}
