import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VAT_CATEGORIES } from '../../../src/authorities/zra-vsdc/tax.ts';
import { engineName } from '../../helpers/db.ts';
import { assertArrivalOrder, saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import {
  FISCAL_FIELDS,
  INVOICE_FIELDS,
  invoiceBody,
  mintKey,
  nextNumber,
  postInvoice,
  sdcIdOf,
  zmGet,
  type LegacyInvoice,
  type Till,
} from './helpers.ts';

describe(`compat surface: /zm/api invoices through the sales path (${engineName})`, () => {
  let h: Harness;
  /** A branch key of 000, a tenant key on 000 and on 001. */
  let branchTill: Till;
  let tenantTill000: Till;
  let tenantTill001: Till;
  let deviceId000: number;

  before(async () => {
    h = await startHarness({ branches: ['000', '001'], config: { saleWaitMs: 1_000 } });
    const sdc000 = await sdcIdOf(h, h.merchant, '000');
    const sdc001 = await sdcIdOf(h, h.merchant, '001');
    const branchKey = await mintKey(h, h.merchant, { branch: '000' });
    const tenantKey = await mintKey(h, h.merchant);
    branchTill = { key: branchKey.key, sdcId: sdc000 };
    tenantTill000 = { key: tenantKey.key, sdcId: sdc000 };
    tenantTill001 = { key: tenantKey.key, sdcId: sdc001 };
    const device = await h.ctx.db
      .selectFrom('devices')
      .select('id')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('branch', '=', '000')
      .executeTakeFirstOrThrow();
    deviceId000 = device.id;
  });
  after(() => h.close());

  const readInvoice = async (till: Till, number: string): Promise<LegacyInvoice> => {
    const res = await zmGet(h, `/zm/api/Invoice/${encodeURIComponent(number)}`, till);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const uploadedInvoice = (till: Till, number: string) =>
    eventually(async () => {
      const invoice = await readInvoice(till, number);
      return invoice.Status === 'uploaded' ? invoice : undefined;
    }, `invoice ${number} uploaded`);
  const filingsOf = (branch: string, invoiceNumber: unknown) =>
    h.received(h.merchant, branch).filter((d) => d.cisInvcNo === String(invoiceNumber) && d.receipt);

  test('TaxCodes lists every VAT category the gateway knows', async () => {
    const res = await zmGet(h, '/zm/api/TaxCodes', branchTill);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json(),
      VAT_CATEGORIES.map((c) => ({ Code: c.code, Name: c.name, Rate: c.rate })),
    );
    assert.deepEqual(res.json()[0], { Code: 'A', Name: 'Standard rated', Rate: 16 });
  });

  test('Branches needs only X-Api-Key: a branch key lists its branch, a tenant key every branch', async () => {
    await h.registerBranch(h.merchant, '002', { initialize: false });
    const own = await zmGet(h, '/zm/api/Branches', { key: branchTill.key, sdcId: undefined });
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(
      own.json().map((b: { BranchId: string; SdcId: string; Initialized: boolean }) => [b.BranchId, b.SdcId, b.Initialized]),
      [['000', branchTill.sdcId, true]],
    );
    assert.deepEqual(Object.keys(own.json()[0]), ['BranchId', 'SdcId', 'Name', 'Initialized']);

    const all = await zmGet(h, '/zm/api/Branches', { key: tenantTill000.key, sdcId: undefined });
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(
      all.json().map((b: { BranchId: string; SdcId: string | null; Initialized: boolean }) => [b.BranchId, b.SdcId, b.Initialized]),
      [
        ['000', tenantTill000.sdcId, true],
        ['001', tenantTill001.sdcId, true],
        ['002', null, false],
      ],
    );
  });

  test("an invoice is filed through the sales path: 201 with exactly the dialect's fields, then read back by both numbers", async () => {
    const number = nextNumber();
    const res = await postInvoice(h, branchTill, invoiceBody(number, {}, [{ Quantity: 2, UnitPrice: 185 }]));
    assert.equal(res.statusCode, 201, res.body);
    const created: LegacyInvoice = res.json();
    assert.deepEqual(Object.keys(created), [...INVOICE_FIELDS]);
    assert.equal(created.ClientInvoiceNumber, number);
    assert.equal(created.Tpin, h.merchant.tpin);
    assert.equal(created.BranchId, '000');
    assert.deepEqual([created.TotalAmount, created.TaxableAmount, created.TaxAmount, created.Currency], [370, 318.97, 51.03, 'ZMW']);

    const invoice = await uploadedInvoice(branchTill, number);
    assert.equal(invoice.InvoiceNumber, created.InvoiceNumber);
    assert.equal(invoice.SdcId, branchTill.sdcId);
    assert.equal(invoice.ResultCode, '000');
    assert.equal(invoice.ResultMessage, null);
    assert.equal(typeof invoice.ReceiptNumber, 'number');
    for (const field of FISCAL_FIELDS) assert.notEqual(invoice[field], null, field);
    const [filed] = filingsOf('000', invoice.InvoiceNumber);
    assert.equal(invoice.ReceiptNumber, filed!.receipt!.rcptNo);
    assert.equal(invoice.ReceiptSignature, filed!.receipt!.rcptSign);

    const reprint = await zmGet(h, `/zm/api/Signature/${String(invoice.InvoiceNumber)}`, branchTill);
    assert.equal(reprint.statusCode, 200, reprint.body);
    assert.deepEqual(reprint.json(), invoice, 'the reprint payload is identical to the invoice retrieval');

    // The same document on the modern surface: the sales module numbered and filed it.
    const modern = (await h.get(`/api/v1/sales?reference=${encodeURIComponent(number)}`)).json().data;
    assert.equal(modern.length, 1);
    assert.equal(modern[0].clientInvoiceNo, number);
    assert.equal(modern[0].reference, `zm:${deviceId000}:${number}`);
    assert.equal(modern[0].invoiceNo, invoice.InvoiceNumber);
    assert.equal(modern[0].fiscal.receiptNo, invoice.ReceiptNumber);
  });

  test('legacy fields map onto the sale; absent ones take the sales defaults; unknown fields are ignored', async () => {
    const number = nextNumber();
    const body = invoiceBody(
      number,
      {
        PaymentTypeCode: '06',
        CustomerTPIN: '1002345678',
        CustomerName: 'Chanda Mwila',
        SalesDate: new Date(Date.now() - 3_600_000).toISOString(),
        TaxInclusive: false,
        TillModel: 'XR-7',
        Cashier: { Id: 4 },
      },
      // Not B: an MTV line needs its RRP (issue 18), which this test does not map.
      [{ VATCategoryCode: 'F', UnitPrice: 100, Quantity: 1.5 }],
    );
    (body.Items as Array<Record<string, unknown>>)[0]!.Barcode = '600123';
    const res = await postInvoice(h, branchTill, body);
    assert.equal(res.statusCode, 201, res.body);
    const sale = (await h.get(`/api/v1/sales?reference=${encodeURIComponent(number)}`)).json().data[0];
    assert.deepEqual(sale.customer, { name: 'Chanda Mwila', tpin: '1002345678', address: null });
    assert.equal(sale.paymentMethod, '06');
    assert.equal(sale.taxInclusive, false);
    assert.equal(sale.occurredAt, new Date(body.SalesDate as string).toISOString());
    assert.deepEqual([sale.items[0].vatCategory, sale.items[0].quantity, sale.items[0].price], ['F', 1.5, 100]);
    assert.deepEqual([res.json().TaxableAmount, res.json().TaxAmount, res.json().TotalAmount], [150, 15, 165], 'F: 10 % on top');

    const plain = nextNumber();
    assert.equal(
      (await postInvoice(h, branchTill, invoiceBody(plain, { CustomerTPIN: '', CustomerName: null, PaymentTypeCode: null }))).statusCode,
      201,
    );
    const defaulted = (await h.get(`/api/v1/sales?reference=${encodeURIComponent(plain)}`)).json().data[0];
    assert.deepEqual(defaulted.customer, { name: 'Walk-in customer', tpin: null, address: null });
    assert.equal(defaulted.paymentMethod, '01');
    assert.equal(defaulted.taxInclusive, true);
    assert.equal(defaulted.items[0].vatCategory, 'A');
  });

  test('validation errors are keyed by the legacy field names, from the schema and from the sales rules', async () => {
    const schema = await postInvoice(h, branchTill, {
      ReceiptTypeCode: 'S',
      Items: [{ ItemName: 'x', ItemClassificationCode: '50221200', Quantity: '2', UnitPrice: -1 }],
    });
    assert.equal(schema.statusCode, 422, schema.body);
    assert.deepEqual(Object.keys(schema.json().errors).sort(), ['ClientInvoiceNumber', 'Items.0.Quantity', 'Items.0.UnitPrice']);
    assert.equal(typeof schema.json().message, 'string');

    const decimals = await postInvoice(h, branchTill, invoiceBody(nextNumber(), {}, [{ Quantity: 1.23456 }]));
    assert.equal(decimals.statusCode, 422, decimals.body);
    assert.deepEqual(decimals.json().errors, { 'Items.0.Quantity': ['The Items.0.Quantity field must have at most 4 decimal places.'] });

    const exportRule = await postInvoice(
      h,
      branchTill,
      invoiceBody(nextNumber(), { SalesDate: new Date(Date.now() + 86_400_000).toISOString() }, [
        { VATCategoryCode: 'C1' },
        { VATCategoryCode: 'A' },
      ]),
    );
    assert.equal(exportRule.statusCode, 422, exportRule.body);
    assert.deepEqual(Object.keys(exportRule.json().errors).sort(), ['DestinationCountryCode', 'Items.1.VATCategoryCode', 'SalesDate']);
    assert.match(exportRule.json().errors.DestinationCountryCode[0], /^The DestinationCountryCode field is required/);

    const nothing = await postInvoice(h, branchTill, invoiceBody(nextNumber(), {}, [{ UnitPrice: 0.0001 }]));
    assert.equal(nothing.statusCode, 422, nothing.body);
    assert.deepEqual(Object.keys(nothing.json().errors), ['Items.0.UnitPrice']);
    assert.match(nothing.json().errors['Items.0.UnitPrice'][0], /rounds to 0\.00/);

    const unknownCode = await postInvoice(h, branchTill, invoiceBody(nextNumber(), {}, [{}, { ItemClassificationCode: '99999999' }]));
    assert.equal(unknownCode.statusCode, 422, unknownCode.body);
    assert.equal(unknownCode.json().error.code, 'unknown_classification_code');
    assert.match(unknownCode.json().error.message, /Items\.1\.ItemClassificationCode 99999999/);
  });

  test('only ReceiptTypeCode S is supported: anything else is a 422 and nothing is stored', async () => {
    for (const code of ['C', 'D', 'R', 's', '']) {
      const number = nextNumber();
      const res = await postInvoice(h, branchTill, invoiceBody(number, { ReceiptTypeCode: code }));
      assert.equal(res.statusCode, 422, res.body);
      assert.ok(res.json().errors.ReceiptTypeCode, res.body);
      assert.equal((await zmGet(h, `/zm/api/Invoice/${number}`, branchTill)).statusCode, 404);
    }
    const missing = await postInvoice(h, branchTill, { ClientInvoiceNumber: nextNumber(), Items: [] });
    assert.deepEqual(Object.keys(missing.json().errors).sort(), ['Items', 'ReceiptTypeCode']);
  });

  test('unknown numbers are a plain 404 on both reads, and invoices are per branch', async () => {
    const unknown = await zmGet(h, '/zm/api/Invoice/NO-SUCH-NUMBER', branchTill);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(Object.keys(unknown.json()), ['message']);
    assert.equal((await zmGet(h, '/zm/api/Signature/999999', branchTill)).statusCode, 404);
    assert.equal((await zmGet(h, '/zm/api/Signature/abc', branchTill)).statusCode, 404);

    const number = nextNumber();
    assert.equal((await postInvoice(h, tenantTill001, invoiceBody(number))).statusCode, 201);
    assert.equal((await zmGet(h, `/zm/api/Invoice/${number}`, tenantTill001)).statusCode, 200);
    assert.equal((await zmGet(h, `/zm/api/Invoice/${number}`, tenantTill000)).statusCode, 404, 'another branch does not see it');
  });

  test('a repeated ClientInvoiceNumber returns the original invoice and is never filed twice, even with a different body', async () => {
    const number = nextNumber();
    const first = await postInvoice(h, branchTill, invoiceBody(number, {}, [{ UnitPrice: 50 }]));
    assert.equal(first.statusCode, 201, first.body);
    const original = await uploadedInvoice(branchTill, number);

    const same = await postInvoice(h, branchTill, invoiceBody(number, {}, [{ UnitPrice: 50 }]));
    assert.equal(same.statusCode, 201, same.body);
    assert.equal(same.headers['idempotent-replayed'], 'true');
    assert.deepEqual(same.json(), original);

    const changed = await postInvoice(h, branchTill, invoiceBody(number, { CustomerName: 'Someone else' }, [{ UnitPrice: 999 }]));
    assert.equal(changed.statusCode, 201, changed.body);
    assert.equal(changed.headers['idempotent-replayed'], 'true');
    assert.deepEqual(changed.json(), original, 'the original invoice, not the new body');

    // The tenant key on the same branch is the same till numbering space.
    const viaTenantKey = await postInvoice(h, tenantTill000, invoiceBody(number, {}, [{ UnitPrice: 50 }]));
    assert.deepEqual(viaTenantKey.json(), original);

    assert.equal(filingsOf('000', original.InvoiceNumber).length, 1);
    const rows = await h.ctx.db
      .selectFrom('sales')
      .select('id')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('client_invoice_no', '=', number)
      .execute();
    assert.equal(rows.length, 1);
  });

  test('the same ClientInvoiceNumber 10 times at once: one document, one filing', async () => {
    const number = nextNumber('CONC');
    // Half of them with another body: to a till, a number is its invoice, whatever the body.
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postInvoice(h, branchTill, invoiceBody(number, {}, [{ UnitPrice: i % 2 === 0 ? 20 : 30 }]))),
    );
    for (const res of responses) assert.equal(res.statusCode, 201, res.body);
    const numbers = new Set(responses.map((r) => r.json().InvoiceNumber as number));
    assert.equal(numbers.size, 1, `one InvoiceNumber: ${[...numbers].join(',')}`);
    assert.equal(responses.filter((r) => r.headers['idempotent-replayed'] !== 'true').length, 1, 'exactly one request created it');
    const invoice = await uploadedInvoice(branchTill, number);
    const rows = await h.ctx.db
      .selectFrom('sales')
      .select('id')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('client_invoice_no', '=', number)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(filingsOf('000', invoice.InvoiceNumber).length, 1);
    assert.equal(
      h.received(h.merchant, '000').filter((d) => d.cisInvcNo === String(invoice.InvoiceNumber)).length,
      1,
      'one filing at the simulator',
    );
  });

  test('the same ClientInvoiceNumber on two branches is two documents', async () => {
    const number = nextNumber('TWO');
    const [a, b] = await Promise.all([
      postInvoice(h, tenantTill000, invoiceBody(number)),
      postInvoice(h, tenantTill001, invoiceBody(number)),
    ]);
    assert.equal(a.statusCode, 201, a.body);
    assert.equal(b.statusCode, 201, b.body);
    assert.deepEqual([a.json().BranchId, b.json().BranchId], ['000', '001']);
    const onA = await uploadedInvoice(tenantTill000, number);
    const onB = await uploadedInvoice(tenantTill001, number);
    assert.notEqual(onA.SdcId, onB.SdcId);
    assert.equal(filingsOf('000', onA.InvoiceNumber).length, 1);
    assert.equal(filingsOf('001', onB.InvoiceNumber).length, 1);
    const rows = await h.ctx.db
      .selectFrom('sales')
      .select('branch')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('client_invoice_no', '=', number)
      .orderBy('branch')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.branch),
      ['000', '001'],
    );
  });

  test("offline: pending with every fiscal field null, then uploaded in order with the modern surface's sales", async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const start = h.received(h.merchant, '000').length;
    const first = nextNumber('OFF');
    const second = nextNumber('OFF');
    const a = await postInvoice(h, branchTill, invoiceBody(first));
    const modern = await h.post('/api/v1/sales', saleBody(), { 'x-branch': '000' });
    const b = await postInvoice(h, branchTill, invoiceBody(second));
    try {
      for (const res of [a, b]) {
        assert.equal(res.statusCode, 201, res.body);
        const pending: LegacyInvoice = res.json();
        assert.equal(pending.Status, 'pending');
        assert.equal(pending.ResultCode, null);
        for (const field of FISCAL_FIELDS) assert.equal(pending[field], null, field);
      }
      assert.equal(modern.json().data.status, 'pending');
      assert.equal((await readInvoice(branchTill, first)).Status, 'pending');
    } finally {
      h.sim.control.clearFaults(h.merchant.tpin, '000');
    }
    const filedA = await uploadedInvoice(branchTill, first);
    const filedB = await uploadedInvoice(branchTill, second);
    for (const field of FISCAL_FIELDS) assert.notEqual(filedB[field], null, field);
    const modernNo = modern.json().data.invoiceNo as number;
    assert.deepEqual(
      [filedA.InvoiceNumber, modernNo, filedB.InvoiceNumber],
      [a.json().InvoiceNumber, (a.json().InvoiceNumber as number) + 1, (a.json().InvoiceNumber as number) + 2],
    );
    await eventually(
      () =>
        h
          .received(h.merchant, '000')
          .slice(start)
          .filter((d) => d.receipt).length >= 3
          ? true
          : undefined,
      'three filings',
    );
    const arrived = h
      .received(h.merchant, '000')
      .slice(start)
      .filter((d) => d.receipt)
      .map((d) => Number(d.cisInvcNo));
    assertArrivalOrder(arrived);
    assert.deepEqual(arrived, [filedA.InvoiceNumber, modernNo, filedB.InvoiceNumber]);

    // The sales module's events fire for till invoices like for any sale.
    const saleId = (await h.get(`/api/v1/sales?reference=${encodeURIComponent(first)}`)).json().data[0].id as number;
    const events = await eventually(async () => {
      const rows = await h.ctx.db.selectFrom('webhook_events').select('body').where('tenant_id', '=', h.merchant.tenantId).execute();
      const mine = rows
        .map((r) => JSON.parse(r.body) as { event: string; data: { invoice: { id: number } } })
        .filter((e) => e.data.invoice.id === saleId);
      return mine.length > 0 ? mine : undefined;
    }, 'the invoice.fiscalised event');
    assert.deepEqual(
      events.map((e) => e.event),
      ['invoice.fiscalised'],
    );
  });
});
