// Issue 20.3: a device registered with a wrong serial or VSDC address is corrected or removed
// while it is not initialised, by its partner and by the merchant's own users (the account
// surface); the merchant's own devices; tenancy on every new route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { listAudit } from '../../../src/domain/kernel/audit/store.ts';
import { announceBuiltinSimulator, BUILTIN_SIMULATOR } from '../../../src/domain/kernel/devices/builtin-simulator.ts';
import { seedSignedInUser, type SignedInUser } from '../../helpers/accounts.ts';
import { bearer, seedPartner, uniqueTpin } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, expectInvalid, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';

/** An address nothing listens on: initialisation answers the unreachable 503. */
const NOWHERE = 'http://127.0.0.1:9/vsdc';

describe(`correcting and removing devices (${engineName})`, () => {
  let h: Harness;
  let partner: { partnerId: number; keyId: number; secret: string };
  let other: { partnerId: number; keyId: number; secret: string };

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false, config: { vsdcTimeoutMs: 2_000 } });
    partner = await seedPartner(h.ctx, { name: 'Acme POS' });
    other = await seedPartner(h.ctx, { name: 'Other POS' });
  });
  after(() => h.close());

  const req = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
    h.t.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const asPartner = (secret: string) => ({
    get: (url: string) => req('GET', url, bearer(secret)),
    post: (url: string, body?: unknown) => req('POST', url, bearer(secret), body),
    patch: (url: string, body: unknown) => req('PATCH', url, bearer(secret), body),
    del: (url: string) => req('DELETE', url, bearer(secret)),
  });
  const asUser = (user: SignedInUser) => ({
    get: (url: string) => req('GET', url, user.headers),
    post: (url: string, body?: unknown) => req('POST', url, user.headers, body),
    patch: (url: string, body: unknown) => req('PATCH', url, user.headers, body),
    del: (url: string) => req('DELETE', url, user.headers),
  });

  async function partnerTenant(secret = partner.secret) {
    const res = await asPartner(secret).post('/api/v1/tenants', { name: 'Kabwe Traders', tpin: uniqueTpin() });
    return expectStatus(res, 201).data as { id: number; tpin: string };
  }

  /** A merchant that signed itself up (no partner), with a user of the given role. */
  async function selfMerchant(role: 'owner' | 'admin' | 'viewer' = 'owner') {
    const tenant = await h.ctx.db
      .insertInto('tenants')
      .values({ name: 'Self Signed Stores', tpin: uniqueTpin(), origin: 'self', partner_id: null })
      .returning(['id', 'tpin'])
      .executeTakeFirstOrThrow();
    return { tenant, user: await seedSignedInUser(h.ctx, tenant.id, role) };
  }

  const auditActions = async (tenantId: number) =>
    (
      await h.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'actor_type'])
        .where('tenant_id', '=', tenantId)
        .where('action', 'like', 'device.%')
        .orderBy('id')
        .execute()
    ).map((r) => `${r.actor_type}:${r.action}`);

  test('partner: a wrong VSDC address fails initialisation; PATCH corrects it and the next initialisation uses it', async () => {
    const p = asPartner(partner.secret);
    const tenant = await partnerTenant();
    const base = `/api/v1/tenants/${tenant.id}/devices`;
    expectStatus(await p.post(base, { deviceSerial: 'WRONG-SERIAL', branch: '000', vsdcBaseUrl: NOWHERE }), 201);
    const down = await p.post(`${base}/000/initialize`);
    expectCoded(down, 503, 'vsdc_unreachable');
    const said = down.json().error.message as string;
    assert.ok(said.includes(NOWHERE) && said.includes('connection refused'), `names the address tried and why: ${said}`);
    assert.ok(said.includes(`PATCH /api/v1/tenants/{tenant}/devices/{branch}`), `points to the correction: ${said}`);

    expectInvalid(await p.patch(`${base}/000`, {}), 'vsdcBaseUrl');
    expectInvalid(await p.patch(`${base}/000`, { vsdcBaseUrl: 'not an address' }), 'vsdcBaseUrl');
    assert.equal((await p.patch(`${base}/000`, { branch: '001' })).statusCode, 422, 'the branch cannot change');

    const corrected = expectStatus(await p.patch(`${base}/000`, { vsdcBaseUrl: h.sim.url, deviceSerial: 'SN-RIGHT' }), 200).data;
    assert.equal(corrected.vsdcBaseUrl, h.sim.url);
    assert.equal(corrected.deviceSerial, 'SN-RIGHT');
    assert.equal(corrected.initialized, false);

    const initialised = expectStatus(await p.post(`${base}/000/initialize`), 200).data;
    assert.equal(initialised.initialized, true);
    assert.match(initialised.sdcId, /^SDC/);
    assert.equal(initialised.vsdcBaseUrl, h.sim.url);

    // Once the authority knows it, neither correction nor removal.
    expectCoded(await p.patch(`${base}/000`, { vsdcBaseUrl: NOWHERE }), 409, 'device_initialized');
    expectCoded(await p.del(`${base}/000`), 409, 'device_initialized');
    const held = expectStatus(await p.get(`/api/v1/tenants/${tenant.id}`), 200).data.devices;
    assert.equal(held.length, 1);
    assert.equal(held[0].vsdcBaseUrl, h.sim.url, 'the refused PATCH changed nothing');
    assert.deepEqual(await auditActions(tenant.id), [
      'partner_key:device.registered',
      'partner_key:device.updated',
      'partner_key:device.initialized',
    ]);
  });

  test('partner: DELETE before initialisation removes the device; the branch can be registered again', async () => {
    const p = asPartner(partner.secret);
    const tenant = await partnerTenant();
    const base = `/api/v1/tenants/${tenant.id}/devices`;
    expectStatus(await p.post(base, { deviceSerial: 'SN-1', branch: '001', vsdcBaseUrl: NOWHERE }), 201);

    // A live key bound to the branch holds it; revoked, it no longer does.
    const key = expectStatus(await p.post(`/api/v1/tenants/${tenant.id}/api-keys`, { branch: '001' }), 201).data;
    const refused = await p.del(`${base}/001`);
    expectCoded(refused, 409, 'device_in_use');
    assert.match(refused.json().error.message, new RegExp(`${key.id}.*revoke`));
    expectStatus(await p.del(`/api/v1/tenants/${tenant.id}/api-keys/${key.id}`), 200);

    assert.deepEqual(expectStatus(await p.del(`${base}/001`), 200), { deleted: true, branch: '001' });
    assert.equal(expectStatus(await p.get(`/api/v1/tenants/${tenant.id}`), 200).data.devices.length, 0);
    expectCoded(await p.del(`${base}/001`), 404, 'device_not_found');
    expectCoded(await p.patch(`${base}/001`, { deviceSerial: 'X' }), 404, 'device_not_found');

    const again = expectStatus(await p.post(base, { deviceSerial: 'SN-2', branch: '001', vsdcBaseUrl: h.sim.url }), 201).data;
    assert.equal(again.deviceSerial, 'SN-2');
    assert.equal(expectStatus(await p.post(`${base}/001/initialize`), 200).data.initialized, true);
    assert.deepEqual(await auditActions(tenant.id), [
      'partner_key:device.registered',
      'partner_key:device.removed',
      'partner_key:device.registered',
      'partner_key:device.initialized',
    ]);
  });

  test("partner: removal takes the branch's working state along, and is refused while a till login or a kept record refers to it", async () => {
    const p = asPartner(partner.secret);
    const tenant = await partnerTenant();
    const base = `/api/v1/tenants/${tenant.id}/devices`;
    const deviceId = async (branch: string) =>
      (await h.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', tenant.id).where('branch', '=', branch).executeTakeFirst())
        ?.id;

    // A till login made before initialisation holds the branch until it is deleted.
    expectStatus(await p.post(base, { deviceSerial: 'SN-2', branch: '002', vsdcBaseUrl: NOWHERE }), 201);
    const login = expectStatus(
      await p.post(`/api/v1/tenants/${tenant.id}/till-logins`, { username: `till-${tenant.id}`, branch: '002' }),
      201,
    ).data;
    const refused = await p.del(`${base}/002`);
    expectCoded(refused, 409, 'device_in_use');
    assert.match(refused.json().error.message, new RegExp(`till login ${login.id}`));
    expectStatus(await p.del(`/api/v1/tenants/${tenant.id}/till-logins/${login.id}`), 200);
    // Working state the console and workers keep for a branch goes with the device.
    await h.ctx.db
      .insertInto('backlog_alarms')
      .values({ device_id: (await deviceId('002'))! })
      .execute();
    assert.deepEqual(expectStatus(await p.del(`${base}/002`), 200), { deleted: true, branch: '002' });
    assert.equal(await deviceId('002'), undefined);
    // The deleted till login outlives the device, so the audit trail still names it.
    const trail = (await listAudit(h.ctx.db, { tenantId: tenant.id }, 1)).data.filter((r) => r.action.startsWith('till_login.'));
    assert.deepEqual(trail.map((r) => [r.action, r.targetName]).sort(), [
      ['till_login.created', login.username],
      ['till_login.deleted', login.username],
    ]);

    // A record that must be kept (crafted here: stock held at the branch) refuses the removal whole.
    expectStatus(await p.post(base, { deviceSerial: 'SN-3', branch: '003', vsdcBaseUrl: NOWHERE }), 201);
    const id3 = (await deviceId('003'))!;
    await h.ctx.db.insertInto('backlog_alarms').values({ device_id: id3 }).execute();
    await h.ctx.db
      .insertInto('stock_levels')
      .values({ device_id: id3, tenant_id: tenant.id, item_code: 'ZM2NTU0000001', quantity: '4' })
      .execute();
    const kept = await p.del(`${base}/003`);
    expectCoded(kept, 409, 'device_in_use');
    assert.match(kept.json().error.message, /stock levels/);
    assert.equal(await deviceId('003'), id3, 'nothing was removed');
    assert.ok(
      await h.ctx.db.selectFrom('backlog_alarms').select('device_id').where('device_id', '=', id3).executeTakeFirst(),
      'not even the working state: one transaction',
    );
    await h.ctx.db.deleteFrom('stock_levels').where('device_id', '=', id3).execute();
  });

  test("partner tenancy: another partner and a self-signed-up merchant's devices are 404 on every new route", async () => {
    const tenant = await partnerTenant();
    expectStatus(
      await asPartner(partner.secret).post(`/api/v1/tenants/${tenant.id}/devices`, {
        deviceSerial: 'SN',
        branch: '000',
        vsdcBaseUrl: NOWHERE,
      }),
      201,
    );
    const self = await selfMerchant();
    expectStatus(await asUser(self.user).post('/api/v1/account/devices', { deviceSerial: 'SN', branch: '000', vsdcBaseUrl: NOWHERE }), 201);

    for (const [secret, tenantId] of [
      [other.secret, tenant.id],
      [partner.secret, self.tenant.id],
      [other.secret, self.tenant.id],
    ] as const) {
      const p = asPartner(secret);
      assert.equal((await p.patch(`/api/v1/tenants/${tenantId}/devices/000`, { deviceSerial: 'STOLEN' })).statusCode, 404);
      assert.equal((await p.del(`/api/v1/tenants/${tenantId}/devices/000`)).statusCode, 404);
    }
    assert.equal(expectStatus(await asPartner(partner.secret).get(`/api/v1/tenants/${tenant.id}`), 200).data.devices[0].deviceSerial, 'SN');
    assert.equal(expectStatus(await asUser(self.user).get('/api/v1/account/devices'), 200).data[0].deviceSerial, 'SN');
  });

  test("the merchant's own devices: register, fail, correct, initialise, remove; the user is the actor", async () => {
    const { tenant, user } = await selfMerchant('admin');
    const u = asUser(user);
    assert.deepEqual(expectStatus(await u.get('/api/v1/account/devices'), 200).data, []);

    expectStatus(await u.post('/api/v1/account/devices', { deviceSerial: 'SN-A', branch: '000', vsdcBaseUrl: NOWHERE }), 201);
    expectCoded(
      await u.post('/api/v1/account/devices', { deviceSerial: 'SN-A', branch: '000', vsdcBaseUrl: NOWHERE }),
      422,
      'branch_exists',
    );
    expectStatus(await u.post('/api/v1/account/devices', { deviceSerial: 'SN-B', branch: '001', vsdcBaseUrl: NOWHERE }), 201);
    const down = await u.post('/api/v1/account/devices/000/initialize');
    expectCoded(down, 503, 'vsdc_unreachable');
    assert.match(
      down.json().error.message,
      /^The VSDC at http:\/\/127\.0\.0\.1:9\/vsdc could not be reached: connection refused.*Correct device in the console/,
    );
    expectStatus(await u.patch('/api/v1/account/devices/000', { vsdcBaseUrl: 'http://vsdc.invalid:8080' }), 200);
    const unresolved = await u.post('/api/v1/account/devices/000/initialize');
    expectCoded(unresolved, 503, 'vsdc_unreachable');
    assert.match(
      unresolved.json().error.message,
      /^The VSDC at http:\/\/vsdc\.invalid:8080 could not be reached: the host name does not resolve \(DNS: /,
    );
    expectCoded(await u.post('/api/v1/account/devices/002/initialize'), 404, 'device_not_found');

    expectStatus(await u.patch('/api/v1/account/devices/000', { vsdcBaseUrl: h.sim.url }), 200);
    const initialised = expectStatus(await u.post('/api/v1/account/devices/000/initialize'), 200).data;
    assert.equal(initialised.initialized, true);
    expectCoded(await u.patch('/api/v1/account/devices/000', { deviceSerial: 'X' }), 409, 'device_initialized');
    expectCoded(await u.del('/api/v1/account/devices/000'), 409, 'device_initialized');
    assert.deepEqual(expectStatus(await u.del('/api/v1/account/devices/001'), 200), { deleted: true, branch: '001' });

    const listed = expectStatus(await u.get('/api/v1/account/devices'), 200).data as Array<{
      branch: string;
      initialized: boolean;
      sdcId: string;
    }>;
    assert.deepEqual(
      listed.map((d) => [d.branch, d.initialized, d.sdcId]),
      [['000', true, initialised.sdcId]],
    );
    const actions = await h.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'actor_type', 'actor_id'])
      .where('tenant_id', '=', tenant.id)
      .where('action', 'like', 'device.%')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      ['device.registered', 'device.registered', 'device.updated', 'device.updated', 'device.initialized', 'device.removed'],
    );
    assert.ok(
      actions.every((a) => a.actor_type === 'user' && a.actor_id === String(user.userId)),
      'the signed-in user is the actor',
    );
  });

  test("the devices list offers the built-in simulator's address in development only", async () => {
    const { user } = await selfMerchant('viewer');
    const simulatorUrl = async () => expectStatus(await asUser(user).get('/api/v1/account/devices'), 200).builtinSimulatorUrl;
    assert.equal(await simulatorUrl(), null, 'no built-in simulator started: nothing to offer');
    // What the development start does (src/app/dev/index.ts): the tests' config has no built-in simulator.
    const config = h.ctx.config as { env: string; builtinSimulator: boolean };
    config.builtinSimulator = true;
    announceBuiltinSimulator(h.ctx, h.sim.url);
    try {
      assert.equal(config.env, 'development');
      assert.equal(await simulatorUrl(), h.sim.url, 'what the development start announced');
      config.env = 'production';
      assert.equal(await simulatorUrl(), null, 'never in production');
      config.env = 'development';
      config.builtinSimulator = false;
      assert.equal(await simulatorUrl(), null, 'never with BUILTIN_SIMULATOR=0');
    } finally {
      config.env = 'development';
      config.builtinSimulator = false;
      h.ctx.members.get(BUILTIN_SIMULATOR).url = undefined;
    }
  });

  test("account roles and tenancy: a viewer reads but may not write; another merchant's branches are not found", async () => {
    const x = await selfMerchant('owner');
    const y = await selfMerchant('owner');
    const viewer = await seedSignedInUser(h.ctx, x.tenant.id, 'viewer');
    expectStatus(await asUser(y.user).post('/api/v1/account/devices', { deviceSerial: 'SN-Y', branch: '005', vsdcBaseUrl: NOWHERE }), 201);
    expectStatus(await asUser(x.user).post('/api/v1/account/devices', { deviceSerial: 'SN-X', branch: '000', vsdcBaseUrl: NOWHERE }), 201);

    const v = asUser(viewer);
    assert.equal(expectStatus(await v.get('/api/v1/account/devices'), 200).data.length, 1);
    expectCoded(
      await v.post('/api/v1/account/devices', { deviceSerial: 'SN', branch: '009', vsdcBaseUrl: NOWHERE }),
      403,
      'role_insufficient',
    );
    expectCoded(await v.post('/api/v1/account/devices/000/initialize'), 403, 'role_insufficient');
    expectCoded(await v.patch('/api/v1/account/devices/000', { deviceSerial: 'V' }), 403, 'role_insufficient');
    expectCoded(await v.del('/api/v1/account/devices/000'), 403, 'role_insufficient');

    // Without the CSRF token a write is refused before anything else.
    const noCsrf = await req('PATCH', '/api/v1/account/devices/000', { cookie: x.user.headers.cookie }, { deviceSerial: 'C' });
    expectCoded(noCsrf, 403, 'csrf_token_invalid');

    const xs = asUser(x.user);
    const listed = expectStatus(await xs.get('/api/v1/account/devices'), 200).data as Array<{ branch: string }>;
    assert.deepEqual(
      listed.map((d) => d.branch),
      ['000'],
      "only the merchant's own devices",
    );
    for (const res of [
      await xs.patch('/api/v1/account/devices/005', { deviceSerial: 'STOLEN' }),
      await xs.del('/api/v1/account/devices/005'),
      await xs.post('/api/v1/account/devices/005/initialize'),
    ] as LightMyRequestResponse[]) {
      expectCoded(res, 404, 'device_not_found');
    }
    const ys = expectStatus(await asUser(y.user).get('/api/v1/account/devices'), 200).data;
    assert.equal(ys[0].deviceSerial, 'SN-Y', "Y's device is untouched");
  });

  test("a blocked subscription: the merchant's register and initialise are refused as the partner's are", async () => {
    const { tenant, user } = await selfMerchant('owner');
    await h.ctx.db.updateTable('tenants').set({ subscription: 'blocked' }).where('id', '=', tenant.id).execute();
    expectCoded(
      await asUser(user).post('/api/v1/account/devices', { deviceSerial: 'SN', branch: '000', vsdcBaseUrl: h.sim.url }),
      402,
      'subscription_blocked',
    );
  });
});
