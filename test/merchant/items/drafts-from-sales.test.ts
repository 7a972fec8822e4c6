import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DRAFT_SCAN_SETTLE_MS, scanSalesForDrafts } from '../../../src/domain/merchant/items/draft-scan.ts';
import { insertOneDocument } from '../../../src/domain/fiscal/sales/document-insert.ts';
import { plainSale } from '../../helpers/documents.ts';
import { engineName, onPostgres } from '../../helpers/db.ts';
import { CLASS_CODE, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';

describe(`drafts from sales (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 0 }, workers: false, catalogue: false });
  });
  after(() => h.close());

  /** A pass that takes every sale committed so far (the settling wait has its own test). */
  const scan = (settledBefore = new Date(Date.now() + 60_000)) => scanSalesForDrafts(h.t.ctx, { settledBefore });

  const drafts = async () =>
    expectStatus(await h.as(h.merchant).get('/api/v1/items?state=draft'), 200).data as Array<{
      name: string;
      itemClsCd: string;
      defaultPrice: number;
      source: string;
      registration: { state: string };
    }>;

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
    while ((await scan()) > 0);

    const found = await drafts();
    assert.deepEqual(
      found.map((d) => d.name),
      ['Mango juice 1L'],
      'one draft per new product; known items are left alone',
    );
    assert.deepEqual(
      [found[0]!.itemClsCd, found[0]!.defaultPrice, found[0]!.source, found[0]!.registration.state],
      [CLASS_CODE, 24.5, 'sale', 'draft'],
    );
    const atAuthority = (h.sim.control.getDevice(h.merchant.tpin, '000')?.items ?? []) as Array<{ itemNm: string }>;
    assert.ok(!atAuthority.some((i) => i.itemNm === 'Mango juice 1L'), 'a draft is never sent on its own');

    expectStatus(
      await m.post('/api/v1/sales', { items: [{ name: 'Mango juice 1L', classificationCode: CLASS_CODE, quantity: 1, price: 24.5 }] }),
      201,
    );
    while ((await scan()) > 0);
    assert.equal((await drafts()).length, 1, 'later sales of the same product add nothing');
  });

  test('the scan reads each sale once, across passes', async () => {
    const before = await scan();
    assert.equal(before, 0, 'nothing new to read');
    const other = await h.addMerchant({ branches: ['000'] });
    expectStatus(
      await h
        .as(other)
        .post('/api/v1/sales', { items: [{ name: 'Kapenta 500g', classificationCode: CLASS_CODE, quantity: 1, price: 60 }] }),
      201,
    );
    assert.equal(await scan(), 1);
    assert.equal(await scan(), 0);
    const theirs = expectStatus(await h.as(other).get('/api/v1/items?state=draft'), 200).data as Array<{ name: string }>;
    assert.deepEqual(
      theirs.map((d) => d.name),
      ['Kapenta 500g'],
    );
    assert.ok(!(await drafts()).some((d) => d.name === 'Kapenta 500g'), 'drafts stay with their own merchant');
  });

  test("one pass over many merchants drafts each one's new names, the first line of a name winning", async () => {
    while ((await scan()) > 0);
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
    assert.equal(await scan(), 6, 'the six sales in one pass');
    const draftsOf = async (who: typeof knows) =>
      (expectStatus(await h.as(who).get('/api/v1/items?state=draft'), 200).data as Array<{ name: string; defaultPrice: number }>)
        .map((d) => [d.name, d.defaultPrice])
        .sort();
    assert.deepEqual(await draftsOf(knows), [['Salt 1kg', 9]], 'a name the merchant has an item for is skipped');
    assert.deepEqual(
      await draftsOf(fresh),
      [
        ['Salt 1kg', 9],
        ['sugar  2KG', 41],
      ],
      'the earlier sale names the draft',
    );
  });

  test('a pass reads only settled sales, stopping before the first that is not', async () => {
    while ((await scan()) > 0);
    const m = h.as(h.merchant);
    expectStatus(
      await m.post('/api/v1/sales', { items: [{ name: 'Settled soap', classificationCode: CLASS_CODE, quantity: 1, price: 7 }] }),
      201,
    );
    const between = await latestSaleCreatedAt();
    expectStatus(
      await m.post('/api/v1/sales', { items: [{ name: 'Fresh soap', classificationCode: CLASS_CODE, quantity: 1, price: 8 }] }),
      201,
    );
    assert.equal(await scan(new Date(between.getTime() + 1)), 1, 'the sale created before the cut only');
    assert.deepEqual(
      (await drafts()).map((d) => d.name).filter((n) => n.endsWith('soap')),
      ['Settled soap'],
    );
    assert.equal(await scan(), 1, 'the next pass takes the other once it has settled');
    expectStatus(
      await m.post('/api/v1/sales', { items: [{ name: 'Just-sold soap', classificationCode: CLASS_CODE, quantity: 1, price: 9 }] }),
      201,
    );
    assert.equal(await scanSalesForDrafts(h.t.ctx), 0, `by default a sale waits ${DRAFT_SCAN_SETTLE_MS} ms`);
    assert.equal(await scan(), 1);
  });

  test(
    'a sale committed after a later-numbered one was read is not skipped (PostgreSQL: two writers)',
    { skip: onPostgres ? false : 'needs PostgreSQL: the embedded database has one writer' },
    async () => {
      while ((await scan()) > 0);
      const late = await h.addMerchant({ branches: ['000'] });
      const other = await h.addMerchant({ branches: ['000'] });
      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let begun!: () => void;
      const inserted = new Promise<void>((resolve) => (begun = resolve));
      // The late sale takes its id first and commits last.
      const lateSale = h.t.ctx.db.transaction().execute(async (trx) => {
        const outcome = await insertOneDocument(trx, plainSale(late, '000', {}, 'Late lentils'), {
          month: new Date().toISOString().slice(0, 7),
          refuseWhenDown: false,
        });
        assert.equal(outcome.kind, 'stored');
        begun();
        await held;
      });
      await inserted;
      const settledBefore = new Date(Date.now() + 60_000);
      try {
        expectStatus(
          await h
            .as(other)
            .post('/api/v1/sales', { items: [{ name: 'Early bird seed', classificationCode: CLASS_CODE, quantity: 1, price: 3 }] }),
          201,
        );
        const cut = await latestSaleCreatedAt();
        // The settling wait: a pass now (the late sale is younger than `cut`) reads nothing past it.
        assert.equal(await scan(cut), 0, 'the pass stops before the sale that has not settled');
      } finally {
        commit();
        await lateSale;
      }
      assert.equal(await scan(settledBefore), 2);
      const draftsOf = async (who: typeof late) =>
        (expectStatus(await h.as(who).get('/api/v1/items?state=draft'), 200).data as Array<{ name: string }>).map((d) => d.name);
      assert.deepEqual(await draftsOf(late), ['Late lentils']);
      assert.deepEqual(await draftsOf(other), ['Early bird seed']);
    },
  );

  async function latestSaleCreatedAt(): Promise<Date> {
    const row = await h.t.ctx.db.selectFrom('sales').select('created_at').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
    return new Date(row.created_at);
  }
});
