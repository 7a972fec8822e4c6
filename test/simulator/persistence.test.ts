import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '@fiscal-gateway/simulator';
import { createVsdcClient, type DeviceTarget } from '../../src/authorities/zra-vsdc/client.ts';
import { buildZraSaleBody } from '../../src/authorities/zra-vsdc/sales-body.ts';
import { sale } from '../authorities/zra/helpers.ts';
import { eventually } from '../helpers/poll.ts';

test('state survives a restart through the state file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vsdc-sim-'));
  const stateFile = join(dir, 'state.json');
  const client = createVsdcClient({ timeoutMs: 2_000 });
  try {
    const first = await startSimulator({ stateFile });
    const target: DeviceTarget = { baseUrl: first.url, tpin: '1000000777', bhfId: '000' };
    const init = await client.selectInitInfo(target, { dvcSrlNo: 'SN-PERSIST' });
    assert.equal(init.kind, 'ok');
    const body = buildZraSaleBody(sale(target, 5));
    const filed = await client.saveSales(target, body);
    assert.equal(filed.kind, 'ok');
    const actor = { regrId: 'gw', regrNm: 'gw', modrId: 'gw', modrNm: 'gw' };
    const item = {
      itemCd: 'OIL-5L',
      itemClsCd: '50151513',
      itemTyCd: '2',
      itemNm: 'Cooking oil 5L',
      orgnNatCd: 'ZM',
      pkgUnitCd: 'NT',
      qtyUnitCd: 'U',
      vatCatCd: 'A',
      dftPrc: 116,
      useYn: 'Y' as const,
      ...actor,
    };
    assert.equal((await client.saveItem(target, item)).kind, 'ok');
    assert.equal((await client.saveStockMaster(target, { ...actor, stockItemList: [{ itemCd: 'OIL-5L', rsdQty: 24 }] })).kind, 'ok');
    first.control.feedRrpItems([{ itemCd: 'RRP-PERSIST', rrp: 99 }]);
    first.control.feedNotices(target.tpin, target.bhfId, [{ title: 'Kept' }]);
    first.control.setFaults(target.tpin, target.bhfId, { down: true });

    // Written shortly after the change, without waiting for close.
    await eventually(
      async () => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes('"cisInvcNo":"5"'),
      'the state file to hold the fifth invoice',
    );
    await first.close();

    const second = await startSimulator({ stateFile, port: 0 });
    try {
      const again: DeviceTarget = { ...target, baseUrl: second.url };
      assert.equal((await client.selectInitInfo(again, { dvcSrlNo: 'SN-PERSIST' })).kind, 'already_installed');
      assert.equal((await client.saveSales(again, body)).kind, 'duplicate', 'faults are not persisted; filings are');
      const sdcId = init.kind === 'ok' ? init.data.info.sdcId : '';
      const found = await client.selectInvoice(again, { cisInvcNo: '5', invcSdcId: sdcId });
      assert.equal(found.kind === 'ok' && filed.kind === 'ok' && found.data.rcptNo === filed.data.rcptNo, true);
      const next = await client.saveSales(again, buildZraSaleBody(sale(again, 6)));
      assert.equal(
        next.kind === 'ok' && filed.kind === 'ok' && next.data.rcptNo,
        filed.kind === 'ok' ? filed.data.rcptNo + 1 : -1,
        'the receipt counter continues',
      );
      assert.deepEqual(
        second.control.documents(target.tpin, '000').map((d) => [d.cisInvcNo, d.resultCd]),
        [
          ['5', '000'],
          ['5', '924'],
          ['6', '000'],
        ],
      );
      assert.equal(second.control.getDevice(target.tpin, '000')?.stockLevels['OIL-5L']?.rsdQty, 24);
      const items = await client.selectItems(again);
      assert.deepEqual(items.kind === 'ok' && items.data.itemList.map((i) => i.itemCd), ['OIL-5L']);
      const notices = await client.selectNotices(again);
      assert.deepEqual(notices.kind === 'ok' && notices.data.noticeList.map((n) => n.title), ['Kept']);
      const rrp = await client.selectRrpItems(again);
      assert.deepEqual(rrp.kind === 'ok' && rrp.data.itemList.map((i) => [i.itemCd, i.rrp]), [['RRP-PERSIST', 99]]);
      const another = await client.selectInitInfo({ ...again, tpin: '1000000778' }, { dvcSrlNo: 'SN-OTHER' });
      assert.notEqual(another.kind === 'ok' && another.data.info.sdcId, sdcId, 'device identities are not reused');
    } finally {
      await second.close();
    }
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a state file written before stock, purchases and notices existed still loads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vsdc-sim-old-'));
  const stateFile = join(dir, 'state.json');
  const client = createVsdcClient({ timeoutMs: 2_000 });
  const actor = { regrId: 'gw', regrNm: 'gw', modrId: 'gw', modrNm: 'gw' };
  const oldItem = {
    itemCd: 'OLD-1',
    itemClsCd: '50151513',
    itemTyCd: '2',
    itemNm: 'Old item',
    orgnNatCd: 'ZM',
    pkgUnitCd: 'NT',
    qtyUnitCd: 'U',
    vatCatCd: 'A',
    dftPrc: 10,
    useYn: 'Y',
    ...actor,
  };
  // Exactly the fields a device record had then: no installedAt, users, stock, purchases, notices.
  const oldDevice = {
    tpin: '1000000779',
    bhfId: '000',
    installed: true,
    dvcSrlNo: 'SN-OLD',
    sdcId: 'SDC0010002115',
    mrcNo: 'WIS00003036  ',
    taxprNm: 'Old Taxpayer',
    bhfNm: 'Headquarter',
    lastSaleInvcNo: 0,
    lastSaleRcptNo: 0,
    lastPchsInvcNo: 0,
    filed: [],
    received: [],
    branchCustomers: [],
    items: [oldItem],
    imports: [],
  };
  writeFileSync(stateFile, JSON.stringify({ version: 1, nextDeviceNo: 2116, taxpayers: [], devices: [oldDevice] }));
  const sim = await startSimulator({ stateFile });
  try {
    const target: DeviceTarget = { baseUrl: sim.url, tpin: '1000000779', bhfId: '000' };
    const items = await client.selectItems(target);
    assert.deepEqual(items.kind === 'ok' && items.data.itemList.map((i) => i.itemCd), ['OLD-1']);
    assert.equal((await client.selectNotices(target)).kind, 'empty');
    assert.equal((await client.saveStockMaster(target, { ...actor, stockItemList: [{ itemCd: 'OLD-1', rsdQty: 3 }] })).kind, 'ok');
    const branches = await client.selectBranches(target);
    assert.deepEqual(branches.kind === 'ok' && branches.data.bhfList.map((b) => b.bhfId), ['000']);
  } finally {
    await sim.close();
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
