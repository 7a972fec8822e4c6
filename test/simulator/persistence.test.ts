import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../src/simulator/index.ts';
import { createVsdcClient, type DeviceTarget } from '../../src/vsdc/client.ts';
import { buildSaveSalesBody } from '../../src/vsdc/sales-body.ts';
import { sale } from '../vsdc/helpers.ts';
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
    const body = buildSaveSalesBody(sale(target, 5));
    const filed = await client.saveSales(target, body);
    assert.equal(filed.kind, 'ok');
    first.control.setFaults(target.tpin, target.bhfId, { down: true });

    // Written shortly after the change, without waiting for close.
    await eventually(async () => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes('"cisInvcNo":"5"'), 'the state file to hold the fifth invoice');
    await first.close();

    const second = await startSimulator({ stateFile, port: 0 });
    try {
      const again: DeviceTarget = { ...target, baseUrl: second.url };
      assert.equal((await client.selectInitInfo(again, { dvcSrlNo: 'SN-PERSIST' })).kind, 'already_installed');
      assert.equal((await client.saveSales(again, body)).kind, 'duplicate', 'faults are not persisted; filings are');
      const sdcId = init.kind === 'ok' ? init.data.info.sdcId : '';
      const found = await client.selectInvoice(again, { cisInvcNo: '5', invcSdcId: sdcId });
      assert.equal(found.kind === 'ok' && filed.kind === 'ok' && found.data.rcptNo === filed.data.rcptNo, true);
      const next = await client.saveSales(again, buildSaveSalesBody(sale(again, 6)));
      assert.equal(next.kind === 'ok' && filed.kind === 'ok' && next.data.rcptNo, filed.kind === 'ok' ? filed.data.rcptNo + 1 : -1, 'the receipt counter continues');
      assert.deepEqual(
        second.control.documents(target.tpin, '000').map((d) => [d.cisInvcNo, d.resultCd]),
        [
          ['5', '000'],
          ['5', '924'],
          ['6', '000'],
        ],
      );
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
