import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { exportDocumentsToFile, parseExportArgs } from '../../../src/app/cli/export.ts';
import { UsageError } from '../../../src/app/cli/output.ts';
import { main } from '../../../src/main.ts';
import { dayOf } from '../../../src/platform/lib/time-zones.ts';
import { EXPORT_COLUMNS } from '../../../src/domain/fiscal/reports/export.ts';
import { negotiateReport } from '../../../src/domain/fiscal/reports/report-replies.ts';
import { Money } from '../../../src/authorities/zra-vsdc/tax.ts';
import { bearer, TEST_ADMIN_TOKEN } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { pdfText } from '../../helpers/pdf-text.ts';
import { eventually } from '../../helpers/poll.ts';

interface Figures {
  count: number;
  taxable: number;
  vat: number;
  total: number;
  discount: number;
}
interface ByType {
  sales: Figures;
  creditNotes: Figures;
  debitNotes: Figures;
  net: Figures;
}
interface Report extends Record<string, unknown> {
  type: 'X' | 'Z';
  date: string;
  merchant: { id: number; name: string; tpin: string };
  closedAt: string | null;
  counts: { documents: number; uploaded: number; pending: number; failed: number; resolved: number };
  documents: Array<Figures & { type: string; status: string }>;
  fiscal: ByType;
  vatCategories: Array<ByType & { category: string; rate: number }>;
  paymentMethods: Array<ByType & { method: string }>;
  numbers: { firstInvoiceNo: number | null; lastInvoiceNo: number | null; firstReceiptNo: number | null; lastReceiptNo: number | null };
}

/** `YYYY-MM-DD` shifted by whole days. */
function shift(day: string, days: number): string {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const LUSAKA = (day: string, time: string) => `${day}T${time}:00+02:00`;

describe(`daily reports and exports (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;
  /** The crafted day, three days ago in Lusaka. */
  let day: string;
  const ids: number[] = [];

  async function settled(id: number): Promise<{ id: number; status: string }> {
    return eventually(async () => {
      const sale = (await h.get(`/api/v1/sales/${id}`)).json().data as { id: number; status: string };
      return sale.status === 'pending' ? undefined : sale;
    }, `document ${id} settled`);
  }

  async function document(url: string, body: Record<string, unknown>, expected: 'uploaded' | 'failed' | 'pending'): Promise<number> {
    const res = await h.post(url, body);
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as number;
    if (expected !== 'pending') assert.equal((await settled(id)).status, expected);
    return id;
  }

  const report = (query: string, headers: Record<string, string> = {}, merchant?: Merchant) =>
    h.get(`/api/v1/reports/daily?${query}`, headers, merchant);

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 200 } });
    other = await h.addMerchant({ branches: ['000'] });
    day = dayOf(new Date(Date.now() - 3 * 86_400_000), 'Africa/Lusaka');

    // Tax-inclusive cash sale; a tax-exclusive credit sale with a discount and an exempt line at 23:30.
    const sale1 = await document(
      '/api/v1/sales',
      saleBody({ occurredAt: LUSAKA(day, '10:00'), paymentMethod: '01' }, [{ quantity: 2, price: 116 }]),
      'uploaded',
    );
    const sale2 = await document(
      '/api/v1/sales',
      saleBody({ occurredAt: LUSAKA(day, '23:30'), paymentMethod: '02', taxInclusive: false }, [
        { quantity: 3, price: 100, discount: 30 },
        { price: 50, vatCategory: 'D' },
      ]),
      'uploaded',
    );
    const credit = await document(
      `/api/v1/sales/${sale1}/credit-note`,
      { reasonCode: '01', items: [{ line: 1, quantity: 1 }], occurredAt: LUSAKA(day, '12:00') },
      'uploaded',
    );
    const debit = await document(
      `/api/v1/sales/${sale2}/debit-note`,
      {
        reasonCode: '01',
        items: [{ name: 'Freight', classificationCode: '50221200', quantity: 1, price: 10 }],
        occurredAt: LUSAKA(day, '13:00'),
      },
      'uploaded',
    );
    // The next day in Lusaka, though still the crafted day in UTC.
    await document('/api/v1/sales', saleBody({ occurredAt: LUSAKA(shift(day, 1), '00:30') }), 'uploaded');
    // Midnight in Lusaka (22:00 UTC the day before) starts the crafted day.
    const midnight = await document('/api/v1/sales', saleBody({ occurredAt: LUSAKA(day, '00:00') }), 'uploaded');
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Wrong amount' } });
    const failed = await document('/api/v1/sales', saleBody({ occurredAt: LUSAKA(day, '14:00') }), 'failed');
    h.sim.control.setFaults(h.merchant.tpin, '000', { forcedResult: '838' });
    const pending = await document('/api/v1/sales', saleBody({ occurredAt: LUSAKA(day, '15:00'), paymentMethod: '03' }), 'pending');
    ids.push(sale1, sale2, credit, debit, midnight, failed, pending);
  });
  after(() => h.close());

  /** The stored documents' own totals, by the same rules the report states. */
  async function expectedFigures() {
    const rows = await h.ctx.db.selectFrom('sales').selectAll().where('id', 'in', ids).execute();
    const lines = await h.ctx.db.selectFrom('sale_lines').selectAll().where('sale_id', 'in', ids).execute();
    const sum = (values: string[]) => values.reduce((a, v) => a.plus(v), new Money(0)).toNumber();
    const uploaded = rows.filter((r) => r.status === 'uploaded');
    const signed = (type: string, v: string) => (type === 'credit_note' ? new Money(v).negated().toString() : v);
    return { rows, lines, sum, uploaded, signed };
  }

  test('an X report: totals equal the sum of the stored documents, by type, VAT category and payment method', async () => {
    const res = await report(`date=${day}&branch=000`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const r = res.json().data as Report;
    assert.equal(r.type, 'X');
    assert.equal(r.closedAt, null);
    assert.deepEqual(r.counts, { documents: 7, uploaded: 5, pending: 1, failed: 1, resolved: 0 });
    const { rows, lines, sum, uploaded, signed } = await expectedFigures();

    for (const [type, part] of [
      ['sale', 'sales'],
      ['credit_note', 'creditNotes'],
      ['debit_note', 'debitNotes'],
    ] as const) {
      const of = uploaded.filter((u) => u.type === type);
      const f = r.fiscal[part];
      assert.equal(f.count, of.length, part);
      assert.equal(f.taxable, sum(of.map((u) => u.net)), `${part} taxable`);
      assert.equal(f.vat, sum(of.map((u) => u.vat)), `${part} vat`);
      assert.equal(f.total, sum(of.map((u) => u.total)), `${part} total`);
    }
    assert.equal(r.fiscal.net.total, sum(uploaded.map((u) => signed(u.type, u.total))));
    assert.equal(r.fiscal.net.vat, sum(uploaded.map((u) => signed(u.type, u.vat))));
    assert.equal(r.fiscal.sales.discount, 30);

    const uploadedIds = new Set(uploaded.map((u) => Number(u.id)));
    const typeOf = new Map(rows.map((u) => [Number(u.id), u.type]));
    for (const category of r.vatCategories) {
      const of = lines.filter((l) => uploadedIds.has(Number(l.sale_id)) && l.vat_category === category.category);
      assert.equal(category.net.taxable, sum(of.map((l) => signed(typeOf.get(Number(l.sale_id))!, l.net))), `${category.category} taxable`);
      assert.equal(category.net.vat, sum(of.map((l) => signed(typeOf.get(Number(l.sale_id))!, l.vat))), `${category.category} vat`);
      assert.equal(category.net.total, sum(of.map((l) => signed(typeOf.get(Number(l.sale_id))!, l.total))), `${category.category} total`);
    }
    assert.deepEqual(
      r.vatCategories.map((c) => c.category),
      ['A', 'D'],
    );
    assert.deepEqual(
      r.paymentMethods.map((p) => p.method),
      ['01', '02'],
      'the pending 03 sale is not fiscal yet',
    );

    const failed = r.documents.find((d) => d.status === 'failed')!;
    assert.equal(failed.total, sum(rows.filter((u) => u.status === 'failed').map((u) => u.total)));
    const invoiceNos = rows.map((u) => Number(u.invoice_no));
    assert.equal(r.numbers.firstInvoiceNo, Math.min(...invoiceNos));
    assert.equal(r.numbers.lastInvoiceNo, Math.max(...invoiceNos));
    const receipts = uploaded.map((u) => Number(u.receipt_no));
    assert.deepEqual([r.numbers.firstReceiptNo, r.numbers.lastReceiptNo], [Math.min(...receipts), Math.max(...receipts)]);
  });

  test("days are the merchant's: 23:30 in Lusaka is that day; with timezone UTC the same sale moves", async () => {
    const next = (await report(`date=${shift(day, 1)}`)).json().data as Report;
    assert.equal(next.counts.documents, 1, 'the 00:30 sale of the next day');
    const before = (await report(`date=${shift(day, -1)}`)).json().data as Report;
    assert.equal(before.counts.documents, 0, 'midnight belongs to the day it starts');

    const partner = bearer(other.partnerSecret);
    const refused = await h.t.inject({
      method: 'PATCH',
      url: `/api/v1/tenants/${other.tenantId}`,
      headers: partner,
      payload: { timezone: 'Mars/Olympus' },
    });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.ok(refused.json().errors.timezone);
    const patched = await h.t.inject({
      method: 'PATCH',
      url: `/api/v1/tenants/${other.tenantId}`,
      headers: partner,
      payload: { timezone: 'utc' },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.timezone, 'UTC');
    const res = await h.post('/api/v1/sales', saleBody({ occurredAt: LUSAKA(day, '01:00') }), {}, other);
    assert.equal(res.statusCode, 201, res.body);
    await eventually(
      async () => ((await h.get(`/api/v1/sales/${res.json().data.id}`, {}, other)).json().data.status === 'uploaded' ? true : undefined),
      'uploaded',
    );
    const utcBefore = (await report(`date=${shift(day, -1)}`, {}, other)).json().data as Report;
    assert.equal(utcBefore.timezone, 'UTC');
    assert.equal(utcBefore.counts.uploaded, 1, '01:00 in Lusaka is 23:00 UTC the day before');
    assert.equal(((await report(`date=${day}`, {}, other)).json().data as Report).counts.documents, 0);
  });

  test('CSV and PDF by Accept; anything else is a 406', async () => {
    const csv = await report(`date=${day}`, { accept: 'text/csv' });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const records = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    const net = records.find((r) => r.section === 'fiscal' && r.type === 'net')!;
    const json = (await report(`date=${day}`)).json().data as Report;
    assert.equal(Number(net.total), json.fiscal.net.total);
    assert.equal(records.find((r) => r.section === 'counts' && r.key === 'pending')!.count, '1');
    // Every status of the JSON's counts is a row, resolved too.
    for (const status of ['uploaded', 'pending', 'failed', 'resolved'] as const) {
      assert.equal(records.find((r) => r.section === 'counts' && r.key === status)?.count, String(json.counts[status]), `counts ${status}`);
    }

    const pdf = await report(`date=${day}`, { accept: 'text/csv;q=0.5, application/pdf' });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.match(pdf.rawPayload.toString('latin1'), /\/Count 1\b/, 'one page');

    const html = await report(`date=${day}`, { accept: 'text/html' });
    expectCoded(html, 406, 'not_acceptable');
    assert.equal(negotiateReport('*/*'), 'application/json');
    assert.equal(negotiateReport('text/*'), 'text/csv');
    assert.equal(negotiateReport('application/json;q=0, application/pdf;q=0.1'), 'application/pdf');
  });

  test('the PDF prints a Chinese merchant and branch name as they are', async () => {
    const names = { merchant: '张伟贸易有限公司', branch: 'Лусака 东区' };
    const tenant = await h.ctx.db.selectFrom('tenants').select('name').where('id', '=', h.merchant.tenantId).executeTakeFirstOrThrow();
    const device = await h.ctx.db
      .selectFrom('devices')
      .select(['id', 'branch_name'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('branch', '=', '000')
      .executeTakeFirstOrThrow();
    await h.ctx.db.updateTable('tenants').set({ name: names.merchant }).where('id', '=', h.merchant.tenantId).execute();
    await h.ctx.db.updateTable('devices').set({ branch_name: names.branch }).where('id', '=', device.id).execute();
    try {
      const pdf = await report(`date=${day}`, { accept: 'application/pdf' });
      assert.equal(pdf.statusCode, 200);
      const text = pdfText(pdf.rawPayload);
      assert.ok(text.includes(`${names.merchant} · TPIN`), text);
      assert.ok(text.includes(`Branch 000 ${names.branch}`), text);
      assert.ok(!text.includes('?'), text);
    } finally {
      await h.ctx.db.updateTable('tenants').set({ name: tenant.name }).where('id', '=', h.merchant.tenantId).execute();
      await h.ctx.db.updateTable('devices').set({ branch_name: device.branch_name }).where('id', '=', device.id).execute();
    }
  });

  test('the PDF prints local times with the zone and payment method names, not codes', async () => {
    const text = pdfText((await report(`date=${day}`, { accept: 'application/pdf' })).rawPayload).replace(/\s+/g, ' ');
    assert.ok(text.includes(`Day in Africa/Lusaka: ${day} 00:00:00 CAT to ${shift(day, 1)} 00:00:00 CAT`), text);
    assert.match(text, /figures of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} CAT/);
    assert.doesNotMatch(text, /\(UTC\)|\d{2}:\d{2}:\d{2}\.\d{3}Z/, 'no UTC instants');
    assert.match(text, /Per payment method \(uploaded\) Method Documents Taxable VAT Total Discount Cash \d/, 'payment type 01 as Cash');
    assert.match(text, / Credit \d/, 'payment type 02 as Credit');
    assert.doesNotMatch(text, /Method Documents Taxable VAT Total Discount 01 /);
  });

  test("closing a day stores its Z: immutable, returned again by a repeat close and by the day's report", async () => {
    const closed = await h.post('/api/v1/reports/daily/close', { date: day, branch: '000' });
    assert.equal(closed.statusCode, 201, closed.body);
    const z = closed.json().data as Report;
    assert.equal(z.type, 'Z');
    assert.ok(z.closedAt);
    assert.match(z.closedBy as string, /^tenant_token:\d+$/);
    const token = await h.ctx.db
      .selectFrom('tenant_tokens')
      .select('name')
      .where('id', '=', Number((z.closedBy as string).split(':')[1]))
      .executeTakeFirstOrThrow();
    assert.equal(z.closedByName, token.name, 'who closed it, named as the audit trail names people');
    assert.equal(z.counts.pending, 1, 'closing with a pending document is allowed and said');
    assert.equal((z.storedAfterClose as ByType).net.count, 0, 'nothing stored after a close yet');

    const again = await h.post('/api/v1/reports/daily/close', { date: day });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json().data, z);

    // A later document dated that day does not change the Z's figures; the Z says it came after.
    const late = await h.post('/api/v1/sales', saleBody({ occurredAt: LUSAKA(day, '16:00') }));
    assert.equal(late.statusCode, 201, late.body);
    const res = await report(`date=${day}`);
    const { storedAfterClose, ...figures } = res.json().data as Report;
    const { storedAfterClose: _none, ...closedFigures } = z;
    assert.deepEqual(figures, closedFigures, 'the Z never changes');
    assert.deepEqual(
      (storedAfterClose as ByType).net,
      { count: 1, taxable: 100, vat: 16, total: 116, discount: 0 },
      'the late sale: how many, and their total',
    );
    assert.deepEqual((storedAfterClose as ByType).sales, (storedAfterClose as ByType).net);
    const withLate = res.json().data;
    const partnerView = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/reports/daily?date=${day}`,
      headers: bearer(h.merchant.partnerSecret),
    });
    assert.deepEqual(partnerView.json().data, withLate);
    const admin = await h.t.inject({
      method: 'GET',
      url: `/admin/v1/tenants/${h.merchant.tenantId}/reports/daily?date=${day}`,
      headers: bearer(TEST_ADMIN_TOKEN),
    });
    assert.deepEqual(admin.json().data, withLate);
    const stored = await h.ctx.db
      .selectFrom('sales')
      .select('id')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('occurred_at', '>=', new Date(z.from as string))
      .where('occurred_at', '<', new Date(z.to as string))
      .execute();
    assert.equal(stored.length, z.counts.documents + 1, 'the late document is stored, just not in the Z');
    const csv = (await report(`date=${day}`, { accept: 'text/csv' })).body;
    assert.ok(csv.includes('stored_after_close,net,,,1,100.00,16.00,116.00,0.00'), csv);
    assert.ok(csv.includes(`report,Z,closedByName,${token.name}`), csv);
    const pdf = pdfText((await report(`date=${day}`, { accept: 'application/pdf' })).rawPayload).replace(/\s+/g, ' ');
    assert.ok(pdf.includes('1 document of this day stored after the close (net total 116.00 ZMW)'), pdf);

    const partnerClose = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${h.merchant.tenantId}/reports/daily/close`,
      headers: bearer(h.merchant.partnerSecret),
      payload: { date: shift(day, 1) },
    });
    assert.equal(partnerClose.statusCode, 201, partnerClose.body);
    assert.match(partnerClose.json().data.closedBy, /^partner_key:\d+$/);
    assert.match(partnerClose.json().data.closedByName, / \(.+\)$/, "the partner key by name, with its partner's");
  });

  test("a Z report's PDF prints when it was closed in local time with the zone", async () => {
    const z = (await report(`date=${day}`)).json().data as { type: string; closedAt: string };
    assert.equal(z.type, 'Z');
    const local = new Date(Date.parse(z.closedAt) + 2 * 3_600_000).toISOString();
    const text = pdfText((await report(`date=${day}`, { accept: 'application/pdf' })).rawPayload).replace(/\s+/g, ' ');
    assert.ok(text.includes(`Closed ${local.slice(0, 10)} ${local.slice(11, 19)} CAT by`), text);
  });

  test('closed days are listed, the latest first, with their counts and net, for the merchant, its partner and the operator', async () => {
    const z = (await report(`date=${day}`)).json().data as Report;
    const res = await h.get('/api/v1/reports/z?branch=000');
    assert.equal(res.statusCode, 200, res.body);
    const list = res.json() as {
      data: Array<{
        date: string;
        branch: string;
        closedAt: string;
        closedBy: string;
        closedByName: string | null;
        counts: Report['counts'];
        net: Figures;
        storedAfterClose: Figures;
      }>;
      meta: { total: number; page: number };
    };
    assert.deepEqual(
      list.data.map((d) => d.date),
      [shift(day, 1), day],
      'the partner closed the next day after this one',
    );
    assert.deepEqual(list.meta, { page: 1, perPage: 20, total: 2, lastPage: 1 });
    const closed = list.data[1]!;
    assert.equal(closed.branch, '000');
    assert.equal(closed.closedAt, z.closedAt);
    assert.equal(closed.closedBy, z.closedBy);
    assert.equal(closed.closedByName, z.closedByName);
    assert.deepEqual(closed.counts, z.counts);
    assert.deepEqual(closed.net, z.fiscal.net);
    assert.deepEqual(closed.storedAfterClose, (z.storedAfterClose as ByType).net, 'the late sale counted in the list too');
    assert.equal(list.data[0]!.storedAfterClose.count, 0);
    assert.match(list.data[0]!.closedBy, /^partner_key:\d+$/);
    assert.deepEqual((await h.get('/api/v1/reports/z')).json(), list, 'the branch defaults as for the daily report');

    const partner = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/reports/z`,
      headers: bearer(h.merchant.partnerSecret),
    });
    assert.deepEqual(partner.json(), list);
    const admin = await h.t.inject({
      method: 'GET',
      url: `/admin/v1/tenants/${h.merchant.tenantId}/reports/z?branch=000`,
      headers: bearer(TEST_ADMIN_TOKEN),
    });
    assert.deepEqual(admin.json(), list);
    const beyond = (await h.get('/api/v1/reports/z?page=2')).json() as { data: unknown[]; meta: { total: number } };
    assert.deepEqual([beyond.data.length, beyond.meta.total], [0, 2]);

    assert.deepEqual((await h.get('/api/v1/reports/z', {}, other)).json().data, [], "another merchant's closed days are its own");
    const foreign = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/reports/z`,
      headers: bearer(other.partnerSecret),
    });
    assert.equal(foreign.statusCode, 404);
    expectCoded(await h.get('/api/v1/reports/z?branch=999'), 422, 'branch_not_found');
    const badPage = await h.get('/api/v1/reports/z?page=0');
    assert.equal(badPage.statusCode, 422, badPage.body);
    assert.ok(badPage.json().errors.page, badPage.body);
  });

  test('exports: CSV and XLSX, one row per line, streamed, the branch and range checked', async () => {
    const lines = await h.ctx.db
      .selectFrom('sale_lines')
      .innerJoin('sales', 'sales.id', 'sale_lines.sale_id')
      .select(['sales.id', 'sale_lines.total'])
      .where('sales.tenant_id', '=', h.merchant.tenantId)
      .where('sales.occurred_at', '>=', new Date(LUSAKA(day, '00:00')))
      .where('sales.occurred_at', '<', new Date(LUSAKA(shift(day, 1), '00:00')))
      .execute();
    const csv = await h.get(`/api/v1/exports/documents?from=${day}&to=${day}&format=csv&branch=000`);
    assert.equal(csv.statusCode, 200, csv.body);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    assert.match(csv.headers['content-disposition'] as string, /attachment; filename="documents-.*\.csv"/);
    assert.equal(csv.headers['content-length'], undefined, 'streamed, not buffered');
    const records = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(Object.keys(records[0]!), [...EXPORT_COLUMNS]);
    assert.equal(records.length, lines.length);
    assert.equal(
      records.reduce((a, r) => a.plus(r.total!), new Money(0)).toString(),
      lines.reduce((a, l) => a.plus(l.total), new Money(0)).toString(),
    );
    assert.ok(records.some((r) => r.type === 'credit_note' && r.status === 'uploaded' && r.authorityInvoiceNo !== ''));
    // The local time with the zone and the payment method's name beside the UTC instant and the code.
    const late = records.find((r) => r.occurredAt === new Date(LUSAKA(day, '23:30')).toISOString())!;
    assert.equal(late.occurredAtLocal, `${day} 23:30:00 CAT`);
    assert.equal(late.paymentMethod, '02');
    assert.equal(late.paymentMethodName, 'Credit');
    assert.ok(records.filter((r) => r.paymentMethod === '01').every((r) => r.paymentMethodName === 'Cash'));

    const xlsx = await h.t.inject({
      method: 'GET',
      url: `/api/v1/exports/documents?from=${day}&to=${day}&format=xlsx`,
      headers: bearer(h.merchant.token),
    });
    assert.equal(xlsx.statusCode, 200, xlsx.body);
    assert.equal(xlsx.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Documents')!;
    assert.equal(sheet.rowCount, lines.length + 1);
    assert.deepEqual((sheet.getRow(1).values as unknown[]).slice(1), [...EXPORT_COLUMNS]);
    const totalColumn = EXPORT_COLUMNS.indexOf('total') + 1;
    let sum = new Money(0);
    for (let r = 2; r <= sheet.rowCount; r++) sum = sum.plus(String(sheet.getRow(r).getCell(totalColumn).value));
    assert.equal(sum.toString(), lines.reduce((a, l) => a.plus(l.total), new Money(0)).toString());

    const partner = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/exports/documents?from=${day}&to=${day}`,
      headers: bearer(h.merchant.partnerSecret),
    });
    assert.equal(partner.statusCode, 200);
    assert.equal(partner.body, csv.body.replace(/\r\n$/, '\r\n'));
  });

  test('an export pages through more than one read: documents a microsecond apart or sharing an instant, each once', async () => {
    const third = await h.addMerchant({ branches: ['000'] });
    const at = `${shift(day, -2)}T08:00:00.123456Z`;
    await sql`
      insert into sales (tenant_id, device_id, tpin, branch, type, invoice_no, status, customer_name, payment_method, tax_inclusive, occurred_at, net, vat, total)
      select d.tenant_id, d.id, ${third.tpin}, d.branch, 'sale', g, 'uploaded', 'Walk-in', '01', true,
        ${at}::timestamptz + (g % 3) * interval '1 microsecond', 100, 16, 116
      from devices d cross join generate_series(1, 1201) g where d.tenant_id = ${third.tenantId}`.execute(h.ctx.db);
    await sql`insert into sale_lines (sale_id, line, name, classification_code, quantity, price, vat_category, vat_rate, amount, net, vat, total)
      select s.id, 1, 'Bulk', '50221200', 1, 116, 'A', 16, 116, 100, 16, 116 from sales s where s.tenant_id = ${third.tenantId}`.execute(
      h.ctx.db,
    );
    const res = await h.get(`/api/v1/exports/documents?from=${shift(day, -2)}&to=${shift(day, -2)}`, {}, third);
    assert.equal(res.statusCode, 200);
    const records = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    assert.equal(records.length, 1201);
    assert.equal(new Set(records.map((r) => r.documentId)).size, 1201, 'no document twice, none left out');
  });

  test('bad input is a 4xx that says what to send', async () => {
    const invalid = async (url: string, field: string) => {
      const res = await h.get(url);
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      assert.ok(res.json().errors[field], `${url}: ${res.body}`);
    };
    await invalid('/api/v1/reports/daily?date=2026-02-30', 'date');
    await invalid('/api/v1/reports/daily?date=15-01-2026', 'date');
    const wrongDay = await h.get('/api/v1/reports/daily?date=15-01-2026');
    assert.equal(wrongDay.json().errors.date[0], 'The date field must be a calendar day written YYYY-MM-DD, e.g. 2026-01-15.');
    const bothBad = await h.get('/api/v1/exports/documents?from=2026-13-01&to=2026-02-30');
    assert.deepEqual(Object.keys(bothBad.json().errors).sort(), ['from', 'to'], `both days named in one answer: ${bothBad.body}`);
    await invalid(`/api/v1/reports/daily?date=${shift(dayOf(new Date(), 'Africa/Lusaka'), 2)}`, 'date');
    await invalid(`/api/v1/exports/documents?from=${day}&to=${shift(day, -1)}`, 'to');
    await invalid(`/api/v1/exports/documents?from=${shift(day, -100)}&to=${day}`, 'to');
    await invalid(`/api/v1/exports/documents?from=${day}&to=${day}&format=pdf`, 'format');
    expectCoded(await h.get(`/api/v1/reports/daily?date=${day}&branch=999`), 422, 'branch_not_found');
    expectCoded(await h.get(`/api/v1/exports/documents?from=${day}&to=${day}&branch=999`), 422, 'branch_not_found');
    const closeFuture = await h.post('/api/v1/reports/daily/close', { date: '2999-01-01' });
    assert.equal(closeFuture.statusCode, 422);
  });

  test("tenancy: another merchant never sees this one's reports or documents", async () => {
    const mine = (await report(`date=${day}`, {}, other)).json().data as Report;
    assert.equal(mine.merchant.id, other.tenantId);
    assert.equal(mine.counts.documents, 0);
    const exported = await h.get(`/api/v1/exports/documents?from=${day}&to=${day}`, {}, other);
    assert.equal((parse(exported.body, { columns: true }) as unknown[]).length, 0);
    const foreign = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/reports/daily?date=${day}`,
      headers: bearer(other.partnerSecret),
    });
    assert.equal(foreign.statusCode, 404);
    const foreignExport = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/exports/documents?from=${day}&to=${day}`,
      headers: bearer(other.partnerSecret),
    });
    assert.equal(foreignExport.statusCode, 404);
    const foreignClose = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${h.merchant.tenantId}/reports/daily/close`,
      headers: bearer(other.partnerSecret),
      payload: { date: day },
    });
    assert.equal(foreignClose.statusCode, 404);
  });

  test('the CLI exports to a file; bad arguments are one line and exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-export-'));
    try {
      const out = join(dir, 'documents.csv');
      const options = parseExportArgs(['documents', '--tenant', String(h.merchant.tenantId), '--from', day, '--to', day, '--out', out]);
      const { bytes } = await exportDocumentsToFile(h.ctx, options);
      assert.ok(bytes > 0);
      const viaHttp = await h.get(`/api/v1/exports/documents?from=${day}&to=${day}`);
      assert.equal(readFileSync(out, 'utf8'), viaHttp.body);
      await assert.rejects(exportDocumentsToFile(h.ctx, { ...options, to: shift(day, -1) }), UsageError);
      await assert.rejects(exportDocumentsToFile(h.ctx, { ...options, branch: '999' }), UsageError);

      const stderr: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
      try {
        assert.equal(await main(['export', 'documents', '--tenant', 'x', '--from', day, '--to', day, '--out', out]), 2);
        assert.equal(await main(['export', 'documents', '--tenant', '1', '--from', day, '--to', day, '--format', 'pdf', '--out', out]), 2);
        assert.equal(await main(['export', 'invoices']), 2);
      } finally {
        process.stderr.write = write;
      }
      assert.equal(stderr.length, 3);
      for (const line of stderr) assert.match(line, /^fiscal-gateway: [^\n]+\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
