import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { itemRetryWorker } from '../../../src/domain/merchant/items/worker.ts';
import { recordDraftItemsFromSale } from '../../../src/domain/merchant/items/drafts.ts';
import { eventually } from '../../helpers/poll.ts';

interface Component {
  itemCode: string;
  name: string;
  quantity: number;
  state: string;
  resultCode: string | null;
  message: string | null;
  registeredAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
}

describe(`item compositions (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(() => h.close());

  const newItem = async (merchant: Merchant, name: string, extra: Record<string, unknown> = {}) =>
    expectStatus(await h.as(merchant).post('/api/v1/items', { name, itemClsCd: CLASS_CODE, ...extra }), 201).data as {
      id: number;
      itemCode: string;
      registration: { state: string };
    };
  const compose = (merchant: Merchant, item: string | number, components: unknown) =>
    h.as(merchant).post(`/api/v1/items/${item}/composition`, { components });
  const compositionCalls = (merchant: Merchant, branch = '000') =>
    h.sim.control
      .calls(merchant.tpin, branch, 'saveItemComposition')
      .map((c) => [c.request.itemCd, c.request.cpstItemCd, c.request.cpstQty, c.resultCd]);
  const compositionOf = async (merchant: Merchant, item: string | number) =>
    (expectStatus(await h.as(merchant).get(`/api/v1/items/${item}`), 200).data as { composition: Component[] }).composition;

  test('a composition is filed with saveItemComposition, one call per component, and shown on the item', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const flour = await newItem(merchant, 'Wheat flour 1kg', { itemTypeCode: '1' });
    const yeast = await newItem(merchant, 'Dry yeast 10g', { itemTypeCode: '1' });
    const loaf = await newItem(merchant, 'White loaf 700g');
    assert.equal(loaf.registration.state, 'registered');
    assert.deepEqual(await compositionOf(merchant, loaf.id), [], 'no composition yet');

    const answered = expectStatus(
      await compose(merchant, loaf.itemCode, [
        { itemCode: flour.itemCode, quantity: 0.45 },
        { itemCode: yeast.itemCode, quantity: 0.7 },
      ]),
      200,
    ).data;
    assert.equal(answered.itemCode, loaf.itemCode);
    assert.deepEqual(
      (answered.composition as Component[]).map((c) => [
        c.itemCode,
        c.name,
        c.quantity,
        c.state,
        c.resultCode,
        c.message,
        c.nextAttemptAt,
        c.lastError,
      ]),
      [
        [flour.itemCode, 'Wheat flour 1kg', 0.45, 'registered', '000', null, null, null],
        [yeast.itemCode, 'Dry yeast 10g', 0.7, 'registered', '000', null, null, null],
      ],
    );
    assert.ok((answered.composition as Component[]).every((c) => c.registeredAt !== null));
    assert.deepEqual(compositionCalls(merchant), [
      [loaf.itemCode, flour.itemCode, 0.45, '000'],
      [loaf.itemCode, yeast.itemCode, 0.7, '000'],
    ]);
    const regr = h.sim.control.calls(merchant.tpin, '000', 'saveItemComposition')[0]!.request;
    assert.equal(typeof regr.regrId, 'string');
    assert.equal(typeof regr.regrNm, 'string');

    assert.deepEqual(await compositionOf(merchant, loaf.id), answered.composition, 'GET by id shows what the POST answered');
    const listed = expectStatus(await h.as(merchant).get('/api/v1/items'), 200).data as Array<{
      itemCode: string;
      composition: Component[];
    }>;
    assert.equal(listed.find((i) => i.itemCode === loaf.itemCode)!.composition.length, 2, 'the list shows it too');
    assert.deepEqual(listed.find((i) => i.itemCode === flour.itemCode)!.composition, []);
    const atAuthority = h.sim.control.getDevice(merchant.tpin, '000')!.compositions as Array<{
      itemCd: string;
      cpstItemCd: string;
      cpstQty: number;
    }>;
    assert.deepEqual(
      atAuthority.map((c) => [c.itemCd, c.cpstItemCd, c.cpstQty]),
      [
        [loaf.itemCode, flour.itemCode, 0.45],
        [loaf.itemCode, yeast.itemCode, 0.7],
      ],
    );

    const trail = expectStatus(await h.as(merchant).get('/api/v1/audit?action=item.composition_set'), 200).data as Array<{
      target: { id: string };
      actor: { type: string };
    }>;
    assert.equal(trail.length, 1, "the merchant's audit trail says who set the composition");
    assert.equal(String(trail[0]!.target.id), String(loaf.id));
  });

  test('a second POST replaces the composition: unchanged components are not sent again', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const [a, b, c] = [await newItem(merchant, 'Part A'), await newItem(merchant, 'Part B'), await newItem(merchant, 'Part C')];
    const kit = await newItem(merchant, 'Kit');
    expectStatus(
      await compose(merchant, kit.id, [
        { itemCode: a.itemCode, quantity: 1 },
        { itemCode: b.itemCode, quantity: 2 },
      ]),
      200,
    );
    const replaced = expectStatus(
      await compose(merchant, kit.id, [
        { itemCode: c.itemCode, quantity: 3 },
        { itemCode: a.itemCode, quantity: 1 },
      ]),
      200,
    ).data.composition as Component[];
    assert.deepEqual(
      replaced.map((x) => [x.itemCode, x.quantity, x.state]),
      [
        [c.itemCode, 3, 'registered'],
        [a.itemCode, 1, 'registered'],
      ],
      'in the new order, B dropped',
    );
    assert.deepEqual(
      compositionCalls(merchant).map((call) => [call[1], call[2]]),
      [
        [a.itemCode, 1],
        [b.itemCode, 2],
        [c.itemCode, 3],
      ],
      'A with the same quantity is not sent again',
    );

    const changed = expectStatus(await compose(merchant, kit.id, [{ itemCode: a.itemCode, quantity: 1.5 }]), 200).data
      .composition as Component[];
    assert.deepEqual(
      changed.map((x) => [x.itemCode, x.quantity, x.state]),
      [[a.itemCode, 1.5, 'registered']],
    );
    assert.deepEqual(compositionCalls(merchant).at(-1)!.slice(1, 3), [a.itemCode, 1.5], 'a changed quantity is filed');
  });

  test('each bad component is a 422 naming its field; nothing is stored or sent', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const part = await newItem(merchant, 'Screw');
    const item = await newItem(merchant, 'Shelf');
    const bad = async (components: unknown, field: string) => {
      const res = await compose(merchant, item.itemCode, components);
      expectInvalid(res, field);
      return res.json() as { message: string; errors: Record<string, string[]> };
    };
    await bad([{ itemCode: part.itemCode, quantity: 0 }], 'components.0.quantity');
    await bad(
      [
        { itemCode: part.itemCode, quantity: 1 },
        { itemCode: item.itemCode, quantity: -2 },
      ],
      'components.1.quantity',
    );
    await bad([{ itemCode: part.itemCode, quantity: 1.23456 }], 'components.0.quantity');
    const self = await bad(
      [
        { itemCode: part.itemCode, quantity: 1 },
        { itemCode: item.itemCode, quantity: 1 },
      ],
      'components.1.itemCode',
    );
    assert.match(self.errors['components.1.itemCode']![0]!, /itself/);
    const twice = await bad(
      [
        { itemCode: part.itemCode, quantity: 1 },
        { itemCode: part.itemCode, quantity: 2 },
      ],
      'components.1.itemCode',
    );
    assert.match(twice.errors['components.1.itemCode']![0]!, /components\.0/);
    const unknown = await bad(
      [
        { itemCode: part.itemCode, quantity: 1 },
        { itemCode: 'NO-SUCH-ITEM', quantity: 1 },
      ],
      'components.1.itemCode',
    );
    assert.match(unknown.errors['components.1.itemCode']![0]!, /not one of your items/);
    await bad([], 'components');
    await bad([{ itemCode: part.itemCode }], 'components.0.quantity');
    await bad([{ itemCode: part.itemCode, quantity: 1, extra: true }], 'components.0.extra');

    // A pending and a failed item are not registered with the authority.
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const pending = await newItem(merchant, 'Waiting part');
    h.sim.control.clearFaults(merchant.tpin, '000');
    h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: { code: '910', message: 'Refused' } });
    const failed = await newItem(merchant, 'Refused part');
    h.sim.control.clearFaults(merchant.tpin, '000');
    assert.deepEqual([pending.registration.state, failed.registration.state], ['pending', 'failed']);
    const notRegistered = await bad(
      [
        { itemCode: pending.itemCode, quantity: 1 },
        { itemCode: failed.itemCode, quantity: 1 },
      ],
      'components.1.itemCode',
    );
    assert.match(notRegistered.errors['components.0.itemCode']![0]!, /not registered.*pending/);
    assert.match(notRegistered.errors['components.1.itemCode']![0]!, /not registered.*failed/);

    assert.deepEqual(await compositionOf(merchant, item.id), [], 'nothing stored');
    assert.deepEqual(compositionCalls(merchant), [], 'nothing sent');
    expectStatus(await h.as(merchant).get('/api/v1/items/NO-SUCH-ITEM'), 404);
    assert.equal((await compose(merchant, 'NO-SUCH-ITEM', [{ itemCode: part.itemCode, quantity: 1 }])).statusCode, 404);
  });

  test("another merchant's item is not a component, and another merchant's item cannot be composed", async () => {
    const mine = await h.addMerchant({ branches: ['000'] });
    const theirs = await h.addMerchant({ branches: ['000'] });
    const item = await newItem(mine, 'Gift hamper');
    const foreign = await newItem(theirs, 'Their chocolate', { itemCode: 'CHOC-1' });
    const res = await compose(mine, item.itemCode, [{ itemCode: foreign.itemCode, quantity: 1 }]);
    expectInvalid(res, 'components.0.itemCode');
    assert.match(res.json().errors['components.0.itemCode'][0], /not one of your items/);
    const sameCode = await newItem(mine, 'My chocolate', { itemCode: 'CHOC-1' });
    assert.equal(
      expectStatus(await compose(mine, item.itemCode, [{ itemCode: 'CHOC-1', quantity: 2 }]), 200).data.composition[0].name,
      'My chocolate',
      "a code names the merchant's own item",
    );
    assert.equal(sameCode.itemCode, 'CHOC-1');
    assert.equal(
      (await compose(theirs, item.id, [{ itemCode: foreign.itemCode, quantity: 1 }])).statusCode,
      404,
      "another merchant's item is not found",
    );
    assert.deepEqual(compositionCalls(theirs), []);
  });

  test("a component must be registered through the item's branch; a draft has no composition", async () => {
    const merchant = await h.addMerchant({ branches: ['000', '001'] });
    const elsewhere = expectStatus(
      await h
        .as(merchant)
        .post('/api/v1/items', { name: 'Branch part', itemClsCd: CLASS_CODE, itemCode: 'PART-B1' }, { 'X-Branch': '001' }),
      201,
    ).data;
    assert.equal(elsewhere.branch, '001');
    const item = expectStatus(
      await h.as(merchant).post('/api/v1/items', { name: 'Assembly', itemClsCd: CLASS_CODE }, { 'X-Branch': '000' }),
      201,
    ).data;
    const res = await compose(merchant, item.itemCode, [{ itemCode: 'PART-B1', quantity: 1 }]);
    expectInvalid(res, 'components.0.itemCode');
    assert.match(res.json().errors['components.0.itemCode'][0], /branch 001.*branch 000/);

    const [draft] = await recordDraftItemsFromSale(h.ctx.db, merchant.tenantId, [
      { name: 'Jar with lid', classificationCode: CLASS_CODE, price: 10 },
    ]);
    expectCoded(await compose(merchant, draft!.id, [{ itemCode: item.itemCode, quantity: 1 }]), 409, 'item_is_draft');
    const asComponent = await compose(merchant, item.itemCode, [{ itemCode: draft!.itemCode, quantity: 1 }]);
    expectInvalid(asComponent, 'components.0.itemCode');
    assert.match(asComponent.json().errors['components.0.itemCode'][0], /not registered.*draft/);
    assert.deepEqual(compositionCalls(merchant), []);
  });

  test('VSDC down: components pending, filed by the worker; refused: failed, posted again to retry', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const part = await newItem(merchant, 'Cable');
    const item = await newItem(merchant, 'Cable kit');
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const pending = expectStatus(await compose(merchant, item.id, [{ itemCode: part.itemCode, quantity: 4 }]), 200).data
      .composition as Component[];
    assert.deepEqual(
      pending.map((c) => c.state),
      ['pending'],
    );
    assert.ok(pending[0]!.nextAttemptAt);
    assert.ok(pending[0]!.lastError);
    assert.equal(pending[0]!.registeredAt, null);

    h.sim.control.clearFaults(merchant.tpin, '000');
    h.startWorkers([(ctx) => itemRetryWorker(ctx, { pollMs: 50 })]);
    try {
      const filed = await eventually(async () => {
        const [c] = await compositionOf(merchant, item.id);
        return c?.state === 'registered' ? c : undefined;
      }, 'the component filed by the worker');
      assert.equal(filed.lastError, null);
      assert.deepEqual(compositionCalls(merchant), [[item.itemCode, part.itemCode, 4, '000']]);

      h.sim.control.setFaults(merchant.tpin, '000', { forcedResult: { code: '910', message: 'Validation error for fields: [cpstQty]' } });
      const refused = expectStatus(await compose(merchant, item.id, [{ itemCode: part.itemCode, quantity: 5 }]), 200).data
        .composition as Component[];
      assert.deepEqual(
        refused.map((c) => [c.state, c.resultCode, c.message, c.nextAttemptAt]),
        [['failed', '910', 'Validation error for fields: [cpstQty]', null]],
      );
      h.sim.control.clearFaults(merchant.tpin, '000');
      const again = expectStatus(await compose(merchant, item.id, [{ itemCode: part.itemCode, quantity: 5 }]), 200).data
        .composition as Component[];
      assert.deepEqual(
        again.map((c) => [c.state, c.resultCode, c.message]),
        [['registered', '000', null]],
      );
    } finally {
      await h.stopWorkers();
    }
  });

  test('an item not registered yet keeps its components pending until it is', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const part = await newItem(merchant, 'Bolt');
    h.sim.control.setFaults(merchant.tpin, '000', { down: true });
    const item = await newItem(merchant, 'Bolt set');
    assert.equal(item.registration.state, 'pending');
    h.sim.control.clearFaults(merchant.tpin, '000');
    const waiting = expectStatus(await compose(merchant, item.id, [{ itemCode: part.itemCode, quantity: 12 }]), 200).data
      .composition as Component[];
    assert.deepEqual(
      waiting.map((c) => [c.state, c.lastError]),
      [['pending', null]],
    );
    assert.deepEqual(compositionCalls(merchant), [], 'not sent before the authority knows the item');

    h.startWorkers([(ctx) => itemRetryWorker(ctx, { pollMs: 50 })]);
    try {
      await eventually(
        async () => ((await compositionOf(merchant, item.id))[0]?.state === 'registered' ? true : undefined),
        'the item registered, then its component filed',
      );
      assert.deepEqual(compositionCalls(merchant), [[item.itemCode, part.itemCode, 12, '000']]);
      assert.equal(expectStatus(await h.as(merchant).get(`/api/v1/items/${item.id}`), 200).data.registration.state, 'registered');
    } finally {
      await h.stopWorkers();
    }
  });
});
