// A receipt's layout by its authority's profile, without a database: Zambian receipts compared
// byte for byte with stored copies (HTML) and digests (PDF), Kenyan ones checked for what a KRA
// receipt carries (research §4.3). The KRA tests run once the registry has the `kra-oscu` profile.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { AUTHORITY_PROFILES, merchantProfile } from '../../../src/authorities/index.ts';
import type { AuthorityProfile } from '../../../src/authorities/port/profile.ts';
import { renderReceiptHtml } from '../../../src/domain/fiscal/receipts/html.ts';
import { renderReceiptPdf } from '../../../src/domain/fiscal/receipts/pdf.ts';
import { receiptOf, type Receipt, type ReceiptSource } from '../../../src/domain/fiscal/receipts/receipt.ts';
import type { SaleResource } from '../../../src/domain/fiscal/sales/resource-schemas.ts';
import { pdfText } from '../../helpers/pdf-text.ts';
import { kraCreditNote, kraSale, zraCreditNote, zraSale, zraUsdSale } from './receipt-fixtures.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url);

function sourceOf(profile: AuthorityProfile, timezone = profile.timeZone): ReceiptSource {
  return { profile, merchantName: 'Kabwe Hardware & Sons', timezone, branchName: 'Head office', address: 'Plot 12, Lusaka' };
}

const ORIGINAL_ZRA = { authorityInvoiceNo: 'INV0000123/12', receiptNo: 12, invoiceNo: 12 };

/** The PDFs of these receipts as the gateway printed them before receipts followed the profile. */
const ZRA_PDF_SHA256: Record<string, string> = {
  'zra-sale': '24ae133cdb1138734e9e8274141882467541930fa93eb05d77393ebfbe32f6b0',
  'zra-credit-note': '49166906d53f873e85f32f181d080ea208e148e13d6d2c7dda2aa55724fef099',
  'zra-usd-sale': '010fb1bf723fbb7653582f1013e5f67115889280052d4a77944ee6c7b3731e42',
};

describe('a Zambian receipt is what it was, to the byte', () => {
  const zra = merchantProfile('zra');
  const cases: Array<[string, SaleResource, typeof ORIGINAL_ZRA | null]> = [
    ['zra-sale', zraSale(), null],
    ['zra-credit-note', zraCreditNote(), ORIGINAL_ZRA],
    ['zra-usd-sale', zraUsdSale(), null],
  ];
  for (const [name, sale, original] of cases) {
    test(`${name}: the HTML and the PDF`, async () => {
      const receipt = receiptOf(sale, sourceOf(zra, 'Africa/Lusaka'), { original, mark: 'original', printedBefore: 0 });
      assert.equal(await renderReceiptHtml(receipt), readFileSync(new URL(`${name}.html`, FIXTURES), 'utf8'));
      assert.equal(
        createHash('sha256')
          .update(await renderReceiptPdf(receipt))
          .digest('hex'),
        ZRA_PDF_SHA256[name],
      );
    });
  }
});

/**
 * A profile laid out as KRA's receipts are (the fiscal block, grouped codes, the table order),
 * over Zambia's other facts: the layout machinery, tested before the KRA adapter is merged.
 */
const STAND_IN: AuthorityProfile = {
  ...merchantProfile('zra'),
  currency: 'KES',
  timeZone: 'Africa/Nairobi',
  taxCategories: [
    { code: 'A', name: 'Exempt', rate: 0 },
    { code: 'B', name: 'Standard rated', rate: 16 },
    { code: 'C', name: 'Zero rated', rate: 0 },
    { code: 'D', name: 'Non VAT', rate: 0 },
    { code: 'E', name: 'VAT 8%', rate: 8 },
  ],
  receiptLabels: {
    taxpayerId: 'PIN',
    fiscalBlock: 'SCU INFORMATION',
    fiscalisedAt: 'Date',
    unitId: 'SCU ID',
    unitNumber: 'MRC No',
    internalData: 'Internal Data',
    signature: 'Receipt Signature',
    fiscalFooter: 'END OF LEGAL RECEIPT',
    invoiceNo: 'CU Invoice No',
    receiptNo: 'Receipt No',
    totalReceiptNo: 'Total receipt No',
    itemCount: 'Item count',
    originalInvoiceNo: 'Original CU Invoice No',
  },
  receiptLayout: {
    fiscalBlock: ['fiscalisedAt', 'unitId', 'invoiceNo', 'receiptNo', 'totalReceiptNo', 'itemCount'],
    groupFiscalCodes: true,
    taxTableOrder: ['B', 'E', 'C', 'D', 'A'],
    creditNoteAmountsNegative: false,
  },
};

const ORIGINAL_KRA = { authorityInvoiceNo: 'KRACU0100000001/7', receiptNo: 7, invoiceNo: 7 };

/** The text between two markers of the HTML (the fiscal block, the tax table). */
function between(html: string, from: string, to: string): string {
  const start = html.indexOf(from);
  assert.ok(start >= 0, `the receipt has ${from}`);
  return html.slice(start, html.indexOf(to, start));
}

/** What a KRA receipt carries (research §4.3), whatever words the profile has for it. */
async function checkKraReceipt(profile: AuthorityProfile): Promise<void> {
  const labels = profile.receiptLabels;
  const sale = kraSale();
  const receipt: Receipt = receiptOf(sale, sourceOf(profile), { original: null });
  const html = await renderReceiptHtml(receipt);
  assert.ok(html.includes(`${labels.taxpayerId}: P051234567X`), "the seller's PIN in the head");
  const block = between(html, labels.fiscalBlock, '<svg');
  assert.ok(block.includes('<dd class="time">2026-11-27 15:29:47 +03:00</dd>'), 'the date and time in Nairobi time');
  assert.ok(block.includes(`<dt>${labels.unitId}</dt><dd>KRACU0100000001</dd>`), 'the SCU id');
  assert.ok(block.includes(`<dt>${labels.invoiceNo}</dt><dd>KRACU0100000001/7</dd>`), 'the CU invoice number, in the fiscal block');
  assert.ok(!between(html, '<main', labels.fiscalBlock).includes('KRACU0100000001/7'), 'and not in the head as well');
  assert.ok(block.includes(`<dt>${labels.receiptNo}</dt><dd>7</dd>`));
  assert.ok(block.includes(`<dt>${labels.totalReceiptNo}</dt><dd>31</dd>`), 'the total receipt number');
  assert.ok(block.includes(`<dt>${labels.itemCount}</dt><dd>4</dd>`), 'the item count');
  assert.ok(block.includes('WOAW-BLHI-MNZS-JE5J-QPVB-XW6R-NA'), 'internal data in groups of four');
  assert.ok(block.includes('ZD3L-JOQR-4GZW-TVQV'), 'the signature in groups of four');
  assert.match(html, /<svg class="qr"/);
  assert.ok(html.includes('indexEtimsReceiptData?Data=P051234567X00ZD3LJOQR4GZWTVQV'), 'the QR of qrCodeUrl');
  const table = between(html, 'Totals per VAT category', '</table>');
  const rows = [...table.matchAll(/<tr><td>([A-Z]+) [0-9.]+%<\/td>/g)].map((m) => m[1]);
  assert.deepEqual(
    rows,
    profile.receiptLayout.taxTableOrder.filter((code) => ['A', 'B', 'D', 'E'].includes(code)),
    "the tax table in the profile's order",
  );
  assert.ok(
    table.includes('<tr><td>B 16%</td><td class="num">200.00</td><td class="num">32.00</td><td class="num">232.00</td></tr>'),
    'taxable, tax and total per letter',
  );
  assert.ok(html.includes('KES 410.00') && !html.includes('ZMW'), "the profile's currency");
  assert.ok(!html.includes('Exchange rate'));

  const pdf = pdfText(await renderReceiptPdf(receipt));
  for (const expected of [
    labels.fiscalBlock,
    'KRACU0100000001/7',
    'WOAW-BLHI-MNZS-JE5J-QPVB-XW6R-NA',
    'ZD3L-JOQR-4GZW-TVQV',
    labels.totalReceiptNo,
    'KES 410.00',
  ]) {
    assert.ok(pdf.includes(expected), `the PDF shows ${expected}`);
  }

  const note = receiptOf(kraCreditNote(), sourceOf(profile), { original: ORIGINAL_KRA });
  const noteHtml = await renderReceiptHtml(note);
  assert.ok(
    noteHtml.includes(`<dt>${labels.originalInvoiceNo}</dt><dd>KRACU0100000001/7</dd>`),
    'a credit note names the original CU invoice number',
  );
  assert.ok(pdfText(await renderReceiptPdf(note)).includes(labels.originalInvoiceNo));
  if (profile.receiptLayout.creditNoteAmountsNegative) {
    assert.ok(noteHtml.includes('KES -116.00'), 'a credit note prints its total negative');
    assert.ok(
      between(noteHtml, 'Totals per VAT category', '</table>').includes(
        '<td class="num">-100.00</td><td class="num">-16.00</td><td class="num">-116.00</td>',
      ),
      'and its tax table',
    );
    assert.equal(note.items[0]!.amount, -116);
    assert.ok(pdfText(await renderReceiptPdf(note)).includes('KES -116.00'));
  } else {
    assert.ok(noteHtml.includes('KES 116.00') && !noteHtml.includes('-116.00'), 'a credit note prints its amounts as filed');
  }

  const { totalReceiptNo: _, ...withoutTotal } = sale.fiscal as SaleResource['fiscal'] & { totalReceiptNo?: number };
  const older = await renderReceiptHtml(receiptOf({ ...sale, fiscal: withoutTotal } as SaleResource, sourceOf(profile)));
  assert.ok(!older.includes(labels.totalReceiptNo), 'no total receipt number where the answer had none');
}

describe('a receipt laid out by its profile', () => {
  test('a KRA-like layout: SCU block with the CU invoice number, counts, grouped codes, the table in its order, KES', () =>
    checkKraReceipt(STAND_IN));

  test('a Zambian receipt keeps its codes whole, its number in the head and its table in category order', async () => {
    const html = await renderReceiptHtml(receiptOf(zraSale(), sourceOf(merchantProfile('zra')), { original: null }));
    assert.ok(html.includes('<dt>Invoice No</dt><dd>INV0000123/12</dd>'));
    assert.ok(html.includes('A7D2ZK3QW5JXHC4Y2UBDFSVRME'));
    assert.ok(!html.includes('Total receipt No') && !html.includes('Item count'));
  });
});

const kra = (AUTHORITY_PROFILES as Readonly<Record<string, AuthorityProfile | undefined>>)['kra-oscu'];
const NO_KRA = kra ? false : 'the registry has no kra-oscu profile yet (src/authorities/index.ts): runs once the KRA adapter is merged';

describe('a Kenyan receipt (KRA OSCU profile)', { skip: NO_KRA }, () => {
  test('the profile carries what a KRA receipt prints (research §4.3)', () => {
    const profile = kra!;
    assert.equal(profile.currency, 'KES');
    assert.equal(profile.timeZone, 'Africa/Nairobi');
    assert.equal(profile.receiptLabels.taxpayerId, 'PIN');
    assert.equal(profile.receiptLabels.fiscalBlock, 'SCU INFORMATION');
    assert.equal(profile.receiptLabels.unitId, 'SCU ID');
    assert.equal(profile.receiptLayout.groupFiscalCodes, true);
    assert.deepEqual(profile.receiptLayout.taxTableOrder, ['B', 'E', 'C', 'D', 'A']);
    for (const field of ['fiscalisedAt', 'unitId', 'invoiceNo', 'receiptNo', 'totalReceiptNo', 'itemCount'] as const) {
      assert.ok(profile.receiptLayout.fiscalBlock.includes(field), `the SCU block prints ${field}`);
    }
  });

  test('HTML and PDF: the PIN, the SCU block, grouped codes, the QR, the tax table, KES; a credit note names the original', () =>
    checkKraReceipt(kra!));
});
