// One catalogue and one set of code tables per authority: a Zambian and a Kenyan merchant each see
// their own authority's, a sale line is checked against its merchant's, and syncing one authority's
// leaves the other's rows and cursor alone.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CLASSIFICATION_CATALOGUE, KRA_ITEM_CLASSES } from '@fiscal-gateway/simulator';
import { classificationCatalogue, syncCatalogue } from '../../../src/domain/kernel/catalogue/service.ts';
import { engineName } from '../../helpers/db.ts';
import { bearer } from '../../helpers/app.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';

/** In KRA's catalogue (the simulator's), not in ZRA's. */
const KRA_ONLY = '5059690800';

describe(`one catalogue per authority (${engineName})`, () => {
  let h: Harness;
  let kenyan: Merchant;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
    const partner = bearer(h.merchant.partnerSecret);
    const inject = (method: 'POST', url: string, payload?: object) =>
      h.t.inject({ method, url, headers: partner, ...(payload ? { payload } : {}) });
    const tenant = expectStatus(
      await inject('POST', '/api/v1/tenants', { name: 'Nairobi Traders', tpin: 'P051234567X', authority: 'kra' }),
      201,
    ).data;
    expectStatus(
      await inject('POST', `/api/v1/tenants/${tenant.id}/devices`, {
        deviceSerial: 'KRA-CAT-1',
        branch: '00',
        vsdcBaseUrl: h.sim.urlOf('kra-oscu'),
      }),
      201,
    );
    expectStatus(await inject('POST', `/api/v1/tenants/${tenant.id}/devices/00/initialize`), 200);
    const token = expectStatus(await inject('POST', `/api/v1/tenants/${tenant.id}/tokens`, { name: 'till' }), 201).data.token as string;
    kenyan = { ...h.merchant, tenantId: tenant.id, tpin: 'P051234567X', token };
  });
  after(() => h.close());

  const count = async (table: 'item_classes' | 'authority_codes', authority: string) =>
    Number(
      (
        await h.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('authority', '=', authority)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const syncRow = (authority: string) =>
    h.ctx.db.selectFrom('catalogue_sync').selectAll().where('authority', '=', authority).executeTakeFirstOrThrow();

  test("each merchant's first look fetches its own authority's catalogue only", async () => {
    assert.equal(await count('item_classes', 'zra'), 0);
    // As for an authority added after the migration: its sync row is made by its first sync.
    await h.ctx.db.deleteFrom('catalogue_sync').where('authority', '=', 'kra').execute();
    const kenyanPage = expectStatus(await h.as(kenyan).get('/api/v1/item-classes'), 200);
    assert.equal(kenyanPage.meta.total, KRA_ITEM_CLASSES.length);
    const kraSync = await syncRow('kra');
    assert.ok(kraSync.last_req_dt !== null && kraSync.codes_last_req_dt !== null && kraSync.last_error === null, JSON.stringify(kraSync));
    assert.equal(await count('item_classes', 'zra'), 0, "fetching KRA's stored nothing of Zambia's");
    assert.equal((await syncRow('zra')).attempted_at, null, "nor claimed Zambia's sync");

    const zambianPage = expectStatus(await h.as(h.merchant).get('/api/v1/item-classes'), 200);
    assert.equal(zambianPage.meta.total, CLASSIFICATION_CATALOGUE.length);
    assert.equal(await count('item_classes', 'kra'), KRA_ITEM_CLASSES.length);

    const kenyanFood = expectStatus(await h.as(kenyan).get(`/api/v1/item-classes?code=${KRA_ONLY}`), 200).data;
    assert.deepEqual(
      kenyanFood.map((c: { code: string; name: string }) => [c.code, c.name]),
      [[KRA_ONLY, 'Packaged food']],
    );
    assert.equal(expectStatus(await h.as(h.merchant).get(`/api/v1/item-classes?code=${KRA_ONLY}`), 200).meta.total, 0);
    // A code both catalogues hold, with each authority's own name.
    const both = async (m: Merchant) => expectStatus(await h.as(m).get(`/api/v1/item-classes?code=${CLASS_CODE}`), 200).data[0].name;
    assert.equal(await both(h.merchant), 'Processed cereals');
    assert.equal(await both(kenyan), 'Cereals and grains');
  });

  test("each sees its own authority's code tables; KRA's tax types carry their rates", async () => {
    const kenyanCodes = expectStatus(await h.as(kenyan).get('/api/v1/codes?class=04'), 200).data;
    assert.equal(kenyanCodes.length, 1);
    const rates = Object.fromEntries(kenyanCodes[0].codes.map((c: { code: string; rate: number | null }) => [c.code, c.rate]));
    assert.deepEqual(rates, { A: 0, B: 16, C: 0, D: 0, E: 8 });
    const zambian = expectStatus(await h.as(h.merchant).get('/api/v1/codes'), 200).data as Array<{
      classCode: string;
      codes: Array<{ code: string; rate: number | null }>;
    }>;
    const kenyan07 = expectStatus(await h.as(kenyan).get('/api/v1/codes?class=07'), 200).data[0].codes.map((c: { code: string }) => c.code);
    const zambian07 = zambian.find((c) => c.classCode === '07')!.codes.map((c) => c.code);
    assert.ok(zambian07.includes('08') && !kenyan07.includes('08'), 'Zambia has BANK TRANSFER (08), Kenya not');
    assert.ok(
      zambian.every((c) => c.codes.every((code) => code.rate === null)),
      "Zambia's tables publish no rates",
    );
  });

  test("a sale line is checked against its merchant's authority's catalogue", async () => {
    const line = { name: 'Biscuits', classificationCode: KRA_ONLY, quantity: 1, price: 116 };
    const kenyanSale = await h.as(kenyan).post('/api/v1/sales', { items: [line] });
    assert.equal(kenyanSale.statusCode, 201, kenyanSale.body);
    const zambianSale = await h.as(h.merchant).post('/api/v1/sales', { items: [line] });
    expectCoded(zambianSale, 422, 'unknown_classification_code');
    assert.match(zambianSale.json().error.message, new RegExp(`items\\.0\\.classificationCode ${KRA_ONLY}`));

    // Items too: a classification code must be in the merchant's authority's catalogue.
    expectStatus(await h.as(kenyan).post('/api/v1/items', { name: 'Biscuits', itemClsCd: KRA_ONLY, vatCategory: 'B' }), 201);
    expectInvalid(await h.as(h.merchant).post('/api/v1/items', { name: 'Biscuits', itemClsCd: KRA_ONLY, vatCategory: 'A' }), 'itemClsCd');
  });

  test("a Kenyan sale is computed with the rates KRA's code table publishes (as the in-memory copy holds them)", async () => {
    const line = { name: 'Diesel', classificationCode: '15101500', quantity: 1, price: 110, vatCategory: 'E' };
    const vatOf = async () => {
      const res = await h.as(kenyan).post('/api/v1/sales', { items: [line] });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data.totals.vat as number;
    };
    assert.equal(await vatOf(), 8.15, 'E at the published 8%: 110 − round2(110 ÷ 1.08)');
    // KRA publishes another rate for E: the next sync stores it; the copy is read again.
    await h.ctx.db
      .updateTable('authority_codes')
      .set({ rate: '10' })
      .where('authority', '=', 'kra')
      .where('class_code', '=', '04')
      .where('code', '=', 'E')
      .execute();
    classificationCatalogue(h.ctx).invalidate('kra');
    assert.equal(await vatOf(), 10, 'E at 10%');
    await h.ctx.db
      .updateTable('authority_codes')
      .set({ rate: '8' })
      .where('authority', '=', 'kra')
      .where('class_code', '=', '04')
      .where('code', '=', 'E')
      .execute();
    classificationCatalogue(h.ctx).invalidate('kra');
    assert.equal(await vatOf(), 8.15);
  });

  test("the download is one authority's (?authority=, Zambia's by default); another value is a 422 naming authority", async () => {
    const rowsOf = async (query: string) => {
      const res = await h.t.inject({ method: 'GET', url: `/docs/item-classes.csv.gz${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return {
        etag: String(res.headers.etag),
        rows: parse(gunzipSync(res.rawPayload), { columns: true }) as Array<Record<string, string>>,
      };
    };
    const zambian = await rowsOf('');
    assert.equal(zambian.rows.length, CLASSIFICATION_CATALOGUE.length);
    assert.equal((await rowsOf('?authority=zra')).etag, zambian.etag);
    const kenyanFile = await rowsOf('?authority=kra');
    assert.equal(kenyanFile.rows.length, KRA_ITEM_CLASSES.length);
    assert.ok(kenyanFile.rows.some((r) => r.code === KRA_ONLY));
    assert.notEqual(kenyanFile.etag, zambian.etag);
    expectInvalid(await h.t.inject({ method: 'GET', url: '/docs/item-classes.csv.gz?authority=tra' }), 'authority');
  });

  test("syncing one authority leaves the other's rows and cursor as they were; the worker's sync does each", async () => {
    const zraBefore = await syncRow('zra');
    const zraStored = await h.ctx.db
      .selectFrom('item_classes')
      .select('synced_at')
      .where('authority', '=', 'zra')
      .orderBy('code')
      .execute();
    // Everything is fetched already: the KRA device says nothing changed.
    assert.equal((await syncCatalogue(h.ctx, 'kra')).kind, 'unchanged');
    assert.deepEqual(await syncRow('zra'), zraBefore);
    assert.deepEqual(
      await h.ctx.db.selectFrom('item_classes').select('synced_at').where('authority', '=', 'zra').orderBy('code').execute(),
      zraStored,
    );
    assert.equal(await count('item_classes', 'kra'), KRA_ITEM_CLASSES.length);
    assert.ok((await count('authority_codes', 'kra')) > 0 && (await count('authority_codes', 'zra')) > 0);

    const kraBefore = await syncRow('kra');
    assert.equal((await syncCatalogue(h.ctx)).kind, 'unchanged');
    const [zraAfter, kraAfter] = [await syncRow('zra'), await syncRow('kra')];
    assert.ok(
      zraAfter.attempted_at! > zraBefore.attempted_at! && kraAfter.attempted_at! > kraBefore.attempted_at!,
      'the worker asked both authorities',
    );
    classificationCatalogue(h.ctx).invalidate();
  });
});
