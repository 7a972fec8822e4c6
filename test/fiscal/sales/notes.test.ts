import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Decimal } from 'decimal.js';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

describe(`credit and debit notes (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 1_500 } });
  });
  after(() => h.close());

  async function fiscalisedSale(
    lines = [
      { name: 'Cooking oil', quantity: 4, price: 58 },
      { name: 'Sugar', quantity: 2, price: 30.5 },
    ],
  ) {
    const res = await h.post(
      '/api/v1/sales',
      saleBody({ customer: { name: 'Mwape Banda', tpin: '1002345678' }, paymentMethod: '06' }, lines),
    );
    assert.equal(res.json().data.status, 'uploaded');
    return res.json().data;
  }
  const arrival = (invoiceNo: number) => h.received(h.merchant).find((d) => d.cisInvcNo === String(invoiceNo));

  test('a credit note without items cancels the whole sale: its own number, filed as R against the receipt', async () => {
    const sale = await fiscalisedSale();
    const res = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '05', clientInvoiceNo: 'CN-1' });
    assert.equal(res.statusCode, 201, res.body);
    const note = res.json().data;
    assert.equal(note.type, 'credit_note');
    assert.equal(note.status, 'uploaded', note.lastError);
    assert.equal(note.originalSaleId, sale.id);
    assert.equal(note.reasonCode, '05');
    assert.equal(note.clientInvoiceNo, 'CN-1');
    assert.equal(note.invoiceNo, sale.invoiceNo + 1, 'notes share the branch sequence');
    assert.deepEqual(note.totals, sale.totals, 'positive amounts equal to the sale');
    assert.deepEqual(note.customer, sale.customer);
    assert.equal(note.paymentMethod, '06');
    assert.deepEqual(
      note.items.map((i: Record<string, unknown>) => [i.originalLine, i.name, i.quantity, i.total]),
      [
        [1, 'Cooking oil', 4, 232],
        [2, 'Sugar', 2, 61],
      ],
    );
    const filed = arrival(note.invoiceNo)!;
    assert.equal(filed.rcptTyCd, 'R');
    assert.equal(filed.orgInvcNo, sale.fiscal.receiptNo);
    assert.equal(note.fiscal.receiptNo, filed.receipt!.rcptNo);

    const again = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '05' });
    assert.equal(again.statusCode, 422);
    assert.equal(again.json().error.code, 'nothing_left_to_credit');
    assert.equal((await h.get(`/api/v1/sales/${sale.id}`)).json().data.status, 'uploaded', 'the original keeps its status');
  });

  test('per-line refunds never take back more than is left across all notes', async () => {
    const sale = await fiscalisedSale();
    const first = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
    assert.equal(first.json().data.status, 'uploaded', first.body);
    assert.deepEqual(first.json().data.totals, { net: 50, vat: 8, total: 58, discount: 0, currency: 'ZMW' });

    const tooMany = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 3.5 }] });
    assert.equal(tooMany.statusCode, 422);
    assert.match(tooMany.json().errors['items.0.quantity'][0], /left to credit on line 1 \(3\)/);
    const noLine = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 9 }] });
    assert.ok(noLine.json().errors['items.0.line'], noLine.body);
    const twice = await h.post(`/api/v1/sales/${sale.id}/credit-note`, {
      reasonCode: '03',
      items: [
        { line: 2, quantity: 1 },
        { line: 2, quantity: 1 },
      ],
    });
    assert.ok(twice.json().errors['items.1.line'], twice.body);

    const rest = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '07', items: [{ line: 1 }] });
    assert.equal(rest.json().data.status, 'uploaded', rest.body);
    assert.equal(rest.json().data.items[0].quantity, 3, 'default: what is left on the line');
    const remainder = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '07' });
    assert.deepEqual(
      remainder.json().data.items.map((i: Record<string, unknown>) => [i.originalLine, i.quantity]),
      [[2, 2]],
      'only line 2 was left',
    );
    assert.equal(remainder.json().data.status, 'uploaded', remainder.body);
  });

  test('a sale read alone says what is left to credit per line and lists its notes; a note names its sale by number', async () => {
    const sale = await fiscalisedSale();
    const fresh = (await h.get(`/api/v1/sales/${sale.id}?expand=credits`)).json().data;
    assert.deepEqual(
      fresh.items.map((i: Record<string, unknown>) => [i.line, i.creditedQuantity, i.remainingQuantity]),
      [
        [1, 0, 4],
        [2, 0, 2],
      ],
    );
    assert.deepEqual(fresh.notes, []);

    const credit = (await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1.5 }] })).json()
      .data;
    assert.equal(credit.status, 'uploaded', credit.lastError);
    const debit = (
      await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
        reasonCode: '03',
        items: [{ name: 'Delivery', classificationCode: '50221200', quantity: 1, price: 20 }],
      })
    ).json().data;
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    const refused = (await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 2, quantity: 1 }] })).json()
      .data;
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    await eventually(
      async () => ((await h.get(`/api/v1/sales/${refused.id}`)).json().data.status === 'failed' ? true : undefined),
      'the refused note failed',
    );

    const read = (await h.get(`/api/v1/sales/${sale.id}?expand=credits`)).json().data;
    assert.deepEqual(
      read.items.map((i: Record<string, unknown>) => [i.line, i.creditedQuantity, i.remainingQuantity]),
      [
        [1, 1.5, 2.5],
        [2, 0, 2],
      ],
      'a refused note took nothing back',
    );
    assert.deepEqual(
      read.notes.map((n: Record<string, unknown>) => [n.id, n.type, n.invoiceNo, n.authorityInvoiceNo, n.status, n.total]),
      [
        [credit.id, 'credit_note', credit.invoiceNo, credit.authorityInvoiceNo, 'uploaded', credit.totals.total],
        [debit.id, 'debit_note', debit.invoiceNo, debit.authorityInvoiceNo, 'uploaded', debit.totals.total],
        [refused.id, 'credit_note', refused.invoiceNo, null, 'failed', refused.totals.total],
      ],
    );
    const tooMuch = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 2.6 }] });
    assert.match(tooMuch.json().errors['items.0.quantity'][0], /\(2\.5\)/, 'the API refuses exactly past remainingQuantity');

    const note = (await h.get(`/api/v1/sales/${credit.id}?expand=credits`)).json().data;
    assert.deepEqual(note.originalSale, {
      id: sale.id,
      invoiceNo: sale.invoiceNo,
      authorityInvoiceNo: sale.authorityInvoiceNo,
      receiptNo: sale.fiscal.receiptNo,
    });
    assert.equal(note.notes, undefined, 'a note lists no notes');
    assert.equal(note.items[0].remainingQuantity, undefined);
    const listed = (await h.get('/api/v1/sales')).json().data as Array<Record<string, unknown>>;
    assert.ok(
      listed.length > 0 && listed.every((doc) => doc.notes === undefined && doc.originalSale === undefined),
      'a list stays as it was',
    );
    const plain = (await h.get(`/api/v1/sales/${sale.id}`)).json().data;
    assert.equal(plain.notes, undefined, 'without expand=credits, the single read is the resource of lists and webhooks');
    assert.equal(plain.items[0].remainingQuantity, undefined);
  });

  /** Credit notes (read back by id) and what they took per original line. */
  async function creditsOf(noteIds: number[]) {
    const notes = await Promise.all(noteIds.map(async (id) => (await h.get(`/api/v1/sales/${id}`)).json().data));
    const byLine = new Map<number, { quantity: Decimal; amount: Decimal; net: Decimal; vat: Decimal }>();
    for (const note of notes) {
      for (const item of note.items) {
        const taken = byLine.get(item.originalLine) ?? {
          quantity: new Decimal(0),
          amount: new Decimal(0),
          net: new Decimal(0),
          vat: new Decimal(0),
        };
        byLine.set(item.originalLine, {
          quantity: taken.quantity.plus(String(item.quantity)),
          amount: taken.amount.plus(String(item.amount)),
          net: taken.net.plus(String(item.net)),
          vat: taken.vat.plus(String(item.vat)),
        });
      }
    }
    const total = notes.reduce((sum: Decimal, n: { totals: { total: number } }) => sum.plus(String(n.totals.total)), new Decimal(0));
    return { notes, byLine, total };
  }

  function assertCreditedExactly(
    sale: { items: Record<string, number>[]; totals: { total: number } },
    credits: Awaited<ReturnType<typeof creditsOf>>,
  ): void {
    for (const line of sale.items) {
      const taken = credits.byLine.get(line.line!)!;
      assert.deepEqual(
        [taken.quantity.toNumber(), taken.amount.toNumber(), taken.net.toNumber(), taken.vat.toNumber()],
        [line.quantity, line.amount, line.net, line.vat],
        `line ${line.line}: quantity, amount, net and VAT credited exactly`,
      );
    }
    assert.equal(credits.total.toFixed(2), sale.totals.total.toFixed(2), 'the notes add up to the sale');
  }

  test('issue 15: after two single-unit refunds of 3 × 10.125, the cancellation credits exactly the rest', async () => {
    const sale = await fiscalisedSale([
      { name: 'Bolts', quantity: 3, price: 10.125 },
      { name: 'Washer', quantity: 1, price: 1.005 },
    ]);
    assert.equal(sale.totals.total, 31.39);
    const refunds: { id: number; items: Record<string, number>[] }[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().data.status, 'uploaded', res.json().data.lastError);
      refunds.push(res.json().data);
    }
    // The line's rounding is allocated: 10.13, then 10.12, so the third unit takes 10.13.
    assert.deepEqual(
      refunds.map((n) => [n.items[0]!.price, n.items[0]!.amount]),
      [
        [10.125, 10.13],
        [10.125, 10.12],
      ],
    );

    const cancellation = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' });
    assert.equal(cancellation.statusCode, 201, cancellation.body);
    const note = cancellation.json().data;
    assert.equal(note.status, 'uploaded', note.lastError);
    assert.deepEqual(
      note.items.map((i: Record<string, unknown>) => [i.originalLine, i.quantity, i.price, i.amount]),
      [
        [1, 1, 10.125, 10.13],
        [2, 1, 1.005, 1.01],
      ],
    );
    assertCreditedExactly(sale, await creditsOf([...refunds.map((n) => n.id), note.id]));
    assert.equal((await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' })).json().error.code, 'nothing_left_to_credit');
  });

  test('issue 15: half a unit at a time of 1 × 0.05 and 2 × 19.99, then the cancellation (tax-inclusive and exclusive)', async () => {
    for (const taxInclusive of [true, false]) {
      const res = await h.post(
        '/api/v1/sales',
        saleBody({ taxInclusive }, [
          { name: 'Sweet', quantity: 1, price: 0.05 },
          { name: 'Kettle', quantity: 2, price: 19.99 },
        ]),
      );
      const sale = res.json().data;
      assert.equal(sale.status, 'uploaded', sale.lastError);
      const noteIds: number[] = [];
      for (const items of [
        [
          { line: 1, quantity: 0.5 },
          { line: 2, quantity: 0.5 },
        ],
        [{ line: 2, quantity: 0.5 }],
        [{ line: 2, quantity: 0.5 }],
      ]) {
        const refund = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '06', items });
        assert.equal(refund.statusCode, 201, refund.body);
        assert.equal(refund.json().data.status, 'uploaded', refund.json().data.lastError);
        noteIds.push(refund.json().data.id);
      }
      const cancellation = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' });
      assert.equal(cancellation.statusCode, 201, cancellation.body);
      assert.equal(cancellation.json().data.status, 'uploaded', cancellation.json().data.lastError);
      assert.deepEqual(
        cancellation.json().data.items.map((i: Record<string, unknown>) => [i.originalLine, i.quantity, i.amount]),
        [
          [1, 0.5, 0.02],
          [2, 0.5, 9.99],
        ],
      );
      assertCreditedExactly(sale, await creditsOf([...noteIds, cancellation.json().data.id]));
    }
  });

  test('concurrent credit notes on one sale: exactly one takes it all', async () => {
    const sale = await fiscalisedSale();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' })),
    );
    const created = responses.filter((r) => r.statusCode === 201);
    assert.equal(created.length, 1, responses.map((r) => r.statusCode).join(','));
    for (const r of responses.filter((x) => x.statusCode !== 201)) assert.equal(r.json().error.code, 'nothing_left_to_credit');
    await eventually(
      async () => ((await h.get(`/api/v1/sales/${created[0]!.json().data.id}`)).json().data.status === 'uploaded' ? true : undefined),
      'note uploaded',
    );
  });

  test('a credit note with an Idempotency-Key is replayed, not issued twice', async () => {
    const sale = await fiscalisedSale();
    const body = { reasonCode: '02', items: [{ line: 2, quantity: 1 }] };
    const first = await h.post(`/api/v1/sales/${sale.id}/credit-note`, body, { 'idempotency-key': `cn-${sale.id}` });
    const again = await h.post(`/api/v1/sales/${sale.id}/credit-note`, body, { 'idempotency-key': `cn-${sale.id}` });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().data.id, first.json().data.id);
    const otherSale = await h.post(
      `/api/v1/sales/${sale.id}/debit-note`,
      { reasonCode: '01', items: [{ name: 'x', classificationCode: '50221200', quantity: 1, price: 1 }] },
      { 'idempotency-key': `cn-${sale.id}` },
    );
    assert.equal(otherSale.json().error.code, 'idempotency_key_reused');
  });

  test('a debit note charges new lines, priced like the sale, filed as D against the receipt', async () => {
    const sale = await fiscalisedSale();
    const res = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '03',
      items: [{ name: 'Delivery', classificationCode: '50221200', quantity: 1, price: 50 }],
    });
    assert.equal(res.statusCode, 201, res.body);
    const note = res.json().data;
    assert.equal(note.type, 'debit_note');
    assert.equal(note.status, 'uploaded', note.lastError);
    assert.equal(note.originalSaleId, sale.id);
    assert.deepEqual(note.totals, { net: 43.1, vat: 6.9, total: 50, discount: 0, currency: 'ZMW' });
    const filed = arrival(note.invoiceNo)!;
    assert.equal(filed.rcptTyCd, 'D');
    assert.equal(filed.orgInvcNo, sale.fiscal.receiptNo);

    const badReason = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '05',
      items: [{ name: 'x', classificationCode: '50221200', quantity: 1, price: 1 }],
    });
    assert.equal(badReason.statusCode, 422);
    assert.ok(badReason.json().errors.reasonCode);
    const unknownCode = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '04',
      items: [{ name: 'x', classificationCode: '99999999', quantity: 1, price: 1 }],
    });
    assert.equal(unknownCode.json().error.code, 'unknown_classification_code');
    const badCredit = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '08' });
    assert.ok(badCredit.json().errors.reasonCode);
  });

  test('a debit note line that comes to 0.00 is refused on its price; nothing is stored or numbered', async () => {
    const sale = await fiscalisedSale();
    const arrived = h.received(h.merchant).length;
    const refused = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '02',
      items: [{ name: 'Rounding', classificationCode: '50221200', quantity: 1, price: 0.0001 }],
    });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.deepEqual(Object.keys(refused.json().errors), ['items.0.price']);
    assert.match(refused.json().errors['items.0.price'][0], /rounds to 0\.00/);
    const next = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '02',
      items: [{ name: 'Rounding', classificationCode: '50221200', quantity: 1, price: 0.01 }],
    });
    assert.equal(next.json().data.invoiceNo, sale.invoiceNo + 1, 'the refusal used no invoice number');
    assert.equal(h.received(h.merchant).length, arrived + 1);
  });

  test("notes need a fiscalised sale of this merchant: pending or failed → 409, a note → 422, another's → 404", async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { forcedResult: '838' });
    const pending = (await h.post('/api/v1/sales', saleBody())).json().data;
    assert.equal(pending.status, 'pending');
    for (const kind of ['credit-note', 'debit-note']) {
      const res = await h.post(`/api/v1/sales/${pending.id}/${kind}`, {
        reasonCode: '01',
        items: kind === 'debit-note' ? [{ name: 'x', classificationCode: '50221200', quantity: 1, price: 1 }] : undefined,
      });
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().error.code, 'sale_not_fiscalised');
    }
    h.sim.control.setFaults(h.merchant.tpin, '000', { forcedResult: null, reject: { count: 1, code: '910', message: 'nope' } });
    await eventually(
      async () => ((await h.get(`/api/v1/sales/${pending.id}`)).json().data.status === 'failed' ? true : undefined),
      'refused',
    );
    assert.equal((await h.post(`/api/v1/sales/${pending.id}/credit-note`, { reasonCode: '01' })).json().error.code, 'sale_not_fiscalised');

    const sale = await fiscalisedSale();
    const note = (await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 1 }] })).json()
      .data;
    const onNote = await h.post(`/api/v1/sales/${note.id}/credit-note`, { reasonCode: '01' });
    assert.equal(onNote.statusCode, 422);
    assert.equal(onNote.json().error.code, 'not_a_sale');

    const other = await h.addMerchant();
    await h.registerBranch(other, '000');
    const foreign = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' }, {}, other);
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(Object.keys(foreign.json()), ['message']);
  });
});
