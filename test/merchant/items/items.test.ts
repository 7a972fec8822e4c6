import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { recordDraftItemsFromSale } from '../../../src/domain/merchant/items/drafts.ts';
import { claimDueItems } from '../../../src/domain/merchant/items/store.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { itemRetryWorker } from '../../../src/domain/merchant/items/worker.ts';
import { eventually } from '../../helpers/poll.ts';

const OTHER_CLASS_CODE = '10101500';

describe(`items (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(() => h.close());

  const authorityItems = (merchant: Merchant) =>
    (h.sim.control.getDevice(merchant.tpin, '000')?.items ?? []) as Array<{
      itemCd: string;
      itemNm: string;
      itemClsCd: string;
      dftPrc: number;
      useYn: string;
    }>;

  test('an item is registered with the authority, under a generated authority item code', async () => {
    const m = h.as(h.merchant);
    const first = expectStatus(
      await m.post('/api/v1/items', { name: 'Cooking oil 2L', itemClsCd: CLASS_CODE, defaultPrice: 95.5 }),
      201,
    ).data;
    assert.match(first.itemCode, /^ZM2NTU\d{7}$/);
    assert.equal(first.itemClsCd, CLASS_CODE);
    assert.equal(first.registration.state, 'registered');
    assert.equal(first.registration.resultCode, '000');
    assert.ok(first.registration.registeredAt);
    assert.equal(first.branch, '000');
    assert.equal(first.source, 'api');
    assert.deepEqual(
      [
        first.itemTypeCode,
        first.originCountryCode,
        first.packagingUnitCode,
        first.quantityUnitCode,
        first.vatCategory,
        first.defaultPrice,
        first.active,
      ],
      ['2', 'ZM', 'NT', 'U', 'A', 95.5, true],
    );
    const atAuthority = authorityItems(h.merchant).find((i) => i.itemCd === first.itemCode);
    assert.ok(atAuthority);
    assert.equal(atAuthority.itemNm, 'Cooking oil 2L');
    assert.equal(atAuthority.dftPrc, 95.5);

    const service = expectStatus(
      await m.post('/api/v1/items', {
        name: 'Delivery',
        itemClsCd: CLASS_CODE,
        itemTypeCode: '3',
        quantityUnitCode: 'NO',
        originCountryCode: 'ZA',
      }),
      201,
    ).data;
    assert.match(service.itemCode, /^ZA3NTNO\d{7}$/);
    assert.equal(Number(service.itemCode.slice(-7)), Number(first.itemCode.slice(-7)) + 1, 'one sequence per merchant');

    const chosen = expectStatus(
      await m.post('/api/v1/items', { name: 'Sugar 1kg', itemClsCd: CLASS_CODE, itemCode: 'SUGAR-1KG' }),
      201,
    ).data;
    assert.equal(chosen.itemCode, 'SUGAR-1KG');
    expectInvalid(await m.post('/api/v1/items', { name: 'Sugar again', itemClsCd: CLASS_CODE, itemCode: 'SUGAR-1KG' }), 'itemCode');
    // Another merchant may use the same code.
    expectStatus(
      await h
        .as(await h.addMerchant({ branches: ['000'] }))
        .post('/api/v1/items', { name: 'Sugar', itemClsCd: CLASS_CODE, itemCode: 'SUGAR-1KG' }),
      201,
    );
  });

  test("one item by id or by authority item code; another merchant's is not found", async () => {
    const m = h.as(h.merchant);
    const item = expectStatus(await m.post('/api/v1/items', { name: 'Bread', itemClsCd: CLASS_CODE }), 201).data;
    assert.deepEqual(expectStatus(await m.get(`/api/v1/items/${item.id}`), 200).data, item);
    assert.deepEqual(expectStatus(await m.get(`/api/v1/items/${item.itemCode}`), 200).data, item);
    assert.equal((await m.get('/api/v1/items/ZM2NTU9999999')).statusCode, 404);
    assert.equal((await m.get('/api/v1/items/999999999')).statusCode, 404);

    const other = h.as(await h.addMerchant({ branches: ['000'] }));
    assert.equal((await other.get(`/api/v1/items/${item.id}`)).statusCode, 404);
    assert.equal((await other.get(`/api/v1/items/${item.itemCode}`)).statusCode, 404);
    assert.equal((await other.patch(`/api/v1/items/${item.id}`, { name: 'Mine now' })).statusCode, 404);
    assert.equal((await other.post(`/api/v1/items/${item.id}/release`)).statusCode, 404);
  });

  test('bad input is a 422 naming the field', async () => {
    const m = h.as(h.merchant);
    expectInvalid(await m.post('/api/v1/items', { name: 'No class' }), 'itemClsCd');
    expectInvalid(await m.post('/api/v1/items', { name: 'Bad class', itemClsCd: '99999999' }), 'itemClsCd');
    expectInvalid(await m.post('/api/v1/items', { name: 'Price', itemClsCd: CLASS_CODE, defaultPrice: 1.23456 }), 'defaultPrice');
    expectInvalid(await m.post('/api/v1/items', { name: 'Digits', itemClsCd: CLASS_CODE, itemCode: '12345' }), 'itemCode');
    expectInvalid(await m.post('/api/v1/items', { name: 'VAT', itemClsCd: CLASS_CODE, vatCategory: 'Z' }), 'vatCategory');
    expectInvalid(await m.post('/api/v1/items', { name: '', itemClsCd: CLASS_CODE }), 'name');
    const item = expectStatus(await m.post('/api/v1/items', { name: 'Patchable', itemClsCd: CLASS_CODE }), 201).data;
    assert.equal((await m.patch(`/api/v1/items/${item.id}`, {})).statusCode, 422);
    expectInvalid(await m.patch(`/api/v1/items/${item.id}`, { itemCode: 'NEW' }), 'itemCode');
    expectCoded(await m.post('/api/v1/items', { name: 'Branch', itemClsCd: CLASS_CODE }, { 'x-branch': '009' }), 422, 'branch_not_found');
    expectCoded(
      await h
        .as(await h.addMerchant({ branches: ['000'], initialize: false }))
        .post('/api/v1/items', { name: 'Uninit', itemClsCd: CLASS_CODE }),
      422,
      'branch_not_initialized',
    );
  });

  test('an amendment is sent with updateItem and the item stays registered', async () => {
    const m = h.as(h.merchant);
    const item = expectStatus(await m.post('/api/v1/items', { name: 'Rice 5kg', itemClsCd: CLASS_CODE, defaultPrice: 120 }), 201).data;
    const amended = expectStatus(
      await m.patch(`/api/v1/items/${item.itemCode}`, { name: 'Rice 5kg (long grain)', defaultPrice: 125, itemClsCd: OTHER_CLASS_CODE }),
      200,
    ).data;
    assert.equal(amended.registration.state, 'registered');
    assert.equal(amended.registration.registeredAt, item.registration.registeredAt);
    assert.equal(amended.name, 'Rice 5kg (long grain)');
    assert.equal(amended.itemClsCd, OTHER_CLASS_CODE);
    const atAuthority = authorityItems(h.merchant).find((i) => i.itemCd === item.itemCode)!;
    assert.deepEqual([atAuthority.itemNm, atAuthority.dftPrc, atAuthority.itemClsCd], ['Rice 5kg (long grain)', 125, OTHER_CLASS_CODE]);
    const withdrawn = expectStatus(await m.patch(`/api/v1/items/${item.id}`, { active: false }), 200).data;
    assert.equal(withdrawn.active, false);
    assert.equal(authorityItems(h.merchant).find((i) => i.itemCd === item.itemCode)!.useYn, 'N');
  });

  test('VSDC down: pending, then registered by the worker; amendments wait the same way', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const pending = expectStatus(await m.post('/api/v1/items', { name: 'Maize meal 25kg', itemClsCd: CLASS_CODE }), 201).data;
    assert.equal(pending.registration.state, 'pending');
    assert.ok(pending.registration.nextAttemptAt);
    assert.ok(pending.registration.lastError);
    assert.equal(pending.registration.registeredAt, null);

    h.sim.control.clearFaults(merchant.tpin, '000');
    h.startWorkers([(ctx) => itemRetryWorker(ctx, { pollMs: 50 })]);
    const registered = await eventually(async () => {
      const item = expectStatus(await m.get(`/api/v1/items/${pending.id}`), 200).data;
      return item.registration.state === 'registered' ? item : undefined;
    }, 'the item registered by the worker');
    assert.equal(registered.registration.lastError, null);
    assert.ok(authorityItems(merchant).some((i) => i.itemCd === pending.itemCode));

    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: '894' });
    const waiting = expectStatus(await m.patch(`/api/v1/items/${pending.id}`, { defaultPrice: 310 }), 200).data;
    assert.equal(waiting.registration.state, 'amendment_pending');
    h.sim.control.clearFaults(merchant.tpin, '000');
    await eventually(async () => {
      const item = expectStatus(await m.get(`/api/v1/items/${pending.id}`), 200).data;
      return item.registration.state === 'registered' ? item : undefined;
    }, 'the amendment sent by the worker');
    assert.equal(authorityItems(merchant).find((i) => i.itemCd === pending.itemCode)!.dftPrc, 310);
    await h.stopWorkers();
  });

  test('refused by the authority: failed with its code and text; amending sends it again', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    h.sim.control.setFaults(merchant.tpin, '000', {
      forcedResult: { code: '910', message: "Validation error for fields: ['itemNm': too long]" },
    });
    const failed = expectStatus(await m.post('/api/v1/items', { name: 'Very long name', itemClsCd: CLASS_CODE }), 201).data;
    assert.equal(failed.registration.state, 'failed');
    assert.equal(failed.registration.resultCode, '910');
    assert.equal(failed.registration.message, "Validation error for fields: ['itemNm': too long]");
    assert.equal(failed.registration.nextAttemptAt, null);

    h.sim.control.clearFaults(merchant.tpin, '000');
    const fixed = expectStatus(await m.patch(`/api/v1/items/${failed.id}`, { name: 'Short name' }), 200).data;
    assert.equal(fixed.registration.state, 'registered');
    assert.equal(fixed.registration.message, null);

    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: { code: '999', message: 'Amendment refused' } });
    const refusedAmendment = expectStatus(await m.patch(`/api/v1/items/${failed.id}`, { name: 'Shorter' }), 200).data;
    assert.equal(refusedAmendment.registration.state, 'amendment_failed');
    assert.equal(refusedAmendment.registration.resultCode, '999');
    assert.equal(refusedAmendment.registration.registeredAt, fixed.registration.registeredAt, 'still registered with its earlier data');
    assert.equal(authorityItems(merchant).find((i) => i.itemCd === failed.itemCode)!.itemNm, 'Short name');
    h.sim.control.clearFaults(merchant.tpin, '000');
  });

  test('drafts from sale lines: idempotent by name, never sent, released after review', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    const known = expectStatus(await m.post('/api/v1/items', { name: 'Bottled water 500ml', itemClsCd: CLASS_CODE }), 201).data;

    const lines = [
      { name: 'Cooking Oil 2L', classificationCode: CLASS_CODE, price: 95, vatCategory: 'A' },
      { name: '  cooking   OIL 2l ', classificationCode: OTHER_CLASS_CODE, price: 99 },
      { name: 'BOTTLED WATER 500ML', classificationCode: CLASS_CODE, price: 10 },
      { name: 'Matches', classificationCode: CLASS_CODE, price: '2.5', vatCategory: 'D' },
    ];
    const created = await recordDraftItemsFromSale(h.t.ctx.db, merchant.tenantId, lines);
    assert.deepEqual(
      created.map((d) => [d.name, d.itemClsCd, d.defaultPrice, d.vatCategory]),
      [
        ['Cooking Oil 2L', CLASS_CODE, 95, 'A'],
        ['Matches', CLASS_CODE, 2.5, 'D'],
      ],
    );
    assert.ok(created.every((d) => d.registration.state === 'draft' && d.source === 'sale' && d.branch === null));
    assert.deepEqual(await recordDraftItemsFromSale(h.t.ctx.db, merchant.tenantId, lines), [], 'a repeat records nothing');
    const concurrent = await Promise.all(
      [1, 2, 3].map(() =>
        recordDraftItemsFromSale(h.t.ctx.db, merchant.tenantId, [{ name: 'Candles', classificationCode: CLASS_CODE, price: 5 }]),
      ),
    );
    assert.equal(concurrent.flat().length, 1, 'concurrent sales draft a name once');
    // Inside the caller's transaction, a clash never aborts it.
    await h.t.ctx.db.transaction().execute(async (trx) => {
      assert.equal((await recordDraftItemsFromSale(trx, merchant.tenantId, lines)).length, 0);
      await trx.selectFrom('items').select('id').execute();
    });

    const drafts = expectStatus(await m.get('/api/v1/items?state=draft'), 200);
    assert.deepEqual(drafts.data.map((d: { name: string }) => d.name).sort(), ['Candles', 'Cooking Oil 2L', 'Matches']);
    const catalogue = expectStatus(await m.get('/api/v1/items'), 200);
    assert.deepEqual(
      catalogue.data.map((i: { id: number }) => i.id),
      [known.id],
      'the catalogue leaves drafts out',
    );
    const draft = created[0]!;
    assert.ok(!authorityItems(merchant).some((i) => i.itemCd === draft.itemCode), 'a draft is never sent on its own');

    const reviewed = expectStatus(await m.patch(`/api/v1/items/${draft.id}`, { name: 'Cooking oil 2 litre', defaultPrice: 97 }), 200).data;
    assert.equal(reviewed.registration.state, 'draft', 'amending a draft only changes it locally');
    assert.ok(!authorityItems(merchant).some((i) => i.itemCd === draft.itemCode));

    const released = expectStatus(await m.post(`/api/v1/items/${draft.itemCode}/release`), 200).data;
    assert.equal(released.registration.state, 'registered');
    assert.equal(released.branch, '000');
    assert.equal(authorityItems(merchant).find((i) => i.itemCd === draft.itemCode)!.itemNm, 'Cooking oil 2 litre');
    expectCoded(await m.post(`/api/v1/items/${draft.id}/release`), 409, 'item_not_draft');
    expectCoded(await m.post(`/api/v1/items/${known.id}/release`), 409, 'item_not_draft');
    // A sale naming the released product no longer drafts it.
    assert.deepEqual(
      await recordDraftItemsFromSale(h.t.ctx.db, merchant.tenantId, [
        { name: 'cooking oil 2 LITRE', classificationCode: CLASS_CODE, price: 1 },
      ]),
      [],
    );
  });

  test('the list filters by state, name and classification, and pages', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    for (let i = 0; i < 21; i++) expectStatus(await m.post('/api/v1/items', { name: `Nail ${i}mm`, itemClsCd: CLASS_CODE }), 201);
    expectStatus(await m.post('/api/v1/items', { name: 'Hammer', itemClsCd: OTHER_CLASS_CODE }), 201);
    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: { code: '999', message: 'no' } });
    expectStatus(await m.post('/api/v1/items', { name: 'Saw', itemClsCd: OTHER_CLASS_CODE }), 201);
    h.sim.control.clearFaults(merchant.tpin, '000');

    const page1 = expectStatus(await m.get('/api/v1/items'), 200);
    assert.deepEqual(page1.meta, { page: 1, perPage: 20, total: 23, lastPage: 2 });
    assert.equal(expectStatus(await m.get('/api/v1/items?name=NAIL'), 200).meta.total, 21);
    assert.deepEqual(
      expectStatus(await m.get(`/api/v1/items?itemClsCd=${OTHER_CLASS_CODE}`), 200).data.map((i: { name: string }) => i.name),
      ['Saw', 'Hammer'],
    );
    assert.deepEqual(
      expectStatus(await m.get('/api/v1/items?state=failed'), 200).data.map((i: { name: string }) => i.name),
      ['Saw'],
    );
    assert.equal(expectStatus(await m.get(`/api/v1/items?state=registered&itemClsCd=${OTHER_CLASS_CODE}`), 200).meta.total, 1);
    expectInvalid(await m.get('/api/v1/items?state=sold'), 'state');
  });

  test('retry workers in several processes never take the same item', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const m = h.as(merchant);
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    for (let i = 0; i < 6; i++)
      assert.equal(
        expectStatus(await m.post('/api/v1/items', { name: `Bolt M${i}`, itemClsCd: CLASS_CODE }), 201).data.registration.state,
        'pending',
      );
    await eventually(async () => {
      const due = await h.t.ctx.db
        .selectFrom('items')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('tenant_id', '=', merchant.tenantId)
        .where('next_attempt_at', '<=', sql<Date>`now()`)
        .executeTakeFirstOrThrow();
      return due.n === 6 ? true : undefined;
    }, 'the backoff to pass');
    const claims = await Promise.all([1, 2, 3].map(() => claimDueItems(h.t.ctx.db, h.t.ctx.secretBox, 60_000, 100)));
    const ids = claims
      .flat()
      .filter((item) => item.device.tpin === merchant.tpin)
      .map((item) => item.id);
    assert.equal(ids.length, 6);
    assert.equal(new Set(ids).size, 6, 'each item went to exactly one worker');
    h.sim.control.clearFaults(merchant.tpin, '000');
  });
});
