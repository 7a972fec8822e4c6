import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Principal } from '@fiscal-gateway/vsdc-protocol';
import { pullDuePrincipalBranches } from '../../../src/domain/feeds/principals/service.ts';
import { toPrincipal } from '../../../src/authorities/zra-vsdc/feeds.ts';
import { lastReqDtOf as pullRequestDate } from '../../../src/authorities/zra-vsdc/calls.ts';
import { principalPullWorker } from '../../../src/domain/feeds/principals/worker.ts';
import { claimDueBranchPulls } from '../../../src/domain/feeds/pulls/template.ts';
import { principalOf } from '../../../src/domain/merchant/principals/store.ts';
import { deleteDeviceRows } from '../../../src/domain/kernel/devices/store.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

const HOUR_MS = 3_600_000;

describe('reading what the VSDC sends', () => {
  test('a principal needs an id (a number or text); blanks become null; the raw record is kept', () => {
    const raw = {
      id: 7,
      tpin: ' 1002003004 ',
      principalNm: 'Zamtel Ltd',
      principalAddress: '',
      principalEmail: null,
      principalTelNo: 260977000000,
      accountNo: 'A-1',
      regDt: '20260101000000',
      modDt: null,
      extra: 1,
    } as unknown as Principal;
    const principal = toPrincipal(raw)!;
    assert.equal(principal.id, '7');
    assert.equal(principal.tpin, '1002003004');
    assert.equal(principal.name, 'Zamtel Ltd');
    assert.equal(principal.address, null);
    assert.equal(principal.email, null);
    assert.equal(principal.tel, '260977000000');
    assert.equal(principal.accountNo, 'A-1');
    assert.equal(principal.raw, raw);
    assert.equal(toPrincipal({ ...raw, id: ' 12 ' } as unknown as Principal)!.id, '12');
    assert.equal(toPrincipal({ ...raw, id: null } as unknown as Principal), undefined);
    assert.equal(toPrincipal({ ...raw, id: '  ' } as unknown as Principal), undefined);
    assert.equal(toPrincipal(null as unknown as Principal), undefined);
  });
});

describe(`principals (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(async () => {
    await h.close();
  });

  const list = async (merchant: Merchant, query = '') => expectStatus(await h.as(merchant).get(`/api/v1/principals${query}`), 200);
  const devicesOf = (merchant: Merchant) => h.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', merchant.tenantId);
  const stored = (merchant: Merchant) =>
    h.ctx.db.selectFrom('principals').selectAll().where('tenant_id', '=', merchant.tenantId).orderBy('principal_id').execute();

  /** Makes every branch of the merchant due and runs one pull round. */
  async function pullNow(merchant: Merchant): Promise<void> {
    await h.ctx.db
      .updateTable('feed_pulls')
      .where('feed', '=', 'principals')
      .set({ next_pull_at: new Date(0) })
      .where('device_id', 'in', devicesOf(merchant))
      .execute();
    await pullDuePrincipalBranches(h.ctx, HOUR_MS);
  }

  test('the worker pulls each branch from the last resultDt and the route lists the principals by name', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPrincipals(merchant.tpin, '000', [
      {
        id: 1,
        tpin: '1002003004',
        principalNm: 'Zamtel Ltd',
        principalAddress: 'Lusaka, Cairo Road',
        principalEmail: 'agents@zamtel.example',
        principalTelNo: '+260211000000',
        accountNo: 'AG-001',
      },
      { id: 2, tpin: '1002003005', principalNm: 'Airtel Zambia', principalAddress: 'Lusaka' },
    ]);
    h.startWorkers([(ctx) => principalPullWorker(ctx, { intervalMs: 300 })]);
    await eventually(async () => ((await list(merchant)).meta.total === 2 ? true : undefined), 'the first pull');

    const page = await list(merchant);
    assert.deepEqual(page.meta, { page: 1, perPage: 20, total: 2, lastPage: 1 });
    assert.deepEqual(
      page.data.map((p: { name: string }) => p.name),
      ['Airtel Zambia', 'Zamtel Ltd'],
      'by name',
    );
    const zamtel = page.data[1];
    assert.deepEqual(
      { ...zamtel, updatedAt: undefined },
      {
        id: '1',
        tpin: '1002003004',
        name: 'Zamtel Ltd',
        address: 'Lusaka, Cairo Road',
        email: 'agents@zamtel.example',
        telNo: '+260211000000',
        accountNo: 'AG-001',
        updatedAt: undefined,
      },
    );
    assert.ok(!Number.isNaN(Date.parse(zamtel.updatedAt)));
    assert.equal(page.data[0].email, null);
    assert.equal(page.data[0].accountNo, null);

    h.sim.control.feedPrincipals(merchant.tpin, '000', [{ id: 3, principalNm: 'MTN Zambia' }]);
    await eventually(async () => ((await list(merchant)).meta.total === 3 ? true : undefined), 'the new principal');
    await h.stopWorkers();

    const pulls = h.sim.control.calls(merchant.tpin, '000', 'selectPrincipals');
    assert.ok(pulls.length >= 2);
    assert.equal(pulls[0]!.request.lastReqDt, '20000101000000', 'the first pull fetches everything');
    for (let i = 1; i < pulls.length; i++)
      assert.equal(
        pulls[i]!.request.lastReqDt,
        pullRequestDate(pulls[i - 1]!.resultDt),
        "each pull starts one second before the previous answer's resultDt",
      );

    // The raw record is kept as received.
    const rows = await stored(merchant);
    assert.equal((rows[0]!.principal as Principal).principalNm, 'Zamtel Ltd');
  });

  test('a repeated report changes nothing; a changed one replaces the row', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPrincipals(merchant.tpin, '000', [
      { id: 10, principalNm: 'Copperbelt Energy' },
      { id: 11, principalNm: 'Lafarge Zambia' },
    ]);
    await pullNow(merchant);
    const first = await stored(merchant);
    assert.equal(first.length, 2);

    // Everything again from the start (a VSDC that resends, or a lost position): nothing doubles, nothing is rewritten.
    await h.ctx.db
      .updateTable('feed_pulls')
      .where('feed', '=', 'principals')
      .set({ last_req_dt: null })
      .where('device_id', 'in', devicesOf(merchant))
      .execute();
    await pullNow(merchant);
    await pullNow(merchant);
    assert.deepEqual(await stored(merchant), first, 'the same rows, updated_at included');

    // The authority changes principal 10: the row is replaced, its first reception kept.
    h.sim.control.feedPrincipals(merchant.tpin, '000', [
      { id: 10, tpin: '1009998887', principalNm: 'Copperbelt Energy Corporation', principalAddress: 'Kitwe', modDt: '20261201090000' },
    ]);
    await pullNow(merchant);
    const [changed, unchanged] = await stored(merchant);
    assert.equal(changed!.name, 'Copperbelt Energy Corporation');
    assert.equal(changed!.tpin, '1009998887');
    assert.equal(changed!.address, 'Kitwe');
    assert.equal(changed!.received_at.getTime(), first[0]!.received_at.getTime());
    assert.ok(changed!.updated_at.getTime() > first[0]!.updated_at.getTime(), 'updated_at moves');
    assert.deepEqual(unchanged, first[1], 'the other principal is untouched');
    const listed = (await list(merchant)).data.find((p: { id: string }) => p.id === '10');
    assert.equal(listed.name, 'Copperbelt Energy Corporation');
    assert.equal(listed.updatedAt, changed!.updated_at.toISOString());
    assert.equal((await list(merchant)).meta.total, 2);
  });

  test("principalOf reads the tenant's principal for the sale path; another tenant's is not found", async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const other = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPrincipals(merchant.tpin, '000', [
      { id: 21, tpin: '1000000021', principalNm: 'Zambeef Products', principalAddress: 'Lusaka' },
    ]);
    await pullNow(merchant);
    await pullNow(other);
    assert.deepEqual(await principalOf(h.ctx.db, merchant.tenantId, '21'), {
      id: '21',
      tpin: '1000000021',
      name: 'Zambeef Products',
      address: 'Lusaka',
    });
    assert.deepEqual(await principalOf(h.ctx.db, merchant.tenantId, ' 21 '), {
      id: '21',
      tpin: '1000000021',
      name: 'Zambeef Products',
      address: 'Lusaka',
    });
    assert.equal(await principalOf(h.ctx.db, merchant.tenantId, '22'), undefined);
    assert.equal(await principalOf(h.ctx.db, other.tenantId, '21'), undefined);
  });

  test("principals of every branch are the merchant's; another merchant sees none of them", async () => {
    const merchant = await h.addMerchant({ branches: ['000', '001'] });
    h.sim.control.feedPrincipals(merchant.tpin, '000', [{ id: 31, principalNm: 'Shoprite Zambia' }]);
    h.sim.control.feedPrincipals(merchant.tpin, '001', [
      { id: 31, principalNm: 'Shoprite Zambia' },
      { id: 32, principalNm: 'Trade Kings' },
    ]);
    const stranger = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPrincipals(stranger.tpin, '000', [{ id: 31, principalNm: 'Somebody else' }]);
    await pullNow(merchant);
    await pullNow(stranger);

    const page = await list(merchant);
    assert.deepEqual(
      page.data.map((p: { id: string; name: string }) => [p.id, p.name]),
      [
        ['31', 'Shoprite Zambia'],
        ['32', 'Trade Kings'],
      ],
      'one row per principal, whichever branch reported it',
    );
    const theirs = await list(stranger);
    assert.deepEqual(
      theirs.data.map((p: { id: string; name: string }) => [p.id, p.name]),
      [['31', 'Somebody else']],
    );
    assert.equal((await list(h.merchant)).meta.total, 0);

    // A signed-in user of the merchant reads the same list; a partner key is not a merchant credential.
    const user = await seedSignedInUser(h.ctx, merchant.tenantId);
    assert.deepEqual(expectStatus(await h.t.inject({ method: 'GET', url: '/api/v1/principals', headers: user.headers }), 200), page);
    assert.equal((await h.t.inject({ method: 'GET', url: '/api/v1/principals', headers: bearer(merchant.partnerSecret) })).statusCode, 401);
    assert.equal((await h.t.inject({ method: 'GET', url: '/api/v1/principals' })).statusCode, 401);
  });

  test('pages of 20', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPrincipals(
      merchant.tpin,
      '000',
      Array.from({ length: 23 }, (_, i) => ({ id: 100 + i, principalNm: `Principal ${String(i).padStart(2, '0')}` })),
    );
    await pullNow(merchant);
    const first = await list(merchant);
    const second = await list(merchant, '?page=2');
    assert.deepEqual(first.meta, { page: 1, perPage: 20, total: 23, lastPage: 2 });
    assert.equal(first.data.length, 20);
    assert.deepEqual(
      second.data.map((p: { name: string }) => p.name),
      ['Principal 20', 'Principal 21', 'Principal 22'],
    );
    expectStatus(await h.as(merchant).get('/api/v1/principals?page=0'), 422);
  });

  test('a branch is claimed by one puller at a time; an unreachable VSDC defers the pull without losing its position', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const [a, b] = await Promise.all([
      claimDueBranchPulls(h.ctx.db, h.ctx.secretBox, 'principals', 60_000, 1000),
      claimDueBranchPulls(h.ctx.db, h.ctx.secretBox, 'principals', 60_000, 1000),
    ]);
    assert.equal([...a!, ...b!].filter((p) => p.tenantId === merchant.tenantId).length, 1, 'two pullers never get the same branch');
    await h.ctx.db
      .updateTable('feed_pulls')
      .where('feed', '=', 'principals')
      .set({ lease_until: null })
      .where('device_id', 'in', devicesOf(merchant))
      .execute();
    await pullNow(merchant);

    const row = () =>
      h.ctx.db
        .selectFrom('feed_pulls')
        .where('feed', '=', 'principals')
        .selectAll()
        .where('device_id', 'in', devicesOf(merchant))
        .executeTakeFirstOrThrow();
    const before = await row();
    h.sim.control.feedPrincipals(merchant.tpin, '000', [{ id: 41, principalNm: 'While down' }]);
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    await pullNow(merchant);
    const deferred = await row();
    assert.equal(deferred.last_req_dt, before.last_req_dt);
    assert.equal(deferred.failures, 1);
    assert.ok(deferred.next_pull_at.getTime() < Date.now() + 60_000, 'retried well before the hour');
    assert.equal((await list(merchant)).meta.total, 0);
    h.sim.control.clearFaults(merchant.tpin, '000');
    await pullNow(merchant);
    assert.equal((await list(merchant)).meta.total, 1);
    assert.equal((await row()).failures, 0);
  });

  test('a removed device takes its pull row with it; the merchant keeps its principals', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedPrincipals(merchant.tpin, '000', [{ id: 51, principalNm: 'Kept Principal' }]);
    await pullNow(merchant);
    const device = await devicesOf(merchant).executeTakeFirstOrThrow();
    await h.ctx.db.transaction().execute((trx) => deleteDeviceRows(trx, device.id));
    assert.equal(
      (
        await h.ctx.db
          .selectFrom('feed_pulls')
          .where('feed', '=', 'principals')
          .select('device_id')
          .where('device_id', '=', device.id)
          .execute()
      ).length,
      0,
    );
    assert.deepEqual(
      (await list(merchant)).data.map((p: { id: string }) => p.id),
      ['51'],
    );
  });

  test('the route is in the route catalogue (so the auth matrix and the fuzzer walk it) and in the OpenAPI document', async () => {
    const route = h.t.app.routeCatalog.find((r) => r.method === 'GET' && r.url === '/api/v1/principals');
    assert.ok(route, 'catalogued');
    assert.equal(route.auth.surface, 'merchant');
    const doc = (await h.t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    assert.equal(doc.paths['/api/v1/principals'].get.operationId, 'listPrincipals');
  });
});
