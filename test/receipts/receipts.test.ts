import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { wantsPdf } from '../../src/modules/receipts/routes.ts';
import { bearer } from '../helpers/app.ts';
import { engineName } from '../helpers/db.ts';
import { saleBody, startHarness, type Merchant, type Harness } from '../helpers/harness.ts';
import { eventually } from '../helpers/poll.ts';

interface Sale {
  id: number;
  status: string;
  invoiceNo: number;
  authorityInvoiceNo: string | null;
  fiscal: { receiptNo: number; sdcId: string; mrcNo: string; internalData: string; receiptSignature: string; qrCodeUrl: string; publishedAt: string };
}

describe(`printable receipts (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 300 } });
    other = await h.addMerchant();
    await h.registerBranch(other, '000');
  });
  after(() => h.close());

  const receipt = (id: number, headers: Record<string, string> = {}, merchant?: Merchant) => h.get(`/api/v1/sales/${id}/receipt`, headers, merchant);

  async function settledSale(id: number): Promise<Sale> {
    return eventually(async () => {
      const sale = (await h.get(`/api/v1/sales/${id}`)).json().data as Sale;
      return sale.status === 'pending' ? undefined : sale;
    }, `sale ${id} settled`);
  }

  async function uploadedSale(body = saleBody({ clientInvoiceNo: 'POS-77' }, [{ name: 'Maize <meal> & "salt"', quantity: 2, price: 116 }, { name: 'Export crate', price: 50, vatCategory: 'A' }])) {
    const res = await h.post('/api/v1/sales', body);
    assert.equal(res.statusCode, 201, res.body);
    const sale = await settledSale(res.json().data.id);
    assert.equal(sale.status, 'uploaded');
    return sale;
  }

  test('HTML (the default) carries every field the authority prints, and escapes what the merchant typed', async () => {
    const sale = await uploadedSale();
    const res = await receipt(sale.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.headers['content-security-policy'] as string, /default-src 'none'/);
    const html = res.body;
    const device = await h.ctx.db.selectFrom('devices').select(['taxpayer_name', 'branch']).where('tenant_id', '=', h.merchant.tenantId).executeTakeFirstOrThrow();
    for (const expected of [
      device.taxpayer_name ?? 'Test merchant',
      h.merchant.tpin,
      'Branch: 000',
      sale.fiscal.sdcId,
      sale.fiscal.mrcNo,
      String(sale.fiscal.receiptNo),
      sale.authorityInvoiceNo!,
      String(sale.invoiceNo),
      sale.fiscal.internalData,
      sale.fiscal.receiptSignature,
      `${sale.fiscal.publishedAt.slice(0, 10)} ${sale.fiscal.publishedAt.slice(11, 19)} UTC`,
      'TAX INVOICE',
      'POS-77',
      'Totals per VAT category',
      'A 16%',
    ]) {
      assert.ok(html.includes(expected), `the receipt shows ${expected}`);
    }
    assert.ok(html.includes('Maize &lt;meal&gt; &amp; &quot;salt&quot;'), 'item names are escaped');
    assert.ok(!html.includes('<meal>'));
    assert.match(html, /<svg class="qr"/, 'a QR code');
    assert.ok(html.includes(sale.fiscal.qrCodeUrl.replace(/&/g, '&amp;')), 'the QR code names its URL');
    assert.match(html, /size: 80mm/);
  });

  test('Accept: application/pdf gives one PDF', async () => {
    const sale = await uploadedSale();
    const res = await receipt(sale.id, { accept: 'application/pdf' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(res.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(res.rawPayload.length > 1_000);
    assert.match(res.headers['content-disposition'] as string, /^inline; filename="receipt-[A-Za-z0-9-]+\.pdf"$/);
  });

  test('a pending or failed document is not printable: 409 receipt_not_available', async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const pending = await h.post('/api/v1/sales', saleBody());
    assert.equal(pending.json().data.status, 'pending');
    for (const accept of [undefined, 'application/pdf']) {
      const res = await receipt(pending.json().data.id, accept ? { accept } : {});
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().error.code, 'receipt_not_available');
      assert.match(res.json().error.message, /pending/);
    }
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    await settledSale(pending.json().data.id);

    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    const refused = await h.post('/api/v1/sales', saleBody());
    const failed = await settledSale(refused.json().data.id);
    assert.equal(failed.status, 'failed');
    const res = await receipt(failed.id);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'receipt_not_available');
    assert.match(res.json().error.message, /refused/);
  });

  test('another merchant\'s sale is a 404, on the merchant and on the partner route', async () => {
    const sale = await uploadedSale();
    const foreign = await receipt(sale.id, {}, other);
    assert.equal(foreign.statusCode, 404);
    assert.equal(typeof foreign.json().message, 'string');

    const own = await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${sale.id}/receipt`, headers: { ...bearer(h.merchant.partnerSecret), accept: 'application/pdf' } });
    assert.equal(own.statusCode, 200);
    assert.equal(own.rawPayload.subarray(0, 4).toString('latin1'), '%PDF');
    const otherPartner = await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${sale.id}/receipt`, headers: bearer(other.partnerSecret) });
    assert.equal(otherPartner.statusCode, 404);
    const wrongTenant = await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${other.tenantId}/sales/${sale.id}/receipt`, headers: bearer(other.partnerSecret) });
    assert.equal(wrongTenant.statusCode, 404, 'the sale is not that merchant\'s');
  });

  test('content negotiation prefers what the Accept header prefers', () => {
    assert.equal(wantsPdf(undefined), false);
    assert.equal(wantsPdf('*/*'), false);
    assert.equal(wantsPdf('application/pdf'), true);
    assert.equal(wantsPdf('text/html, application/pdf;q=0.5'), false);
    assert.equal(wantsPdf('text/html;q=0.4, application/pdf'), true);
    assert.equal(wantsPdf('application/pdf;q=0'), false);
  });
});
