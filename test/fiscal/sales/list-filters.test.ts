// GET /api/v1/sales filters (issue 20.3): status, type, branch and the merchant's calendar days,
// combined with reference and paging, newest first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dayOf } from '../../../src/platform/lib/time-zones.ts';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, expectInvalid, expectStatus, saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';

const DAY_MS = 86_400_000;

describe(`listing sales with filters (${engineName})`, () => {
  let h: Harness;
  let m: Merchant;
  /** The Lusaka day two days ago (D) and its neighbours. */
  let d: string;
  let dBefore: string;
  let dAfter: string;
  const ids: Record<string, number> = {};

  before(async () => {
    // The filing worker is off and nothing waits for an outcome: documents stay pending until set here.
    h = await startHarness({ workers: false, config: { saleWaitMs: 0 } });
    m = await h.addMerchant({ branches: ['000', '001'] });
    const now = h.ctx.clock.now().getTime();
    d = dayOf(new Date(now - 2 * DAY_MS), 'Africa/Lusaka');
    dBefore = dayOf(new Date(now - 3 * DAY_MS), 'Africa/Lusaka');
    dAfter = dayOf(new Date(now - DAY_MS), 'Africa/Lusaka');
    // Lusaka is UTC+2 all year: 21:59Z is 23:59 there (day D), 22:01Z is 00:01 the next day.
    const sale = async (name: string, branch: string, occurredAt: string, extra: Record<string, unknown> = {}) => {
      const res = await h.as(m).post('/api/v1/sales', saleBody({ occurredAt, ...extra }), { 'x-branch': branch });
      ids[name] = expectStatus(res, 201).data.id;
    };
    await sale('lateOnD', '000', `${d}T21:59:00.000Z`, { clientInvoiceNo: 'INV-LATE' });
    await sale('justAfterMidnight', '000', `${d}T22:01:00.000Z`);
    await sale('dayBefore', '001', `${dBefore}T10:00:00.000Z`);
    await sale('branch1OnD', '001', `${d}T08:00:00.000Z`, { clientInvoiceNo: 'INV-B1' });
    await sale('note', '000', `${d}T09:00:00.000Z`);
    // Crafted outcomes: the filing worker is off, so every document is pending until set here.
    const set = (
      name: string,
      values: {
        status?: 'pending' | 'uploaded' | 'failed' | 'resolved';
        type?: 'sale' | 'credit_note' | 'debit_note';
        resolution_kind?: 'marked';
        resolved_at?: Date;
        resolved_by?: string;
      },
    ) => h.ctx.db.updateTable('sales').set(values).where('id', '=', ids[name]!).execute();
    await set('lateOnD', { status: 'uploaded' });
    await set('dayBefore', { status: 'failed' });
    await set('branch1OnD', { status: 'resolved', resolution_kind: 'marked', resolved_at: new Date(), resolved_by: 'user:1' });
    await set('note', { status: 'uploaded', type: 'credit_note' });
    // Another merchant's documents never show.
    const other = await h.addMerchant({ branches: ['000'] });
    expectStatus(await h.as(other).post('/api/v1/sales', saleBody({ occurredAt: `${d}T12:00:00.000Z` })), 201);
  });
  after(() => h.close());

  async function list(query: string, headers: Record<string, string> = {}) {
    const body = expectStatus(await h.as(m).get(`/api/v1/sales?${query}`, headers), 200);
    const names = (body.data as Array<{ id: number }>).map((s) => Object.keys(ids).find((k) => ids[k] === s.id) ?? `foreign ${s.id}`);
    return { names, total: body.meta.total };
  }

  test('status, type and branch return exactly their documents, newest first', async () => {
    assert.deepEqual((await list('')).names, ['note', 'branch1OnD', 'dayBefore', 'justAfterMidnight', 'lateOnD']);
    assert.deepEqual(await list('status=pending'), { names: ['justAfterMidnight'], total: 1 });
    assert.deepEqual(await list('status=uploaded'), { names: ['note', 'lateOnD'], total: 2 });
    assert.deepEqual(await list('status=failed'), { names: ['branch1OnD', 'dayBefore'], total: 2 }, 'a resolved document is still failed');
    assert.deepEqual(
      await list('status=failed&resolved=false'),
      { names: ['dayBefore'], total: 1 },
      'the refused documents still to deal with',
    );
    assert.deepEqual(await list('resolved=true'), { names: ['branch1OnD'], total: 1 });
    assert.deepEqual(await list('status=failed&resolved=true'), { names: ['branch1OnD'], total: 1 });
    assert.deepEqual(await list('status=uploaded&resolved=true'), { names: [], total: 0 }, 'only a refused document is ever resolved');
    assert.deepEqual((await list('resolved=false')).names, ['note', 'dayBefore', 'justAfterMidnight', 'lateOnD']);
    const resolvedOne = expectStatus(await h.as(m).get('/api/v1/sales?resolved=true'), 200).data[0] as {
      status: string;
      resolution: { kind: string } | null;
    };
    assert.equal(resolvedOne.status, 'failed');
    assert.equal(resolvedOne.resolution?.kind, 'marked');
    assert.deepEqual(await list('type=credit_note'), { names: ['note'], total: 1 });
    assert.deepEqual(await list('type=sale&status=uploaded'), { names: ['lateOnD'], total: 1 });
    assert.deepEqual(await list('type=debit_note'), { names: [], total: 0 });
    assert.deepEqual((await list('branch=001')).names, ['branch1OnD', 'dayBefore']);
    assert.deepEqual((await list('branch=001&status=failed')).names, ['branch1OnD', 'dayBefore']);
    assert.deepEqual((await list('branch=001&status=failed&resolved=false')).names, ['dayBefore']);
    assert.deepEqual((await list('', { 'x-branch': '001' })).names, ['branch1OnD', 'dayBefore'], 'X-Branch filters as before');
    assert.deepEqual((await list('branch=001', { 'x-branch': '001' })).names, ['branch1OnD', 'dayBefore']);
  });

  test("from and to are the merchant's calendar days, inclusive, across a Lusaka midnight", async () => {
    assert.deepEqual(
      await list(`from=${d}&to=${d}`),
      { names: ['note', 'branch1OnD', 'lateOnD'], total: 3 },
      '23:59 in Lusaka is day D; 00:01 is the next',
    );
    assert.deepEqual((await list(`from=${dAfter}`)).names, ['justAfterMidnight']);
    assert.deepEqual((await list(`to=${dBefore}`)).names, ['dayBefore']);
    assert.deepEqual((await list(`from=${dBefore}&to=${d}&branch=000`)).names, ['note', 'lateOnD']);
    assert.deepEqual(await list(`from=${d}&to=${d}&reference=INV-LATE`), { names: ['lateOnD'], total: 1 }, 'combined with reference');
    assert.deepEqual((await list(`from=${dAfter}&reference=INV-LATE`)).names, []);
  });

  test('bad filters are a 422 naming the field and what to send', async () => {
    const badStatus = await h.as(m).get('/api/v1/sales?status=done');
    expectInvalid(badStatus, 'status');
    for (const allowed of ['pending', 'uploaded', 'failed']) assert.ok(badStatus.body.includes(allowed), badStatus.body);
    expectInvalid(await h.as(m).get('/api/v1/sales?status=resolved'), 'status');
    expectInvalid(await h.as(m).get('/api/v1/sales?resolved=maybe'), 'resolved');
    expectInvalid(await h.as(m).get('/api/v1/sales?type=invoice'), 'type');
    expectInvalid(await h.as(m).get('/api/v1/sales?branch=1'), 'branch');
    expectCoded(await h.as(m).get('/api/v1/sales?branch=009'), 422, 'branch_not_found');
    expectInvalid(await h.as(m).get('/api/v1/sales?branch=001', { 'x-branch': '000' }), 'branch');
    expectInvalid(await h.as(m).get('/api/v1/sales?from=2026-02-30'), 'from');
    expectInvalid(await h.as(m).get('/api/v1/sales?from=15-01-2026'), 'from');
    const reversed = await h.as(m).get(`/api/v1/sales?from=${d}&to=${dBefore}`);
    expectInvalid(reversed, 'to');
  });

  test('paging counts the filtered documents', async () => {
    for (let i = 0; i < 21; i++)
      expectStatus(await h.as(m).post('/api/v1/sales', saleBody({ occurredAt: `${dBefore}T11:00:00.000Z` }), { 'x-branch': '001' }), 201);
    const first = expectStatus(await h.as(m).get(`/api/v1/sales?branch=001&to=${dBefore}&status=pending`), 200);
    assert.equal(first.data.length, 20);
    const second = expectStatus(await h.as(m).get(`/api/v1/sales?branch=001&to=${dBefore}&status=pending&page=2`), 200);
    assert.equal(second.data.length, 1);
    const total = first.meta.total;
    assert.equal(total, 21);
  });
});
