// Number and date formats shared by the HTML and PDF receipts.

export const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const quantity = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 4 });

/** An amount with its currency code: `USD 1,234.50`. */
export const priced = (n: number, currency: string) => `${currency} ${money(n)}`;

/** `10%`, `12.5%`: a discount's rate. */
export const percent = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;

/** `Exchange rate: 1 USD = 27.1500 ZMW`. */
export const exchangeLine = (currency: string, rate: string) => `1 ${currency} = ${rate} ZMW`;

export function rateLabel(rate: number): string {
  return `${rate}%`;
}
