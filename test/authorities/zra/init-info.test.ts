// A real selectInitInfo answer names the taxpayer `tin`, pads `mrcNo` with spaces and leaves
// several counters null. The simulator answers in that shape, and the gateway's handshake
// (src/domain/kernel/devices/handshake.ts, through the real client) reads what it needs from it:
// from the simulator, and from an answer shaped like one captured from the sandbox.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { zraVsdcAuthority } from '../../../src/authorities/zra-vsdc/adapter.ts';
import type { AuthorityDevice } from '../../../src/authorities/port/index.ts';
import { freshTpin, startFixedServer, startWorld, type World } from './helpers.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

/** The handshake as provisioning runs it, on the real client. */
/** ZRA's device port over the world's client (the adapter's own test). */
const handshake = () => (device: AuthorityDevice, serial: string) => zraVsdcAuthority(world.client).device.initialise(device, serial);

/** The shape of a real answer (sandbox capture of 2024-10, values changed). */
function capturedAnswer(counters: Record<string, unknown>): string {
  return JSON.stringify({
    resultCd: '000',
    resultMsg: 'It is succeeded',
    resultDt: '20241023101112',
    data: {
      info: {
        tin: '2000000001',
        taxprNm: 'CHILENJE HARDWARE LIMITED',
        bsnsActv: null,
        bhfId: '000',
        bhfNm: 'Headquarter',
        bhfOpenDt: '20240723',
        prvncNm: 'LUSAKA PROVINCE',
        dstrtNm: null,
        sctrNm: 'KABULONGA',
        locDesc: 'Plot 12',
        hqYn: 'Y',
        mgrNm: 'Mwape Banda',
        mgrTelNo: '0977000000',
        mgrEmail: 'owner@example.zm',
        sdcId: 'SDC0010001160',
        mrcNo: 'WIS00001862  ',
        lastInvcNo: null,
        lastTrainInvcNo: null,
        lastProfrmInvcNo: null,
        lastCopyInvcNo: null,
        ...counters,
      },
    },
  });
}

describe('selectInitInfo, as a real VSDC answers it', () => {
  test('the simulator answers with tin (not tpin), a padded mrcNo, its counters and null ones', async () => {
    const tpin = freshTpin();
    world.sim.control.presetDevice(tpin, '000', { lastSaleInvcNo: 133, lastSaleRcptNo: 133 });
    const response = await fetch(`${world.sim.url}/initializer/selectInitInfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tpin, bhfId: '000', dvcSrlNo: `SN-REAL-${tpin}` }),
    });
    const info = ((await response.json()) as { data: { info: Record<string, unknown> } }).data.info;
    assert.equal(info.tin, tpin);
    assert.equal('tpin' in info, false);
    assert.match(String(info.mrcNo), /^WIS\d{8} {2}$/);
    assert.deepEqual([info.lastSaleInvcNo, info.lastSaleRcptNo, info.lastPchsInvcNo], [133, 133, 0]);
    assert.deepEqual(
      [info.lastInvcNo, info.lastTrainInvcNo, info.lastProfrmInvcNo, info.lastCopyInvcNo, info.bsnsActv, info.dstrtNm],
      [null, null, null, null, null, null],
    );
  });

  test("the handshake reads the simulator's answer: sdcId, trimmed mrcNo, names and counters", async () => {
    const tpin = freshTpin();
    world.sim.control.presetDevice(tpin, '000', { lastSaleInvcNo: 41, taxprNm: 'KAPIRI STORES' });
    const result = await handshake()({ profile: 'zra-vsdc', baseUrl: world.sim.url, tpin, branch: '000' }, `SN-HS-${tpin}`);
    assert.equal(result.kind, 'ok');
    if (result.kind !== 'ok') return;
    assert.match(result.device.sdcId, /^SDC\d{10}$/);
    assert.match(result.device.mrcNo, /^WIS\d{8}$/);
    assert.deepEqual(
      [
        result.device.taxpayerName,
        result.device.branchName,
        result.device.lastSaleInvoiceNo,
        result.device.lastPurchaseInvoiceNo,
        result.device.lastSaleReceiptNo,
      ],
      ['KAPIRI STORES', 'Headquarter', 41, 0, 0],
    );
  });

  test('a captured answer with null counters: the sequence starts at 1; text counters are read as numbers', async () => {
    for (const [counters, expected] of [
      [{ lastPchsInvcNo: null, lastSaleRcptNo: null, lastSaleInvcNo: null }, [0, null, null]],
      [{ lastPchsInvcNo: '34577118', lastSaleRcptNo: '133', lastSaleInvcNo: '133' }, [133, 34577118, 133]],
      [{ lastPchsInvcNo: 0, lastSaleRcptNo: 0, lastSaleInvcNo: 0 }, [0, 0, 0]],
    ] as const) {
      const vsdc = await startFixedServer(200, capturedAnswer(counters));
      try {
        const result = await handshake()({ profile: 'zra-vsdc', baseUrl: vsdc.url, tpin: '2000000001', branch: '000' }, 'SN-CAPTURED');
        assert.equal(result.kind, 'ok', JSON.stringify(result));
        if (result.kind !== 'ok') continue;
        assert.deepEqual(
          [
            result.device.sdcId,
            result.device.mrcNo,
            result.device.taxpayerName,
            result.device.lastSaleInvoiceNo,
            result.device.lastPurchaseInvoiceNo,
            result.device.lastSaleReceiptNo,
          ],
          ['SDC0010001160', 'WIS00001862', 'CHILENJE HARDWARE LIMITED', ...expected],
        );
      } finally {
        await vsdc.close();
      }
    }
  });
});
