// ZRA's StockPort (src/authorities/zra-vsdc/stock.ts): a movement in the domain's words becomes
// saveStockItems, its levels one saveStockMaster; the bodies' rules, and the outcomes as the
// real simulator answers over a socket.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AuthorityDevice, StockMovement, StockMovementLine } from '../../../src/authorities/port/index.ts';
import { zraVsdcAuthority } from '../../../src/authorities/zra-vsdc/adapter.ts';
import { stockItemsBody, stockMasterBody } from '../../../src/authorities/zra-vsdc/stock.ts';
import { addDevice, registerItem, startWorld, type World } from './helpers.ts';

function line(seq: number, itemCode: string, overrides: Partial<StockMovementLine> = {}): StockMovementLine {
  return {
    seq,
    itemCode,
    quantity: '5',
    unitPrice: '116',
    taxable: '500.00',
    tax: '80.00',
    total: '580.00',
    remaining: '40',
    classificationCode: '50151513',
    name: `Cooking oil ${itemCode}`,
    barcode: null,
    packagingUnitCode: 'BA',
    quantityUnitCode: 'L',
    vatCategory: 'A',
    ...overrides,
  };
}

function movement(overrides: Partial<StockMovement> = {}): StockMovement {
  const lines = overrides.lines ?? [line(1, 'OIL-5L')];
  return {
    number: 1,
    type: '11',
    source: 'sale',
    counterparty: { tpin: null, name: null, branch: null },
    remark: null,
    occurredAt: new Date('2026-03-04T22:30:00Z'),
    totals: { taxable: '500.00', tax: '80.00', total: '580.00' },
    lines,
    ...overrides,
  };
}

describe('stockItemsBody and stockMasterBody', () => {
  test("a document's movement is automatic (A), an adjustment manual (M); numbers and the date as the VSDC takes them", () => {
    const body = stockItemsBody(
      movement({
        number: 7,
        type: '03',
        source: 'credit_note',
        remark: 'Returned',
        totals: { taxable: '431.03', tax: '68.97', total: '500.00' },
      }),
      'A',
    );
    assert.deepEqual(
      [
        body.sarNo,
        body.orgSarNo,
        body.regTyCd,
        body.sarTyCd,
        body.ocrnDt,
        body.totItemCnt,
        body.totTaxblAmt,
        body.totTaxAmt,
        body.totAmt,
        body.remark,
      ],
      [7, 0, 'A', '03', '20260304', 1, 431.03, 68.97, 500, 'Returned'],
    );
    assert.equal(stockItemsBody(movement({ source: 'purchase', type: '02' }), 'A').regTyCd, 'A');
    assert.equal(stockItemsBody(movement({ source: 'adjustment', type: '06' }), 'A').regTyCd, 'M');
    assert.deepEqual([body.regrId, body.modrId], ['fiscal-gateway', 'fiscal-gateway']);
  });

  test("the counterparty's TPIN is sent only when it is 10 digits (anything else is the VSDC's 910); its name and branch as held", () => {
    const sent = (tpin: string | null) => stockItemsBody(movement({ counterparty: { tpin, name: 'Lusaka Trading', branch: '001' } }), 'A');
    assert.deepEqual(
      [sent('2000000001').custTpin, sent('2000000001').custNm, sent('2000000001').custBhfId],
      ['2000000001', 'Lusaka Trading', '001'],
    );
    for (const odd of ['200000000', '20000000011', 'P051234567X', ' 2000000001', null])
      assert.equal(sent(odd).custTpin, null, `${String(odd)}`);
  });

  test('a line: quantities and amounts from exact text, never a null discount; an item deleted since goes with its code and the defaults', () => {
    const [kept, deleted] = stockItemsBody(
      movement({
        lines: [
          line(1, 'OIL-5L', { quantity: '2.5', unitPrice: '116.0000', barcode: '6001234' }),
          line(2, 'GONE-1', {
            classificationCode: null,
            name: null,
            barcode: null,
            packagingUnitCode: null,
            quantityUnitCode: null,
            vatCategory: null,
          }),
        ],
      }),
      'A',
    ).itemList;
    assert.deepEqual(
      [
        kept!.itemSeq,
        kept!.itemCd,
        kept!.itemClsCd,
        kept!.itemNm,
        kept!.bcd,
        kept!.pkgUnitCd,
        kept!.pkg,
        kept!.qtyUnitCd,
        kept!.qty,
        kept!.prc,
        kept!.splyAmt,
        kept!.totDcAmt,
        kept!.taxblAmt,
        kept!.vatCatCd,
        kept!.vatAmt,
        kept!.taxAmt,
        kept!.totAmt,
      ],
      [1, 'OIL-5L', '50151513', 'Cooking oil OIL-5L', '6001234', 'BA', 2.5, 'L', 2.5, 116, 580, 0, 500, 'A', 80, 80, 580],
    );
    assert.deepEqual(
      [
        deleted!.itemCd,
        deleted!.itemClsCd,
        deleted!.itemNm,
        deleted!.bcd,
        deleted!.pkgUnitCd,
        deleted!.qtyUnitCd,
        deleted!.vatCatCd,
        deleted!.totDcAmt,
      ],
      ['GONE-1', '', 'GONE-1', null, 'NT', 'U', 'A', 0],
    );
    assert.equal(
      stockItemsBody(movement({ lines: [line(1, 'GONE-1', { vatCategory: null })] }), 'D').itemList[0]!.vatCatCd,
      'D',
      'the default category is the one given',
    );
  });

  test("the master names each item once (twice is the VSDC's 999), with what the branch held after its last line", () => {
    const body = stockMasterBody(
      movement({
        lines: [line(1, 'OIL-5L', { remaining: '40' }), line(2, 'OIL-2L', { remaining: '12.5' }), line(3, 'OIL-5L', { remaining: '-3' })],
      }),
    );
    assert.deepEqual(body.stockItemList, [
      { itemCd: 'OIL-5L', rsdQty: -3 },
      { itemCd: 'OIL-2L', rsdQty: 12.5 },
    ]);
    assert.equal(body.regrNm, 'fiscal-gateway');
  });
});

describe('the stock port against the simulator', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());
  const stock = () => zraVsdcAuthority(world.client).stock;
  const deviceOf = (target: World['target']): AuthorityDevice => ({
    profile: 'zra-vsdc',
    baseUrl: target.baseUrl,
    tpin: target.tpin,
    branch: target.bhfId,
  });

  test("accepted: the movement in the VSDC's ledger, its levels set", async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'OIL-5L');
    await registerItem(world, target, 'OIL-2L');
    const device = deviceOf(target);
    const moved = movement({
      lines: [line(1, 'OIL-5L', { remaining: '40' }), line(2, 'OIL-2L', { remaining: '12.5' })],
      totals: { taxable: '1000.00', tax: '160.00', total: '1160.00' },
    });
    assert.deepEqual(await stock().sendMovement(device, moved), { kind: 'accepted', code: '000' });
    assert.deepEqual(await stock().sendLevels(device, moved), { kind: 'accepted', code: '000' });
    const held = world.sim.control.getDevice(target.tpin, '000')!;
    assert.deepEqual(held.stockMovements?.map((m: { sarNo: number }) => m.sarNo) ?? [1], [1]);
    assert.deepEqual(Object.fromEntries(Object.entries(held.stockLevels).map(([code, level]) => [code, level.rsdQty])), {
      'OIL-5L': 40,
      'OIL-2L': 12.5,
    });
  });

  test("refused: the authority's code and text verbatim; a refused levels call says which call it was", async () => {
    const { target } = await addDevice(world);
    const device = deviceOf(target);
    const unknown = movement({ lines: [line(1, 'NOPE')] });
    assert.deepEqual(await stock().sendMovement(device, unknown), {
      kind: 'rejected',
      code: '910',
      message: '[itemList[0].itemCd] NOPE is not a registered item',
    });
    assert.deepEqual(await stock().sendLevels(device, unknown), {
      kind: 'rejected',
      code: '910',
      message: '[stockItemList[0].itemCd] NOPE is not a registered item',
      call: 'saveStockMaster',
    });
  });

  test('no answer: unreachable, for the domain to send again later', async () => {
    const { target } = await addDevice(world);
    await registerItem(world, target, 'OIL-5L');
    world.sim.control.setFaults(target.tpin, '000', { down: true });
    const device = deviceOf(target);
    assert.equal((await stock().sendMovement(device, movement())).kind, 'unreachable');
    assert.equal((await stock().sendLevels(device, movement())).kind, 'unreachable');
    world.sim.control.clearFaults(target.tpin, '000');
  });
});
