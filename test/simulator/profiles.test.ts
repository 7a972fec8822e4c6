// The simulator's profiles behind one server: the default profile (zra-vsdc) answers every URL
// without a profile segment, and the same profile by its id, on the protocol and the control API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildZraSaleBody } from '../../src/authorities/zra-vsdc/sales-body.ts';
import { control, freshTpin, sale, startWorld, type World } from '../authorities/zra/helpers.ts';

let world: World;
before(async () => {
  world = await startWorld({ contextPath: '/zrasandboxvsdc' });
});
after(async () => {
  await world.close();
});

describe('profiles', () => {
  test('the default profile by its id is the same devices as the root', async () => {
    assert.equal(world.sim.urlOf('zra-vsdc'), `${world.sim.origin}/zra-vsdc/zrasandboxvsdc`);
    const tpin = freshTpin();
    const byId = { baseUrl: world.sim.urlOf('zra-vsdc'), tpin, bhfId: '000' };
    const init = await world.client.selectInitInfo(byId, { dvcSrlNo: `SN-${tpin}` });
    assert.equal(init.kind, 'ok');
    const atRoot = { ...byId, baseUrl: world.sim.url };
    assert.equal((await world.client.selectInitInfo(atRoot, { dvcSrlNo: `SN-${tpin}` })).kind, 'already_installed');
    assert.equal((await world.client.saveSales(atRoot, buildZraSaleBody(sale(atRoot, 1)))).kind, 'ok');
    assert.equal((await world.client.saveSales(byId, buildZraSaleBody(sale(byId, 1)))).kind, 'duplicate');

    const root = await control(world.sim, 'GET', `/devices/${tpin}/000/documents`);
    const named = await control(world.sim, 'GET', `/profiles/zra-vsdc/devices/${tpin}/000/documents`);
    assert.equal(named.status, 200);
    assert.deepEqual(named.json, root.json);
    assert.deepEqual(
      (root.json as { documents: { resultCd: string }[] }).documents.map((d) => d.resultCd),
      ['000', '924'],
    );
  });

  test('a profile that is not registered', async () => {
    const missing = await control(world.sim, 'GET', '/profiles/kra-etims/devices');
    assert.deepEqual(missing, { status: 404, json: { error: 'not_found', message: 'no profile kra-etims' } });
    assert.throws(() => world.sim.urlOf('kra-etims'), /no profile kra-etims/);
    // Not a profile's segment: the default profile's app, outside its context path (Tomcat's 404).
    const outside = await fetch(`${world.sim.origin}/kra-etims/zrasandboxvsdc/initializer/selectInitInfo`, { method: 'POST', body: '{}' });
    assert.equal(outside.status, 404);
    assert.match(await outside.text(), /Apache Tomcat/);
  });

  test('a fault switch set through the profile path holds for the root path', async () => {
    const tpin = freshTpin();
    const set = await control(world.sim, 'PUT', `/profiles/zra-vsdc/devices/${tpin}/000/faults`, { forcedResult: '838' });
    assert.equal(set.status, 200);
    assert.deepEqual((await control(world.sim, 'GET', `/devices/${tpin}/000/faults`)).json, set.json);
  });
});
