// Line discounts, MTV (category B) on the RRP, and levies, end to end: over HTTP through the
// gateway, stored, filed to the real simulator (whose own arithmetic accepts them), shown in
// the sale and its receipt, credited and debited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';

interface Line {
  line: number;
  quantity: number;
  price: number;
  rrp: number | null;
  amount: number;
  discount: number;
  net: number;
  vat: number;
  total: number;
  originalLine: number | null;
}
interface Sale {
  id: number;
  invoiceNo: number;
  status: string;
  lastError: string | null;
  items: Line[];
  totals: { net: number; vat: number; total: number; discount: number; currency: string };
  fiscal: { receiptNo: number | null };
}

describe(`discounts, MTV and levies (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 3_000 } });
  });
  after(() => h.close());

  const stored = async () => (await h.get('/api/v1/sales')).json().meta.total as number;

  async function uploaded(path: string, body: unknown): Promise<Sale> {
    const res = await h.post(path, body);
    assert.equal(res.statusCode, 201, res.body);
    const doc = res.json().data as Sale;
    assert.equal(doc.status, 'uploaded', doc.lastError ?? '');
    return doc;
  }

  /** The line bodies the simulator received for a document (its saveSales call). */
  function filedLines(invoiceNo: number): Record<string, unknown>[] {
    const call = h.sim.control
      .calls(h.merchant.tpin, '000', 'saveSales')
      .find((c) => c.request.cisInvcNo === String(invoiceNo) && c.resultCd === '000');
    assert.ok(call, `saveSales of ${invoiceNo}`);
    return call.request.itemList as Record<string, unknown>[];
  }

  const pick = (l: Line) => [l.amount, l.discount, l.net, l.vat, l.total];

  test('a tax-inclusive sale with line discounts: VAT after the discount, filed as dcAmt/dcRt, shown per line and in totals', async () => {
    const sale = await uploaded(
      '/api/v1/sales',
      saleBody({}, [
        { name: 'Bread', quantity: 1, price: 125, discount: 25 },
        { name: 'Milk', quantity: 3, price: 10.125, discount: 0.375 },
        { name: 'Salt', quantity: 1, price: 10 },
      ]),
    );
    assert.deepEqual(sale.items.map(pick), [
      [125, 25, 86.21, 13.79, 100],
      [30.38, 0.38, 25.86, 4.14, 30], // the discount is filed rounded to the cent
      [10, 0, 8.62, 1.38, 10],
    ]);
    assert.deepEqual(sale.totals, { net: 120.69, vat: 19.31, total: 140, discount: 25.38, currency: 'ZMW' });
    const lines = filedLines(sale.invoiceNo);
    assert.deepEqual(
      lines.map((l) => [l.splyAmt, l.dcRt, l.dcAmt, l.totAmt, l.vatTaxblAmt, l.vatAmt]),
      [
        [125, 20, 25, 100, 86.21, 13.79],
        [30.38, 1.2508, 0.38, 30, 25.86, 4.14],
        [10, 0, 0, 10, 8.62, 1.38],
      ],
    );
    // Read back from the database, the same.
    assert.deepEqual((await h.get(`/api/v1/sales/${sale.id}`)).json().data.items.map(pick), sale.items.map(pick));
  });

  test('a tax-exclusive sale with a discount: VAT on the discounted amount, on top', async () => {
    const sale = await uploaded('/api/v1/sales', saleBody({ taxInclusive: false }, [{ quantity: 4, price: 50, discount: 20 }]));
    assert.deepEqual(sale.items.map(pick), [[200, 20, 180, 28.8, 208.8]]);
    assert.deepEqual(sale.totals, { net: 180, vat: 28.8, total: 208.8, discount: 20, currency: 'ZMW' });
  });

  test('a discount beyond the line, negative or with 5 decimals is a 422 on items.N.discount; nothing is stored', async () => {
    const before = await stored();
    for (const discount of [116.01, -1, 1.00001]) {
      const res = await h.post('/api/v1/sales', saleBody({}, [{}, { quantity: 1, price: 116, discount }]));
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(Object.keys(res.json().errors), ['items.1.discount'], res.body);
    }
    assert.match(
      (await h.post('/api/v1/sales', saleBody({}, [{ quantity: 1, price: 116, discount: 200 }]))).json().errors['items.0.discount'][0],
      /must not exceed the line's amount, quantity × price = 116/,
    );
    // A line discounted to nothing is a free line, filed.
    const free = await uploaded('/api/v1/sales', saleBody({}, [{ quantity: 2, price: 5, discount: 10 }, {}]));
    assert.deepEqual(free.items[0] && pick(free.items[0]), [10, 10, 0, 0, 0]);
    assert.equal(await stored(), before + 1);
  });

  test('credit notes of a discounted line take back its discounted amount: partial in proportion, then the rest exactly', async () => {
    const sale = await uploaded(
      '/api/v1/sales',
      saleBody({}, [
        { name: 'Chairs', quantity: 3, price: 10.125, discount: 1 },
        { name: 'Table', quantity: 1, price: 300, discount: 60 },
      ]),
    );
    assert.deepEqual(sale.items.map(pick), [
      [30.38, 1, 25.33, 4.05, 29.38],
      [300, 60, 206.9, 33.1, 240],
    ]);
    const first = await uploaded(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
    assert.deepEqual(first.items.map(pick), [[10.13, 0.33, 8.45, 1.35, 9.8]]);
    const second = await uploaded(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
    assert.deepEqual(second.items.map(pick), [[10.12, 0.34, 8.43, 1.35, 9.78]]);
    const [filed] = filedLines(second.invoiceNo);
    assert.deepEqual([filed!.prc, filed!.splyAmt, filed!.dcAmt, filed!.dcRt, filed!.totAmt], [10.125, 10.12, 0.34, 3.3597, 9.78]);
    // The cancellation takes exactly what is left of both lines.
    const rest = await uploaded(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' });
    assert.deepEqual(
      rest.items.map((l) => [l.originalLine, ...pick(l)]),
      [
        [1, 10.13, 0.33, 8.45, 1.35, 9.8],
        [2, 300, 60, 206.9, 33.1, 240],
      ],
    );
    const notes = [first, second, rest];
    const sum = (get: (d: Sale) => number) => Math.round(notes.reduce((acc, d) => acc + get(d) * 100, 0)) / 100;
    assert.deepEqual(
      [sum((d) => d.totals.total), sum((d) => d.totals.discount), sum((d) => d.totals.vat)],
      [sale.totals.total, sale.totals.discount, sale.totals.vat],
    );
  });

  test('a whole credit of a discounted, tax-exclusive sale equals the sale', async () => {
    const sale = await uploaded(
      '/api/v1/sales',
      saleBody({ taxInclusive: false }, [{ quantity: 7, price: 3.3333, discount: 2.5, vatCategory: 'F' }]),
    );
    const note = await uploaded(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '02' });
    assert.deepEqual(note.totals, sale.totals);
    assert.deepEqual(note.items.map(pick), sale.items.map(pick));
  });

  test('a debit note with a discount is priced like the sale and filed with its dcAmt', async () => {
    const sale = await uploaded('/api/v1/sales', saleBody());
    const note = await uploaded(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '02',
      items: [{ name: 'Delivery', classificationCode: '50221200', quantity: 2, price: 58, discount: 11.6 }],
    });
    assert.deepEqual(note.items.map(pick), [[116, 11.6, 90, 14.4, 104.4]]);
    assert.deepEqual(note.totals, { net: 90, vat: 14.4, total: 104.4, discount: 11.6, currency: 'ZMW' });
    const [filed] = filedLines(note.invoiceNo);
    assert.deepEqual([filed!.dcAmt, filed!.dcRt, filed!.totAmt], [11.6, 10, 104.4]);
  });

  test('MTV (B): VAT on quantity × RRP when sold below it; the customer pays the price', async () => {
    const sale = await uploaded(
      '/api/v1/sales',
      saleBody({}, [
        { name: 'Chicken wings', quantity: 1, price: 100, vatCategory: 'B', rrp: 150 },
        { name: 'Chips', quantity: 1, price: 100, vatCategory: 'B', rrp: 50 },
      ]),
    );
    assert.deepEqual(
      sale.items.map((l) => [l.rrp, ...pick(l)]),
      [
        [150, 100, 0, 129.31, 20.69, 100],
        [50, 100, 0, 86.21, 13.79, 100],
      ],
    );
    assert.deepEqual(sale.totals, { net: 215.52, vat: 34.48, total: 200, discount: 0, currency: 'ZMW' });
    assert.deepEqual(
      filedLines(sale.invoiceNo).map((l) => [l.rrp, l.prc, l.splyAmt, l.totAmt, l.vatTaxblAmt, l.vatAmt]),
      [
        [150, 100, 150, 100, 129.31, 20.69],
        [50, 100, 100, 100, 86.21, 13.79],
      ],
    );
    // Credited in parts and then in full, still on the RRP.
    const part = await uploaded(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 0.5 }] });
    assert.deepEqual(part.items.map(pick), [[50, 0, 64.66, 10.34, 50]]);
    const rest = await uploaded(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' });
    assert.deepEqual(rest.items.map(pick), [
      [50, 0, 64.65, 10.35, 50],
      [100, 0, 86.21, 13.79, 100],
    ]);
  });

  test('an MTV line without rrp is a 422 naming items.N.rrp, and rrp on another category too; nothing is stored or numbered', async () => {
    const before = await stored();
    const arrived = h.received(h.merchant).length;
    const first = await uploaded('/api/v1/sales', saleBody());
    const missing = await h.post('/api/v1/sales', saleBody({}, [{}, { vatCategory: 'B' }]));
    assert.equal(missing.statusCode, 422, missing.body);
    assert.deepEqual(Object.keys(missing.json().errors), ['items.1.rrp']);
    assert.match(missing.json().errors['items.1.rrp'][0], /required on an MTV \(vatCategory B\) line/);
    const misplaced = await h.post('/api/v1/sales', saleBody({}, [{ rrp: 120 }]));
    assert.deepEqual(Object.keys(misplaced.json().errors), ['items.0.rrp']);
    const debit = await h.post(`/api/v1/sales/${first.id}/debit-note`, {
      reasonCode: '03',
      items: [{ name: 'Oil', classificationCode: '50221200', quantity: 1, price: 10, vatCategory: 'B' }],
    });
    assert.deepEqual(Object.keys(debit.json().errors), ['items.0.rrp']);
    const next = await uploaded('/api/v1/sales', saleBody());
    assert.equal(next.invoiceNo, first.invoiceNo + 1, 'no invoice number consumed');
    assert.equal(await stored(), before + 2);
    assert.equal(h.received(h.merchant).length, arrived + 2);
  });

  test('a line naming a levy is refused with levy_not_supported naming it, never filed without it; nothing is stored', async () => {
    const before = await stored();
    const arrived = h.received(h.merchant).length;
    const tourism = await h.post('/api/v1/sales', saleBody({}, [{}, { name: 'Room night', levy: 'TL' }]));
    assert.equal(tourism.statusCode, 422, tourism.body);
    assert.equal(tourism.json().error.code, 'levy_not_supported');
    assert.match(tourism.json().error.message, /items\.1\.levy TL \(tourism levy, 1\.5 %\)/);
    const insurance = await h.post('/api/v1/sales', saleBody({}, [{ levy: 'IPL1' }, { levy: 'IPL2' }]));
    assert.match(insurance.json().error.message, /items\.0\.levy IPL1 \(insurance premium levy, 5 %\), items\.1\.levy IPL2/);
    const unknown = await h.post('/api/v1/sales', saleBody({}, [{ levy: 'XYZ' }]));
    assert.equal(unknown.json().error.code, 'levy_not_supported');
    assert.match(unknown.json().error.message, /items\.0\.levy XYZ \(not a levy the authority publishes: TL, IPL1, IPL2, ECM, EXEEG\)/);
    const sale = await uploaded('/api/v1/sales', saleBody({}, [{ levy: null as unknown as string }]));
    const debit = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '03',
      items: [{ name: 'Coal', classificationCode: '50221200', quantity: 1, price: 10, levy: 'ECM' }],
    });
    assert.equal(debit.json().error.code, 'levy_not_supported');
    assert.equal(await stored(), before + 1);
    assert.equal(h.received(h.merchant).length, arrived + 1);
  });

  test("the receipt shows each line's discount, the total discount and an MTV line's RRP", async () => {
    const sale = await uploaded(
      '/api/v1/sales',
      saleBody({}, [
        { name: 'Bread', quantity: 1, price: 125, discount: 25 },
        { name: 'Wings', quantity: 1, price: 100, vatCategory: 'B', rrp: 150 },
      ]),
    );
    const html = (await h.get(`/api/v1/sales/${sale.id}/receipt`)).body;
    assert.match(html, /<td colspan="2">Discount 20(\.00)? ?%<\/td><td class="num">-25\.00<\/td>/);
    assert.match(html, /MTV: RRP 150\.00 per unit/);
    assert.match(html, /<td>Total discount 11\.11%<\/td><td class="num">-ZMW 25\.00<\/td>/);
    assert.match(html, /<td>Taxable value \(MTV on RRP\)<\/td><td class="num">ZMW 215\.52<\/td>/);
    assert.match(html, /TOTAL incl\. VAT<\/td><td class="num">ZMW 200\.00<\/td>/);
    const pdf = await h.get(`/api/v1/sales/${sale.id}/receipt`, { accept: 'application/pdf' });
    assert.equal(pdf.statusCode, 200);
    assert.match(pdf.headers['content-type'] as string, /application\/pdf/);
  });
});
