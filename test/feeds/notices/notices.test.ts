import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BranchRecord, Notice } from '@fiscal-gateway/vsdc-protocol';
import { createDeliveryWorker } from '../../../src/domain/partner/webhooks/delivery-worker.ts';
import { pullDueAuthorityFeeds } from '../../../src/domain/feeds/notices/service.ts';
import { toNotice } from '../../../src/authorities/zra-vsdc/feeds.ts';
import { lastReqDtOf as pullRequestDate } from '../../../src/authorities/zra-vsdc/calls.ts';
import { branchOf } from '../../../src/authorities/zra-vsdc/register.ts';
import { authorityProfile } from '../../../src/authorities/index.ts';
import { authorityPullWorker } from '../../../src/domain/feeds/notices/worker.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { FAST_DELIVERY, Receiver, deliveryRows, registerEndpoint } from '../../partner/webhooks/helpers.ts';
import { directVsdcCall } from '../../authorities/zra/helpers.ts';

const HOUR_MS = 3_600_000;
const delivery = (ctx: Parameters<typeof createDeliveryWorker>[0]) => createDeliveryWorker(ctx, { pollIntervalMs: 50, jitter: 0 });

describe('reading what the VSDC sends', () => {
  test('a notice is kept as received when it has a whole noticeNo; unreadable dates become null', () => {
    const raw = {
      noticeNo: ' 17 ',
      title: ' Levy change ',
      cont: '',
      dtlUrl: null,
      regrNm: 'ZRA',
      regDt: '2024-05-08 10:20:10',
      extra: 1,
    } as unknown as Notice;
    const notice = toNotice(raw)!;
    assert.equal(notice.number, 17);
    assert.equal(notice.title, 'Levy change');
    assert.equal(notice.content, null);
    assert.equal(notice.registeredAt, null);
    assert.equal(notice.raw, raw);
    assert.equal(toNotice({ ...raw, noticeNo: 'abc' } as unknown as Notice), undefined);
    assert.equal(toNotice({ ...raw, noticeNo: 1.5 } as unknown as Notice), undefined);
  });
  test('a branch needs a 3-digit bhfId; hqYn is read in any case', () => {
    const raw = {
      bhfId: '001',
      bhfNm: 'Kitwe',
      hqYn: 'y',
      prvncNm: null,
      dstrtNm: null,
      sctrNm: null,
      locDesc: null,
      mgrNm: null,
      mgrTelNo: null,
      mgrEmail: null,
    } as unknown as BranchRecord;
    assert.equal(branchOf(raw, authorityProfile('zra-vsdc').branch)!.headquarters, true);
    assert.equal(branchOf({ ...raw, bhfId: '1' }, authorityProfile('zra-vsdc').branch), undefined);
  });
});

describe(`authority notices and branches (${engineName})`, () => {
  let h: Harness;
  const receivers: Receiver[] = [];

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false, config: FAST_DELIVERY });
    h.startWorkers([delivery]);
  });
  after(async () => {
    await h.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  const partner = (merchant: Merchant) => ({
    get: (url: string) => h.t.inject({ method: 'GET', url, headers: bearer(merchant.partnerSecret) }),
  });
  const notices = async (merchant: Merchant) => expectStatus(await h.as(merchant).get('/api/v1/notices'), 200);
  const noticeEvents = async (merchant: Merchant) =>
    (
      await h.ctx.db
        .selectFrom('webhook_events')
        .select('body')
        .where('tenant_id', '=', merchant.tenantId)
        .where('type', '=', 'authority.notice')
        .orderBy('id')
        .execute()
    ).map((r) => JSON.parse(r.body) as { event: string; data: { notice: { noticeNo: number; title: string }; tenant: { id: number } } });
  /** One pull round with the merchant's feeds due now (every other feed keeps its hour). */
  const pullNow = async (merchant: Merchant) => {
    await h.ctx.db.updateTable('feed_pulls').set({ next_pull_at: new Date() }).where('tenant_id', '=', merchant.tenantId).execute();
    await pullDueAuthorityFeeds(h.ctx, HOUR_MS);
  };
  const me = async (merchant: Merchant) => expectStatus(await h.as(merchant).get('/api/v1/me'), 200).data;
  const tenantView = async (merchant: Merchant) =>
    expectStatus(await partner(merchant).get(`/api/v1/tenants/${merchant.tenantId}`), 200).data;

  test('notices are pulled once each, newest first, each with one authority.notice event', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedNotices(merchant.tpin, '000', [
      {
        title: 'VAT return deadline',
        cont: 'Returns for October are due on the 18th.',
        regDt: '20261101080000',
        dtlUrl: 'https://www.zra.org.zm/notices/1',
      },
      { title: 'Scheduled maintenance', cont: 'The VSDC service is down on Sunday 02:00–04:00.', regDt: '20261115090000' },
    ]);
    await pullNow(merchant);
    const first = await notices(merchant);
    assert.equal(first.meta.total, 2);
    assert.deepEqual(
      first.data.map((n: { title: string }) => n.title),
      ['Scheduled maintenance', 'VAT return deadline'],
      'newest first',
    );
    const vat = first.data[1];
    assert.equal(vat.content, 'Returns for October are due on the 18th.');
    assert.equal(vat.detailUrl, 'https://www.zra.org.zm/notices/1');
    assert.equal(vat.registeredBy, 'ZRA');
    assert.equal(vat.registeredAt, '2026-11-01T08:00:00.000Z');
    assert.equal(typeof vat.noticeNo, 'number');

    // Pulled again (the VSDC repeats what changed within its last answer's second) and the
    // authority re-publishing notice 1 under the same number: still stored once, no second event.
    h.sim.control.feedNotices(merchant.tpin, '000', [{ noticeNo: vat.noticeNo, title: 'VAT return deadline', regDt: '20261101080000' }]);
    await pullNow(merchant);
    await pullNow(merchant);
    assert.equal((await notices(merchant)).meta.total, 2);
    h.sim.control.feedNotices(merchant.tpin, '000', [{ title: 'New levy codes', regDt: '20261120100000' }]);
    await pullNow(merchant);
    const third = await notices(merchant);
    assert.equal(third.meta.total, 3);
    assert.equal(third.data[0].title, 'New levy codes');

    const events = await noticeEvents(merchant);
    assert.deepEqual(events.map((e) => e.data.notice.title).sort(), ['New levy codes', 'Scheduled maintenance', 'VAT return deadline']);
    assert.ok(events.every((e) => e.event === 'authority.notice' && e.data.tenant.id === merchant.tenantId));

    const pulls = h.sim.control.calls(merchant.tpin, '000', 'selectNotices');
    assert.equal(pulls[0]!.request.lastReqDt, '20000101000000', 'the first pull fetches everything');
    for (let i = 1; i < pulls.length; i++)
      assert.equal(
        pulls[i]!.request.lastReqDt,
        pullRequestDate(pulls[i - 1]!.resultDt),
        "each pull starts one second before the previous answer's resultDt",
      );

    // The partner sees the same list for its merchant.
    const viaPartner = expectStatus(await partner(merchant).get(`/api/v1/tenants/${merchant.tenantId}/notices`), 200);
    assert.deepEqual(viaPartner, third);
  });

  test('the event reaches a subscribed receiver and not an endpoint on the default events', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const subscribed = await new Receiver().start();
    const other = await new Receiver().start();
    receivers.push(subscribed, other);
    await registerEndpoint(h.t, merchant.partnerSecret, { url: `${subscribed.url}/notices`, events: ['authority.notice'] });
    const unsubscribed = await registerEndpoint(h.t, merchant.partnerSecret, { url: `${other.url}/invoices` });

    h.sim.control.feedNotices(merchant.tpin, '000', [{ title: 'Smart invoice reminder' }]);
    await pullNow(merchant);
    const [delivered] = await eventually(() => subscribed.requests.length > 0 && subscribed.requests, 'the authority.notice delivery');
    assert.equal(delivered!.headers['x-webhook-event'], 'authority.notice');
    const envelope = JSON.parse(delivered!.body);
    assert.equal(envelope.event, 'authority.notice');
    assert.equal(envelope.data.notice.title, 'Smart invoice reminder');
    assert.deepEqual(envelope.data.tenant, { id: merchant.tenantId, name: envelope.data.tenant.name, tpin: merchant.tpin });
    assert.deepEqual(envelope.data.notice, (await notices(merchant)).data[0], 'the notice as GET /api/v1/notices shows it');
    assert.equal(
      (await deliveryRows(h.ctx, unsubscribed.endpoint.id)).length,
      0,
      'no delivery queued for the endpoint that did not subscribe',
    );
    assert.equal(other.requests.length, 0);
  });

  test("branches are recorded at initialisation and shown in /me and the partner's tenant view", async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const [hq] = (await me(merchant)).authorityBranches;
    assert.deepEqual(
      { ...hq, updatedAt: undefined },
      {
        branch: '000',
        name: 'Headquarter',
        location: 'Cairo Road',
        province: 'LUSAKA PROVINCE',
        district: 'LUSAKA',
        sector: 'LUSAKA CENTRAL',
        headquarters: true,
        status: '01',
        openedOn: '20240101',
        registeredDevice: true,
        updatedAt: undefined,
      },
    );

    await h.registerBranch(merchant, '001');
    assert.deepEqual(
      (await me(merchant)).authorityBranches.map((b: { branch: string; headquarters: boolean }) => [b.branch, b.headquarters]),
      [
        ['000', true],
        ['001', false],
      ],
    );

    // A branch the authority knows (installed elsewhere) but with no device here yet.
    const installed = await directVsdcCall((vsdc) =>
      vsdc.selectInitInfo({ baseUrl: h.sim.url, tpin: merchant.tpin, bhfId: '002' }, { dvcSrlNo: 'OTHER-TILL' }),
    );
    assert.equal(installed.kind, 'ok');
    await h.ctx.db.updateTable('feed_pulls').set({ next_pull_at: new Date() }).where('tenant_id', '=', merchant.tenantId).execute();
    await h.stopWorkers();
    h.startWorkers([delivery, (ctx) => authorityPullWorker(ctx, { intervalMs: HOUR_MS })]);
    const view = await eventually(async () => {
      const tenant = await tenantView(merchant);
      return tenant.authorityBranches.length === 3 ? tenant : undefined;
    }, 'the scheduled branch pull');
    await h.stopWorkers();
    h.startWorkers([delivery]);
    assert.deepEqual(
      view.authorityBranches.map((b: { branch: string; registeredDevice: boolean }) => [b.branch, b.registeredDevice]),
      [
        ['000', true],
        ['001', true],
        ['002', false],
      ],
    );
    assert.deepEqual((await me(merchant)).authorityBranches, view.authorityBranches);

    // Another merchant never sees them: its own branch only, none of these notices.
    assert.deepEqual(
      (await me(h.merchant)).authorityBranches.map((b: { branch: string }) => b.branch),
      ['000'],
    );
    assert.equal(
      (await notices(h.merchant)).data.some((n: { title: string }) => n.title === 'VAT return deadline'),
      false,
    );
    const stranger = await h.addMerchant();
    assert.deepEqual((await me(stranger)).authorityBranches, [], 'no initialised device: no branches yet');
    assert.equal((await notices(stranger)).meta.total, 0);
    expectStatus(await partner(stranger).get(`/api/v1/tenants/${merchant.tenantId}/notices`), 404);
    expectStatus(await partner(stranger).get(`/api/v1/tenants/${merchant.tenantId}`), 404);
  });

  test('a selectBranches that fails at initialisation does not fail it; the scheduled pull records them', async () => {
    const merchant = await h.addMerchant({ branches: ['000'], initialize: false });
    h.sim.control.setFaults(merchant.tpin, '000', { reject: { count: 1, code: '999', endpoints: ['selectBranches'] } });
    const initialized = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${merchant.tenantId}/devices/000/initialize`,
      headers: bearer(merchant.partnerSecret),
    });
    assert.equal(initialized.statusCode, 200, initialized.body);
    assert.equal(initialized.json().data.initialized, true);
    assert.equal(h.sim.control.calls(merchant.tpin, '000', 'selectBranches').length, 1, 'it was asked, and refused');
    assert.deepEqual((await me(merchant)).authorityBranches, []);

    // No answer at all (the socket dropped) does not fail it either.
    const second = await h.addMerchant({ branches: ['000'], initialize: false });
    h.sim.control.setFaults(second.tpin, '000', { loseReplies: { count: 1, endpoints: ['selectBranches'] } });
    const secondInit = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${second.tenantId}/devices/000/initialize`,
      headers: bearer(second.partnerSecret),
    });
    assert.equal(secondInit.statusCode, 200, secondInit.body);

    await pullNow(merchant);
    await pullNow(second);
    assert.deepEqual(
      (await me(merchant)).authorityBranches.map((b: { branch: string }) => b.branch),
      ['000'],
    );
    assert.deepEqual(
      (await me(second)).authorityBranches.map((b: { branch: string }) => b.branch),
      ['000'],
    );
  });

  test('an unreachable VSDC defers the notices pull without losing its position', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    await pullNow(merchant);
    const row = () =>
      h.ctx.db
        .selectFrom('feed_pulls')
        .selectAll()
        .where('tenant_id', '=', merchant.tenantId)
        .where('feed', '=', 'notices')
        .executeTakeFirstOrThrow();
    const before = await row();
    h.sim.control.feedNotices(merchant.tpin, '000', [{ title: 'While down' }]);
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    await pullNow(merchant);
    const deferred = await row();
    assert.equal(deferred.last_req_dt, before.last_req_dt);
    assert.equal(deferred.failures, 1);
    assert.ok(deferred.next_pull_at.getTime() < Date.now() + 60_000, 'retried well before the hour');
    h.sim.control.clearFaults(merchant.tpin, '000');
    await pullNow(merchant);
    assert.equal((await notices(merchant)).meta.total, 1);
    assert.equal((await row()).failures, 0);
  });
});
