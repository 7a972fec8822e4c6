import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, saleBody, startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';

describe(`creating and reading sales (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const total = async (merchant: Merchant = h.merchant) => (await h.get('/api/v1/sales', {}, merchant)).json().meta.total as number;

  test("a minimal sale is filed at once with every default applied and the authority's receipt", async () => {
    const before = Date.now();
    const res = await h.post('/api/v1/sales', {
      items: [{ name: 'Maize meal 25kg', classificationCode: CLASS_CODE, quantity: 2, price: 185 }],
    });
    assert.equal(res.statusCode, 201, res.body);
    const sale = res.json().data;
    assert.equal(sale.status, 'uploaded');
    assert.equal(sale.type, 'sale');
    assert.equal(sale.salesType, 'normal');
    assert.equal(sale.exchangeRate, 1);
    assert.equal(sale.lpoNumber, null);
    assert.deepEqual(sale.customer, { name: 'Walk-in customer', tpin: null, address: null });
    assert.equal(sale.paymentMethod, '01');
    assert.equal(sale.taxInclusive, true);
    assert.equal(sale.branch, '000');
    assert.equal(sale.tpin, h.merchant.tpin);
    assert.ok(Math.abs(Date.parse(sale.occurredAt) - before) < 60_000);
    assert.deepEqual(sale.totals, { net: 318.97, vat: 51.03, total: 370, discount: 0, currency: 'ZMW' });
    assert.deepEqual(sale.items, [
      {
        line: 1,
        name: 'Maize meal 25kg',
        classificationCode: CLASS_CODE,
        itemCode: null,
        quantity: 2,
        price: 185,
        vatCategory: 'A',
        vatRate: 16,
        rrp: null,
        amount: 370,
        discount: 0,
        net: 318.97,
        vat: 51.03,
        total: 370,
        originalLine: null,
      },
    ]);
    assert.equal(sale.resultCode, '000');
    assert.equal(sale.lastError, null);

    const [filed] = h.received(h.merchant).filter((d) => d.cisInvcNo === String(sale.invoiceNo));
    assert.ok(filed?.receipt, 'the simulator filed it');
    assert.equal(sale.fiscal.receiptNo, filed.receipt.rcptNo);
    assert.equal(sale.fiscal.internalData, filed.receipt.intrlData);
    assert.equal(sale.fiscal.receiptSignature, filed.receipt.rcptSign);
    assert.equal(sale.fiscal.sdcId, filed.receipt.sdcId);
    assert.equal(sale.fiscal.mrcNo, filed.receipt.mrcNo.trim());
    assert.equal(sale.fiscal.qrCodeUrl, filed.receipt.qrCodeUrl);
    assert.ok(sale.fiscal.publishedAt);
    assert.equal(sale.authorityInvoiceNo, `INV${filed.receipt.sdcId.replace(/^SDC/, '')}/${filed.receipt.rcptNo}`);
    assert.deepEqual(filed.totals, { taxable: 318.97, tax: 51.03, total: 370 });
    assert.ok(Date.parse(sale.fiscalisedAt) >= Date.parse(sale.createdAt));

    const read = await h.get(`/api/v1/sales/${sale.id}`);
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json().data, sale);
  });

  test('amounts are exact: tax-exclusive prices, several categories, 4-decimal quantities and prices', async () => {
    const res = await h.post(
      '/api/v1/sales',
      saleBody(
        { taxInclusive: false, customer: { name: 'Chanda Mwila', tpin: '1002345678' }, paymentMethod: '06', clientInvoiceNo: 'POS-1' },
        [{ price: 100 }, { vatCategory: 'D', quantity: 3, price: 0.3333 }, { vatCategory: 'F', quantity: 1.5, price: 10.01 }],
      ),
    );
    assert.equal(res.statusCode, 201, res.body);
    const sale = res.json().data;
    assert.equal(sale.status, 'uploaded', sale.lastError);
    assert.deepEqual(
      sale.items.map((i: Record<string, number>) => [i.amount, i.net, i.vat, i.total]),
      [
        [100, 100, 16, 116],
        [1, 1, 0, 1],
        [15.02, 15.02, 1.5, 16.52],
      ],
    );
    assert.deepEqual(sale.totals, { net: 116.02, vat: 17.5, total: 133.52, discount: 0, currency: 'ZMW' });
    assert.deepEqual(sale.customer, { name: 'Chanda Mwila', tpin: '1002345678', address: null });
    assert.equal(sale.paymentMethod, '06');
    assert.equal(sale.clientInvoiceNo, 'POS-1');
  });

  test('an export (C1) needs a destination and cannot mix categories; a valid one is filed zero-rated', async () => {
    const before = await total();
    const missing = await h.post('/api/v1/sales', saleBody({}, [{ vatCategory: 'C1' }]));
    assert.equal(missing.statusCode, 422);
    assert.ok(missing.json().errors.destinationCountryCode, missing.body);
    const mixed = await h.post('/api/v1/sales', saleBody({ destinationCountryCode: 'ZA' }, [{ vatCategory: 'C1' }, { vatCategory: 'A' }]));
    assert.equal(mixed.statusCode, 422);
    assert.ok(mixed.json().errors['items.1.vatCategory'], mixed.body);
    assert.equal(await total(), before, 'nothing stored');

    const ok = await h.post('/api/v1/sales', saleBody({ destinationCountryCode: 'ZA' }, [{ vatCategory: 'C1', price: 500 }]));
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json().data.status, 'uploaded', ok.json().data.lastError);
    assert.deepEqual(ok.json().data.totals, { net: 500, vat: 0, total: 500, discount: 0, currency: 'ZMW' });
    assert.equal(ok.json().data.destinationCountryCode, 'ZA');
  });

  test('bad input is always a 422 in the validation shape, and stores nothing', async () => {
    const before = await total();
    const line = { name: 'x', classificationCode: CLASS_CODE, quantity: 1, price: 1 };
    const cases: Array<[string, unknown, Record<string, string>?]> = [
      ['no items', {}],
      ['empty items', { items: [] }],
      ['501 lines', { items: Array.from({ length: 501 }, () => line) }],
      ['zero quantity', { items: [{ ...line, quantity: 0 }] }],
      ['negative price', { items: [{ ...line, price: -1 }] }],
      ['5 decimals', { items: [{ ...line, price: 1.00001 }] }],
      ['huge quantity', { items: [{ ...line, quantity: 1e12 }] }],
      ['quantity as text', { items: [{ ...line, quantity: '1' }] }],
      ['empty name', { items: [{ ...line, name: '' }] }],
      ['long name', { items: [{ ...line, name: 'x'.repeat(201) }] }],
      ['unknown line field', { items: [{ ...line, vatCatgory: 'B' }] }],
      ['unknown category', { items: [{ ...line, vatCategory: 'Z' }] }],
      ['unknown payment method', { items: [line], paymentMethod: '09' }],
      ['customer tpin not 10 digits', { items: [line], customer: { name: 'A', tpin: '123' } }],
      ['occurredAt not a date', { items: [line], occurredAt: 'yesterday' }],
      ['occurredAt in the future', { items: [line], occurredAt: new Date(Date.now() + 86_400_000).toISOString() }],
      ['occurredAt too old', { items: [line], occurredAt: new Date(Date.now() - 200 * 86_400_000).toISOString() }],
      ['country not a code', { items: [line], destinationCountryCode: 'zambia' }],
      ['body not an object', [line]],
      ['bad Idempotency-Key', { items: [line] }, { 'idempotency-key': 'has spaces in it' }],
      ['bad X-Branch', { items: [line] }, { 'x-branch': 'HQ' }],
    ];
    for (const [what, body, headers] of cases) {
      const res = await h.post('/api/v1/sales', body, headers);
      assert.equal(res.statusCode, 422, `${what}: ${res.body}`);
      const json = res.json();
      assert.equal(typeof json.message, 'string', what);
      assert.ok(Object.keys(json.errors).length > 0, what);
    }
    assert.equal(await total(), before);
  });

  test('an unknown classification code is refused before anything is stored, numbered or filed', async () => {
    const before = await total();
    const arrived = h.received(h.merchant).length;
    const first = await h.post('/api/v1/sales', saleBody());
    const refused = await h.post('/api/v1/sales', saleBody({}, [{}, { classificationCode: '99999999' }]));
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.code, 'unknown_classification_code');
    assert.match(refused.json().error.message, /items\.1\.classificationCode 99999999/);
    const next = await h.post('/api/v1/sales', saleBody());
    assert.equal(next.json().data.invoiceNo, first.json().data.invoiceNo + 1, 'no invoice number consumed');
    assert.equal(await total(), before + 2);
    assert.equal(h.received(h.merchant).length, arrived + 2);
  });

  test('a priced line that comes to 0.00 is refused on its price, before anything is stored, numbered or filed', async () => {
    const before = await total();
    const arrived = h.received(h.merchant).length;
    const first = await h.post('/api/v1/sales', saleBody());
    for (const lines of [[{ price: 0.0001 }], [{}, { quantity: 0.0049, price: 1 }], [{}, { quantity: 2, price: 0.0024 }]]) {
      const refused = await h.post('/api/v1/sales', saleBody({}, lines));
      assert.equal(refused.statusCode, 422, refused.body);
      const index = lines.length - 1;
      assert.deepEqual(Object.keys(refused.json().errors), [`items.${index}.price`]);
      assert.match(refused.json().errors[`items.${index}.price`][0], /rounds to 0\.00: quantity × price must be at least 0\.005/);
    }
    // Half a cent rounds up to a cent: the smallest line there is.
    const smallest = await h.post('/api/v1/sales', saleBody({}, [{ quantity: 1, price: 0.005 }]));
    assert.equal(smallest.statusCode, 201, smallest.body);
    assert.equal(smallest.json().data.status, 'uploaded', smallest.json().data.lastError);
    assert.equal(smallest.json().data.totals.total, 0.01);
    assert.equal(smallest.json().data.invoiceNo, first.json().data.invoiceNo + 1, 'no invoice number consumed');
    assert.equal(await total(), before + 2);
    assert.equal(h.received(h.merchant).length, arrived + 2);
  });

  test('the catalogue the check uses was fetched from the VSDC into the database', async () => {
    const classes = await h.ctx.db
      .selectFrom('item_classes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.ok(Number(classes.n) > 400, `catalogue holds ${classes.n} classes`);
  });

  test('X-Branch: absent means 000, else the only branch; a wrong or uninitialised branch is a coded 422', async () => {
    const multi = await h.addMerchant();
    await h.registerBranch(multi, '000');
    await h.registerBranch(multi, '001');
    const dflt = await h.post('/api/v1/sales', saleBody(), {}, multi);
    assert.equal(dflt.json().data.branch, '000');
    const named = await h.post('/api/v1/sales', saleBody(), { 'x-branch': '001' }, multi);
    assert.equal(named.json().data.branch, '001');
    assert.equal(named.json().data.status, 'uploaded');
    assert.equal(named.json().data.invoiceNo, 1, 'each branch has its own sequence');
    const unknown = await h.post('/api/v1/sales', saleBody(), { 'x-branch': '002' }, multi);
    assert.equal(unknown.statusCode, 422);
    assert.equal(unknown.json().error.code, 'branch_not_found');

    const noHq = await h.addMerchant();
    await h.registerBranch(noHq, '001');
    await h.registerBranch(noHq, '002');
    const ambiguous = await h.post('/api/v1/sales', saleBody(), {}, noHq);
    assert.equal(ambiguous.statusCode, 422);
    assert.equal(ambiguous.json().error.code, 'branch_required');

    const single = await h.addMerchant();
    await h.registerBranch(single, '005');
    assert.equal((await h.post('/api/v1/sales', saleBody(), {}, single)).json().data.branch, '005');

    const uninitialised = await h.addMerchant();
    await h.registerBranch(uninitialised, '000', { initialize: false });
    const refused = await h.post('/api/v1/sales', saleBody(), {}, uninitialised);
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().error.code, 'branch_not_initialized');
    assert.equal(await total(uninitialised), 0);

    // No device at all: a code that means it, and who gives it one (this merchant has a partner).
    const none = await h.addMerchant();
    const noDevice = await h.post('/api/v1/sales', saleBody(), {}, none);
    assert.equal(noDevice.json().error.code, 'no_device');
    assert.match(
      noDevice.json().error.message,
      /has no device yet.*Its partner registers and initialises one \(POST \/api\/v1\/tenants\/\{tenant\}\/devices/,
    );
  });

  test('GET /api/v1/me names the merchant, its devices with `initialized`, and the current branch', async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    await h.registerBranch(m, '003', { initialize: false });
    const me = (await h.get('/api/v1/me', {}, m)).json().data;
    assert.equal(me.id, m.tenantId);
    assert.equal(me.tpin, m.tpin);
    assert.equal(me.branch, '000');
    assert.deepEqual(
      me.devices.map((d: Record<string, unknown>) => [d.branch, d.initialized, d.current]),
      [
        ['000', true, true],
        ['003', false, false],
      ],
    );
    assert.ok(me.devices[0].sdcId);
    const other = (await h.get('/api/v1/me', { 'x-branch': '003' }, m)).json().data;
    assert.equal(other.branch, '003');
    assert.deepEqual(
      other.devices.map((d: Record<string, unknown>) => d.current),
      [false, true],
    );
    assert.equal((await h.get('/api/v1/me', { 'x-branch': '009' }, m)).json().error.code, 'branch_not_found');
  });

  test('every stored document counts once against the monthly quota counter', async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    const count = async () => (await h.get('/api/v1/me', {}, m)).json().data.documentsThisMonth as number;
    assert.equal(await count(), 0);
    await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'q-1' }, m);
    await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'q-1' }, m); // a replay stores nothing
    await h.post('/api/v1/sales', saleBody({}, [{ classificationCode: '99999999' }]), {}, m); // refused
    assert.equal(await count(), 1);
  });

  test("reading: another merchant's sale is a plain 404; lists page newest first, filter by reference and branch", async () => {
    const m = await h.addMerchant();
    await h.registerBranch(m, '000');
    await h.registerBranch(m, '001');
    const ids: number[] = [];
    for (let i = 0; i < 22; i++) {
      const res = await h.post(
        '/api/v1/sales',
        saleBody({ clientInvoiceNo: `INV-${i}` }),
        i === 21 ? { 'x-branch': '001', 'idempotency-key': 'order-77' } : {},
        m,
      );
      ids.push(res.json().data.id);
    }
    const foreign = await h.get(`/api/v1/sales/${ids[0]}`);
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(Object.keys(foreign.json()), ['message']);
    assert.equal((await h.get('/api/v1/sales/not-a-number', {}, m)).statusCode, 404);
    assert.equal((await h.get('/api/v1/sales/99999999', {}, m)).statusCode, 404);

    const page1 = (await h.get('/api/v1/sales', {}, m)).json();
    assert.deepEqual(page1.meta, { page: 1, perPage: 20, total: 22, lastPage: 2 });
    assert.deepEqual(
      page1.data.map((s: { id: number }) => s.id),
      [...ids].reverse().slice(0, 20),
    );
    const page2 = (await h.get('/api/v1/sales?page=2', {}, m)).json();
    assert.deepEqual(
      page2.data.map((s: { id: number }) => s.id),
      [ids[1], ids[0]],
    );
    assert.ok(page1.data[0].items.length === 1, 'list items carry their lines');

    const byClient = (await h.get('/api/v1/sales?reference=INV-3', {}, m)).json();
    assert.deepEqual(
      byClient.data.map((s: { id: number }) => s.id),
      [ids[3]],
    );
    const byKey = (await h.get('/api/v1/sales?reference=order-77', {}, m)).json();
    assert.deepEqual(
      byKey.data.map((s: { id: number }) => s.id),
      [ids[21]],
    );
    assert.equal(byKey.data[0].reference, 'order-77');
    const none = await h.get('/api/v1/sales?reference=nothing-like-it', {}, m);
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json(), { data: [], meta: { page: 1, perPage: 20, total: 0, lastPage: 1 } });
    assert.equal((await h.get('/api/v1/sales?reference=INV-3')).json().meta.total, 0, 'references are per merchant');

    const branch001 = (await h.get('/api/v1/sales', { 'x-branch': '001' }, m)).json();
    assert.deepEqual(
      branch001.data.map((s: { id: number }) => s.id),
      [ids[21]],
    );
    assert.equal(branch001.meta.total, 1);
    assert.equal((await h.get('/api/v1/sales', { 'x-branch': '000' }, m)).json().meta.total, 21, 'each branch counts its own documents');
    assert.equal((await h.get('/api/v1/sales', { 'x-branch': '007' }, m)).json().error.code, 'branch_not_found');
  });

  test('a token without invoices:write can read but not fiscalise', async () => {
    await h.ctx.db
      .updateTable('tenant_tokens')
      .set({ abilities: ['invoices:read'] })
      .where('tenant_id', '=', h.merchant.tenantId)
      .execute();
    try {
      const res = await h.post('/api/v1/sales', saleBody());
      assert.equal(res.statusCode, 403);
      assert.equal((await h.get('/api/v1/sales')).statusCode, 200);
    } finally {
      await h.ctx.db
        .updateTable('tenant_tokens')
        .set({ abilities: ['invoices:read', 'invoices:write'] })
        .where('tenant_id', '=', h.merchant.tenantId)
        .execute();
    }
  });
});
