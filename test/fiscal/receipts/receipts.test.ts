// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { printable } from '../../../src/platform/lib/pdf-text.ts';
import { wantsPdf } from '../../../src/domain/fiscal/receipts/routes.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';
import { pdfText } from '../../helpers/pdf-text.ts';
import { eventually } from '../../helpers/poll.ts';
import { invoiceBody, mintKey, nextNumber, sdcIdOf, zmGet, zmPost, type Till } from '../compat/helpers.ts';

/** `iso` as a Lusaka receipt prints it: local time (UTC+2, no daylight saving) and CAT. */
function lusaka(iso: string): string {
  const local = new Date(Date.parse(iso) + 2 * 3_600_000).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 19)} CAT`;
}

interface Sale {
  id: number;
  status: string;
  invoiceNo: number;
  authorityInvoiceNo: string | null;
  fiscal: {
    receiptNo: number;
    sdcId: string;
    mrcNo: string;
    internalData: string;
    receiptSignature: string;
    qrCodeUrl: string;
    publishedAt: string;
  };
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

  const receipt = (id: number, headers: Record<string, string> = {}, merchant?: Merchant) =>
    h.get(`/api/v1/sales/${id}/receipt`, headers, merchant);

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

  async function uploadedSale(
    body = saleBody({ clientInvoiceNo: 'POS-77', paymentMethod: '08' }, [
      { name: 'Maize <meal> & "salt"', quantity: 2, price: 116 },
      { name: 'Export crate', price: 50, vatCategory: 'A' },
    ]),
  ) {
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
    const tenant = await h.ctx.db.selectFrom('tenants').select(['name']).where('id', '=', h.merchant.tenantId).executeTakeFirstOrThrow();
    for (const expected of [
      `<h1>${tenant.name}</h1>`,
      h.merchant.tpin,
      'Branch: 000',
      sale.fiscal.sdcId,
      sale.fiscal.mrcNo,
      String(sale.fiscal.receiptNo),
      sale.authorityInvoiceNo!,
      String(sale.invoiceNo),
      sale.fiscal.internalData,
      sale.fiscal.receiptSignature,
      `<dt>VSDC date</dt><dd class="time">${lusaka(sale.fiscal.publishedAt)}</dd>`,
      'TAX INVOICE',
      'POS-77',
      'Totals per VAT category',
      'A 16%',
    ]) {
      assert.ok(html.includes(expected), `the receipt shows ${expected}`);
    }
    assert.ok(html.includes('<dt>Payment</dt><dd>Bank transfer</dd>'), "payment type 08 in the authority's words");
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

  test("another merchant's sale is a 404, on the merchant and on the partner route", async () => {
    const sale = await uploadedSale();
    const foreign = await receipt(sale.id, {}, other);
    assert.equal(foreign.statusCode, 404);
    assert.equal(typeof foreign.json().message, 'string');

    const own = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${sale.id}/receipt`,
      headers: { ...bearer(h.merchant.partnerSecret), accept: 'application/pdf' },
    });
    assert.equal(own.statusCode, 200);
    assert.equal(own.rawPayload.subarray(0, 4).toString('latin1'), '%PDF');
    const otherPartner = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${sale.id}/receipt`,
      headers: bearer(other.partnerSecret),
    });
    assert.equal(otherPartner.statusCode, 404);
    const wrongTenant = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${other.tenantId}/sales/${sale.id}/receipt`,
      headers: bearer(other.partnerSecret),
    });
    assert.equal(wrongTenant.statusCode, 404, "the sale is not that merchant's");
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
    const row = await h.ctx.db
      .selectFrom('sales')
      .select(['receipt_print_count', 'receipt_printed_at'])
      .where('id', '=', fresh.id)
      .executeTakeFirstOrThrow();
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

  // ---- preview and file names (issue 34 item 4) ----

  test('preview=true prints nothing: marked PREVIEW — NOT A RECEIPT, never COPY, and the next print is still the original', async () => {
    const sale = await uploadedSale();
    const printsOf = async () =>
      (await h.ctx.db.selectFrom('sales').select('receipt_print_count').where('id', '=', sale.id).executeTakeFirstOrThrow())
        .receipt_print_count;

    const preview = await h.get(`/api/v1/sales/${sale.id}/receipt?preview=true`);
    assert.equal(preview.statusCode, 200, preview.body);
    assert.match(preview.body, /<p class="preview" role="note">PREVIEW — NOT A RECEIPT<\/p>/);
    assert.match(preview.body, /<title>PREVIEW — NOT A RECEIPT: TAX INVOICE /);
    assert.ok(preview.body.includes('Not printed yet: the next print is the original.'));
    assert.ok(!preview.body.includes('class="copy"'), 'a preview is no copy either');
    const pdfPreview = await h.get(`/api/v1/sales/${sale.id}/receipt?preview=true`, { accept: 'application/pdf' });
    assert.equal(pdfPreview.statusCode, 200);
    const pdfPreviewText = pdfText(pdfPreview.rawPayload);
    assert.ok(pdfPreviewText.includes('*** PREVIEW — NOT A RECEIPT ***'), pdfPreviewText);
    assert.doesNotMatch(pdfPreviewText, /\*\*\* COPY \*\*\*/);
    assert.equal(await printsOf(), 0, 'previews count no print');

    const first = await receipt(sale.id);
    assert.ok(!first.body.includes('class="copy"') && !first.body.includes('PREVIEW'), 'the first print after previews is the original');
    const afterPrint = await h.get(`/api/v1/sales/${sale.id}/receipt?preview=true`);
    assert.ok(afterPrint.body.includes('Printed 1 time: the next print says COPY.'));
    assert.ok(!afterPrint.body.includes('class="copy"'));
    const partnerPreview = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${sale.id}/receipt?preview=true`,
      headers: bearer(h.merchant.partnerSecret),
    });
    assert.equal(partnerPreview.statusCode, 200);
    assert.ok(partnerPreview.body.includes('PREVIEW — NOT A RECEIPT'));
    assert.equal(await printsOf(), 1, 'only the real print counted');
    assert.match((await receipt(sale.id)).body, /<p class="copy"[^>]*>COPY<\/p>/, 'the second real print is the COPY');
    const reprints = await h.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'sale.reprinted')
      .where('target_id', '=', String(sale.id))
      .execute();
    assert.equal(reprints.length, 1, 'a preview is no reprint in the audit trail');

    const bad = await h.get(`/api/v1/sales/${sale.id}/receipt?preview=maybe`);
    assert.equal(bad.statusCode, 422, bad.body);
    assert.deepEqual(bad.json().errors, { preview: ['The preview field must be true or false.'] });
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const pending = (await h.post('/api/v1/sales', saleBody())).json().data as Sale;
    const pendingPreview = await h.get(`/api/v1/sales/${pending.id}/receipt?preview=true`);
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    assert.equal(pendingPreview.statusCode, 409, 'a pending document has nothing to preview either');
    await settledSale(pending.id);
  });

  test('the file is named after the document: receipt-, credit-note-, debit-note-, training-, with -copy or -preview', async () => {
    const fileOf = (res: { headers: Record<string, unknown> }) =>
      /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))?.[1];
    const sale = await uploadedSale(saleBody({}, [{ quantity: 2 }]));
    const number = sale.authorityInvoiceNo!.replace('/', '-');
    const pdf = { accept: 'application/pdf' };
    assert.equal(fileOf(await h.get(`/api/v1/sales/${sale.id}/receipt?preview=true`, pdf)), `receipt-${number}-preview.pdf`);
    assert.equal(fileOf(await receipt(sale.id, pdf)), `receipt-${number}.pdf`);
    assert.equal(fileOf(await receipt(sale.id, pdf)), `receipt-${number}-copy.pdf`);
    assert.equal(fileOf(await receipt(sale.id)), `receipt-${number}-copy.html`);

    const credit = (await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] })).json()
      .data as Sale;
    assert.equal(credit.status, 'uploaded');
    assert.equal(fileOf(await receipt(credit.id, pdf)), `credit-note-${credit.authorityInvoiceNo!.replace('/', '-')}.pdf`);
    const debit = (
      await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
        reasonCode: '02',
        items: [{ name: 'Price correction', classificationCode: '50221200', quantity: 1, price: 10 }],
      })
    ).json().data as Sale;
    assert.equal(
      fileOf(await h.get(`/api/v1/sales/${debit.id}/receipt?preview=true`)),
      `debit-note-${debit.authorityInvoiceNo!.replace('/', '-')}-preview.html`,
    );
    const training = await uploadedSale(saleBody({ salesType: 'training' }));
    assert.equal(fileOf(await receipt(training.id, pdf)), `training-receipt-${training.authorityInvoiceNo!.replace('/', '-')}.pdf`);
  });

  test("a credit or debit note's receipt names the original invoice, its receipt number and the reason", async () => {
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
    for (const expected of ['Original invoice', sale.authorityInvoiceNo!, 'Original receipt No', '03 Damaged goods'])
      assert.ok(text.includes(expected), `PDF shows ${expected}`);

    const debit = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '02',
      items: [{ name: 'Price correction', classificationCode: '50221200', quantity: 1, price: 10 }],
    });
    assert.equal(debit.statusCode, 201, debit.body);
    const debitHtml = (await receipt(debit.json().data.id)).body;
    assert.match(debitHtml, /DEBIT NOTE/);
    assert.ok(debitHtml.includes(`<dd>${sale.authorityInvoiceNo}</dd>`));
    assert.ok(debitHtml.includes('<dt>Reason</dt><dd>02 Wrong invoice amount</dd>'));
    assert.ok(!(await receipt(sale.id)).body.includes('Original invoice'), 'a sale names no original');
  });

  test('the PDF prints Chinese, Cyrillic, Greek and Bemba/Nyanja names; only characters no embedded font has become "?"', async () => {
    const names = {
      merchant: '张伟贸易有限公司',
      branch: 'Лусака 東京',
      customer: 'Ελένη Παπαδοπούλου 王芳',
      item: 'Молоко Ŋombe ŵa Chibwe',
      cjk: '茶叶 緑茶 ひらがな',
    };
    const before = await h.ctx.db
      .selectFrom('devices')
      .select(['id', 'branch_name'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('branch', '=', '000')
      .executeTakeFirstOrThrow();
    const tenantBefore = await h.ctx.db
      .selectFrom('tenants')
      .select('name')
      .where('id', '=', h.merchant.tenantId)
      .executeTakeFirstOrThrow();
    await h.ctx.db.updateTable('devices').set({ branch_name: names.branch }).where('id', '=', before.id).execute();
    await h.ctx.db.updateTable('tenants').set({ name: names.merchant }).where('id', '=', h.merchant.tenantId).execute();
    try {
      const sale = await uploadedSale(
        saleBody({ customer: { name: names.customer } }, [{ name: names.item }, { name: `Tea ${names.cjk}` }, { name: 'Map 🗺 한' }]),
      );
      const res = await receipt(sale.id, { accept: 'application/pdf' });
      assert.ok(res.rawPayload.length < 80_000, `the CJK glyphs are embedded as a subset (${res.rawPayload.length} bytes)`);
      const text = pdfText(res.rawPayload);
      for (const name of [names.merchant, names.branch, names.customer, names.item, `Tea ${names.cjk}`])
        assert.ok(text.includes(name), `${name} in ${text}`);
      assert.ok(text.includes('Map ? ?'), 'emoji and Hangul, which no embedded font has, are "?"');
    } finally {
      await h.ctx.db.updateTable('devices').set({ branch_name: before.branch_name }).where('id', '=', before.id).execute();
      await h.ctx.db.updateTable('tenants').set({ name: tenantBefore.name }).where('id', '=', h.merchant.tenantId).execute();
    }
    assert.equal(printable('Ŋ ŵ é Ж λ 张伟'), 'Ŋ ŵ é Ж λ 张伟');
  });

  // ---- lawful tax invoices (issue 32 item 6) ----

  /** Runs `body` with the merchant's timezone set to `zone`, then puts it back. */
  async function inZone<T>(zone: string, body: () => Promise<T>): Promise<T> {
    const { timezone } = await h.ctx.db
      .selectFrom('tenants')
      .select('timezone')
      .where('id', '=', h.merchant.tenantId)
      .executeTakeFirstOrThrow();
    await h.ctx.db.updateTable('tenants').set({ timezone: zone }).where('id', '=', h.merchant.tenantId).execute();
    try {
      return await body();
    } finally {
      await h.ctx.db.updateTable('tenants').set({ timezone }).where('id', '=', h.merchant.tenantId).execute();
    }
  }

  test("times are the merchant's local time with the zone, and the date is the local one across midnight", async () => {
    // 22:30:05 UTC yesterday is 00:30:05 today in Lusaka: the receipt says today.
    const yesterday = new Date(Date.now() - 86_400_000);
    const at = new Date(Date.UTC(yesterday.getUTCFullYear(), yesterday.getUTCMonth(), yesterday.getUTCDate(), 22, 30, 5));
    const sale = await uploadedSale(saleBody({ occurredAt: at.toISOString() }));
    const today = new Date(at.getTime() + 86_400_000).toISOString().slice(0, 10);
    const html = (await receipt(sale.id)).body;
    assert.ok(html.includes(`<dt>Date</dt><dd class="time">${today} 00:30:05 CAT</dd>`), html);
    assert.ok(html.includes(`<dt>VSDC date</dt><dd class="time">${lusaka(sale.fiscal.publishedAt)}</dd>`));
    assert.doesNotMatch(html, / UTC</);
    const pdf = await pdfReceipt(sale.id);
    assert.ok(pdf.includes(`${today} 00:30:05 CAT`), pdf);
    assert.ok(pdf.includes(lusaka(sale.fiscal.publishedAt)));

    // A zone with no well-known abbreviation prints its offset; one behind UTC, the earlier day.
    await inZone('Asia/Kolkata', async () => {
      assert.ok((await receipt(sale.id)).body.includes(`<dd class="time">${today} 04:00:05 +05:30</dd>`));
    });
    await inZone('America/Sao_Paulo', async () => {
      const text = await pdfReceipt(sale.id);
      assert.ok(text.includes(`${at.toISOString().slice(0, 10)} 19:30:05 -03:00`), text);
    });
  });

  test("the supplier block: the merchant's registered name (not the VSDC's taxpayer name), TPIN, branch and the address from the authority's register", async () => {
    const device = await h.ctx.db
      .selectFrom('devices')
      .select(['id', 'taxpayer_name'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('branch', '=', '000')
      .executeTakeFirstOrThrow();
    const tenant = await h.ctx.db.selectFrom('tenants').select('name').where('id', '=', h.merchant.tenantId).executeTakeFirstOrThrow();
    const registered = await h.ctx.db.selectFrom('authority_branches').selectAll().where('tenant_id', '=', h.merchant.tenantId).execute();
    await h.ctx.db.updateTable('devices').set({ taxpayer_name: 'SIMULATED TAXPAYER LTD' }).where('id', '=', device.id).execute();
    await h.ctx.db.deleteFrom('authority_branches').where('tenant_id', '=', h.merchant.tenantId).execute();
    await h.ctx.db
      .insertInto('authority_branches')
      .values({
        tenant_id: h.merchant.tenantId,
        branch: '000',
        name: 'Head office',
        status_code: '01',
        opened_on: '20240101',
        province: 'LUSAKA PROVINCE',
        district: 'LUSAKA',
        sector: 'LUSAKA CENTRAL',
        location: 'Plot 12, Cairo Road',
        headquarters: true,
        manager_name: null,
        manager_phone: null,
        manager_email: null,
        branch_record: '{}',
      })
      .execute();
    try {
      const sale = await uploadedSale();
      const html = (await receipt(sale.id)).body;
      assert.ok(html.includes(`<h1>${tenant.name}</h1>`), 'the registered name heads the receipt');
      assert.ok(!html.includes('SIMULATED TAXPAYER LTD'), "never the VSDC's taxpayer name");
      assert.ok(html.includes(`TPIN: ${h.merchant.tpin}`));
      assert.ok(html.includes('Branch: 000'));
      const address = 'Plot 12, Cairo Road, LUSAKA CENTRAL, LUSAKA, LUSAKA PROVINCE';
      assert.ok(html.includes(`<span class="address">${address}</span>`), html);
      const pdf = (await pdfReceipt(sale.id)).replace(/\s+/g, ' '); // a long line wraps
      for (const expected of [tenant.name, `TPIN: ${h.merchant.tpin}`, address]) assert.ok(pdf.includes(expected), `PDF shows ${expected}`);
      assert.ok(!pdf.includes('SIMULATED TAXPAYER LTD'));

      // No entry in the register: no address is made up, the rest is printed.
      await h.ctx.db.deleteFrom('authority_branches').where('tenant_id', '=', h.merchant.tenantId).execute();
      const bare = (await receipt(sale.id)).body;
      assert.ok(!bare.includes('class="address"'));
      assert.ok(!bare.includes('Cairo Road'));
      assert.ok(bare.includes(`<h1>${tenant.name}</h1>`) && bare.includes(`TPIN: ${h.merchant.tpin}`) && bare.includes('Branch: 000'));
    } finally {
      await h.ctx.db.updateTable('devices').set({ taxpayer_name: device.taxpayer_name }).where('id', '=', device.id).execute();
      await h.ctx.db.deleteFrom('authority_branches').where('tenant_id', '=', h.merchant.tenantId).execute();
      for (const row of registered)
        await h.ctx.db
          .insertInto('authority_branches')
          .values({ ...row, branch_record: JSON.stringify(row.branch_record) })
          .execute();
    }
  });

  test('the customer block and every minimum feature of a tax invoice, HTML and PDF', async () => {
    const sale = await uploadedSale(
      saleBody(
        { customer: { name: 'Copperbelt Mining Supplies Limited', tpin: '2000000002', address: 'Plot 4, Independence Ave, Kitwe' } },
        [
          { name: 'Drill bits', quantity: 2, price: 116, discount: 23.2 },
          { name: 'Export crate', price: 50, vatCategory: 'A' },
        ],
      ),
    );
    const html = (await receipt(sale.id)).body;
    for (const expected of [
      '<p class="title">TAX INVOICE</p>',
      `TPIN: ${h.merchant.tpin}`,
      '<dt>Date</dt>',
      `<dt>Invoice No</dt><dd>${sale.authorityInvoiceNo}</dd>`,
      `<dt>Invoice seq.</dt><dd>${sale.invoiceNo}</dd>`,
      '<dt>Customer</dt><dd>Copperbelt Mining Supplies Limited</dd>',
      '<dt>Customer TPIN</dt><dd>2000000002</dd>',
      '<dt>Customer address</dt><dd>Plot 4, Independence Ave, Kitwe</dd>',
      '<dt>Invoice type</dt><dd>Normal Sale</dd>',
      '2 × 116.00',
      'Discount 10%',
      '<td colspan="2">Excl. VAT</td>',
      'A 16%',
      'Total excl. VAT',
      'Total discount',
      'Total VAT',
      'TOTAL incl. VAT',
      `<dt>SDC ID</dt><dd>${sale.fiscal.sdcId}</dd>`,
      '<dt>VSDC date</dt>',
      sale.fiscal.internalData,
      sale.fiscal.receiptSignature,
    ])
      assert.ok(html.includes(expected), `the receipt shows ${expected}`);
    assert.match(html, /<svg class="qr"/);
    const pdf = (await pdfReceipt(sale.id)).replace(/\s+/g, ' '); // a long line wraps
    for (const expected of [
      'TAX INVOICE',
      'Customer address',
      'Plot 4, Independence Ave, Kitwe',
      'Normal Sale',
      'Excl. VAT',
      'Discount 10%',
      'Total discount',
      'TOTAL incl. VAT',
      'VSDC date',
      sale.fiscal.sdcId,
      'Internal data:',
      'Receipt signature:',
    ]) {
      assert.ok(pdf.includes(expected), `PDF shows ${expected}`);
    }

    // No address: no empty line.
    const plain = await uploadedSale();
    assert.ok(!(await receipt(plain.id)).body.includes('Customer address'));
  });

  test('training and proforma documents carry a NOT A TAX INVOICE banner instead of the title; the invoice type in words', async () => {
    const sale = await uploadedSale(saleBody({}, [{ quantity: 2 }]));
    const credit = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
    assert.equal(credit.json().data.status, 'uploaded', credit.body);
    const creditId = credit.json().data.id as number;
    const normalCredit = (await receipt(creditId)).body;
    assert.ok(normalCredit.includes('<p class="title">CREDIT NOTE</p>') && normalCredit.includes('<dd>Normal Credit note</dd>'));

    const training = await uploadedSale(saleBody({ salesType: 'training' }, [{ quantity: 2 }]));
    const proforma = await uploadedSale(saleBody({ salesType: 'proforma' }));
    const trainingCredit = await h.post(`/api/v1/sales/${training.id}/credit-note`, {
      reasonCode: '03',
      items: [{ line: 1, quantity: 1 }],
    });
    assert.equal(trainingCredit.json().data.status, 'uploaded', trainingCredit.body);
    const cases = [
      { id: training.id, banner: 'TRAINING — NOT A TAX INVOICE', words: 'Training Sale' },
      { id: proforma.id, banner: 'PROFORMA — NOT A TAX INVOICE', words: 'Proforma Sale' },
      { id: trainingCredit.json().data.id as number, banner: 'TRAINING — NOT A TAX INVOICE', words: 'Training Credit note' },
    ] as const;
    for (const c of cases) {
      const html = (await receipt(c.id)).body;
      assert.ok(html.includes(`<p class="banner" role="note">${c.banner}</p>`), html);
      assert.ok(html.includes(`<dt>Invoice type</dt><dd>${c.words}</dd>`));
      assert.ok(!html.includes('<p class="title">'), 'no TAX INVOICE / CREDIT NOTE title');
      assert.ok(!html.includes('TAX INVOICE</p>') || html.includes('NOT A TAX INVOICE</p>'));
      assert.ok(!html.includes("Fiscal receipt issued through the authority's VSDC."));
      const pdf = await pdfReceipt(c.id);
      assert.ok(pdf.includes(`*** ${c.banner} ***`), pdf);
      assert.ok(pdf.includes(c.words));
      assert.ok(!pdf.includes('CREDIT NOTE'));
    }
    const debit = await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '02',
      items: [{ name: 'Price correction', classificationCode: '50221200', quantity: 1, price: 10 }],
    });
    assert.equal(debit.statusCode, 201, debit.body);
    const debitHtml = (await receipt(debit.json().data.id)).body;
    assert.ok(debitHtml.includes('<p class="title">DEBIT NOTE</p>') && debitHtml.includes('<dd>Normal Debit note</dd>'));
  });

  test('a foreign-currency invoice: amounts with the currency code, the exchange rate and the kwacha total; LPO and principal when present', async () => {
    const sale = await uploadedSale(saleBody({}, [{ quantity: 2, price: 116 }]));
    const plain = (await receipt(sale.id)).body;
    assert.ok(!plain.includes('Exchange rate') && !plain.includes('LPO No') && !plain.includes('Principal'));
    assert.ok(plain.includes('ZMW 232.00'), 'a kwacha invoice shows ZMW');

    // An RVAT principal the authority lists for the merchant (as the principals pull stores it).
    await h.ctx.db
      .insertInto('principals')
      .values({
        tenant_id: h.merchant.tenantId,
        principal_id: 'PR-7',
        tpin: '1002003004',
        name: 'Zamtel Ltd',
        address: null,
        email: null,
        tel: null,
        account_no: null,
        principal: JSON.stringify({ id: 'PR-7' }),
      })
      .execute();
    const foreign = await uploadedSale(
      saleBody({ currency: 'USD', exchangeRate: 27.15, lpoNumber: 'LPO-2026-0042', principalId: 'PR-7' }, [
        { quantity: 2, price: 116, vatCategory: 'C2' },
      ]),
    );
    const html = (await receipt(foreign.id)).body;
    for (const expected of [
      '<dt>Currency</dt><dd>USD</dd>',
      'Amount USD',
      'TOTAL incl. VAT</td><td class="num">USD 232.00',
      'Exchange rate: 1 USD = 27.1500 ZMW',
      'Total in ZMW</td><td class="num">ZMW 6,298.80',
      '<dt>LPO No</dt><dd>LPO-2026-0042</dd>',
      '<dt>Principal</dt><dd>PR-7</dd>',
    ])
      assert.ok(html.includes(expected), `the receipt shows ${expected}`);
    const pdf = await pdfReceipt(foreign.id);
    for (const expected of ['USD 232.00', 'Exchange rate: 1 USD = 27.1500 ZMW', 'Total in ZMW', 'ZMW 6,298.80', 'LPO-2026-0042', 'PR-7'])
      assert.ok(pdf.includes(expected), `PDF shows ${expected}`);
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
