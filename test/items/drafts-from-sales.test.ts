import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { scanSalesForDrafts } from '../../src/modules/items/draft-scan.ts';
import { engineName } from '../helpers/db.ts';
import { CLASS_CODE, expectStatus, startHarness, type Harness } from '../helpers/harness.ts';

describe(`drafts from sales (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 0 }, workers: false, catalogue: false });
  });
  after(() => h.close());

  const drafts = async () => expectStatus(await h.as(h.merchant).get('/api/v1/items?state=draft'), 200).data as Array<{ name: string; itemClsCd: string; defaultPrice: number; source: string; registration: { state: string } }>;

  test('a sale line naming an unknown product leaves a draft behind, never sent to the authority', async () => {
    const m = h.as(h.merchant);
    expectStatus(await m.post('/api/v1/items', { name: 'Bread', itemClsCd: CLASS_CODE }), 201);
    const sale = await m.post('/api/v1/sales', {
      items: [
        { name: 'Mango juice 1L', classificationCode: CLASS_CODE, quantity: 2, price: 24.5 },
        { name: 'bread', classificationCode: CLASS_CODE, quantity: 1, price: 12 },
        { name: 'MANGO  juice 1l', classificationCode: CLASS_CODE, quantity: 1, price: 25 },
      ],
    });
    expectStatus(sale, 201);
    while ((await scanSalesForDrafts(h.t.ctx)) > 0);

    const found = await drafts();
    assert.deepEqual(found.map((d) => d.name), ['Mango juice 1L'], 'one draft per new product; known items are left alone');
    assert.deepEqual([found[0]!.itemClsCd, found[0]!.defaultPrice, found[0]!.source, found[0]!.registration.state], [CLASS_CODE, 24.5, 'sale', 'draft']);
    const atAuthority = (h.sim.control.getDevice(h.merchant.tpin, '000')?.items ?? []) as Array<{ itemNm: string }>;
    assert.ok(!atAuthority.some((i) => i.itemNm === 'Mango juice 1L'), 'a draft is never sent on its own');

    expectStatus(await m.post('/api/v1/sales', { items: [{ name: 'Mango juice 1L', classificationCode: CLASS_CODE, quantity: 1, price: 24.5 }] }), 201);
    while ((await scanSalesForDrafts(h.t.ctx)) > 0);
    assert.equal((await drafts()).length, 1, 'later sales of the same product add nothing');
  });

  test('the scan reads each sale once, across passes', async () => {
    const before = await scanSalesForDrafts(h.t.ctx);
    assert.equal(before, 0, 'nothing new to read');
    const other = await h.addMerchant({ branches: ['000'] });
    expectStatus(await h.as(other).post('/api/v1/sales', { items: [{ name: 'Kapenta 500g', classificationCode: CLASS_CODE, quantity: 1, price: 60 }] }), 201);
    assert.equal(await scanSalesForDrafts(h.t.ctx), 1);
    assert.equal(await scanSalesForDrafts(h.t.ctx), 0);
    const theirs = expectStatus(await h.as(other).get('/api/v1/items?state=draft'), 200).data as Array<{ name: string }>;
    assert.deepEqual(theirs.map((d) => d.name), ['Kapenta 500g']);
    assert.ok(!(await drafts()).some((d) => d.name === 'Kapenta 500g'), 'drafts stay with their own merchant');
  });

  test('one pass over many merchants drafts each one\'s new names, the first line of a name winning', async () => {
    while ((await scanSalesForDrafts(h.t.ctx)) > 0);
    const knows = await h.addMerchant({ branches: ['000'] });
    const fresh = await h.addMerchant({ branches: ['000'] });
    expectStatus(await h.as(knows).post('/api/v1/items', { name: 'Sugar 2kg', itemClsCd: CLASS_CODE }), 201);
    const sell = (who: typeof knows, name: string, price: number) =>
      h.as(who).post('/api/v1/sales', { items: [{ name, classificationCode: CLASS_CODE, quantity: 1, price }] });
    for (const who of [knows, fresh]) {
      expectStatus(await sell(who, 'sugar  2KG', 41), 201);
      expectStatus(await sell(who, 'Sugar 2kg', 42), 201);
      expectStatus(await sell(who, 'Salt 1kg', 9), 201);
    }
    assert.equal(await scanSalesForDrafts(h.t.ctx), 6, 'the six sales in one pass');
    const draftsOf = async (who: typeof knows) =>
      (expectStatus(await h.as(who).get('/api/v1/items?state=draft'), 200).data as Array<{ name: string; defaultPrice: number }>).map((d) => [d.name, d.defaultPrice]).sort();
    assert.deepEqual(await draftsOf(knows), [['Salt 1kg', 9]], 'a name the merchant has an item for is skipped');
    assert.deepEqual(await draftsOf(fresh), [['Salt 1kg', 9], ['sugar  2KG', 41]], 'the earlier sale names the draft');
  });
});
