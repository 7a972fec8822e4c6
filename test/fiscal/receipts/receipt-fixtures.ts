// Documents as the sales module presents them, fixed to the byte, for the layout tests: a receipt
// is rendered from these without a database, so its HTML can be compared with a stored copy.
import type { SaleResource } from '../../../src/domain/fiscal/sales/resource-schemas.ts';

type Line = SaleResource['items'][number];

function line(
  n: number,
  fields: Partial<Line> & Pick<Line, 'name' | 'quantity' | 'price' | 'vatCategory' | 'vatRate' | 'amount' | 'net' | 'vat' | 'total'>,
): Line {
  return { line: n, classificationCode: '50221200', itemCode: null, rrp: null, discount: 0, ...fields } as Line;
}

const BASE = {
  reference: null,
  status: 'uploaded',
  customer: { name: 'Mwansa Traders', tpin: null, address: null },
  taxInclusive: true,
  destinationCountryCode: null,
  exchangeRate: 1,
  lpoNumber: null,
  principalId: null,
  resultCode: '000',
  lastError: null,
  originalSaleId: null,
  reasonCode: null,
  replacesSaleId: null,
  resolution: null,
  createdAt: '2026-11-27T15:29:40.000Z',
  fiscalisedAt: '2026-11-27T15:29:48.000Z',
} as const;

/** A Zambian sale: two lines (one discounted, one exempt from the A rate), a customer with a TPIN. */
export function zraSale(overrides: Partial<SaleResource> = {}): SaleResource {
  return {
    ...BASE,
    id: 41,
    type: 'sale',
    salesType: 'normal',
    clientInvoiceNo: 'POS-77',
    invoiceNo: 12,
    authorityInvoiceNo: 'INV0000123/12',
    tpin: '1002623668',
    branch: '000',
    customer: { name: 'Mwansa Traders <Ltd>', tpin: '2000000011', address: 'Plot 4, Cairo Road, Lusaka' },
    paymentMethod: '08',
    occurredAt: '2026-11-27T15:29:40.000Z',
    items: [
      line(1, {
        name: 'Maize meal 25kg',
        quantity: 2,
        price: 116,
        vatCategory: 'A',
        vatRate: 16,
        amount: 232,
        discount: 23.2,
        net: 180,
        vat: 28.8,
        total: 208.8,
      }),
      line(2, { name: 'Export crate', quantity: 1, price: 50, vatCategory: 'D', vatRate: 0, amount: 50, net: 50, vat: 0, total: 50 }),
    ],
    totals: { net: 230, vat: 28.8, total: 258.8, discount: 23.2, currency: 'ZMW' },
    totalInKwacha: 258.8,
    fiscal: {
      receiptNo: 12,
      internalData: 'A7D2ZK3QW5JXHC4Y2UBDFSVRME',
      receiptSignature: 'QH4T6W3NHKZ7D2C5',
      sdcId: 'SDC0000123',
      mrcNo: 'MRC0000123',
      qrCodeUrl: 'https://sdc.zra.org.zm/qr?sig=QH4T6W3NHKZ7D2C5&tpin=1002623668',
      publishedAt: '2026-11-27T15:29:47.000Z',
    },
    stock: null,
    issuedBy: null,
    ...overrides,
  } as unknown as SaleResource;
}

/** A Zambian credit note of part of `zraSale`, reason 03. */
export function zraCreditNote(): SaleResource {
  return zraSale({
    id: 42,
    type: 'credit_note',
    clientInvoiceNo: null,
    invoiceNo: 13,
    authorityInvoiceNo: 'INV0000123/13',
    originalSaleId: 41,
    reasonCode: '03',
    paymentMethod: '01',
    items: [
      line(1, {
        name: 'Maize meal 25kg',
        quantity: 1,
        price: 116,
        vatCategory: 'A',
        vatRate: 16,
        amount: 116,
        net: 100,
        vat: 16,
        total: 116,
      }),
    ],
    totals: { net: 100, vat: 16, total: 116, discount: 0, currency: 'ZMW' },
    totalInKwacha: 116,
    fiscal: { ...zraSale().fiscal, receiptNo: 13, publishedAt: '2026-11-28T08:01:02.000Z' },
  });
}

/** A Zambian sale in dollars, with its rate and kwacha total. */
export function zraUsdSale(): SaleResource {
  return zraSale({
    id: 43,
    invoiceNo: 14,
    authorityInvoiceNo: 'INV0000123/14',
    items: [
      line(1, {
        name: 'Copper wire 100m',
        quantity: 1,
        price: 200,
        vatCategory: 'A',
        vatRate: 16,
        amount: 200,
        net: 172.41,
        vat: 27.59,
        total: 200,
      }),
    ],
    totals: { net: 172.41, vat: 27.59, total: 200, discount: 0, currency: 'USD' },
    exchangeRate: 27.15,
    totalInKwacha: 5430,
    fiscal: { ...zraSale().fiscal, receiptNo: 14 },
  });
}

/** A Kenyan sale (KRA OSCU): every letter KRA has but C, tax-inclusive; the answer's total receipt count. */
export function kraSale(overrides: Partial<SaleResource> = {}): SaleResource {
  return {
    ...BASE,
    id: 51,
    type: 'sale',
    salesType: 'normal',
    clientInvoiceNo: 'TILL-9',
    invoiceNo: 7,
    authorityInvoiceNo: 'KRACU0100000001/7',
    tpin: 'P051234567X',
    branch: '00',
    customer: { name: 'Wanjiru Stores', tpin: 'A012345678Z', address: null },
    paymentMethod: '01',
    occurredAt: '2026-11-27T12:29:40.000Z',
    items: [
      line(1, { name: 'Unga 2kg', quantity: 2, price: 116, vatCategory: 'B', vatRate: 16, amount: 232, net: 200, vat: 32, total: 232 }),
      line(2, {
        name: 'Cooking gas refill',
        quantity: 1,
        price: 108,
        vatCategory: 'E',
        vatRate: 8,
        amount: 108,
        net: 100,
        vat: 8,
        total: 108,
      }),
      line(3, { name: 'Maize seed', quantity: 1, price: 50, vatCategory: 'A', vatRate: 0, amount: 50, net: 50, vat: 0, total: 50 }),
      line(4, { name: 'Bus fare', quantity: 1, price: 20, vatCategory: 'D', vatRate: 0, amount: 20, net: 20, vat: 0, total: 20 }),
    ],
    totals: { net: 370, vat: 40, total: 410, discount: 0, currency: 'KES' },
    totalInKwacha: 410,
    fiscal: {
      receiptNo: 7,
      totalReceiptNo: 31,
      internalData: 'WOAWBLHIMNZSJE5JQPVBXW6RNA',
      receiptSignature: 'ZD3LJOQR4GZWTVQV',
      sdcId: 'KRACU0100000001',
      mrcNo: 'KRAMW0100000001',
      qrCodeUrl: 'https://etims-sbx.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P051234567X00ZD3LJOQR4GZWTVQV',
      publishedAt: '2026-11-27T12:29:47.000Z',
    },
    stock: null,
    issuedBy: null,
    ...overrides,
  } as unknown as SaleResource;
}

/** A Kenyan credit note of part of `kraSale`: its own number from the same sequence. */
export function kraCreditNote(): SaleResource {
  return kraSale({
    id: 52,
    type: 'credit_note',
    clientInvoiceNo: null,
    invoiceNo: 8,
    authorityInvoiceNo: 'KRACU0100000001/8',
    originalSaleId: 51,
    reasonCode: '06',
    items: [
      line(1, { name: 'Unga 2kg', quantity: 1, price: 116, vatCategory: 'B', vatRate: 16, amount: 116, net: 100, vat: 16, total: 116 }),
    ],
    totals: { net: 100, vat: 16, total: 116, discount: 0, currency: 'KES' },
    totalInKwacha: 116,
    fiscal: { ...kraSale().fiscal, receiptNo: 8, totalReceiptNo: 32, publishedAt: '2026-11-28T05:01:02.000Z' } as SaleResource['fiscal'],
  });
}
