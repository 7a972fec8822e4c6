// The /_sim control API over HTTP, as the gateway's tests and operators use it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildZraSaleBody } from '../../src/authorities/zra-vsdc/sales-body.ts';
import type { DeviceTarget } from '../../src/authorities/zra-vsdc/client.ts';
import { control, freshTpin, sale, startWorld, type World } from '../authorities/zra/helpers.ts';
import { eventually } from '../helpers/poll.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world.close();
});

async function installedDevice(): Promise<DeviceTarget> {
  const tpin = freshTpin();
  const preset = await control(world.sim, 'PUT', `/devices/${tpin}/000`, { installed: true, lastSaleInvcNo: 10 });
  assert.equal(preset.status, 200);
  return { baseUrl: world.sim.url, tpin, bhfId: '000' };
}

describe('control API', () => {
  test('health', async () => {
    assert.deepEqual(await control(world.sim, 'GET', '/health'), { status: 200, json: { ok: true } });
  });

  test('preset a device: installed without an init call, with a continued sequence', async () => {
    const target = await installedDevice();
    const device = await control(world.sim, 'GET', `/devices/${target.tpin}/000`);
    const json = device.json as { installed: boolean; sdcId: string; lastSaleInvcNo: number };
    assert.deepEqual([json.installed, json.lastSaleInvcNo], [true, 10]);
    assert.equal((await world.client.selectInitInfo(target, { dvcSrlNo: 'any' })).kind, 'already_installed');
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 11)))).kind, 'ok');
    const list = await control(world.sim, 'GET', '/devices');
    assert.ok((list.json as { devices: { tpin: string }[] }).devices.some((d) => d.tpin === target.tpin));
  });

  test('documents in arrival order, with outcome and receipt, and ?filed=true', async () => {
    const target = await installedDevice();
    await control(world.sim, 'PUT', `/devices/${target.tpin}/000/faults`, {
      reject: { count: 1, code: '910', message: 'Request parameter error' },
    });
    for (const n of [11, 12, 12, 13]) await world.client.saveSales(target, buildZraSaleBody(sale(target, n)));
    const all = (await control(world.sim, 'GET', `/devices/${target.tpin}/000/documents`)).json as {
      documents: {
        seq: number;
        cisInvcNo: string;
        rcptTyCd: string;
        resultCd: string;
        totals: { total: number };
        receipt: { rcptNo: number } | null;
      }[];
    };
    assert.deepEqual(
      all.documents.map((d) => [d.seq, d.cisInvcNo, d.resultCd, d.receipt !== null]),
      [
        [1, '11', '910', false],
        [2, '12', '000', true],
        [3, '12', '924', false],
        [4, '13', '000', true],
      ],
    );
    assert.equal(all.documents[1]?.rcptTyCd, 'S');
    assert.equal(all.documents[1]?.totals.total, buildZraSaleBody(sale(target, 12)).totAmt);
    const filed = (await control(world.sim, 'GET', `/devices/${target.tpin}/000/documents?filed=true`)).json as {
      documents: { cisInvcNo: string; receipt: { rcptNo: number } }[];
    };
    assert.deepEqual(
      filed.documents.map((d) => d.cisInvcNo),
      ['12', '13'],
    );
    assert.ok(filed.documents[1]!.receipt.rcptNo > filed.documents[0]!.receipt.rcptNo);
  });

  test('faults: set, read, merge and clear over HTTP', async () => {
    const target = await installedDevice();
    const path = `/devices/${target.tpin}/000/faults`;
    const set = await control(world.sim, 'PUT', path, { down: true, delayMs: 5 });
    assert.deepEqual([set.status, (set.json as { down: boolean }).down], [200, true]);
    assert.equal((await world.client.selectCodes(target)).kind, 'unreachable');
    await control(world.sim, 'PUT', path, { down: false, forcedResult: { code: '894' } });
    const read = (await control(world.sim, 'GET', path)).json as { delayMs: number; forcedResult: { code: string } };
    assert.deepEqual([read.delayMs, read.forcedResult.code], [5, '894'], 'merged, not replaced');
    const outcome = await world.client.selectCodes(target);
    assert.deepEqual(outcome.kind === 'unreachable' && outcome.resultCd, '894');
    await control(world.sim, 'DELETE', path);
    assert.equal((await world.client.selectCodes(target)).kind, 'ok');
  });

  test('lose all replies until cleared', async () => {
    const target = await installedDevice();
    await control(world.sim, 'PUT', `/devices/${target.tpin}/000/faults`, { loseReplies: 'all' });
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 11)))).kind, 'unreachable');
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 12)))).kind, 'unreachable');
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 11)))).kind, 'duplicate', 'a 924 reply is not lost');
    await control(world.sim, 'PUT', `/devices/${target.tpin}/000/faults`, { loseReplies: 0 });
    assert.equal((await world.client.saveSales(target, buildZraSaleBody(sale(target, 13)))).kind, 'ok');
    const docs = world.sim.control.documents(target.tpin, '000', { filedOnly: true });
    assert.deepEqual(
      docs.map((d) => [d.cisInvcNo, d.replyLost]),
      [
        ['11', true],
        ['12', true],
        ['13', false],
      ],
    );
  });

  test('invalid fault input is a 400 with a reason', async () => {
    const tpin = freshTpin();
    for (const faults of [
      { down: 'yes' },
      { delayMs: -1 },
      { dropAbandoned: 1 },
      { forcedResult: '83' },
      { reject: { count: 1 } },
      { explode: true },
    ]) {
      const response = await control(world.sim, 'PUT', `/devices/${tpin}/000/faults`, faults);
      assert.equal(response.status, 400, JSON.stringify(faults));
      assert.equal((response.json as { error: string }).error, 'invalid_request');
    }
    assert.equal((await control(world.sim, 'PUT', '/devices/123/000/faults', {})).status, 400);
  });

  test('feed imports and taxpayers', async () => {
    const target = await installedDevice();
    const fed = await control(world.sim, 'POST', `/devices/${target.tpin}/000/imports`, {
      items: [{ itemNm: 'Tyres 13"', qty: 8, hsCd: '4011100000' }],
    });
    assert.equal(fed.status, 201);
    const pulled = await world.client.selectImportItems(target);
    assert.equal(pulled.kind === 'ok' && pulled.data.itemList[0]?.hsCd, '4011100000');
    assert.equal((await control(world.sim, 'POST', `/devices/${target.tpin}/000/imports`, { items: [] })).status, 400);

    const added = await control(world.sim, 'POST', '/taxpayers', { tpin: '2111111111', name: 'Mongu Rice Growers' });
    assert.equal(added.status, 201);
    const found = await world.client.selectCustomer(target, { custmTpin: '2111111111' });
    assert.equal(found.kind === 'ok' && found.data.custList[0]?.custNm, 'Mongu Rice Growers');
  });

  test('seed notices, principals, purchases and RRP items; each refuses what it cannot use with a 400', async () => {
    const target = await installedDevice();
    const dev = `/devices/${target.tpin}/000`;
    assert.equal((await control(world.sim, 'POST', `${dev}/notices`, { notices: [{ title: 'Filing deadline' }] })).status, 201);
    assert.equal(
      (await control(world.sim, 'POST', `${dev}/principals`, { principals: [{ principalNm: 'Ndola Pharmaceuticals Limited' }] })).status,
      201,
    );
    const purchases = await control(world.sim, 'POST', `${dev}/purchases`, { purchases: [{ spplrInvcNo: 12 }] });
    assert.deepEqual(
      [purchases.status, (purchases.json as { purchases: { sale: { spplrInvcNo: number } }[] }).purchases[0]?.sale.spplrInvcNo],
      [201, 12],
    );
    const detail = (await control(world.sim, 'GET', dev)).json as {
      notices: unknown[];
      principals: unknown[];
      purchases: unknown[];
      stockLevels: object;
      savedPurchases: unknown[];
    };
    assert.deepEqual(
      [detail.notices.length, detail.principals.length, detail.purchases.length, detail.stockLevels, detail.savedPurchases],
      [1, 1, 1, {}, []],
    );

    for (const [path, body] of [
      [`${dev}/notices`, { notices: [] }],
      [`${dev}/notices`, {}],
      [`${dev}/principals`, { principals: ['x'] }],
      [`${dev}/purchases`, { purchases: [[1]] }],
      ['/devices/123/000/purchases', { purchases: [{}] }],
      ['/rrp-items', { items: [{ rrp: -1 }] }],
      ['/rrp-items', { items: 'all' }],
    ] as const) {
      const refused = await control(world.sim, 'POST', path, body);
      assert.deepEqual(
        [refused.status, (refused.json as { error: string }).error],
        [400, 'invalid_request'],
        `${path} ${JSON.stringify(body)}`,
      );
    }
  });

  test('reject and loseReplies take an endpoint list (saveSales when omitted); a bad list is a 400', async () => {
    const target = await installedDevice();
    const path = `/devices/${target.tpin}/000/faults`;
    const set = await control(world.sim, 'PUT', path, {
      reject: { count: 2, code: '999', endpoints: ['saveStockItems'] },
      loseReplies: { count: 1, endpoints: ['savePurchase'] },
    });
    const faults = set.json as { reject: { endpoints: string[]; remaining: number }; loseReplies: number; loseRepliesOn: string[] };
    assert.deepEqual(
      [faults.reject.endpoints, faults.reject.remaining, faults.loseReplies, faults.loseRepliesOn],
      [['saveStockItems'], 2, 1, ['savePurchase']],
    );
    const plain = (await control(world.sim, 'PUT', path, { reject: { count: 1, code: '910' }, loseReplies: 'all' })).json as typeof faults;
    assert.deepEqual([plain.reject.endpoints, plain.loseRepliesOn], [['saveSales'], ['saveSales']]);
    for (const bad of [
      { reject: { count: 1, code: '999', endpoints: ['nope'] } },
      { loseReplies: { count: 'x' } },
      { loseReplies: { count: 1, endpoints: [] } },
    ]) {
      assert.equal((await control(world.sim, 'PUT', path, bad)).status, 400, JSON.stringify(bad));
    }
  });

  test('restart: connections refused for a while, then the same port answers again', async () => {
    const restarting = await control(world.sim, 'POST', '/server/restart', { downMs: 300 });
    assert.equal(restarting.status, 202);
    const seen: string[] = [];
    await eventually(async () => {
      const outcome = await world.client.selectCodes(world.target, undefined, { timeoutMs: 1_000 });
      const label = outcome.kind === 'unreachable' ? outcome.reason : outcome.kind;
      if (seen.at(-1) !== label) seen.push(label);
      return seen.includes('connection_refused') && label === 'ok';
    }, 'a refused connection, then an answer');
    assert.ok(seen.includes('connection_refused'), seen.join());
  });

  test('forget a device; unknown routes are JSON 404s', async () => {
    const target = await installedDevice();
    assert.equal((await control(world.sim, 'DELETE', `/devices/${target.tpin}/000`)).status, 200);
    assert.equal((await control(world.sim, 'GET', `/devices/${target.tpin}/000`)).status, 404);
    const unknown = await control(world.sim, 'GET', '/nothing');
    assert.deepEqual([unknown.status, (unknown.json as { error: string }).error], [404, 'not_found']);
  });

  test('reset forgets every device and document', async () => {
    const separate = await startWorld();
    try {
      assert.equal((await separate.client.saveSales(separate.target, buildZraSaleBody(sale(separate.target, 1)))).kind, 'ok');
      assert.equal((await control(separate.sim, 'POST', '/reset')).status, 200);
      assert.deepEqual((await control(separate.sim, 'GET', '/devices')).json, { devices: [] });
      assert.equal((await separate.client.selectInitInfo(separate.target, { dvcSrlNo: 'again' })).kind, 'ok', 'installable again');
    } finally {
      await separate.close();
    }
  });

  test('a forced result can be scoped to some endpoints; every answered call is logged in order', async () => {
    const target = await installedDevice();
    const dev = `/devices/${target.tpin}/000`;
    const set = await control(world.sim, 'PUT', `${dev}/faults`, {
      forcedResult: { code: '999', message: 'Customer list is locked', endpoints: ['saveBrancheCustomers'] },
    });
    assert.equal(set.status, 200);
    const customer = {
      custNo: '1',
      custTpin: '2000000001',
      custNm: 'X',
      useYn: 'Y' as const,
      regrId: 'a',
      regrNm: 'a',
      modrId: 'a',
      modrNm: 'a',
    };
    const refused = await world.client.saveBrancheCustomers(target, customer as never);
    assert.deepEqual([refused.kind, refused.kind === 'rejected' && refused.message], ['rejected', 'Customer list is locked']);
    assert.equal((await world.client.selectCodes(target)).kind, 'ok', 'other endpoints answer normally');

    const calls = await control(world.sim, 'GET', `${dev}/calls`);
    const list = (calls.json as { calls: Array<{ endpoint: string; resultCd: string; resultDt: string; request: { tpin: string } }> })
      .calls;
    assert.deepEqual(
      list.map((c) => [c.endpoint, c.resultCd]),
      [
        ['saveBrancheCustomers', '999'],
        ['selectCodes', '000'],
      ],
    );
    assert.equal(list[0]!.request.tpin, target.tpin);
    assert.match(list[0]!.resultDt, /^\d{14}$/);
    const only = await control(world.sim, 'GET', `${dev}/calls?endpoint=selectCodes`);
    assert.equal((only.json as { calls: unknown[] }).calls.length, 1);
    assert.equal((await control(world.sim, 'GET', `${dev}/calls?endpoint=nope`)).status, 400);
    assert.equal((await control(world.sim, 'PUT', `${dev}/faults`, { forcedResult: { code: '999', endpoints: ['nope'] } })).status, 400);
  });
});
