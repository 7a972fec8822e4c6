// The rules of a merchant's authority beyond its codes: /zm/api is Zambia's till dialect only;
// customers' and suppliers' taxpayer ids in the merchant's authority's form; a sale's total receipt
// number (null for ZRA); and, for a KRA merchant, its currency, its lack of debit notes and of
// training documents, and its credit-note rules (skipped until the KRA adapter is registered).
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { AUTHORITY_PROFILES } from '../../../src/authorities/index.ts';
import { mintApiKey } from '../../../src/domain/kernel/tenants/credentials-service.ts';
import { tenantOfPartner } from '../../../src/domain/kernel/tenants/service.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';
import { bearer } from '../../helpers/app.ts';

const line = { name: 'Bread', classificationCode: CLASS_CODE, quantity: 1, price: 10 };

function skipWithoutKra(t: TestContext): boolean {
  if (Object.hasOwn(AUTHORITY_PROFILES, 'kra-oscu')) return false;
  t.skip('kra-oscu not registered yet');
  return true;
}

describe(`sales, customers and purchases by the merchant's authority (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ branches: ['000'] });
  });
  after(() => h.close());

  test('a ZRA sale shows fiscal.totalReceiptNo null and its ZRA authority invoice number', async () => {
    const sale = expectStatus(await h.post('/api/v1/sales', { items: [line] }), 201).data;
    assert.equal(sale.status, 'uploaded');
    assert.equal(sale.fiscal.totalReceiptNo, null);
    assert.equal(sale.authorityInvoiceNo, `INV${sale.fiscal.sdcId.replace(/^SDC/, '')}/${sale.fiscal.receiptNo}`);
  });

  test("a customer's and a supplier's taxpayer id in the merchant's authority's form: a KRA PIN for a ZRA merchant is a 422 naming the field", async () => {
    const customer = await h.post('/api/v1/customers', { name: 'Kenyan Buyer', tpin: 'P051234567X' });
    assert.equal(customer.statusCode, 422, customer.body);
    assert.match(customer.json().errors.tpin[0], /10 digits/);
    const both = await h.post('/api/v1/customers', { name: '', tpin: 'P051234567X' });
    assert.deepEqual(Object.keys(both.json().errors).sort(), ['name', 'tpin'], 'one 422 names every field');
    const purchase = await h.post('/api/v1/purchases', {
      supplier: { name: 'Nairobi Supplies', tpin: 'P051234567X' },
      supplierInvoiceNo: '77',
      items: [line],
    });
    assert.equal(purchase.statusCode, 422, purchase.body);
    assert.ok(Object.keys(purchase.json().errors).includes('supplier.tpin'), purchase.body);
  });

  test("/zm/api is Zambia's till dialect: a key of a merchant of another authority is a 403 not_this_dialect pointing to /api/v1", async () => {
    const m = await h.addMerchant({ branches: ['000'] });
    const row = await tenantOfPartner(h.ctx.db, m.partnerId, m.tenantId);
    const key = await mintApiKey(h.ctx.db, { type: 'cli' }, row, {});
    const sdcId = (await h.ctx.db.selectFrom('devices').select('sdc_id').where('tenant_id', '=', m.tenantId).executeTakeFirstOrThrow())
      .sdc_id!;
    const headers = { 'x-api-key': key.key, 'x-sdcid': sdcId };
    assert.equal((await h.t.inject({ method: 'GET', url: '/zm/api/TaxCodes', headers })).statusCode, 200, "a ZRA merchant's key works");
    // The merchant as a KRA one would be stored: the refusal needs no KRA adapter.
    await h.ctx.db.updateTable('tenants').set({ authority: 'kra' }).where('id', '=', m.tenantId).execute();
    const refused = await h.t.inject({ method: 'GET', url: '/zm/api/TaxCodes', headers });
    expectCoded(refused, 403, 'not_this_dialect');
    assert.match(refused.json().error.message, /\/api\/v1\/sales/);
    await h.ctx.db.updateTable('tenants').set({ authority: 'zra' }).where('id', '=', m.tenantId).execute();
  });

  /** A KRA merchant with an initialised OSCU branch 00 on the harness's simulator, and its tenant token. */
  async function kraMerchant(): Promise<{ token: string; tenantId: number }> {
    const partner = bearer(h.merchant.partnerSecret);
    const tenant = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: '/api/v1/tenants',
        headers: partner,
        payload: { name: 'Nairobi Traders', tpin: 'P051234567X', authority: 'kra' },
      }),
      201,
    ).data;
    expectStatus(
      await h.t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${tenant.id}/devices`,
        headers: partner,
        payload: { deviceSerial: 'KRA-1', branch: '00', vsdcBaseUrl: h.sim.urlOf('kra-oscu') },
      }),
      201,
    );
    expectStatus(await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/devices/00/initialize`, headers: partner }), 200);
    const token = expectStatus(
      await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/tokens`, headers: partner, payload: { name: 'till' } }),
      201,
    ).data.token as string;
    return { token, tenantId: tenant.id };
  }

  test('KRA: a currency other than KES, a debit note and a training document are 422s that say why; nothing stored', async (t) => {
    if (skipWithoutKra(t)) return;
    const { token, tenantId } = await kraMerchant();
    const post = (url: string, body: unknown) => h.t.inject({ method: 'POST', url, headers: bearer(token), payload: body as object });
    const usd = await post('/api/v1/sales', { items: [line], currency: 'USD', exchangeRate: 130 });
    assert.equal(usd.statusCode, 422, usd.body);
    assert.match(usd.json().errors.currency[0], /KES only/);
    const sale = expectStatus(await post('/api/v1/sales', { items: [line] }), 201).data;
    const debit = await post(`/api/v1/sales/${sale.id}/debit-note`, { reasonCode: '01', items: [line] });
    assert.equal(debit.statusCode, 422, debit.body);
    assert.match(debit.body, /no debit notes/);
    if (!AUTHORITY_PROFILES['kra-oscu']!.salesTypes.includes('training')) {
      const training = await post('/api/v1/sales', { items: [line], salesType: 'training' });
      assert.equal(training.statusCode, 422, training.body);
      assert.match(training.json().errors.salesType[0], /files no training documents/);
    }
    const stored = await h.ctx.db.selectFrom('sales').select('id').where('tenant_id', '=', tenantId).execute();
    assert.equal(stored.length, 1, 'only the one sale');
  });

  test('KRA: the credit-note rules (count per sale) are checked before anything is stored', async (t) => {
    if (skipWithoutKra(t)) return;
    const max = AUTHORITY_PROFILES['kra-oscu']!.creditNoteRules.maxPerOriginal;
    if (max === null) return t.skip('the KRA profile sets no count per sale');
    const { token } = await kraMerchant();
    const post = (url: string, body: unknown) => h.t.inject({ method: 'POST', url, headers: bearer(token), payload: body as object });
    const sale = expectStatus(await post('/api/v1/sales', { items: [{ ...line, quantity: max + 1 }] }), 201).data;
    for (let i = 0; i < max; i++)
      expectStatus(await post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 1 }] }), 201);
    expectCoded(
      await post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 1 }] }),
      422,
      'credit_note_rule',
    );
  });
});
