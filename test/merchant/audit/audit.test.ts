import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dayOf } from '../../../src/platform/lib/time-zones.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectInvalid, expectStatus, saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

interface Entry {
  id: number;
  action: string;
  actor: { type: string; id: string | null; name: string | null };
  target: { type: string; id: string; name: string | null } | null;
  details: Record<string, unknown>;
  at: string;
}
interface AuditPage {
  data: Entry[];
  meta: { page: number; perPage: number; total: number; lastPage: number };
}

describe(`the merchant's audit trail (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 2_000 } });
    other = await h.addMerchant({ branches: ['000'] });
  });
  after(() => h.close());

  const trail = async (qs = '', merchant: Merchant = h.merchant) =>
    expectStatus(await h.get(`/api/v1/audit${qs}`, {}, merchant), 200) as AuditPage;
  const partner = (merchant: Merchant) => bearer(merchant.partnerSecret);
  const settled = (id: number) =>
    eventually(async () => {
      const sale = (await h.get(`/api/v1/sales/${id}`)).json().data as { status: string };
      return sale.status === 'pending' ? undefined : sale;
    }, `document ${id} settled`);
  const newest = async (action: string, merchant: Merchant = h.merchant) =>
    (await trail(`?action=${encodeURIComponent(action)}`, merchant)).data[0];

  test('a token minted and revoked by the partner: both recorded with the partner key by name, newest first', async () => {
    const started = Date.now();
    const minted = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${h.merchant.tenantId}/tokens`,
        headers: partner(h.merchant),
        payload: { name: 'Back office' },
      }),
      201,
    ).data;
    expectStatus(
      await h.t.inject({
        method: 'DELETE',
        url: `/api/v1/tenants/${h.merchant.tenantId}/tokens/${minted.id}`,
        headers: partner(h.merchant),
      }),
      200,
    );
    const page = await trail();
    assert.equal(page.meta.perPage, 20);
    const [revoked, created] = page.data;
    assert.equal(revoked!.action, 'token.revoked');
    assert.equal(created!.action, 'token.created');
    assert.ok(revoked!.id > created!.id, 'newest first');
    for (const e of [revoked!, created!]) {
      assert.equal(e.actor.type, 'partner_key');
      assert.ok(e.actor.id);
      assert.match(e.actor.name ?? '', /\(/, 'the key and its partner by name');
      assert.deepEqual({ type: e.target!.type, id: e.target!.id }, { type: 'tenant_token', id: String(minted.id) });
      assert.ok(Date.parse(e.at) >= started - 1000 && Date.parse(e.at) <= Date.now() + 1000, 'recorded now');
    }
    assert.equal(created!.target!.name, 'Back office');
    assert.equal(created!.details.name, 'Back office');
  });

  test('items created and amended, a day closed, a failed document resolved and a receipt reprinted: each with the token that did it', async () => {
    const tokenId = String(
      (
        await h.ctx.db
          .selectFrom('tenant_tokens')
          .select('id')
          .where('tenant_id', '=', h.merchant.tenantId)
          .orderBy('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const byToken = (e: Entry | undefined) => {
      assert.ok(e, 'recorded');
      assert.equal(e.actor.type, 'tenant_token');
      assert.equal(e.actor.id, tokenId);
      assert.equal(typeof e.actor.name, 'string');
      return e;
    };

    const item = expectStatus(await h.post('/api/v1/items', { name: 'Audit Soap', itemClsCd: CLASS_CODE }), 201).data;
    expectStatus(
      await h.t.inject({
        method: 'PATCH',
        url: `/api/v1/items/${item.id}`,
        headers: bearer(h.merchant.token),
        payload: { defaultPrice: 12.5 },
      }),
      200,
    );
    const created = byToken(await newest('item.created'));
    assert.deepEqual(created.target, { type: 'item', id: String(item.id), name: `Audit Soap (${item.itemCode})` });
    const updated = byToken(await newest('item.updated'));
    assert.equal((updated.details.changes as { defaultPrice: number }).defaultPrice, 12.5);

    // A failed document, resolved.
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Invalid customer TPIN' } });
    const failed = expectStatus(await h.post('/api/v1/sales', saleBody()), 201).data;
    assert.equal((await settled(failed.id)).status, 'failed');
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    expectStatus(await h.post(`/api/v1/sales/${failed.id}/resolve`, { note: 'Cancelled' }), 200);
    const resolved = byToken(await newest('sale.resolved'));
    assert.equal(resolved.target!.type, 'sale');
    assert.equal(resolved.target!.id, String(failed.id));
    assert.equal(resolved.details.note, 'Cancelled');

    // A receipt printed once is not in the trail; printed again, it is a reprint.
    const sale = expectStatus(await h.post('/api/v1/sales', saleBody()), 201).data;
    assert.equal((await settled(sale.id)).status, 'uploaded');
    assert.equal((await h.get(`/api/v1/sales/${sale.id}/receipt`)).statusCode, 200);
    assert.equal((await trail('?action=sale.reprinted')).meta.total, 0);
    assert.equal((await h.get(`/api/v1/sales/${sale.id}/receipt`)).statusCode, 200);
    const reprint = byToken(await newest('sale.reprinted'));
    assert.equal(reprint.target!.id, String(sale.id));
    assert.equal(reprint.details.print, 2);

    // The day closed (Z); closing it again records nothing new.
    const tz = (await h.ctx.db.selectFrom('tenants').select('timezone').where('id', '=', h.merchant.tenantId).executeTakeFirstOrThrow())
      .timezone;
    const today = dayOf(new Date(), tz);
    expectStatus(await h.post('/api/v1/reports/daily/close', { date: today, branch: '000' }), 201);
    expectStatus(await h.post('/api/v1/reports/daily/close', { date: today, branch: '000' }), 200);
    const closed = await trail('?action=report.closed');
    assert.equal(closed.meta.total, 1);
    byToken(closed.data[0]);
    assert.deepEqual(closed.data[0]!.target, { type: 'daily_report', id: `000:${today}`, name: `Z report, branch 000, ${today}` });
  });

  test('a credit note and a debit note: sale.credited and sale.debited, by who issued them, naming the note and the sale; in the family sale. and its CSV', async () => {
    const tokenId = String(
      (
        await h.ctx.db
          .selectFrom('tenant_tokens')
          .select('id')
          .where('tenant_id', '=', h.merchant.tenantId)
          .orderBy('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const sale = expectStatus(await h.post('/api/v1/sales', saleBody({}, [{ quantity: 2 }])), 201).data;
    assert.equal((await settled(sale.id)).status, 'uploaded');
    const credit = expectStatus(
      await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] }),
      201,
    ).data;
    const debit = expectStatus(
      await h.post(`/api/v1/sales/${sale.id}/debit-note`, {
        reasonCode: '03',
        items: [{ name: 'Delivery', classificationCode: CLASS_CODE, quantity: 1, price: 50 }],
      }),
      201,
    ).data;
    const authority = expectStatus(await h.get(`/api/v1/sales/${sale.id}`), 200).data.authorityInvoiceNo as string;

    const documents = await trail('?action=sale.');
    const [debited, credited] = documents.data;
    assert.deepEqual([debited!.action, credited!.action], ['sale.debited', 'sale.credited'], 'newest first, in the documents family');
    for (const [entry, note, type] of [
      [credited!, credit, 'credit note'],
      [debited!, debit, 'debit note'],
    ] as const) {
      assert.equal(entry.actor.type, 'tenant_token');
      assert.equal(entry.actor.id, tokenId);
      assert.equal(typeof entry.actor.name, 'string', 'who, by name');
      assert.deepEqual(
        entry.target,
        { type: 'sale', id: String(sale.id), name: `sale ${sale.invoiceNo} (branch 000)` },
        'the sale credited or debited',
      );
      assert.deepEqual(
        {
          noteId: entry.details.noteId,
          noteInvoiceNo: entry.details.noteInvoiceNo,
          invoiceNo: entry.details.invoiceNo,
          authorityInvoiceNo: entry.details.authorityInvoiceNo,
          reasonCode: entry.details.reasonCode,
          total: entry.details.total,
        },
        {
          noteId: note.id,
          noteInvoiceNo: note.invoiceNo,
          invoiceNo: sale.invoiceNo,
          authorityInvoiceNo: authority,
          reasonCode: '03',
          total: note.totals.total,
        },
        `the ${type} and the sale, by their numbers`,
      );
    }
    // A replay of the same note records nothing more.
    const key = { 'idempotency-key': `audit-credit-${sale.id}` };
    expectStatus(await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 0.5 }] }, key), 201);
    expectStatus(await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01', items: [{ line: 1, quantity: 0.5 }] }, key), 201);
    assert.equal((await trail('?action=sale.credited')).meta.total, 2);

    const csv = (await h.get('/api/v1/audit/export?action=sale.')).body.trim().split('\r\n');
    assert.ok(
      csv.some((line) => line.includes(`,sale.debited,tenant_token,${tokenId},`) && line.includes(`""noteId"":${debit.id}`)),
      'the debit in the CSV',
    );
    assert.equal(csv.filter((line) => line.includes(',sale.credited,')).length, 2);
  });

  test("filtered by one action or a family, and by the merchant's days", async () => {
    const tokens = await trail('?action=token.');
    assert.ok(tokens.data.length >= 3);
    assert.ok(tokens.data.every((e) => e.action.startsWith('token.')));
    const exact = await trail('?action=token.revoked');
    assert.ok(exact.data.length >= 1 && exact.data.every((e) => e.action === 'token.revoked'));
    // `_` in a family is a letter, not a wildcard.
    assert.ok((await trail('?action=api_key.')).data.every((e) => e.action.startsWith('api_key.')));
    assert.equal((await trail('?action=nothing.done')).meta.total, 0);

    const all = await trail();
    assert.equal((await trail('?from=2001-01-01&to=2001-01-31')).meta.total, 0);
    assert.equal((await trail('?from=2001-01-01')).meta.total, all.meta.total);
    expectInvalid(await h.get('/api/v1/audit?from=2026-02-30'), 'from');
    expectInvalid(await h.get('/api/v1/audit?from=2026-02-10&to=2026-02-01'), 'to');
    assert.equal((await h.get('/api/v1/audit?action=DROP%20TABLE')).statusCode, 422);
  });

  test('paged 20 at a time, newest first, with no record on two pages', async () => {
    for (let i = 0; i < 21; i++) expectStatus(await h.post('/api/v1/items', { name: `Paged item ${i}`, itemClsCd: CLASS_CODE }), 201);
    const first = await trail('?action=item.created');
    const second = await trail('?action=item.created&page=2');
    assert.equal(first.meta.total, 22);
    assert.equal(first.meta.lastPage, 2);
    assert.equal(first.data.length, 20);
    assert.equal(second.data.length, 2);
    const ids = [...first.data, ...second.data].map((e) => e.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    assert.equal(new Set(ids).size, 22);
  });

  test('another merchant sees none of these records, and cannot reach them', async () => {
    const mine = new Set((await trail('?page=1')).data.map((e) => e.id));
    const theirs = await trail('', other);
    assert.ok(theirs.meta.total > 0, 'its own records (its token and key minted at provisioning)');
    assert.ok(theirs.data.every((e) => !mine.has(e.id)));
    assert.equal((await trail('?action=item.', other)).meta.total, 0);
    assert.equal((await trail('?action=sale.', other)).meta.total, 0);
    const csv = (await h.get('/api/v1/audit/export?action=item.', {}, other)).body.trim().split('\r\n');
    assert.equal(csv.length, 1, 'a header only');
    // Without a credential: 401.
    assert.equal((await h.t.inject({ method: 'GET', url: '/api/v1/audit' })).statusCode, 401);
  });

  test('exported as CSV: every matching record, newest first, with a header', async () => {
    const res = await h.get('/api/v1/audit/export?action=item.created');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(
      String(res.headers['content-disposition']),
      /attachment; filename="audit-item.created\.csv"|attachment; filename="audit-item\.created\.csv"/,
    );
    const lines = res.body.trim().split('\r\n');
    assert.equal(lines[0], 'id,at,atLocal,action,actorType,actorId,actorName,targetType,targetId,targetName,details');
    assert.equal(lines.length, 1 + 22);
    assert.ok(lines.slice(1).every((l) => l.includes(',item.created,tenant_token,')));
    const ids = lines.slice(1).map((l) => Number(l.split(',')[0]));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    const all = await trail();
    assert.equal((await h.get('/api/v1/audit/export')).body.trim().split('\r\n').length, 1 + all.meta.total);
  });
});
