import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { TEST_ADMIN_TOKEN, bearer } from '../../helpers/app.ts';
import { partnerKeyWithScopes } from '../../helpers/credentials.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';
import { Receiver, registerEndpoint } from '../webhooks/helpers.ts';
import { eventually } from '../../helpers/poll.ts';

interface Backlog {
  tenantId: number;
  branch: string;
  pending: number;
  oldestPendingAt: string | null;
  oldestPendingAgeSeconds: number | null;
  failed: number;
  vsdc: { state: string; lastOutcome: string | null; lastError: string | null; nextAttemptAt: string | null };
}

const ok = (res: LightMyRequestResponse) => {
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

describe(`console read endpoints (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;
  let receiver: Receiver;

  before(async () => {
    receiver = await new Receiver().start();
    h = await startHarness({ config: { saleWaitMs: 300 } });
    other = await h.addMerchant();
    await h.registerBranch(other, '000');
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });

  const asPartner = (url: string, merchant: Merchant = h.merchant) =>
    h.t.inject({ method: 'GET', url, headers: bearer(merchant.partnerSecret) });
  const asAdmin = (url: string) => h.t.inject({ method: 'GET', url, headers: bearer(TEST_ADMIN_TOKEN) });
  const branchOf = async (merchant: Merchant = h.merchant): Promise<Backlog> => {
    const page = ok(await asPartner(`/api/v1/partner/backlog?tenant=${merchant.tenantId}`, merchant));
    assert.equal(page.data.length, 1);
    return page.data[0];
  };
  const settled = (id: number) =>
    eventually(async () => {
      const sale = (await h.get(`/api/v1/sales/${id}`)).json().data;
      return sale.status === 'pending' ? undefined : sale;
    }, `sale ${id} settled`);

  test('backlog per branch: a VSDC outage shows as pending documents and an unreachable VSDC, then drains', async () => {
    const first = await h.post('/api/v1/sales', saleBody());
    await settled(first.json().data.id);
    const healthy = await branchOf();
    assert.equal(healthy.pending, 0);
    assert.equal(healthy.oldestPendingAt, null);
    assert.equal(healthy.vsdc.state, 'reachable');
    assert.equal(healthy.vsdc.lastOutcome, 'uploaded');

    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const queued = await h.post('/api/v1/sales', saleBody());
    assert.equal(queued.json().data.status, 'pending');
    const down = await eventually(async () => {
      const b = await branchOf();
      return b.vsdc.state === 'unreachable' ? b : undefined;
    }, 'the VSDC reported unreachable');
    assert.equal(down.pending, 1);
    assert.ok(down.oldestPendingAt);
    assert.ok(down.oldestPendingAgeSeconds !== null && down.oldestPendingAgeSeconds >= 0);
    assert.ok(down.vsdc.lastError, 'the reason is shown');
    assert.ok(down.vsdc.nextAttemptAt);

    const onlyPending = ok(await asPartner('/api/v1/partner/backlog?pendingOnly=true'));
    assert.deepEqual(
      onlyPending.data.map((b: Backlog) => b.tenantId),
      [h.merchant.tenantId],
    );

    h.sim.control.clearFaults(h.merchant.tpin, '000');
    await settled(queued.json().data.id);
    const drained = await eventually(async () => {
      const b = await branchOf();
      return b.pending === 0 && b.vsdc.state === 'reachable' ? b : undefined;
    }, 'the backlog drained');
    assert.equal(drained.vsdc.lastError, null);
  });

  test("failed documents carry the authority's resultCode and lastError, and only the partner's own", async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    const refused = await h.post('/api/v1/sales', saleBody({ clientInvoiceNo: 'REFUSED-1' }));
    await settled(refused.json().data.id);
    const page = ok(await asPartner('/api/v1/partner/documents?status=failed'));
    const doc = page.data.find((d: { id: number }) => d.id === refused.json().data.id);
    assert.ok(doc, 'the refused document is listed');
    assert.equal(doc.status, 'failed');
    assert.equal(doc.resultCode, '910');
    assert.match(doc.lastError, /Request parameter error/);
    assert.equal(doc.clientInvoiceNo, 'REFUSED-1');
    assert.equal(doc.authorityInvoiceNo, null, 'a refused document has no authority number');
    assert.equal(doc.tenantId, h.merchant.tenantId);
    assert.equal((await branchOf()).failed, 1);

    const defaultIsFailed = ok(await asPartner('/api/v1/partner/documents'));
    assert.deepEqual(
      defaultIsFailed.data.map((d: { id: number }) => d.id),
      page.data.map((d: { id: number }) => d.id),
    );
    const byBranch = ok(await asPartner('/api/v1/partner/documents?status=uploaded&branch=000'));
    assert.ok(byBranch.data.length >= 2 && byBranch.data.every((d: { status: string }) => d.status === 'uploaded'));
    for (const summary of byBranch.data) {
      const sale = ok(await h.get(`/api/v1/sales/${summary.id}`)).data;
      assert.equal(summary.authorityInvoiceNo, sale.authorityInvoiceNo, 'the number on the fiscal receipt, as on the sale');
      assert.match(summary.authorityInvoiceNo, /^INV.+\/\d+$/);
      assert.equal(summary.receiptNo, sale.fiscal.receiptNo);
      assert.equal(summary.clientInvoiceNo, sale.clientInvoiceNo);
    }
    assert.equal(page.meta.total, 1, 'the refusal is counted');
    assert.equal(defaultIsFailed.meta.total, 1);
    const theirs = ok(await asPartner('/api/v1/partner/documents?status=failed', other));
    assert.deepEqual(theirs.data, []);
    assert.equal(theirs.meta.total, 0, "another partner's refusal is not counted");
  });

  test("another partner's merchant is a 404 on every console read", async () => {
    for (const url of [
      `/api/v1/partner/backlog?tenant=${h.merchant.tenantId}`,
      `/api/v1/partner/documents?tenant=${h.merchant.tenantId}`,
      `/api/v1/partner/filings?tenant=${h.merchant.tenantId}`,
      `/api/v1/partner/backlog?tenant=999999`,
    ]) {
      const res = await asPartner(url, other);
      assert.equal(res.statusCode, 404, url);
      assert.equal(typeof res.json().message, 'string');
    }
    const theirs = ok(await asPartner('/api/v1/partner/backlog', other));
    assert.deepEqual(
      theirs.data.map((b: Backlog) => b.tenantId),
      [other.tenantId],
    );
  });

  test('filings per minute over 24 h add up to the documents, by status', async () => {
    const filings = ok(await asPartner('/api/v1/partner/filings?window=24h')).data;
    assert.equal(filings.bucketSeconds, 60);
    assert.equal(new Date(filings.to).getTime() - new Date(filings.from).getTime(), 86_400_000);
    const counts = await h.ctx.db.selectFrom('sales').select(['status']).where('tenant_id', '=', h.merchant.tenantId).execute();
    const expected = { uploaded: 0, pending: 0, failed: 0, resolved: 0 };
    for (const row of counts) expected[row.status]++;
    assert.deepEqual(filings.totals, expected);
    const summed = { uploaded: 0, pending: 0, failed: 0, resolved: 0 };
    for (const b of filings.buckets) {
      assert.equal(new Date(b.at).getUTCSeconds(), 0, 'buckets start on the minute');
      for (const status of ['uploaded', 'pending', 'failed', 'resolved'] as const) summed[status] += b[status];
    }
    assert.deepEqual(summed, expected);
    assert.equal(ok(await asPartner('/api/v1/partner/filings?window=1h')).data.window, '1h');
    assert.equal((await asPartner('/api/v1/partner/filings?window=2d')).statusCode, 422);
    assert.deepEqual(ok(await asPartner('/api/v1/partner/filings', other)).data.totals, {
      uploaded: 0,
      pending: 0,
      failed: 0,
      resolved: 0,
    });
  });

  test('webhook success rate per endpoint, needing webhooks:read', async () => {
    const { endpoint } = await registerEndpoint(h.t, h.merchant.partnerSecret, { url: `${receiver.url}/hooks`, description: 'ERP' });
    const sale = await h.post('/api/v1/sales', saleBody());
    await settled(sale.json().data.id);
    const stats = await eventually(async () => {
      const rows = ok(await asPartner('/api/v1/partner/webhook-stats')).data;
      const row = rows.find((r: { endpointId: number }) => r.endpointId === endpoint.id);
      return row?.delivered >= 1 ? row : undefined;
    }, 'a delivery');
    assert.equal(stats.successRate, 1);
    assert.equal(stats.failed, 0);
    assert.equal(stats.status, 'enabled');
    assert.equal(stats.description, 'ERP');
    assert.deepEqual(ok(await asPartner('/api/v1/partner/webhook-stats?window=7d', other)).data, []);

    const tenantsOnly = await partnerKeyWithScopes(h.ctx, h.merchant.partnerId, ['tenants:read']);
    const refused = await h.t.inject({ method: 'GET', url: '/api/v1/partner/webhook-stats', headers: bearer(tenantsOnly.secret) });
    assert.equal(refused.statusCode, 403);
    const webhooksOnly = await partnerKeyWithScopes(h.ctx, h.merchant.partnerId, ['webhooks:read']);
    const noBacklog = await h.t.inject({ method: 'GET', url: '/api/v1/partner/backlog', headers: bearer(webhooksOnly.secret) });
    assert.equal(noBacklog.statusCode, 403);
  });

  test("the operator sees every merchant with its account state, and every partner's backlog", async () => {
    const patch = await h.t.inject({
      method: 'PATCH',
      url: `/admin/v1/tenants/${other.tenantId}`,
      headers: bearer(TEST_ADMIN_TOKEN),
      payload: { status: 'suspended', plan: 'growth' },
    });
    assert.equal(patch.statusCode, 200, patch.body);
    const all = ok(await asAdmin('/admin/v1/tenants'));
    const ids = all.data.map((t: { id: number }) => t.id);
    assert.ok(ids.includes(h.merchant.tenantId) && ids.includes(other.tenantId));
    const suspended = ok(await asAdmin('/admin/v1/tenants?status=suspended'));
    assert.deepEqual(
      suspended.data.map((t: { id: number }) => t.id),
      [other.tenantId],
    );
    const row = suspended.data[0];
    assert.equal(row.plan, 'growth');
    assert.equal(row.subscription, 'active');
    assert.equal(row.partnerId, other.partnerId);
    assert.equal(row.partnerName, 'Test partner');
    assert.equal(row.devices.length, 1);
    const mine = ok(await asAdmin(`/admin/v1/tenants?partner=${h.merchant.partnerId}`)).data[0];
    assert.equal(mine.failed, 1);
    assert.ok(mine.documentsThisMonth >= 4);

    const backlog = ok(await asAdmin('/admin/v1/backlog'));
    assert.ok(backlog.meta.total >= 2);
    const failed = ok(await asAdmin(`/admin/v1/documents?status=failed&partner=${h.merchant.partnerId}`));
    assert.equal(failed.data[0].resultCode, '910');
    assert.equal(failed.meta.total, 1);
    assert.ok(ok(await asAdmin('/admin/v1/documents')).meta.total >= 1, "everyone's failed documents, kept per partner, summed");
    assert.ok(ok(await asAdmin('/admin/v1/filings?window=6h')).data.totals.uploaded >= 3);
  });

  test('the new reads are in the OpenAPI document', async () => {
    const doc = ok(await h.t.inject({ method: 'GET', url: '/docs/openapi.json' }));
    for (const path of [
      '/api/v1/partner/backlog',
      '/api/v1/partner/documents',
      '/api/v1/partner/filings',
      '/api/v1/partner/webhook-stats',
      '/admin/v1/tenants',
      '/api/v1/sales/{sale}/receipt',
    ]) {
      assert.ok(doc.paths[path]?.get, `${path} is documented`);
    }
    assert.ok(doc.paths['/api/v1/sales/{sale}/receipt'].get.responses['200'].content['application/pdf']);
  });
});
