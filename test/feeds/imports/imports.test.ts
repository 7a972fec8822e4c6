import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pullDueBranches } from '../../../src/domain/feeds/imports/service.ts';
import { claimDueBranchPulls } from '../../../src/domain/feeds/pulls/template.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { importFilingWorker, importPullWorker } from '../../../src/domain/feeds/imports/worker.ts';
import { eventually } from '../../helpers/poll.ts';
import { lastReqDtOf as pullRequestDate } from '../../../src/authorities/zra-vsdc/calls.ts';

const HOUR_MS = 3_600_000;

describe(`customs imports (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(async () => {
    await h.close();
  });

  const simLines = (merchant: Merchant) => h.sim.control.getDevice(merchant.tpin, '000')!.imports;
  const total = async (merchant: Merchant, query = '') =>
    expectStatus(await h.as(merchant).get(`/api/v1/import-items${query}`), 200).meta.total as number;
  const pullRow = (tenantId: number) =>
    h.t.ctx.db
      .selectFrom('feed_pulls as p')
      .innerJoin('devices as d', 'd.id', 'p.device_id')
      .select(['p.last_req_dt', 'p.last_pulled_at', 'p.next_pull_at'])
      .where('d.tenant_id', '=', tenantId)
      .where('p.feed', '=', 'imports')
      .executeTakeFirst();

  /** A merchant with customs lines waiting at the authority, pulled once. */
  async function merchantWithLines(count: number): Promise<{ merchant: Merchant; ids: number[] }> {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedImports(
      merchant.tpin,
      '000',
      Array.from({ length: count }, (_, i) => ({ itemNm: `Imported goods ${i + 1}`, qty: 10 + i })),
    );
    await pullDueBranches(h.t.ctx, HOUR_MS);
    const list = expectStatus(await h.as(merchant).get('/api/v1/import-items'), 200);
    assert.equal(list.meta.total, count);
    return { merchant, ids: list.data.map((l: { id: number }) => l.id).reverse() };
  }

  test('the worker pulls each branch every interval from the last resultDt, storing each line once', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedImports(merchant.tpin, '000', [
      { itemNm: 'Cooking oil 20L', qty: 40, hsCd: '1512190000' },
      { itemNm: 'Rice 50kg', qty: 12 },
    ]);
    h.startWorkers([(ctx) => importPullWorker(ctx, { intervalMs: 300 })]);

    await eventually(async () => ((await total(merchant)) === 2 ? true : undefined), 'the first pull');
    const line = expectStatus(await h.as(merchant).get('/api/v1/import-items'), 200).data.find(
      (l: { itemName: string }) => l.itemName === 'Cooking oil 20L',
    );
    assert.equal(line.branch, '000');
    assert.equal(line.quantity, 40);
    assert.equal(line.hsCode, '1512190000');
    assert.equal(line.itemSeq, 1);
    assert.match(line.taskCode, /\S/);
    assert.equal(line.decision, null);
    assert.equal(line.filing, 'not_sent', 'filing is the state itself (spec 2.8)');
    assert.deepEqual(line.filingDetail, { resultCode: null, message: null, filedAt: null, nextAttemptAt: null, lastError: null });

    h.sim.control.feedImports(merchant.tpin, '000', [{ itemNm: 'Sugar 50kg', qty: 5 }]);
    await eventually(async () => ((await total(merchant)) === 3 ? true : undefined), 'the new line');
    const seen = (await pullRow(merchant.tenantId))!.last_pulled_at!;
    await eventually(async () => ((await pullRow(merchant.tenantId))!.last_pulled_at! > seen ? true : undefined), 'another pull');
    assert.equal(await total(merchant), 3, 'a line returned again by a later pull is not stored twice');
    await h.stopWorkers();

    const pulls = h.sim.control.calls(merchant.tpin, '000', 'selectImportItems');
    assert.ok(pulls.length >= 3);
    assert.equal(pulls[0]!.request.lastReqDt, '20000101000000', 'the first pull fetches everything');
    for (let i = 1; i < pulls.length; i++) {
      assert.equal(
        pulls[i]!.request.lastReqDt,
        pullRequestDate(pulls[i - 1]!.resultDt),
        "each pull starts one second before the previous answer's resultDt",
      );
    }
    const row = (await pullRow(merchant.tenantId))!;
    assert.equal(row.last_req_dt, pulls[pulls.length - 1]!.resultDt);
  });

  test('a branch is claimed by one puller at a time', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const lease = 60_000; // ms
    const [a, b] = await Promise.all([
      claimDueBranchPulls(h.t.ctx.db, h.t.ctx.secretBox, 'imports', lease, 1000),
      claimDueBranchPulls(h.t.ctx.db, h.t.ctx.secretBox, 'imports', lease, 1000),
    ]);
    const mine = [...a!, ...b!].filter((p) => p.tenantId === merchant.tenantId);
    assert.equal(mine.length, 1, 'two pullers never get the same branch');
    assert.equal(
      (await claimDueBranchPulls(h.t.ctx.db, h.t.ctx.secretBox, 'imports', lease, 1000)).filter((p) => p.tenantId === merchant.tenantId)
        .length,
      0,
      'leased: nobody else takes it',
    );
  });

  test('an unreachable VSDC defers the pull without losing the position', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.feedImports(merchant.tpin, '000', [{ itemNm: 'Cement', qty: 100 }]);
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    await pullDueBranches(h.t.ctx, HOUR_MS);
    const deferred = (await pullRow(merchant.tenantId))!;
    assert.equal(deferred.last_req_dt, null);
    assert.ok(deferred.next_pull_at.getTime() < Date.now() + 60_000, 'retried well before the hour');
    h.sim.control.clearFaults(merchant.tpin, '000');
    await eventually(async () => {
      await pullDueBranches(h.t.ctx, HOUR_MS);
      return (await total(merchant)) === 1 ? true : undefined;
    }, 'the retried pull');
    const pulled = (await pullRow(merchant.tenantId))!;
    assert.match(pulled.last_req_dt!, /^\d{14}$/);
    assert.ok(pulled.next_pull_at.getTime() > Date.now() + HOUR_MS - 60_000, 'next pull in an hour');
  });

  test('approve files status 3 with the item code; reject files status 4; a second answer is 409', async () => {
    const { merchant, ids } = await merchantWithLines(3);
    const m = h.as(merchant);
    const item = expectStatus(await m.post('/api/v1/items', { name: 'Cooking oil 20L', itemClsCd: CLASS_CODE }), 201).data;

    const approved = expectStatus(
      await m.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: item.itemCode, remark: 'Into store 2' }),
      200,
    ).data;
    assert.equal(approved.decision, 'approved');
    assert.ok(approved.decidedAt);
    assert.equal(approved.itemCode, item.itemCode);
    assert.equal(approved.itemClassificationCode, CLASS_CODE, 'taken from the item');
    assert.equal(approved.filing, 'accepted');
    assert.equal(approved.filingDetail.resultCode, '000');
    assert.ok(approved.filingDetail.filedAt);
    const atAuthority = simLines(merchant).find((l) => l.itemSeq === approved.itemSeq && l.taskCd === approved.taskCode)!;
    assert.equal(atAuthority.imptItemSttsCd, '3');
    assert.deepEqual(atAuthority.decision, { itemCd: item.itemCode, itemClsCd: CLASS_CODE, remark: 'Into store 2' });

    const rejected = expectStatus(await m.post(`/api/v1/import-items/${ids[1]}/reject`), 200).data;
    assert.equal(rejected.decision, 'rejected');
    assert.equal(rejected.itemCode, null);
    assert.equal(rejected.filing, 'accepted');
    assert.equal(simLines(merchant).find((l) => l.itemSeq === rejected.itemSeq)!.imptItemSttsCd, '4');

    expectCoded(await m.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: item.itemCode }), 409, 'import_item_already_decided');
    expectCoded(await m.post(`/api/v1/import-items/${ids[0]}/reject`, {}), 409, 'import_item_already_decided');
    expectCoded(await m.post(`/api/v1/import-items/${ids[1]}/approve`, { itemCode: item.itemCode }), 409, 'import_item_already_decided');

    // Concurrent answers: exactly one wins.
    const race = await Promise.all([
      m.post(`/api/v1/import-items/${ids[2]}/reject`, { remark: 'a' }),
      m.post(`/api/v1/import-items/${ids[2]}/approve`, { itemCode: item.itemCode }),
    ]);
    assert.deepEqual(race.map((r) => r.statusCode).sort(), [200, 409]);

    assert.deepEqual(expectStatus(await m.get(`/api/v1/import-items/${ids[0]}`), 200).data, approved);
    assert.equal(await total(merchant, '?decision=undecided'), 0);
    assert.equal(await total(merchant, '?decision=rejected'), race[0]!.statusCode === 200 ? 2 : 1);
    assert.equal(await total(merchant, '?filing=accepted'), 3);
  });

  test('approval requires itemCode; the classification comes from the item or the body', async () => {
    const { merchant, ids } = await merchantWithLines(2);
    const m = h.as(merchant);
    expectInvalid(await m.post(`/api/v1/import-items/${ids[0]}/approve`), 'itemCode');
    expectInvalid(await m.post(`/api/v1/import-items/${ids[0]}/approve`, { remark: 'x' }), 'itemCode');
    expectInvalid(await m.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: 'NOT-MINE' }), 'itemClassificationCode');
    expectInvalid(
      await m.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: 'NOT-MINE', itemClassificationCode: '99999999' }),
      'itemClassificationCode',
    );
    expectInvalid(await m.post(`/api/v1/import-items/${ids[0]}/reject`, { itemCode: 'X' }), 'itemCode');
    assert.equal(expectStatus(await m.get(`/api/v1/import-items/${ids[0]}`), 200).data.decision, null, 'a refused request decides nothing');

    const approved = expectStatus(
      await m.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: 'EXT-001', itemClassificationCode: CLASS_CODE }),
      200,
    ).data;
    assert.equal(approved.itemClassificationCode, CLASS_CODE);
    assert.equal(approved.filing, 'accepted');
  });

  test('a refused filing never reverses the decision; an unreachable one is retried by the worker', async () => {
    const { merchant, ids } = await merchantWithLines(2);
    const m = h.as(merchant);
    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: { code: '999', message: 'Declaration closed' } });
    const refused = expectStatus(
      await m.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: 'EXT-9', itemClassificationCode: CLASS_CODE }),
      200,
    ).data;
    assert.equal(refused.decision, 'approved');
    assert.equal(refused.filing, 'failed');
    assert.equal(refused.filingDetail.resultCode, '999');
    assert.equal(refused.filingDetail.message, 'Declaration closed');
    assert.equal(refused.filingDetail.nextAttemptAt, null);
    assert.equal(expectStatus(await m.get(`/api/v1/import-items/${ids[0]}`), 200).data.decision, 'approved');
    assert.equal(await total(merchant, '?filing=failed'), 1);

    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: null, down: true });
    const sending = expectStatus(await m.post(`/api/v1/import-items/${ids[1]}/reject`, { remark: 'Wrong consignee' }), 200).data;
    assert.equal(sending.decision, 'rejected');
    assert.equal(sending.filing, 'sending');
    assert.ok(sending.filingDetail.nextAttemptAt);
    assert.ok(sending.filingDetail.lastError);
    assert.equal(await total(merchant, '?filing=sending'), 1);

    h.sim.control.clearFaults(merchant.tpin, '000');
    h.startWorkers([(ctx) => importFilingWorker(ctx, { pollMs: 50 })]);
    const filed = await eventually(async () => {
      const line = expectStatus(await m.get(`/api/v1/import-items/${ids[1]}`), 200).data;
      return line.filing === 'accepted' ? line : undefined;
    }, 'the retried filing');
    assert.equal(filed.decision, 'rejected');
    assert.equal(simLines(merchant).find((l) => l.itemSeq === filed.itemSeq)!.imptItemSttsCd, '4');
    assert.equal(expectStatus(await m.get(`/api/v1/import-items/${ids[0]}`), 200).data.filing, 'failed', 'a refused filing is not retried');
    await h.stopWorkers();
  });

  test('lines belong to the merchant; no endpoint creates them; X-Branch narrows the list', async () => {
    const { merchant, ids } = await merchantWithLines(1);
    const other = h.as(await h.addMerchant({ branches: ['000'] }));
    assert.equal((await other.get(`/api/v1/import-items/${ids[0]}`)).statusCode, 404);
    assert.equal(
      (await other.post(`/api/v1/import-items/${ids[0]}/approve`, { itemCode: 'X', itemClassificationCode: CLASS_CODE })).statusCode,
      404,
    );
    assert.equal((await other.post(`/api/v1/import-items/${ids[0]}/reject`)).statusCode, 404);
    assert.equal(expectStatus(await other.get('/api/v1/import-items'), 200).meta.total, 0);
    assert.equal(expectStatus(await h.as(merchant).get(`/api/v1/import-items/${ids[0]}`), 200).data.decision, null);

    const m = h.as(merchant);
    assert.equal((await m.post('/api/v1/import-items', { itemName: 'Smuggled' })).statusCode, 405, 'the list takes no POST');
    assert.equal((await m.get('/api/v1/import-items/999999999')).statusCode, 404);
    assert.equal((await m.get('/api/v1/import-items/abc')).statusCode, 404);
    assert.equal(expectStatus(await m.get('/api/v1/import-items', { 'x-branch': '000' }), 200).meta.total, 1);
    expectCoded(await m.get('/api/v1/import-items', { 'x-branch': '001' }), 422, 'branch_not_found');
    expectInvalid(await m.get('/api/v1/import-items?decision=maybe'), 'decision');
  });
});
