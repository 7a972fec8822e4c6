// The client against the simulator over real sockets, for what a taxpayer registers and reads
// besides sales: notices, branches and their users, registered items, compositions, RRP items
// and principals. Seeding goes through the simulator's control API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VSDC_EPOCH, type RrpItemInput } from '@fiscal-gateway/vsdc-protocol';
import { addDevice, control, registerItem, startFixedServer, startWorld, type World } from './helpers.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world.close();
});

const ACTOR = { regrId: 'gw', regrNm: 'gateway', modrId: 'gw', modrNm: 'gateway' };

describe('notices', () => {
  test('none, then the notices seeded through the control API, numbered and dated', async () => {
    const { target } = await addDevice(world);
    assert.equal((await world.client.selectNotices(target)).kind, 'empty');
    const seeded = await control(world.sim, 'POST', `/devices/${target.tpin}/000/notices`, {
      notices: [
        { title: 'Smart Invoice downtime', cont: 'Maintenance on Sunday 02:00–04:00.', dtlUrl: 'https://www.zra.org.zm/notices/1' },
        {},
      ],
    });
    assert.equal(seeded.status, 201);
    const pulled = await world.client.selectNotices(target);
    assert.equal(pulled.kind, 'ok');
    if (pulled.kind !== 'ok') return;
    assert.deepEqual(
      pulled.data.noticeList.map((n) => [n.noticeNo, n.title, n.dtlUrl]),
      [
        [1, 'Smart Invoice downtime', 'https://www.zra.org.zm/notices/1'],
        [2, 'Notice 2', null],
      ],
    );
    assert.match(pulled.data.noticeList[0]!.regDt, /^\d{14}$/);
    assert.equal(
      (await world.client.selectNotices(target, { lastReqDt: '29991231000000' })).kind,
      'empty',
      'nothing changed after that date',
    );
  });

  test('lastReqDt must be a real date-time: 910 otherwise, a bare 400 when empty', async () => {
    for (const lastReqDt of ['20241301000000', '2024-01-01', '20240101']) {
      const outcome = await world.client.selectNotices(world.target, { lastReqDt });
      assert.deepEqual(outcome.kind === 'rejected' && [outcome.code, /lastReqDt/.test(outcome.message)], ['910', true], lastReqDt);
    }
    const blank = await world.client.selectNotices(world.target, { lastReqDt: '' });
    assert.equal(blank.kind === 'rejected' && blank.code, '400');
  });
});

describe('branches and their users', () => {
  test('selectBranches lists the installed branches of the same TPIN only', async () => {
    const { target } = await addDevice(world);
    const branch001 = { ...target, bhfId: '001' };
    assert.equal((await world.client.selectInitInfo(branch001, { dvcSrlNo: `SN-${target.tpin}-001` })).kind, 'ok');
    await addDevice(world); // another taxpayer
    world.sim.control.presetDevice(target.tpin, '002', { bhfNm: 'Not installed' });

    const branches = await world.client.selectBranches(branch001);
    assert.equal(branches.kind, 'ok');
    if (branches.kind !== 'ok') return;
    assert.deepEqual(
      branches.data.bhfList.map((b) => [b.tin, b.bhfId, b.hqYn, b.bhfSttsCd]),
      [
        [target.tpin, '000', 'Y', '01'],
        [target.tpin, '001', 'N', '01'],
      ],
    );
    assert.equal(branches.data.bhfList[0]?.bhfNm, 'Headquarter');
  });

  test('saveBrancheUser registers a user (a resend replaces it) and names a missing field', async () => {
    const { target } = await addDevice(world);
    const user = { userId: 'cashier1', userNm: 'Mwila Banda', adrs: 'Lusaka', useYn: 'Y' as const, ...ACTOR };
    assert.equal((await world.client.saveBrancheUser(target, user)).kind, 'ok');
    assert.equal((await world.client.saveBrancheUser(target, { ...user, useYn: 'N' })).kind, 'ok');
    assert.deepEqual(
      world.sim.control.getDevice(target.tpin, '000')?.branchUsers.map((u) => [u.userId, u.useYn]),
      [['cashier1', 'N']],
    );
    const missing = await world.client.saveBrancheUser(target, { ...user, userNm: '' });
    assert.deepEqual(missing.kind === 'rejected' && [missing.code, missing.message], [
      '910',
      "Validation error for fields: ['userNm': must not be null]",
    ]);
    const badFlag = await world.client.saveBrancheUser(target, { ...user, useYn: 'X' as 'Y' });
    assert.equal(badFlag.kind === 'rejected' && badFlag.code, '910');
  });
});

describe('registered items and compositions', () => {
  test('selectItems returns what saveItem registered; selectItem one item, 001 for an unknown code', async () => {
    const { target } = await addDevice(world);
    assert.equal((await world.client.selectItems(target)).kind, 'empty');
    await registerItem(world, target, 'ZM2NTU0000101', { dftPrc: 45.5 });
    await registerItem(world, target, 'ZM2NTU0000102', { vatCatCd: 'D', itemNm: 'Fresh bread' });

    const all = await world.client.selectItems(target, { lastReqDt: VSDC_EPOCH });
    assert.equal(all.kind, 'ok');
    if (all.kind !== 'ok') return;
    assert.deepEqual(
      all.data.itemList.map((i) => [i.itemCd, i.vatCatCd]),
      [
        ['ZM2NTU0000101', 'A'],
        ['ZM2NTU0000102', 'D'],
      ],
    );
    assert.equal('changedAt' in all.data.itemList[0]!, false, 'no simulator bookkeeping on the wire');

    const one = await world.client.selectItem(target, { itemCd: 'ZM2NTU0000101' });
    assert.deepEqual(one.kind === 'ok' && [one.data.itemInfo.itemCd, one.data.itemInfo.dftPrc], ['ZM2NTU0000101', 45.5]);
    assert.equal((await world.client.selectItem(target, { itemCd: 'ZM2NTU9999999' })).kind, 'empty');
    const noCode = await world.client.selectItem(target, { itemCd: '' });
    assert.equal(noCode.kind === 'rejected' && noCode.code, '910');
  });

  test('saveItemComposition needs both items registered and a positive quantity', async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'ZM2NTU0000201', { itemNm: 'Gift hamper' });
    await registerItem(world, target, 'ZM2NTU0000202', { itemNm: 'Cooking oil 2L' });
    const composition = { itemCd: 'ZM2NTU0000201', cpstItemCd: 'ZM2NTU0000202', cpstQty: 2, regrId: 'gw', regrNm: 'gateway' };
    assert.equal((await world.client.saveItemComposition(target, composition)).kind, 'ok');
    assert.equal((await world.client.saveItemComposition(target, { ...composition, cpstQty: 3 })).kind, 'ok');
    assert.deepEqual(
      world.sim.control.getDevice(target.tpin, '000')?.compositions.map((c) => [c.itemCd, c.cpstItemCd, c.cpstQty]),
      [['ZM2NTU0000201', 'ZM2NTU0000202', 3]],
      'the same pair is replaced, not doubled',
    );

    const unknown = await world.client.saveItemComposition(target, { ...composition, cpstItemCd: 'ZM2NTU0000299' });
    assert.deepEqual(unknown.kind === 'rejected' && [unknown.code, unknown.message], [
      '910',
      '[cpstItemCd] ZM2NTU0000299 is not a registered item',
    ]);
    const zero = await world.client.saveItemComposition(target, { ...composition, cpstQty: 0 });
    assert.equal(zero.kind === 'rejected' && zero.code, '910');
    const text = await world.client.saveItemComposition(target, { ...composition, cpstQty: 'two' as unknown as number });
    assert.equal(text.kind === 'rejected' && text.code, '400');
  });
});

describe('RRP items', () => {
  const rrpItem = (itemCd: string, overrides: Partial<RrpItemInput> = {}): RrpItemInput => ({
    itemCd,
    itemClsCd: '50151513',
    itemTyCd: '2',
    itemNm: 'Cooking oil 5L',
    orgnNatCd: 'ZM',
    pkgUnitCd: 'NT',
    qtyUnitCd: 'U',
    rrp: 189.99,
    useYn: 'Y',
    ...ACTOR,
    ...overrides,
  });

  test("a manufacturer's saveRrpItems reaches every taxpayer's RRP feed; a resend replaces its price", async () => {
    const manufacturer = await addDevice(world);
    const seller = await addDevice(world);
    const saved = await world.client.saveRrpItems(manufacturer.target, {
      itemList: [rrpItem('MF-OIL-5L'), rrpItem('MF-OIL-2L', { rrp: 79.5 })],
    });
    assert.equal(saved.kind, 'ok');
    assert.equal((await world.client.saveRrpItems(manufacturer.target, { itemList: [rrpItem('MF-OIL-5L', { rrp: 199.99 })] })).kind, 'ok');

    const feed = await world.client.selectRrpItems(seller.target);
    assert.equal(feed.kind, 'ok');
    if (feed.kind !== 'ok') return;
    const mine = feed.data.itemList.filter((i) => i.manufacturerTpin === manufacturer.target.tpin);
    assert.deepEqual(mine.map((i) => [i.itemCd, i.rrp]).sort(), [
      ['MF-OIL-2L', 79.5],
      ['MF-OIL-5L', 199.99],
    ]);
    assert.equal(mine[0]?.manufacturerName, `Taxpayer ${manufacturer.target.tpin}`);
  });

  test('RRPs seeded through the control API are in the feed', async () => {
    const seeded = await control(world.sim, 'POST', '/rrp-items', { items: [{ itemCd: 'SEEDED-RRP-1', rrp: 42 }] });
    assert.equal(seeded.status, 201);
    const feed = await world.client.selectRrpItems(world.target);
    assert.ok(
      feed.kind === 'ok' &&
        feed.data.itemList.some((i) => i.itemCd === 'SEEDED-RRP-1' && i.rrp === 42 && i.manufacturerTpin === '2000000002'),
    );
    const listed = await control(world.sim, 'GET', '/rrp-items');
    assert.ok((listed.json as { items: { itemCd: string }[] }).items.some((i) => i.itemCd === 'SEEDED-RRP-1'));
  });

  test('saveRrpItems checks each entry: codes are 913, the price 910, an empty list 910', async () => {
    const { target } = await addDevice(world);
    const cases: [Partial<RrpItemInput>, string, RegExp][] = [
      [{ itemClsCd: '99999999' }, '913', /itemList\[1\]\.itemClsCd/],
      [{ qtyUnitCd: 'XX' }, '913', /qtyUnitCd/],
      [{ rrp: 12.34567 }, '910', /rrp.*4 digits/],
      [{ rrp: 0 }, '910', /rrp.*greater than 0/],
      [{ itemNm: '' }, '910', /itemNm/],
    ];
    for (const [change, code, message] of cases) {
      const outcome = await world.client.saveRrpItems(target, { itemList: [rrpItem('OK-1'), rrpItem('BAD-1', change)] });
      assert.deepEqual(outcome.kind === 'rejected' && [outcome.code, message.test(outcome.message)], [code, true], JSON.stringify(change));
    }
    const none = await world.client.saveRrpItems(target, { itemList: [] });
    assert.equal(none.kind === 'rejected' && none.code, '910');
    assert.ok(!world.sim.control.listRrpItems().some((i) => i.itemCd === 'OK-1'), 'a refused call stores none of its entries');
  });
});

describe('principals', () => {
  test('none, then the principals seeded for the RVAT agent', async () => {
    const { target } = await addDevice(world);
    assert.equal((await world.client.selectPrincipals(target)).kind, 'empty');
    const seeded = await control(world.sim, 'POST', `/devices/${target.tpin}/000/principals`, {
      principals: [{ principalNm: 'Zambezi Agro Dealers', tpin: '2000000003' }, {}],
    });
    assert.equal(seeded.status, 201);
    const pulled = await world.client.selectPrincipals(target);
    assert.equal(pulled.kind, 'ok');
    if (pulled.kind !== 'ok') return;
    assert.deepEqual(
      pulled.data.taxpayerPrincipalList.map((p) => [p.id, p.tpin, p.principalNm]),
      [
        [1, '2000000003', 'Zambezi Agro Dealers'],
        [2, '2100000002', 'Principal 2 Limited'],
      ],
    );
  });
});

describe('answers the client cannot use', () => {
  test('a 000 without the list is no answer (bad_success_body), naming the list it needed', async () => {
    const server = await startFixedServer(
      200,
      JSON.stringify({ resultCd: '000', resultMsg: 'It is succeeded', resultDt: '20240101000000', data: null }),
    );
    try {
      const target = { baseUrl: server.url, tpin: '1000000001', bhfId: '000' };
      const notices = await world.client.selectNotices(target);
      assert.deepEqual(notices.kind === 'unreachable' && [notices.reason, notices.detail], [
        'bad_success_body',
        'resultCd 000 but data.noticeList is not a list',
      ]);
      const item = await world.client.selectItem(target, { itemCd: 'X' });
      assert.deepEqual(item.kind === 'unreachable' && item.reason, 'bad_success_body');
      const write = await world.client.saveBrancheUser(target, { userId: 'u', userNm: 'U', useYn: 'Y', ...ACTOR });
      assert.equal(write.kind, 'ok', 'a write needs no data');
    } finally {
      await server.close();
    }
  });

  test('001 is an empty list on the new selects but a rejection on the new writes', async () => {
    const server = await startFixedServer(
      200,
      JSON.stringify({ resultCd: '001', resultMsg: 'There is no search result', resultDt: '20240101000000', data: null }),
    );
    try {
      const target = { baseUrl: server.url, tpin: '1000000001', bhfId: '000' };
      assert.equal((await world.client.selectBranches(target)).kind, 'empty');
      const write = await world.client.saveStockMaster(target, { ...ACTOR, stockItemList: [{ itemCd: 'X', rsdQty: 1 }] });
      assert.equal(write.kind === 'rejected' && write.code, '001');
    } finally {
      await server.close();
    }
  });
});
