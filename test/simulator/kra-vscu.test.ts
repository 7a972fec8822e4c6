// The KRA VSCU profile on the wire: the VSDC family of local paths, tin and bhfId in every body,
// headers ignored, training and proforma sales, its sale reply and the simulator's own lookup.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Simulator } from '@fiscal-gateway/simulator';
import { control, creditNote, freshPin, post, saleBody, startKra, type KraWire, type LineSpec } from './kra-helpers.ts';

let sim: Simulator;
before(async () => {
  sim = await startKra();
});
after(async () => {
  await sim.close();
});

const lines: LineSpec[] = [
  { letter: 'B', prc: 116, qty: 2, inclusive: true },
  { letter: 'E', prc: 100, qty: 1, dcRt: 5 },
  { letter: 'A', prc: 30, qty: 3 },
];

function device(tin = freshPin()): { tin: string; call(path: string, body: Record<string, unknown>): Promise<KraWire> } {
  return { tin, call: (path, body) => post(`${sim.urlOf('kra-vscu')}${path}`, { tin, bhfId: '00', ...body }) };
}

describe('KRA VSCU', () => {
  test('init without cmcKey, 902 on a second; codes before init; other calls 901 before it', async () => {
    const d = device();
    assert.equal((await d.call('/code/selectCodes', { lastReqDt: '20180101000000' })).envelope?.resultCd, '000');
    assert.equal((await d.call('/items/selectItems', { lastReqDt: '20180101000000' })).envelope?.resultCd, '901');
    const init = await d.call('/initializer/selectInitInfo', { dvcSrlNo: `vscu-${d.tin}` });
    assert.equal(init.envelope?.resultCd, '000', init.text);
    const info = init.envelope!.data.info;
    assert.ok(info.sdcId && info.mrcNo);
    assert.equal(info.cmcKey, undefined);
    assert.equal(info.lastInvcNo, 0);
    assert.equal((await d.call('/initializer/selectInitInfo', { dvcSrlNo: `vscu-${d.tin}` })).envelope?.resultCd, '902');
    const bad = await post(`${sim.urlOf('kra-vscu')}/code/selectCodes`, { tin: 'short', bhfId: '00', lastReqDt: '20180101000000' });
    assert.match(bad.envelope!.resultMsg, /\[tin\]/);
  });

  test('a sale: rcptNo, totRcptNo, intrlData, rcptSign, vsdcRcptPbctDate, sdcId, mrcNo; headers ignored; training and proforma allowed', async () => {
    const d = device();
    const info = (await d.call('/initializer/selectInitInfo', { dvcSrlNo: `vscu-${d.tin}` })).envelope!.data.info;
    const sale = await post(
      `${sim.urlOf('kra-vscu')}/trnsSales/saveSales`,
      { tin: d.tin, bhfId: '00', ...saleBody(1, lines, { salesTyCd: 'N' }) },
      { cmcKey: 'ignored' },
    );
    assert.equal(sale.envelope?.resultCd, '000', sale.text);
    const data = sale.envelope!.data;
    assert.deepEqual(Object.keys(data).sort(), ['intrlData', 'mrcNo', 'rcptNo', 'rcptSign', 'sdcId', 'totRcptNo', 'vsdcRcptPbctDate']);
    assert.deepEqual([data.rcptNo, data.totRcptNo, data.sdcId, data.mrcNo], [1, 1, info.sdcId, info.mrcNo]);
    assert.match(data.vsdcRcptPbctDate, /^\d{14}$/);
    const training = await d.call('/trnsSales/saveSales', saleBody(2, lines, { salesTyCd: 'T' }));
    assert.deepEqual([training.envelope?.resultCd, training.envelope?.data.rcptNo, training.envelope?.data.totRcptNo], ['000', 1, 2]);
    assert.equal((await d.call('/trnsSales/saveSales', saleBody(3, lines, { salesTyCd: 'P' }))).envelope?.resultCd, '000');
    assert.match((await d.call('/trnsSales/saveSales', saleBody(4, lines, { salesTyCd: 'X' }))).envelope!.resultMsg, /\[salesTyCd\]/);
    assert.equal((await d.call('/trnsSales/saveSales', saleBody(1, lines))).envelope?.resultCd, '994');
    // A credit note is of its sale's kind (TR on TS, NR on NS); a proforma takes none.
    assert.match((await d.call('/trnsSales/saveSales', creditNote(5, 2, lines))).envelope!.resultMsg, /\[salesTyCd\] must be T/);
    assert.match(
      (await d.call('/trnsSales/saveSales', creditNote(5, 1, lines, { salesTyCd: 'T' }))).envelope!.resultMsg,
      /\[salesTyCd\] must be N/,
    );
    assert.match((await d.call('/trnsSales/saveSales', creditNote(5, 3, lines, { salesTyCd: 'P' }))).envelope!.resultMsg, /proforma sale/);
    const trainingNote = await d.call('/trnsSales/saveSales', creditNote(5, 2, lines, { salesTyCd: 'T' }));
    assert.deepEqual([trainingNote.envelope?.resultCd, trainingNote.envelope?.data.rcptNo], ['000', 1], trainingNote.text);
    assert.equal((await d.call('/trnsSales/saveSales', creditNote(7, 1, lines))).envelope?.resultCd, '000');
    const wrong = saleBody(6, lines);
    wrong.totAmt += 1;
    assert.match((await d.call('/trnsSales/saveSales', wrong)).envelope!.resultMsg, /\[totAmt\]/);
  });

  test("the simulator's lookup /trnsSales/selectSales, the shared endpoints by their VSCU paths, and faults by VSCU names", async () => {
    const d = device();
    await d.call('/initializer/selectInitInfo', { dvcSrlNo: `vscu-${d.tin}` });
    await d.call('/trnsSales/saveSales', saleBody(9, lines));
    const found = await d.call('/trnsSales/selectSales', { invcNo: 9 });
    assert.equal(found.envelope?.data.salesList[0].invcNo, 9);
    assert.equal((await d.call('/trnsSales/selectSales', { invcNo: 10 })).envelope?.resultCd, '001');
    const reg = { regrId: 'a', regrNm: 'a', modrId: 'a', modrNm: 'a' };
    const item = {
      itemCd: 'KE1NTXU0000001',
      itemClsCd: '50202300',
      itemTyCd: '2',
      itemNm: 'Soda',
      orgnNatCd: 'KE',
      pkgUnitCd: 'NT',
      qtyUnitCd: 'U',
      taxTyCd: 'B',
      useYn: 'Y',
      ...reg,
    };
    assert.equal((await d.call('/items/saveItems', item)).envelope?.resultCd, '000');
    assert.equal((await d.call('/items/selectItems', { lastReqDt: '20180101000000' })).envelope?.data.itemList.length, 1);
    assert.equal((await d.call('/branches/saveBrancheUsers', { userId: 'u', userNm: 'U', useYn: 'Y', ...reg })).envelope?.resultCd, '000');
    assert.equal(
      (await d.call('/branches/saveBrancheCustomers', { custNo: '1', custTin: 'A123456789Z', custNm: 'C', useYn: 'Y', ...reg })).envelope
        ?.resultCd,
      '000',
    );
    assert.equal((await d.call('/stockMaster/saveStockMaster', { itemCd: 'KE1NTXU0000001', rsdQty: 3, ...reg })).envelope?.resultCd, '000');
    assert.equal((await d.call('/imports/selectImportItems', { lastReqDt: '20180101000000' })).envelope?.resultCd, '001');

    const faults = `/profiles/kra-vscu/devices/${d.tin}/00/faults`;
    assert.equal((await control(sim, 'PUT', faults, { reject: { count: 1, code: '999', endpoints: ['saveItems'] } })).status, 200);
    assert.equal((await d.call('/items/saveItems', item)).envelope?.resultCd, '999');
    assert.equal((await control(sim, 'PUT', faults, { loseReplies: 1 })).json.loseRepliesOn[0], 'saveSales');
    await assert.rejects(d.call('/trnsSales/saveSales', saleBody(11, lines)));
    assert.equal((await d.call('/trnsSales/selectSales', { invcNo: 11 })).envelope?.resultCd, '000');
    const docs = (await control(sim, 'GET', `/profiles/kra-vscu/devices/${d.tin}/00/documents?filed=true`)).json.documents;
    assert.deepEqual(
      docs.map((x: { invcNo: number; replyLost: boolean }) => [x.invcNo, x.replyLost]),
      [
        [9, false],
        [11, true],
      ],
    );
  });

  test('two-step sale (setting): saveSales answers no receipt, saveInvoice gives it; 922 before the sale, 921 after', async () => {
    const d = device();
    await d.call('/initializer/selectInitInfo', { dvcSrlNo: `vscu-${d.tin}` });
    assert.equal((await d.call('/trnsSales/saveInvoice', { invcNo: 1 })).envelope?.resultCd, '922');
    await control(sim, 'PUT', '/profiles/kra-vscu/settings', { vscuTwoStepSale: true });
    try {
      const sale = await d.call('/trnsSales/saveSales', saleBody(1, lines));
      assert.deepEqual([sale.envelope?.resultCd, sale.envelope?.data], ['000', null]);
      const invoice = await d.call('/trnsSales/saveInvoice', { invcNo: 1 });
      assert.equal(invoice.envelope?.resultCd, '000');
      assert.equal(invoice.envelope?.data.rcptNo, 1);
      assert.equal((await d.call('/trnsSales/saveInvoice', { invcNo: 1 })).envelope?.resultCd, '921');
    } finally {
      await control(sim, 'PUT', '/profiles/kra-vscu/settings', { vscuTwoStepSale: false });
    }
    const init = (await post(`${sim.urlOf('kra-vscu')}/initializer/selectInitInfo`, { tin: d.tin, bhfId: '00', dvcSrlNo: 'x' })).envelope;
    assert.equal(init?.resultCd, '902');
  });
});

test("a KRA profile's devices, filings and settings survive a restart through <state file>.<profile id>", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kra-sim-'));
  const stateFile = join(dir, 'state.json');
  try {
    const first = await startKra({ stateFile });
    const tin = freshPin();
    const init = await post(`${first.urlOf('kra-oscu')}/selectInitOsdcInfo`, { tin, bhfId: '00', dvcSrlNo: `p-${tin}` });
    const cmcKey = init.envelope!.data.info.cmcKey as string;
    const headers = { tin, bhfId: '00', cmcKey };
    assert.equal((await post(`${first.urlOf('kra-oscu')}/saveTrnsSalesOsdc`, saleBody(3, lines), headers)).envelope?.resultCd, '000');
    await control(first, 'PUT', '/profiles/kra-oscu/settings', { creditNoteCap: 2 });
    await first.close();
    assert.ok(existsSync(`${stateFile}.kra-oscu`));

    const second = await startKra({ stateFile });
    try {
      assert.equal((await post(`${second.urlOf('kra-oscu')}/saveTrnsSalesOsdc`, saleBody(3, lines), headers)).envelope?.resultCd, '994');
      assert.equal(
        (await post(`${second.urlOf('kra-oscu')}/saveTrnsSalesOsdc`, creditNote(4, 3, [{ letter: 'A', prc: 30, qty: 1 }]), headers))
          .envelope?.resultCd,
        '000',
      );
      assert.equal((await control(second, 'GET', '/profiles/kra-oscu/settings')).json.creditNoteCap, 2);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
