// GET /api/v1/item-reconciliation (the authority's items read back live with selectItems, beside
// the gateway's) and GET /api/v1/codes (the authority's code tables, synced with the catalogue
// through selectCodes): against the real simulator, on both databases.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';

interface Reconciliation {
  branch: string;
  retrievedAt: string;
  summary: { matches: number; differs: number; missingAtAuthority: number; unknownToGateway: number };
  items: Array<{
    itemCode: string;
    state: string;
    differences: string[];
    gateway: { name: string; defaultPrice: number } | null;
    authority: { name: string; defaultPrice: number } | null;
  }>;
}

describe(`the authority's items and code tables (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false });
  });
  after(() => h.close());

  test('items read back from the VSDC: matching, differing, missing and unknown ones', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const create = async (name: string, defaultPrice: number) =>
      expectStatus(await h.as(merchant).post('/api/v1/items', { name, itemClsCd: CLASS_CODE, defaultPrice }), 201).data as {
        itemCode: string;
        registration: { state: string };
      };
    const oil = await create('Cooking oil 2L', 95);
    const salt = await create('Table salt 1kg', 12.5);
    const rice = await create('Rice 5kg', 140);
    assert.ok([oil, salt, rice].every((i) => i.registration.state === 'registered'));

    const fresh = expectStatus(await h.as(merchant).get('/api/v1/item-reconciliation'), 200).data as Reconciliation;
    assert.equal(fresh.branch, '000');
    assert.deepEqual(fresh.summary, { matches: 3, differs: 0, missingAtAuthority: 0, unknownToGateway: 0 });
    assert.deepEqual(fresh.items.find((i) => i.itemCode === salt.itemCode)!.authority!.defaultPrice, 12.5);
    assert.equal(h.sim.control.calls(merchant.tpin, '000', 'selectItems').length, 1, 'one live call');

    // The authority's copy drifts: a price changed elsewhere, an item it no longer lists, one the gateway never registered.
    const atAuthority = h.sim.state.device(merchant.tpin, '000').record.items;
    atAuthority.find((i) => i.itemCd === oil.itemCode)!.dftPrc = 99;
    atAuthority.splice(
      atAuthority.findIndex((i) => i.itemCd === salt.itemCode),
      1,
    );
    atAuthority.push({
      ...atAuthority.find((i) => i.itemCd === rice.itemCode)!,
      itemCd: 'ZM2NTU9999999',
      itemNm: 'Registered by another till',
    });

    const drifted = expectStatus(await h.as(merchant).get('/api/v1/item-reconciliation'), 200).data as Reconciliation;
    assert.deepEqual(drifted.summary, { matches: 1, differs: 1, missingAtAuthority: 1, unknownToGateway: 1 });
    const byCode = new Map(drifted.items.map((i) => [i.itemCode, i]));
    assert.deepEqual([byCode.get(oil.itemCode)!.state, byCode.get(oil.itemCode)!.differences], ['differs', ['defaultPrice']]);
    assert.deepEqual([byCode.get(oil.itemCode)!.gateway!.defaultPrice, byCode.get(oil.itemCode)!.authority!.defaultPrice], [95, 99]);
    assert.deepEqual([byCode.get(salt.itemCode)!.state, byCode.get(salt.itemCode)!.authority], ['missing_at_authority', null]);
    assert.deepEqual([byCode.get('ZM2NTU9999999')!.state, byCode.get('ZM2NTU9999999')!.gateway], ['unknown_to_gateway', null]);
    assert.equal(byCode.get(rice.itemCode)!.state, 'matches');

    // Another merchant sees only its own branch's items: none.
    const other = await h.addMerchant({ branches: ['000'] });
    const theirs = expectStatus(await h.as(other).get('/api/v1/item-reconciliation'), 200).data as Reconciliation;
    assert.deepEqual(theirs.items, []);
  });

  test('a VSDC that does not answer is a 503, one that refuses a 502; a branch not initialised a 422', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const down = await h.as(merchant).get('/api/v1/item-reconciliation');
    expectCoded(down, 503, 'vsdc_unreachable');
    assert.match(down.json().error.message, /did not answer/);
    h.sim.control.setFaults(merchant.tpin, '000', {
      down: false,
      forcedResult: { code: '999', message: 'database error', endpoints: ['selectItems'] },
    });
    const refused = await h.as(merchant).get('/api/v1/item-reconciliation');
    expectCoded(refused, 502, 'vsdc_refused');
    assert.match(refused.json().error.message, /999/);
    h.sim.control.clearFaults(merchant.tpin, '000');

    const uninitialised = await h.addMerchant({ branches: ['000'], initialize: false });
    expectCoded(await h.as(uninitialised).get('/api/v1/item-reconciliation'), 422, 'branch_not_initialized');
    expectCoded(await h.as(merchant).get('/api/v1/item-reconciliation', { 'x-branch': '007' }), 422, 'branch_not_found');
  });

  test('the code tables are synced with the catalogue and listed by class', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const all = expectStatus(await h.as(merchant).get('/api/v1/codes'), 200).data as Array<{
      classCode: string;
      className: string;
      codes: Array<{ code: string; name: string; inUse: boolean }>;
    }>;
    const payment = all.find((c) => c.classCode === '07');
    assert.ok(payment, 'the payment types are there');
    assert.deepEqual(
      payment.codes.slice(0, 2).map((c) => [c.code, c.name, c.inUse]),
      [
        ['01', 'CASH', true],
        ['02', 'CREDIT', true],
      ],
    );
    const narrowed = expectStatus(await h.as(merchant).get('/api/v1/codes?class=07'), 200).data as Array<{ classCode: string }>;
    assert.deepEqual(
      narrowed.map((c) => c.classCode),
      ['07'],
    );
    expectStatus(await h.as(merchant).get('/api/v1/codes?class=nope!'), 422);
    expectStatus(await h.as(merchant).get('/api/v1/codes', { authorization: 'Bearer nope' }), 401);
  });
});
