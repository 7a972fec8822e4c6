import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

interface Sale {
  id: number;
  type: string;
  invoiceNo: number;
  status: string;
  branch: string;
  customer: { name: string; tpin: string | null };
  items: Array<{ name: string; quantity: number; price: number }>;
  totals: { total: number };
  resultCode: string | null;
  lastError: string | null;
  replacesSaleId: number | null;
  resolution: {
    kind: string;
    by: { type: string; id: number | null };
    at: string;
    note: string | null;
    replacedBySaleId: number | null;
  } | null;
}

describe(`resolving failed documents (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;
  const faults = (f: Record<string, unknown>) => h.sim.control.setFaults(h.merchant.tpin, '000', f);
  const clear = () => h.sim.control.clearFaults(h.merchant.tpin, '000');
  const read = async (id: number, merchant?: Merchant) => (await h.get(`/api/v1/sales/${id}`, {}, merchant)).json().data as Sale;
  const settled = (id: number) =>
    eventually(async () => {
      const sale = await read(id);
      return sale.status === 'pending' ? undefined : sale;
    }, `document ${id} settled`);

  async function failedSale(body = saleBody({ customer: { name: 'Wrong Customer Ltd', tpin: '2000000009' } })): Promise<Sale> {
    faults({ reject: { count: 1, code: '910', message: 'Invalid customer TPIN' } });
    const res = await h.post('/api/v1/sales', body);
    assert.equal(res.statusCode, 201, res.body);
    const sale = await settled(res.json().data.id);
    assert.equal(sale.status, 'failed');
    return sale;
  }

  async function tokenIdOf(merchant: Merchant): Promise<number> {
    const row = await h.ctx.db
      .selectFrom('tenant_tokens')
      .select('id')
      .where('tenant_id', '=', merchant.tenantId)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async function auditOf(saleId: number) {
    return h.ctx.db.selectFrom('audit_log').selectAll().where('target_type', '=', 'sale').where('target_id', '=', String(saleId)).execute();
  }

  async function resolvedEvents(saleId: number) {
    const rows = await h.ctx.db
      .selectFrom('webhook_events')
      .select(['type', 'body'])
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('type', '=', 'invoice.resolved')
      .execute();
    return rows.map((r) => JSON.parse(r.body) as { event: string; data: { invoice: Sale } }).filter((e) => e.data.invoice.id === saleId);
  }

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 2_000, vsdcProbeMs: 200 } });
    other = await h.addMerchant({ branches: ['000'] });
  });
  after(() => h.close());

  test('a failed document at the head of the queue: the ones behind it are filed, in order, with the numbers they had', async () => {
    faults({ down: true });
    const stored: Sale[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await h.post('/api/v1/sales', saleBody({ clientInvoiceNo: `HEAD-${i}` }));
      assert.equal(res.json().data.status, 'pending');
      stored.push(res.json().data);
    }
    const before = h.received(h.merchant).length;
    // The VSDC returns and refuses the first document it is sent (the head of the branch's queue).
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: false, reject: { count: 1, code: '910', message: 'Request parameter error' } });
    const outcomes = await Promise.all(stored.map((s) => settled(s.id)));
    assert.deepEqual(
      outcomes.map((s) => s.status),
      ['failed', 'uploaded', 'uploaded', 'uploaded'],
    );
    assert.deepEqual(
      outcomes.map((s) => s.invoiceNo),
      stored.map((s) => s.invoiceNo),
      'each keeps the number it was stored with',
    );
    assert.equal(outcomes[0]!.resultCode, '910');
    const arrivals = h
      .received(h.merchant)
      .slice(before)
      .map((d) => Number(d.cisInvcNo));
    assert.deepEqual(
      arrivals,
      stored.map((s) => s.invoiceNo),
      'sent once each, in invoice order, the refused one first',
    );
    clear();
  });

  test('reissue: a new number in the branch sequence, replacesSaleId, the failed one resolved (who, when), audited, invoice.resolved', async () => {
    const failed = await failedSale();
    const lastNumber = (
      await h.ctx.db
        .selectFrom('devices')
        .select('next_invoice_no')
        .where('tenant_id', '=', h.merchant.tenantId)
        .where('branch', '=', '000')
        .executeTakeFirstOrThrow()
    ).next_invoice_no;
    const body = { ...saleBody({ customer: { name: 'Right Customer Ltd', tpin: '2000000002' } }), note: 'Customer TPIN corrected' };
    const res = await h.post(`/api/v1/sales/${failed.id}/reissue`, body, { 'idempotency-key': `reissue-${failed.id}` });
    assert.equal(res.statusCode, 201, res.body);
    const reissued = res.json().data as Sale;
    assert.equal(reissued.status, 'uploaded');
    assert.equal(reissued.invoiceNo, Number(lastNumber), "the branch's next invoice number");
    assert.ok(reissued.invoiceNo > failed.invoiceNo);
    assert.equal(reissued.replacesSaleId, failed.id);
    assert.equal(reissued.customer.name, 'Right Customer Ltd');
    assert.equal(reissued.branch, failed.branch);

    const after = await read(failed.id);
    assert.equal(after.status, 'failed', "a resolved document keeps the spec's status; its resolution says it was dealt with");
    assert.equal(after.resolution?.kind, 'reissued');
    assert.equal(after.resolution?.replacedBySaleId, reissued.id);
    assert.equal(after.resolution?.note, 'Customer TPIN corrected');
    assert.deepEqual(after.resolution?.by, { type: 'tenant_token', id: await tokenIdOf(h.merchant) });
    assert.ok(Math.abs(new Date(after.resolution!.at).getTime() - Date.now()) < 60_000);
    // Nothing else of the failed document changed.
    assert.deepEqual(
      { ...after, status: failed.status, resolution: null, fiscalisedAt: undefined },
      { ...failed, fiscalisedAt: undefined },
    );

    const audit = await auditOf(failed.id);
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.action, 'sale.reissued');
    assert.equal(audit[0]!.actor_type, 'tenant_token');
    assert.equal(audit[0]!.tenant_id, h.merchant.tenantId);
    assert.equal((audit[0]!.details as { replacedBySaleId: number }).replacedBySaleId, reissued.id);
    const events = await resolvedEvents(failed.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.data.invoice.status, 'failed');
    assert.equal(events[0]!.data.invoice.resolution?.replacedBySaleId, reissued.id);

    // The same request again is a replay; another reissue or a resolve is a 409.
    const replay = await h.post(`/api/v1/sales/${failed.id}/reissue`, body, { 'idempotency-key': `reissue-${failed.id}` });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json().data.id, reissued.id);
    const again = await h.post(`/api/v1/sales/${failed.id}/reissue`, body, { 'idempotency-key': `reissue-${failed.id}-2` });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().error.code, 'document_not_failed');
    assert.match(again.json().error.message, /already resolved/);
    const resolve = await h.post(`/api/v1/sales/${failed.id}/resolve`, { note: 'twice' });
    assert.equal(resolve.statusCode, 409);
    assert.equal(resolve.json().error.code, 'document_not_failed');
  });

  test('resolve with a note: resolved, audited, the document otherwise untouched; bad notes are 422', async () => {
    const failed = await failedSale();
    for (const bad of [{}, { note: '' }, { note: '   ' }, { note: 'x'.repeat(501) }, { note: 'ok', extra: 1 }, { note: 5 }]) {
      const res = await h.post(`/api/v1/sales/${failed.id}/resolve`, bad);
      assert.equal(res.statusCode, 422, `${JSON.stringify(bad)}: ${res.body}`);
      assert.ok(res.json().errors?.note || res.json().errors, res.body);
    }
    assert.equal((await read(failed.id)).status, 'failed', 'a refused request changes nothing');

    // The partner's failed documents (the documents view's default) count it until it is resolved.
    const failedTotal = async () => {
      const page = await h.t.inject({
        method: 'GET',
        url: '/api/v1/partner/documents',
        headers: { authorization: `Bearer ${h.merchant.partnerSecret}` },
      });
      const live = await h.ctx.db
        .selectFrom('sales')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', h.merchant.tenantId)
        .where('status', '=', 'failed')
        .executeTakeFirstOrThrow();
      assert.equal(page.json().meta.total, Number(live.n), "the kept count is the documents' own");
      return page.json().meta.total as number;
    };
    const before = await failedTotal();
    assert.ok(before >= 1);
    const res = await h.post(`/api/v1/sales/${failed.id}/resolve`, { note: ' Order cancelled; nothing was delivered. ' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await failedTotal(), before - 1);
    const resolved = res.json().data as Sale;
    assert.equal(resolved.status, 'failed');
    assert.deepEqual(
      { ...resolved.resolution, at: undefined },
      {
        kind: 'marked',
        by: { type: 'tenant_token', id: await tokenIdOf(h.merchant) },
        at: undefined,
        note: 'Order cancelled; nothing was delivered.',
        replacedBySaleId: null,
      },
    );
    assert.deepEqual(resolved.items, failed.items);
    assert.equal(resolved.totals.total, failed.totals.total);
    assert.equal(resolved.lastError, failed.lastError);
    const audit = await auditOf(failed.id);
    assert.deepEqual(
      audit.map((a) => a.action),
      ['sale.resolved'],
    );
    assert.equal((audit[0]!.details as { note: string }).note, 'Order cancelled; nothing was delivered.');
    assert.equal((await resolvedEvents(failed.id)).length, 1);

    const partnerList = async (filter: string) => {
      const listed = await h.t.inject({
        method: 'GET',
        url: `/api/v1/partner/documents?tenant=${h.merchant.tenantId}${filter}`,
        headers: { authorization: `Bearer ${h.merchant.partnerSecret}` },
      });
      assert.equal(listed.statusCode, 200, listed.body);
      return listed.json().data as Array<{ id: number; status: string; resolution: Sale['resolution'] }>;
    };
    const row = (await partnerList('&resolved=true')).find((d) => d.id === failed.id);
    assert.equal(row?.status, 'failed');
    assert.equal(row?.resolution?.kind, 'marked');
    assert.ok(!(await partnerList('')).some((d) => d.id === failed.id), 'the default, failed and not resolved, leaves it out');
    assert.ok(!(await partnerList('&status=failed&resolved=false')).some((d) => d.id === failed.id));
    const oldStatus = await h.t.inject({
      method: 'GET',
      url: '/api/v1/partner/documents?status=resolved',
      headers: { authorization: `Bearer ${h.merchant.partnerSecret}` },
    });
    assert.equal(oldStatus.statusCode, 422, 'resolved is not a status');
  });

  test("only a failed document: uploaded and pending are 409; a failed note is resolved, not reissued; another merchant's is 404", async () => {
    const uploadedRes = await h.post('/api/v1/sales', saleBody());
    const uploaded = await settled(uploadedRes.json().data.id);
    assert.equal(uploaded.status, 'uploaded');
    for (const [path, body] of [
      ['reissue', saleBody()],
      ['resolve', { note: 'n' }],
    ] as const) {
      const res = await h.post(`/api/v1/sales/${uploaded.id}/${path}`, body);
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().error.code, 'document_not_failed');
      assert.match(res.json().error.message, /credit or debit note/);
    }
    faults({ down: true });
    const pending = (await h.post('/api/v1/sales', saleBody())).json().data as Sale;
    const pendingRes = await h.post(`/api/v1/sales/${pending.id}/resolve`, { note: 'n' });
    assert.equal(pendingRes.statusCode, 409);
    assert.match(pendingRes.json().error.message, /pending/);
    clear();
    await settled(pending.id);

    faults({ reject: { count: 1, code: '910', message: 'Refused note' } });
    const note = await h.post(`/api/v1/sales/${uploaded.id}/credit-note`, { reasonCode: '01' });
    assert.equal(note.statusCode, 201, note.body);
    const failedNote = await settled(note.json().data.id);
    assert.equal(failedNote.status, 'failed');
    const reissueNote = await h.post(`/api/v1/sales/${failedNote.id}/reissue`, saleBody());
    assert.equal(reissueNote.statusCode, 422, reissueNote.body);
    assert.equal(reissueNote.json().error.code, 'not_a_sale');
    const resolveNote = await h.post(`/api/v1/sales/${failedNote.id}/resolve`, { note: 'Refund issued in cash on a new note' });
    assert.equal(resolveNote.statusCode, 200, resolveNote.body);
    assert.equal(resolveNote.json().data.status, 'failed');
    assert.equal(resolveNote.json().data.resolution.kind, 'marked');
    const notesOfSale = (await h.get(`/api/v1/sales/${uploaded.id}?expand=credits`)).json().data.notes as Array<{
      id: number;
      status: string;
      resolved: boolean;
    }>;
    assert.deepEqual(
      notesOfSale.filter((n) => n.id === failedNote.id).map((n) => [n.status, n.resolved]),
      [['failed', true]],
    );
    // A refused note, resolved since, took nothing back: the sale can still be credited in full.
    const credit = await h.post(`/api/v1/sales/${uploaded.id}/credit-note`, { reasonCode: '01' });
    assert.equal(credit.statusCode, 201, credit.body);

    const failed = await failedSale();
    for (const [path, body] of [
      ['reissue', saleBody()],
      ['resolve', { note: 'n' }],
    ] as const) {
      const res = await h.post(`/api/v1/sales/${failed.id}/${path}`, body, {}, other);
      assert.equal(res.statusCode, 404, res.body);
    }
    assert.equal((await read(failed.id)).status, 'failed');
    const bad = await h.post(`/api/v1/sales/${failed.id}/reissue`, { items: [] });
    assert.equal(bad.statusCode, 422);
    assert.equal((await read(failed.id)).status, 'failed', 'a refused reissue changes nothing');
  });
  test('its partner reissues and resolves too, audited as its key; another partner gets 404, a merchant token 401', async () => {
    const partner = { authorization: `Bearer ${h.merchant.partnerSecret}` };
    const asPartner = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      h.t.inject({ method: 'POST', url, headers: { ...partner, ...headers }, payload: body as Record<string, unknown> });
    const keyId = Number(
      (
        await h.ctx.db
          .selectFrom('partner_keys')
          .select('id')
          .where('partner_id', '=', h.merchant.partnerId)
          .orderBy('id')
          .executeTakeFirstOrThrow()
      ).id,
    );

    const toReissue = await failedSale();
    const foreign = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${toReissue.id}/reissue`,
      headers: { authorization: `Bearer ${other.partnerSecret}` },
      payload: saleBody(),
    });
    assert.equal(foreign.statusCode, 404, 'another partner never reaches this merchant');
    const withToken = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${h.merchant.tenantId}/sales/${toReissue.id}/resolve`,
      headers: { authorization: `Bearer ${h.merchant.token}` },
      payload: { note: 'x' },
    });
    assert.equal(withToken.statusCode, 401, 'the partner routes take a partner key');
    assert.equal((await read(toReissue.id)).status, 'failed', 'refused attempts change nothing');

    const reissued = await asPartner(
      `/api/v1/tenants/${h.merchant.tenantId}/sales/${toReissue.id}/reissue`,
      saleBody({ customer: { name: 'Right Customer Ltd', tpin: '2000000001' } }),
      { 'idempotency-key': `partner-reissue-${toReissue.id}` },
    );
    assert.equal(reissued.statusCode, 201, reissued.body);
    const replacement = reissued.json().data as Sale;
    assert.equal(replacement.replacesSaleId, toReissue.id);
    assert.equal(replacement.branch, toReissue.branch);
    const old = await read(toReissue.id);
    assert.equal(old.status, 'failed');
    assert.deepEqual(old.resolution?.by, { type: 'partner_key', id: keyId });
    assert.equal(old.resolution?.replacedBySaleId, replacement.id);

    const toResolve = await failedSale();
    const resolved = await asPartner(`/api/v1/tenants/${h.merchant.tenantId}/sales/${toResolve.id}/resolve`, {
      note: 'Duplicate of a paper invoice; nothing to file.',
    });
    assert.equal(resolved.statusCode, 200, resolved.body);
    assert.deepEqual((resolved.json().data as Sale).resolution?.by, { type: 'partner_key', id: keyId });
    const audit = await auditOf(toResolve.id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.actor_type, a.actor_id]),
      [['sale.resolved', 'partner_key', String(keyId)]],
    );
    const twice = await asPartner(`/api/v1/tenants/${h.merchant.tenantId}/sales/${toResolve.id}/resolve`, { note: 'again' });
    expectCoded(twice, 409, 'document_not_failed');
  });
});
