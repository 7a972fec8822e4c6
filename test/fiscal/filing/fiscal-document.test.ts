// What the filer files is built from the stored document alone: each line at the rate it was
// sold at (sales_lines.vat_rate), though the authority's published rate may differ by then.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fiscalDocument } from '../../../src/domain/fiscal/filing/filer.ts';
import type { PendingDocument } from '../../../src/domain/fiscal/filing/pending-documents.ts';
import { buildKraSaleBody } from '../../../src/authorities/kra-etims/sales-body.ts';
import { KRA_SETTINGS } from '../../../src/authorities/kra-etims/settings.ts';

/** A stored Kenyan sale of one E line sold at `rate` %, as the filing claim reads it. */
function pending(rate: string, vat: string, total: string): PendingDocument {
  const row = {
    id: '1',
    type: 'sale',
    invoice_no: '7',
    sales_type: 'normal',
    original_invoice_no: null,
    original_receipt_no: null,
    original_sdc_id: null,
    customer_tpin: null,
    customer_name: 'Walk-in customer',
    payment_method: '01',
    occurred_at: '2026-12-06T09:30:05Z',
    tax_inclusive: false,
    destination_country_code: null,
    reason_code: null,
    currency: 'KES',
    exchange_rate: '1',
    lpo_number: null,
    principal_id: null,
    client_invoice_no: 'INV-7',
    reference: null,
    filing_details: null,
  };
  const line = {
    name: 'Bread',
    classification_code: '5059690800',
    item_code: null,
    quantity: '1',
    price: '100',
    vat_category: 'E',
    vat_rate: rate,
    discount: '0',
    rrp: null,
    amount: '100',
    supply: null,
    net: '100',
    vat,
    total,
  };
  return { row, lines: [line] } as unknown as PendingDocument;
}

test('a stored line is filed at the rate it was sold at, not the published one', () => {
  const published = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, fiscalDocument(pending('8', '8', '108')));
  assert.deepEqual([published.taxRtE, published.taxAmtE, published.totAmt], [8, 8, 108]);
  const changed = fiscalDocument(pending('10', '10', '110'));
  assert.equal(changed.lines[0]!.rate, 10);
  const body = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, changed);
  assert.deepEqual([body.taxRtE, body.taxAmtE, body.totAmt], [10, 10, 110], 'the sale was computed at 10 %: it is filed at 10 %');
});
