import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { printable } from '../../src/platform/lib/pdf-text.ts';
import { wantsPdf } from '../../src/domain/fiscal/receipts/routes.ts';
import { bearer } from '../helpers/app.ts';
import { engineName } from '../helpers/db.ts';
import { saleBody, startHarness, type Merchant, type Harness } from '../helpers/harness.ts';
import { pdfText } from '../helpers/pdf-text.ts';
import { eventually } from '../helpers/poll.ts';
import { invoiceBody, mintKey, nextNumber, sdcIdOf, zmGet, zmPost, type Till } from '../compat/helpers.ts';

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
    h = await startHarness({ config: { saleWaitMs: 2_000, vsdcProbeMs: 200 } });
    other = await h.addMerchant();
    await h.registerBranch(other, '000');
  });
  after(() => h.close());

  const receipt = (id: number, headers: Record<string, string> = {}, merchant?: Merchant) => h.get(`/api/v1/sales/${id}/receipt`, headers, merchant);

  const pdfReceipt = async (id: number) => {
    const res = await receipt(id, { accept: 'application/pdf' });
    assert.equal(res.statusCode, 200, res.body);
    return pdfText(res.rawPayload);
  };

  async function settledSale(id: number): Promise<Sale> {
    return eventually(async () => {
      const sale = (await h.get(`/api/v1/sales/${id}`)).json().data as Sale;
      return sale.status === 'pending' ? undefined : sale;
    }, `sale ${id} settled`);
  }

  async function uploadedSale(body = saleBody({ clientInvoiceNo: 'POS-77', paymentMethod: '08' }, [{ name: 'Maize <meal> & "salt"', quantity: 2, price: 116 }, { name: 'Export crate', price: 50, vatCategory: 'A' }])) {
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
    assert.ok(html.includes('<dt>Payment</dt><dd>Bank transfer</dd>'), 'payment type 08 in the authority\'s words');
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

  // ---- copies, notes, any name (issue 21 part 5) ----

  test('the first print is the original; every later one (HTML or PDF) says COPY', async () => {
    const sale = await uploadedSale();
    const first = await receipt(sale.id);
    assert.equal(first.statusCode, 200);
    assert.ok(!first.body.includes('class="copy"'), 'the original is not marked');
    assert.doesNotMatch(first.body, /<title>COPY/);
    const second = await receipt(sale.id);
    assert.match(second.body, /<p class="copy"[^>]*>COPY<\/p>/);
    assert.match(second.body, /<title>COPY TAX INVOICE/);
    assert.match(await pdfReceipt(sale.id), /\*\*\* COPY \*\*\*/);

    // A PDF as the first print is the original too.
    const fresh = await uploadedSale();
    const original = await pdfReceipt(fresh.id);
    assert.match(original, /TAX INVOICE/);
    assert.doesNotMatch(original, /COPY/);
    assert.match(await pdfReceipt(fresh.id), /\*\*\* COPY \*\*\*/);
    const row = await h.ctx.db.selectFrom('sales').select(['receipt_print_count', 'receipt_printed_at']).where('id', '=', fresh.id).executeTakeFirstOrThrow();
    assert.equal(row.receipt_print_count, 2);
    assert.ok(row.receipt_printed_at);

    // A document that is not printable counts no print.
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const pending = (await h.post('/api/v1/sales', saleBody())).json().data as Sale;
    assert.equal((await receipt(pending.id)).statusCode, 409);
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    const filed = await eventually(async () => {
      const s = (await h.get(`/api/v1/sales/${pending.id}`)).json().data as Sale;
      return s.status === 'uploaded' ? s : undefined;
    }, 'pending sale uploaded');
    assert.ok(!(await receipt(filed.id)).body.includes('class="copy"'), 'the refused print did not count');
  });

  test('a credit or debit note\'s receipt names the original invoice, its receipt number and the reason', async () => {
    const sale = await uploadedSale(saleBody({}, [{ quantity: 2 }]));
    const credit = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
    assert.equal(credit.statusCode, 201, credit.body);
    assert.equal(credit.json().data.status, 'uploaded');
    const html = (await receipt(credit.json().data.id)).body;
    assert.match(html, /CREDIT NOTE/);
    assert.ok(html.includes(`<dt>Original invoice</dt><dd>${sale.authorityInvoiceNo}</dd>`), html);
    assert.ok(html.includes(`<dt>Original receipt No</dt><dd>${sale.fiscal.receiptNo}</dd>`));
    assert.ok(html.includes('<dt>Reason</dt><dd>03 Damaged goods</dd>'));
    const text = await pdfReceipt(credit.json().data.id);
    for (const expected of ['Original invoice', sale.authorityInvoiceNo!, 'Original receipt No', '03 Damaged goods']) assert.ok(text.includes(expected), `PDF shows ${expected}`);

    const debit = await h.post(`/api/v1/sales/${sale.id}/debit-note`, { reasonCode: '02', items: [{ name: 'Price correction', classificationCode: '50221200', quantity: 1, price: 10 }] });
    assert.equal(debit.statusCode, 201, debit.body);
    const debitHtml = (await receipt(debit.json().data.id)).body;
    assert.match(debitHtml, /DEBIT NOTE/);
    assert.ok(debitHtml.includes(`<dd>${sale.authorityInvoiceNo}</dd>`));
    assert.ok(debitHtml.includes('<dt>Reason</dt><dd>02 Wrong invoice amount</dd>'));
    assert.ok(!(await receipt(sale.id)).body.includes('Original invoice'), 'a sale names no original');
  });

  test('the PDF prints Chinese, Cyrillic, Greek and Bemba/Nyanja names; only characters no embedded font has become "?"', async () => {
    const names = { merchant: '张伟贸易有限公司', branch: 'Лусака 東京', customer: 'Ελένη Παπαδοπούλου 王芳', item: 'Молоко Ŋombe ŵa Chibwe', cjk: '茶叶 緑茶 ひらがな' };
    const before = await h.ctx.db.selectFrom('devices').select(['id', 'taxpayer_name', 'branch_name']).where('tenant_id', '=', h.merchant.tenantId).where('branch', '=', '000').executeTakeFirstOrThrow();
    await h.ctx.db.updateTable('devices').set({ taxpayer_name: names.merchant, branch_name: names.branch }).where('id', '=', before.id).execute();
    try {
      const sale = await uploadedSale(saleBody({ customer: { name: names.customer } }, [{ name: names.item }, { name: `Tea ${names.cjk}` }, { name: 'Map 🗺 한' }]));
      const res = await receipt(sale.id, { accept: 'application/pdf' });
      assert.ok(res.rawPayload.length < 80_000, `the CJK glyphs are embedded as a subset (${res.rawPayload.length} bytes)`);
      const text = pdfText(res.rawPayload);
      for (const name of [names.merchant, names.branch, names.customer, names.item, `Tea ${names.cjk}`]) assert.ok(text.includes(name), `${name} in ${text}`);
      assert.ok(text.includes('Map ? ?'), 'emoji and Hangul, which no embedded font has, are "?"');
    } finally {
      await h.ctx.db.updateTable('devices').set({ taxpayer_name: before.taxpayer_name, branch_name: before.branch_name }).where('id', '=', before.id).execute();
    }
    assert.equal(printable('Ŋ ŵ é Ж λ 张伟'), 'Ŋ ŵ é Ж λ 张伟');
  });

  test('compat: the POST answer of an uploaded invoice is the original print; a Signature reprint says ReceiptCopy', async () => {
    const till: Till = { key: (await mintKey(h, h.merchant)).key, sdcId: await sdcIdOf(h, h.merchant) };
    const filed = await zmPost(h, '/zm/api/Invoice', till, invoiceBody(nextNumber()));
    assert.equal(filed.statusCode, 201, filed.body);
    assert.equal(filed.json().Status, 'uploaded');
    assert.equal(filed.json().ReceiptCopy, undefined, 'only a reprint carries it');
    const reprint = await zmGet(h, `/zm/api/Signature/${filed.json().InvoiceNumber}`, till);
    assert.equal(reprint.statusCode, 200, reprint.body);
    assert.equal(reprint.json().ReceiptCopy, true);
    assert.equal(reprint.json().ReceiptSignature, filed.json().ReceiptSignature);

    // Pending when posted (nothing printable): the first Signature read after the upload is the original.
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const queued = await zmPost(h, '/zm/api/Invoice', till, invoiceBody(nextNumber()));
    assert.equal(queued.json().Status, 'pending');
    const early = await zmGet(h, `/zm/api/Signature/${queued.json().InvoiceNumber}`, till);
    assert.equal(early.json().ReceiptCopy, false);
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    const first = await eventually(async () => {
      const res = await zmGet(h, `/zm/api/Signature/${queued.json().InvoiceNumber}`, till);
      return res.json().Status === 'uploaded' ? res : undefined;
    }, 'till invoice uploaded');
    assert.equal(first.json().ReceiptCopy, false);
    assert.equal((await zmGet(h, `/zm/api/Signature/${queued.json().InvoiceNumber}`, till)).json().ReceiptCopy, true);
  });
});
