import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startSimulator, type Simulator } from '@fiscal-gateway/simulator';
import { engineName } from '../../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedPartner, startTestApp, uniqueTpin, type TestApp } from '../../helpers/app.ts';

const ok = (res: LightMyRequestResponse, status = 200) => {
  assert.equal(res.statusCode, status, res.body);
  return res.json();
};

describe(`partner provisioning (${engineName})`, () => {
  let t: TestApp;
  let sim: Simulator;
  let partner: { partnerId: number; keyId: number; secret: string };
  let other: { partnerId: number; keyId: number; secret: string };

  before(async () => {
    sim = await startSimulator({ port: 0 });
    t = await startTestApp({ config: { vsdcTimeoutMs: 2000 } });
    partner = await seedPartner(t.ctx, { name: 'Acme POS' });
    other = await seedPartner(t.ctx, { name: 'Other POS' });
  });
  after(async () => {
    await t.close();
    await sim.close();
  });

  const as = (secret: string) => ({
    get: (url: string) => t.inject({ method: 'GET', url, headers: bearer(secret) }),
    post: (url: string, payload?: unknown) =>
      t.inject({ method: 'POST', url, headers: bearer(secret), ...(payload === undefined ? {} : { payload: payload as object }) }),
    del: (url: string) => t.inject({ method: 'DELETE', url, headers: bearer(secret) }),
  });

  async function newTenant(secret = partner.secret, tpin = uniqueTpin()) {
    return ok(
      await as(secret).post('/api/v1/tenants', { name: 'Chilenje Hardware', tpin, plan: 'starter', email: 'owner@example.com' }),
      201,
    ).data as { id: number; tpin: string };
  }

  test('the whole provisioning order: tenant → device → initialise → token → keys', async () => {
    const p = as(partner.secret);
    const tenant = await newTenant();
    sim.control.presetDevice(tenant.tpin, '000', { lastSaleInvcNo: 41, lastSaleRcptNo: 17, taxprNm: 'CHILENJE HARDWARE LTD' });

    const device = ok(
      await p.post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: 'VSDC-0001', branch: '000', vsdcBaseUrl: sim.url }),
      201,
    ).data;
    assert.equal(device.initialized, false);
    assert.equal(device.sdcId, null);
    assert.equal(device.countersAtInitialization, null);

    const init = ok(await p.post(`/api/v1/tenants/${tenant.id}/devices/000/initialize`)).data;
    assert.equal(init.initialized, true);
    assert.match(init.sdcId, /^SDC/);
    assert.equal(init.mrcNo, init.mrcNo.trim(), 'mrcNo is stored trimmed');
    assert.deepEqual(
      init.countersAtInitialization,
      { lastSaleInvoiceNo: 41, lastSaleReceiptNo: 17, lastPurchaseInvoiceNo: 0, lastTrainingInvoiceNo: null, lastProformaInvoiceNo: null },
      "the VSDC's counters as the handshake reported them",
    );
    assert.equal(init.nextInvoiceNo, 42, "the sequence continues after the VSDC's last invoice");

    const again = ok(await p.post(`/api/v1/tenants/${tenant.id}/devices/000/initialize`)).data;
    assert.deepEqual(again, init, 'a repeat is a safe retry returning the held branch unchanged');

    const fetched = ok(await p.get(`/api/v1/tenants/${tenant.id}`)).data;
    assert.equal(fetched.devices.length, 1);
    assert.equal(fetched.devices[0].initialized, true);

    const token = ok(await p.post(`/api/v1/tenants/${tenant.id}/tokens`, { name: 'Till 1' }), 201);
    assert.match(token.data.token, /^tt_/);
    assert.deepEqual(token.data.abilities, ['invoices:read', 'invoices:write']);
    const tokens = await p.get(`/api/v1/tenants/${tenant.id}/tokens`);
    assert.equal(ok(tokens).data.length, 1);
    assert.ok(!tokens.body.includes(token.data.token), 'listings never carry plaintext');

    const branchKey = ok(await p.post(`/api/v1/tenants/${tenant.id}/api-keys`, { branch: '000', dialect: 'wrapped' }), 201).data;
    assert.match(branchKey.key, /^pk_/);
    assert.equal(branchKey.sdcId, init.sdcId);
    assert.equal(branchKey.dialect, 'wrapped');
    const tenantKey = ok(await p.post(`/api/v1/tenants/${tenant.id}/api-keys`), 201).data;
    assert.equal(tenantKey.sdcId, null);
    assert.equal(tenantKey.branch, null);
    const keys = await p.get(`/api/v1/tenants/${tenant.id}/api-keys`);
    assert.equal(ok(keys).data.length, 2);
    assert.ok(!keys.body.includes(branchKey.key) && !keys.body.includes(tenantKey.key));

    assert.deepEqual(ok(await p.del(`/api/v1/tenants/${tenant.id}/api-keys/${tenantKey.id}`)), { revoked: true, id: tenantKey.id });
    assert.deepEqual(ok(await p.del(`/api/v1/tenants/${tenant.id}/api-keys/${tenantKey.id}`)), { revoked: false, id: tenantKey.id });
    assert.deepEqual(ok(await p.del(`/api/v1/tenants/${tenant.id}/tokens/${token.data.id}`)), { revoked: true, id: token.data.id });
    assert.equal(ok(await p.get(`/api/v1/tenants/${tenant.id}/tokens`)).data.length, 0);
  });

  test("tenants: validation, duplicates on the book, pagination of the partner's own", async () => {
    const p = as(partner.secret);
    const invalid = await p.post('/api/v1/tenants', { name: '', tpin: 'abc' });
    assert.equal(invalid.statusCode, 422);
    assert.ok(invalid.json().errors.name && invalid.json().errors.tpin);
    const t1 = await newTenant();
    const dup = await p.post('/api/v1/tenants', { name: 'Again', tpin: t1.tpin });
    assert.equal(dup.statusCode, 422);
    assert.ok(dup.json().errors.tpin);
    assert.equal((await as(other.secret).post('/api/v1/tenants', { name: 'Same TPIN elsewhere', tpin: t1.tpin })).statusCode, 201);

    const fresh = await seedPartner(t.ctx);
    for (let i = 0; i < 21; i++) await newTenant(fresh.secret);
    const page1 = ok(await as(fresh.secret).get('/api/v1/tenants'));
    assert.equal(page1.data.length, 20);
    assert.deepEqual(page1.meta, { page: 1, perPage: 20, total: 21, lastPage: 2 });
    const page2 = ok(await as(fresh.secret).get('/api/v1/tenants?page=2'));
    assert.equal(page2.data.length, 1);
    assert.equal(ok(await as(fresh.secret).get('/api/v1/tenants?page=9')).data.length, 0);
  });

  test('devices: both 422 shapes, branch_exists keeps the original, 404 for unknown tenants and branches', async () => {
    const p = as(partner.secret);
    const tenant = await newTenant();
    const body = { deviceSerial: 'SER-1', branch: '001', vsdcBaseUrl: sim.url };
    ok(await p.post(`/api/v1/tenants/${tenant.id}/devices`, body), 201);
    const exists = await p.post(`/api/v1/tenants/${tenant.id}/devices`, {
      ...body,
      deviceSerial: 'SER-2',
      vsdcBaseUrl: 'http://127.0.0.1:1/other',
    });
    assert.equal(exists.statusCode, 422);
    assert.equal(exists.json().error.code, 'branch_exists');
    const kept = ok(await p.get(`/api/v1/tenants/${tenant.id}`)).data.devices[0];
    assert.equal(kept.deviceSerial, 'SER-1');
    assert.equal(kept.vsdcBaseUrl, sim.url);

    const invalid = await p.post(`/api/v1/tenants/${tenant.id}/devices`, { branch: '1', vsdcBaseUrl: 'ftp://x' });
    assert.equal(invalid.statusCode, 422);
    assert.deepEqual(Object.keys(invalid.json().errors).sort(), ['branch', 'deviceSerial', 'vsdcBaseUrl']);

    assert.equal((await p.post('/api/v1/tenants/999999/devices', body)).statusCode, 404);
    const noBranch = await p.post(`/api/v1/tenants/${tenant.id}/devices/009/initialize`);
    assert.equal(noBranch.statusCode, 404);
    assert.equal(noBranch.json().error.code, 'device_not_found', 'the same shape as minting a key for an unregistered branch');
  });

  test('concurrent registrations of one branch: exactly one device, the rest branch_exists', async () => {
    const tenant = await newTenant();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        as(partner.secret).post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: `RACE-${i}`, branch: '000', vsdcBaseUrl: sim.url }),
      ),
    );
    assert.equal(results.filter((r) => r.statusCode === 201).length, 1);
    assert.ok(results.filter((r) => r.statusCode !== 201).every((r) => r.statusCode === 422 && r.json().error.code === 'branch_exists'));
  });

  test('initialisation: a serial installed elsewhere is a permanent 422; an unreachable VSDC a safe 503', async () => {
    const p = as(partner.secret);
    const tenant = await newTenant();
    sim.control.presetDevice(tenant.tpin, '000', { installed: true, dvcSrlNo: 'TAKEN-1' });
    ok(await p.post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: 'TAKEN-1', branch: '000', vsdcBaseUrl: sim.url }), 201);
    const failed = await p.post(`/api/v1/tenants/${tenant.id}/devices/000/initialize`);
    assert.equal(failed.statusCode, 422);
    assert.equal(failed.json().error.code, 'initialization_failed');
    assert.ok(failed.json().error.message.length > 0, "carries the authority's text");
    assert.ok(
      failed.json().error.message.includes(`the VSDC at ${sim.url}`),
      `and the address it came from: ${failed.json().error.message}`,
    );
    assert.equal(ok(await p.get(`/api/v1/tenants/${tenant.id}`)).data.devices[0].initialized, false);

    ok(await p.post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: 'NEW-1', branch: '001', vsdcBaseUrl: sim.url }), 201);
    await sim.stopListening();
    try {
      const down = await p.post(`/api/v1/tenants/${tenant.id}/devices/001/initialize`);
      assert.equal(down.statusCode, 503);
      assert.equal(down.json().error.code, 'vsdc_unreachable');
      assert.ok(down.json().error.message.startsWith(`The VSDC at ${sim.url} could not be reached: `), down.json().error.message);
    } finally {
      await sim.startListening();
    }
    assert.equal(ok(await p.post(`/api/v1/tenants/${tenant.id}/devices/001/initialize`)).data.initialized, true);

    ok(
      await p.post(`/api/v1/tenants/${tenant.id}/devices`, {
        deviceSerial: 'HTML-1',
        branch: '002',
        vsdcBaseUrl: `${sim.origin}/no-such-app`,
      }),
      201,
    );
    assert.equal(
      (await p.post(`/api/v1/tenants/${tenant.id}/devices/002/initialize`)).statusCode,
      503,
      'an HTML 404 is "unreachable", never success',
    );
  });

  test('concurrent initialisations of one device all succeed with one and the same identity', async () => {
    const tenant = await newTenant();
    ok(
      await as(partner.secret).post(`/api/v1/tenants/${tenant.id}/devices`, {
        deviceSerial: 'CONC-1',
        branch: '000',
        vsdcBaseUrl: sim.url,
      }),
      201,
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, () => as(partner.secret).post(`/api/v1/tenants/${tenant.id}/devices/000/initialize`)),
    );
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    assert.equal(new Set(results.map((r) => r.json().data.sdcId)).size, 1);
  });

  test("tokens and keys: limits, device_not_found, another merchant's ids are 404", async () => {
    const p = as(partner.secret);
    const tenant = await newTenant();
    const long = await p.post(`/api/v1/tenants/${tenant.id}/tokens`, { name: 'x'.repeat(61) });
    assert.equal(long.statusCode, 422);
    assert.ok(long.json().errors.name);
    ok(await p.post(`/api/v1/tenants/${tenant.id}/tokens`, { name: 'x'.repeat(60) }), 201);

    const noDevice = await p.post(`/api/v1/tenants/${tenant.id}/api-keys`, { branch: '005' });
    assert.equal(noDevice.statusCode, 404);
    assert.equal(noDevice.json().error.code, 'device_not_found');
    const foreign = await as(other.secret).post(`/api/v1/tenants/${tenant.id}/api-keys`, {});
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(Object.keys(foreign.json()), ['message']);

    const second = await newTenant();
    const token = ok(await p.post(`/api/v1/tenants/${second.id}/tokens`, { name: 'other' }), 201).data;
    assert.equal((await p.del(`/api/v1/tenants/${tenant.id}/tokens/${token.id}`)).statusCode, 404, 'a token id of another merchant');
    const key = ok(await p.post(`/api/v1/tenants/${second.id}/api-keys`), 201).data;
    assert.equal((await p.del(`/api/v1/tenants/${tenant.id}/api-keys/${key.id}`)).statusCode, 404);
  });

  test("another partner sees none of this partner's resources: 404 on every tenant-scoped endpoint", async () => {
    const p = as(partner.secret);
    const tenant = await newTenant();
    ok(await p.post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: 'ISO-1', branch: '000', vsdcBaseUrl: sim.url }), 201);
    const token = ok(await p.post(`/api/v1/tenants/${tenant.id}/tokens`, { name: 'iso' }), 201).data;
    const key = ok(await p.post(`/api/v1/tenants/${tenant.id}/api-keys`), 201).data;
    const o = as(other.secret);
    const attempts = [
      o.get(`/api/v1/tenants/${tenant.id}`),
      o.post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: 'X', branch: '001', vsdcBaseUrl: sim.url }),
      o.post(`/api/v1/tenants/${tenant.id}/devices/000/initialize`),
      o.post(`/api/v1/tenants/${tenant.id}/devices/000/handover`, { sdcId: 'SDC0001', unitKey: 'stolen' }),
      o.get(`/api/v1/tenants/${tenant.id}/tokens`),
      o.post(`/api/v1/tenants/${tenant.id}/tokens`, { name: 'steal' }),
      o.del(`/api/v1/tenants/${tenant.id}/tokens/${token.id}`),
      o.get(`/api/v1/tenants/${tenant.id}/api-keys`),
      o.post(`/api/v1/tenants/${tenant.id}/api-keys`, {}),
      o.del(`/api/v1/tenants/${tenant.id}/api-keys/${key.id}`),
      o.get(`/api/v1/partner/keys/${partner.keyId}/secret`),
      o.post(`/api/v1/partner/keys/${partner.keyId}/rotate`),
      o.del(`/api/v1/partner/keys/${partner.keyId}`),
    ];
    for (const res of await Promise.all(attempts)) assert.equal(res.statusCode, 404, res.body);
    const list = ok(await o.get('/api/v1/tenants'));
    assert.ok(!list.data.some((x: { id: number }) => x.id === tenant.id));
    assert.ok(!ok(await o.get('/api/v1/partner/keys')).data.some((k: { id: number }) => k.id === partner.keyId));
  });

  test('partner keys: least privilege, read-back, rotation and immediate revocation, all audited', async () => {
    const owner = await seedPartner(t.ctx, { name: 'Keys Co' });
    const p = as(owner.secret);
    const listed = ok(await p.get('/api/v1/partner/keys')).data;
    assert.equal(listed.length, 1);
    assert.match(listed[0].masked, /^sk_live_…/);

    const minted = ok(
      await p.post('/api/v1/partner/keys', { name: 'Webhooks only', scopes: ['webhooks:read', 'webhooks:write'] }),
      201,
    ).data;
    assert.match(minted.secret, /^sk_live_/);
    assert.deepEqual(minted.scopes, ['webhooks:read', 'webhooks:write']);
    const limited = as(minted.secret);
    assert.equal((await limited.get('/api/v1/tenants')).statusCode, 403);
    const escalate = await limited.post('/api/v1/partner/keys', { name: 'more', scopes: ['tenants:read'] });
    assert.equal(escalate.statusCode, 403, 'it cannot even reach the keys endpoints without keys:write');

    const readBack = await p.get(`/api/v1/partner/keys/${minted.id}/secret`);
    assert.equal(ok(readBack).data.secret, minted.secret);
    assert.equal(readBack.headers['cache-control'], 'no-store');

    const rotated = ok(await p.post(`/api/v1/partner/keys/${minted.id}/rotate`), 201).data;
    assert.equal(rotated.previous.id, minted.id);
    assert.deepEqual(rotated.scopes, minted.scopes);
    assert.equal((await p.post(`/api/v1/partner/keys/${minted.id}/rotate`)).statusCode, 409);

    assert.deepEqual(ok(await p.del(`/api/v1/partner/keys/${rotated.id}`)), { revoked: true, id: rotated.id });
    assert.equal(
      (await as(rotated.secret).get('/api/v1/webhooks')).statusCode === 401 ||
        (await as(rotated.secret).get('/api/v1/tenants')).statusCode === 401,
      true,
    );
    assert.equal((await as(rotated.secret).get('/api/v1/tenants')).statusCode, 401, 'revocation is immediate');

    const audit = ok(
      await t.inject({ method: 'GET', url: `/admin/v1/audit?partner=${owner.partnerId}`, headers: bearer(TEST_ADMIN_TOKEN) }),
    );
    const actions = audit.data.map((a: { action: string }) => a.action);
    for (const action of [
      'partner.created',
      'partner_key.created',
      'partner_key.secret_read',
      'partner_key.rotated',
      'partner_key.revoked',
    ]) {
      assert.ok(actions.includes(action), `audit has ${action}`);
    }
    const read = audit.data.find((a: { action: string }) => a.action === 'partner_key.secret_read');
    assert.equal(read.actorType, 'partner_key');
    assert.equal(read.targetId, String(minted.id));
    assert.ok(!JSON.stringify(audit).includes(minted.secret), 'the audit log never holds a secret');
  });

  test('an sk_test_ key manages only test keys', async () => {
    const testPartner = await seedPartner(t.ctx, { test: true });
    const p = as(testPartner.secret);
    const live = await p.post('/api/v1/partner/keys', { name: 'live?', scopes: ['tenants:read'], mode: 'live' });
    assert.equal(live.statusCode, 403);
    assert.equal(live.json().error.code, 'insufficient_privilege');
    const testKey = ok(await p.post('/api/v1/partner/keys', { name: 'test', scopes: ['tenants:read'] }), 201).data;
    assert.match(testKey.secret, /^sk_test_/);
    const liveKey = await t.ctx.db
      .insertInto('partner_keys')
      .values({
        partner_id: testPartner.partnerId,
        name: 'live',
        mode: 'live',
        scopes: ['tenants:read'],
        secret_hash: 'x'.repeat(64),
        secret_ciphertext: 'v1.a.b.c',
        last4: 'abcd',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const res of [
      await p.get(`/api/v1/partner/keys/${liveKey.id}/secret`),
      await p.post(`/api/v1/partner/keys/${liveKey.id}/rotate`),
      await p.del(`/api/v1/partner/keys/${liveKey.id}`),
    ]) {
      assert.equal(res.statusCode, 403, res.body);
    }
  });

  test('every provisioning change is in the audit log with who, what and when, by name', async () => {
    const owner = await seedPartner(t.ctx, { name: 'Audited POS' });
    const tenant = await newTenant(owner.secret);
    ok(
      await as(owner.secret).post(`/api/v1/tenants/${tenant.id}/devices`, { deviceSerial: 'AUD-1', branch: '000', vsdcBaseUrl: sim.url }),
      201,
    );
    ok(await as(owner.secret).post(`/api/v1/tenants/${tenant.id}/devices/000/initialize`));
    const token = ok(await as(owner.secret).post(`/api/v1/tenants/${tenant.id}/tokens`, { name: 'a' }), 201).data;
    ok(await as(owner.secret).del(`/api/v1/tenants/${tenant.id}/tokens/${token.id}`));
    const key = ok(await as(owner.secret).post(`/api/v1/tenants/${tenant.id}/api-keys`), 201).data;
    ok(await as(owner.secret).del(`/api/v1/tenants/${tenant.id}/api-keys/${key.id}`));
    const audit = ok(await t.inject({ method: 'GET', url: `/admin/v1/audit?tenant=${tenant.id}`, headers: bearer(TEST_ADMIN_TOKEN) })).data;
    const actions = audit.map((a: { action: string }) => a.action).sort();
    assert.deepEqual(actions, [
      'api_key.created',
      'api_key.revoked',
      'device.initialized',
      'device.registered',
      'tenant.created',
      'token.created',
      'token.revoked',
    ]);
    for (const entry of audit) {
      assert.equal(entry.actorType, 'partner_key');
      assert.equal(entry.actorId, String(owner.keyId));
      assert.equal(entry.actorName, 'Initial key', 'the acting key by its name');
      assert.equal(entry.partnerName, 'Audited POS');
      assert.equal(entry.tenantName, 'Chilenje Hardware');
      assert.ok(Date.parse(entry.createdAt) > 0);
    }
    const targetOf = (action: string) => audit.find((a: { action: string }) => a.action === action).targetName;
    assert.equal(targetOf('tenant.created'), 'Chilenje Hardware');
    assert.match(targetOf('device.registered'), /^branch 000 .*serial AUD-1$/);
    assert.equal(targetOf('token.revoked'), 'a');
    assert.equal(targetOf('api_key.created'), `pk_…${key.key.slice(-4)} (any branch)`);

    const operator = ok(
      await t.inject({
        method: 'GET',
        url: `/admin/v1/audit?action=partner.created&partner=${owner.partnerId}`,
        headers: bearer(TEST_ADMIN_TOKEN),
      }),
    ).data;
    assert.deepEqual(
      operator.map((a: Record<string, unknown>) => [a.actorType, a.actorName, a.targetType, a.targetName]),
      [['cli', null, 'partner', 'Audited POS']],
    );
  });
});
