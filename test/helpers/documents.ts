// A plain sale as the sales store takes it (NewDocument): for tests that store documents below
// the HTTP route, e.g. in a transaction of their own or as a batch.
import type { NewDocument } from '../../src/domain/fiscal/sales/document-columns.ts';
import { CLASS_CODE } from './harness.ts';

/** A walk-in cash sale of one line (`product`, 10.00 with 16 % VAT) for `branch` of the merchant. */
export function plainSale(
  merchant: { tenantId: number; tpin: string },
  branch: string | undefined,
  overrides: Partial<NewDocument> = {},
  product = 'Bread',
): NewDocument {
  return {
    tenantId: merchant.tenantId,
    authority: 'zra',
    target: { branchHeader: branch },
    tpin: merchant.tpin,
    type: 'sale',
    salesType: 'normal',
    reference: null,
    requestHash: null,
    clientInvoiceNo: null,
    customerName: 'Walk-in customer',
    customerTpin: null,
    customerAddress: null,
    paymentMethod: '01',
    taxInclusive: true,
    destinationCountryCode: null,
    occurredAt: new Date(),
    currency: 'ZMW',
    exchangeRate: 1,
    lpoNumber: null,
    principalId: null,
    net: 8.62,
    vat: 1.38,
    total: 10,
    originalSaleId: null,
    originalReceiptNo: null,
    originalInvoiceNo: null,
    originalSdcId: null,
    reasonCode: null,
    issuedBy: { type: 'tenant_token', id: 1 },
    lines: [
      {
        line: 1,
        name: product,
        classification_code: CLASS_CODE,
        item_code: null,
        quantity: 1,
        price: 10,
        vat_category: 'A',
        vat_rate: 16,
        rrp: null,
        amount: 10,
        discount: 0,
        supply: null,
        net: 8.62,
        vat: 1.38,
        total: 10,
        original_line: null,
      },
    ],
    ...overrides,
  };
}
