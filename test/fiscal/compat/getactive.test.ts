import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateTenantAccount } from '../../../src/domain/partner/provisioning/partners-service.ts';
import { TEST_ADMIN_TOKEN, bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';
import {
  assertWrappedFailure,
  createTillLogin,
  getActive,
  invoiceBody,
  nextNumber,
  postInvoice,
  sdcIdOf,
  unwrap,
  zmGet,
} from './helpers.ts';

interface ActiveKey {
  ApiKey: string;
  SdcId: string;
  Branches: Array<{ BranchId: string; SdcId: string | null; Name: string | null; Initialized: boolean }>;
}

describe(`till logins and POST /api/ApiKey/getactive (${engineName})`, () => {
  let h: Harness;
  let sdc000: string;
  let sdc001: string;
  let usernames = 0;

  before(async () => {
    h = await startHarness({ branches: ['000', '001'], config: { saleWaitMs: 500 } });
    sdc000 = await sdcIdOf(h, h.merchant, '000');
    sdc001 = await sdcIdOf(h, h.merchant, '001');
  });
  after(() => h.close());

  const username = () => `till${++usernames}`;
  const partner = (merchant: Merchant = h.merchant) => bearer(merchant.partnerSecret);
  const logins = (merchant: Merchant = h.merchant) => `/api/v1/tenants/${merchant.tenantId}/till-logins`;
  const login = (name: string, password: string, tpin = h.merchant.tpin) =>
    getActive(h, { Tpin: tpin, Username: name, Password: password });

  test('a partner creates till logins: a generated password shown once, listings without passwords', async () => {
    const name = username();
    const created = await h.t.inject({ method: 'POST', url: logins(), headers: partner(), payload: { username: name, branch: '000' } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers['cache-control'], 'no-store');
    const data = created.json().data;
    assert.match(data.password, /^[A-Za-z0-9_-]{24}$/);
    assert.deepEqual(
      { ...data, id: 0, createdAt: '' },
      {
        id: 0,
        username: name,
        branch: '000',
        sdcId: sdc000,
        dialect: 'bare',
        activeKeyId: null,
        createdAt: '',
        lastLoginAt: null,
        password: data.password,
        vsdcRegistration: data.vsdcRegistration,
      },
    );
    assert.ok(
      ['pending', 'registered'].includes(data.vsdcRegistration.state),
      "queued for the branch's VSDC (test/merchant/accounts/branch-users.test.ts)",
    );

    const chosen = await h.t.inject({
      method: 'POST',
      url: logins(),
      headers: partner(),
      payload: { username: username(), branch: '001', password: 'correct horse battery', dialect: 'wrapped' },
    });
    assert.equal(chosen.statusCode, 201, chosen.body);
    assert.equal(chosen.json().data.password, undefined, 'a chosen password is never echoed');
    assert.equal(chosen.json().data.dialect, 'wrapped');

    const list = await h.t.inject({ method: 'GET', url: logins(), headers: partner() });
    assert.equal(list.statusCode, 200);
    const listed = list.json().data as Array<Record<string, unknown>>;
    assert.ok(listed.some((l) => l.id === data.id));
    assert.ok(
      listed.every((l) => !('password' in l)),
      'no passwords in listings',
    );
    assert.ok(!list.body.includes(data.password));

    const stored = await h.ctx.db.selectFrom('till_logins').select('password_hash').where('id', '=', data.id).executeTakeFirstOrThrow();
    assert.match(stored.password_hash, /^scrypt\$/);
    assert.ok(!stored.password_hash.includes(data.password));
    const audit = await h.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'actor_type'])
      .where('target_type', '=', 'till_login')
      .where('target_id', '=', String(data.id))
      .execute();
    assert.deepEqual(audit, [{ action: 'till_login.created', actor_type: 'partner_key' }]);
  });

  test("till login rules: usernames unique per merchant without case, a registered branch, a long enough password, the partner's own merchant", async () => {
    const name = username();
    await createTillLogin(h, h.merchant, { username: name, branch: '000' });
    const taken = await h.t.inject({
      method: 'POST',
      url: logins(),
      headers: partner(),
      payload: { username: name.toUpperCase(), branch: '001' },
    });
    assert.equal(taken.statusCode, 422, taken.body);
    assert.ok(taken.json().errors.username);

    const other = await h.addMerchant();
    await h.registerBranch(other, '000');
    assert.equal(
      (await h.t.inject({ method: 'POST', url: logins(other), headers: partner(other), payload: { username: name, branch: '000' } }))
        .statusCode,
      201,
      'another merchant may use it',
    );

    const noBranch = await h.t.inject({
      method: 'POST',
      url: logins(),
      headers: partner(),
      payload: { username: username(), branch: '009' },
    });
    assert.equal(noBranch.statusCode, 404);
    assert.equal(noBranch.json().error.code, 'device_not_found');
    const short = await h.t.inject({
      method: 'POST',
      url: logins(),
      headers: partner(),
      payload: { username: username(), branch: '000', password: 'short' },
    });
    assert.equal(short.statusCode, 422);
    assert.ok(short.json().errors.password);
    const foreign = await h.t.inject({
      method: 'POST',
      url: logins(other),
      headers: partner(),
      payload: { username: username(), branch: '000' },
    });
    assert.equal(foreign.statusCode, 404, "not this partner's merchant");
  });

  test("getactive: a new branch key for the login's branch, plaintext once, which files through that branch only", async () => {
    const name = username();
    const { id, password } = await createTillLogin(h, h.merchant, { username: name, branch: '000' });
    const res = await login(name.toUpperCase(), password);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const active: ActiveKey = res.json();
    assert.deepEqual(Object.keys(active), ['ApiKey', 'SdcId', 'Branches']);
    assert.match(active.ApiKey, /^pk_/);
    assert.equal(active.SdcId, sdc000);
    assert.deepEqual(
      active.Branches.map((b) => [b.BranchId, b.SdcId, b.Initialized]),
      [['000', sdc000, true]],
    );

    const till = { key: active.ApiKey, sdcId: active.SdcId };
    const branches = await zmGet(h, '/zm/api/Branches', { key: active.ApiKey, sdcId: undefined });
    assert.deepEqual(branches.json(), active.Branches);
    const filed = await postInvoice(h, till, invoiceBody(nextNumber('GA')));
    assert.equal(filed.statusCode, 201, filed.body);
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: active.ApiKey, sdcId: sdc001 })).statusCode, 401, 'a branch key');

    const keys = (await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${h.merchant.tenantId}/api-keys`, headers: partner() })).json()
      .data as Array<{ id: number; masked: string; branch: string }>;
    const listed = (await h.t.inject({ method: 'GET', url: logins(), headers: partner() }))
      .json()
      .data.find((l: { id: number }) => l.id === id);
    const key = keys.find((k) => k.id === listed.activeKeyId);
    assert.ok(key, "the till key is listed (masked) with the merchant's keys");
    assert.equal(key.branch, '000');
    assert.ok(active.ApiKey.endsWith(key.masked.slice(-4)));
    assert.ok(listed.lastLoginAt);
  });

  test("each getactive revokes the login's previous till key; other keys are untouched", async () => {
    const name = username();
    const { password } = await createTillLogin(h, h.merchant, { username: name, branch: '001' });
    const first: ActiveKey = (await login(name, password)).json();
    const otherName = username();
    const otherLogin = await createTillLogin(h, h.merchant, { username: otherName, branch: '001' });
    const other: ActiveKey = (await login(otherName, otherLogin.password)).json();
    const second: ActiveKey = (await login(name, password)).json();
    assert.notEqual(first.ApiKey, second.ApiKey, 'a new key each call');
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: first.ApiKey, sdcId: sdc001 })).statusCode, 401, 'the previous key is revoked');
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: second.ApiKey, sdcId: sdc001 })).statusCode, 200);
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: other.ApiKey, sdcId: sdc001 })).statusCode, 200, "another login's key stays");
  });

  test('concurrent getactive calls of one login leave exactly one live key: the one the login points at', async () => {
    const name = username();
    const { id, password } = await createTillLogin(h, h.merchant, { username: name, branch: '000' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => login(name, password)));
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const row = await h.ctx.db.selectFrom('till_logins').select('api_key_id').where('id', '=', id).executeTakeFirstOrThrow();
    const issued = await h.ctx.db
      .selectFrom('audit_log')
      .select('target_id')
      .where('actor_type', '=', 'till_login')
      .where('actor_id', '=', String(id))
      .where('action', '=', 'api_key.created')
      .execute();
    assert.equal(issued.length, 5);
    const live = await h.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where(
        'id',
        'in',
        issued.map((r) => Number(r.target_id)),
      )
      .where('revoked_at', 'is', null)
      .execute();
    assert.deepEqual(
      live.map((r) => r.id),
      [row.api_key_id],
    );
    const working = [];
    for (const res of answers)
      if ((await zmGet(h, '/zm/api/TaxCodes', { key: res.json().ApiKey, sdcId: sdc000 })).statusCode === 200) working.push(res);
    assert.equal(working.length, 1);
  });

  test('a wrong login is a bare 401: password, username or TPIN', async () => {
    const name = username();
    const { password } = await createTillLogin(h, h.merchant, { username: name, branch: '000', dialect: 'wrapped' });
    for (const [label, res] of [
      ['wrong password', await login(name, `${password}x`)],
      ['unknown username', await login('nobody-here', password)],
      ['another TPIN', await login(name, password, '1999999999')],
    ] as const) {
      assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
      assert.deepEqual(Object.keys(res.json()), ['error'], `${label}: bare`);
      assert.equal(res.json().error.code, 'unauthenticated');
    }
    const invalid = await getActive(h, { Tpin: '12', Username: '' });
    assert.equal(invalid.statusCode, 422);
    assert.deepEqual(Object.keys(invalid.json().errors).sort(), ['Password', 'Tpin', 'Username']);
  });

  test('a wrapped login answers wrapped and is given wrapped keys', async () => {
    const name = username();
    const { password } = await createTillLogin(h, h.merchant, { username: name, branch: '000', dialect: 'wrapped' });
    const res = await login(name, password);
    assert.equal(res.statusCode, 200, res.body);
    const active = unwrap(res) as ActiveKey;
    assert.equal(active.SdcId, sdc000);
    unwrap(await zmGet(h, '/zm/api/TaxCodes', { key: active.ApiKey, sdcId: sdc000 }));
  });

  test("a blocked subscription is a 402 (in the login's dialect) and issues no key", async () => {
    const merchant = await h.addMerchant();
    await h.registerBranch(merchant, '000');
    const bareLogin = await createTillLogin(h, merchant, { username: 'front', branch: '000' });
    const wrappedLogin = await createTillLogin(h, merchant, { username: 'back', branch: '000', dialect: 'wrapped' });
    const block = await h.t.inject({
      method: 'PATCH',
      url: `/admin/v1/tenants/${merchant.tenantId}`,
      headers: bearer(TEST_ADMIN_TOKEN),
      payload: { subscription: 'blocked' },
    });
    assert.equal(block.statusCode, 200);

    const plain = await login('front', bareLogin.password, merchant.tpin);
    assert.equal(plain.statusCode, 402, plain.body);
    assert.equal(plain.json().error.code, 'subscription_blocked');
    const wrapped = assertWrappedFailure(await login('back', wrappedLogin.password, merchant.tpin), 402);
    assert.deepEqual(wrapped.error, plain.json().error);
    const wrong = await login('front', 'not the password', merchant.tpin);
    assert.equal(wrong.statusCode, 401, 'the account state is not shown to a wrong login');
    const keys = await h.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('tenant_id', '=', merchant.tenantId)
      .where('device_id', 'is not', null)
      .execute();
    assert.deepEqual(keys, []);
  });

  test('getactive is rate-limited like /zm/api, wrong attempts included', async () => {
    const merchant = await h.addMerchant();
    await h.registerBranch(merchant, '000');
    const { password } = await createTillLogin(h, merchant, { username: 'counter', branch: '000' });
    await updateTenantAccount(h.ctx.db, { type: 'cli' }, merchant.tenantId, { rateLimitPerMinute: 3 });
    assert.equal((await login('counter', password, merchant.tpin)).statusCode, 200);
    assert.equal((await login('counter', 'guess one', merchant.tpin)).statusCode, 401);
    const third = await login('counter', password, merchant.tpin);
    assert.equal(third.statusCode, 200);
    assert.equal(third.headers['x-ratelimit-limit'], '3');
    const limited = await login('counter', password, merchant.tpin);
    assert.equal(limited.statusCode, 429, limited.body);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await login('counter', 'guess two', merchant.tpin)).statusCode, 429, 'password guessing is bounded by the limit');
  });

  test('deleting a login revokes its till key; its username is free again', async () => {
    const name = username();
    const { id, password } = await createTillLogin(h, h.merchant, { username: name, branch: '000' });
    const active: ActiveKey = (await login(name, password)).json();
    const del = await h.t.inject({ method: 'DELETE', url: `${logins()}/${id}`, headers: partner() });
    assert.deepEqual(del.json(), { deleted: true, id });
    assert.deepEqual((await h.t.inject({ method: 'DELETE', url: `${logins()}/${id}`, headers: partner() })).json(), { deleted: false, id });
    assert.equal((await h.t.inject({ method: 'DELETE', url: `${logins()}/999999`, headers: partner() })).statusCode, 404);
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: active.ApiKey, sdcId: sdc000 })).statusCode, 401);
    assert.equal((await login(name, password)).statusCode, 401);
    await createTillLogin(h, h.merchant, { username: name, branch: '000' });
  });

  test('a login on a branch whose device is not initialised gets a 422 and no key', async () => {
    const merchant = await h.addMerchant();
    await h.registerBranch(merchant, '000', { initialize: false });
    const { password } = await createTillLogin(h, merchant, { username: 'early', branch: '000' });
    const res = await login('early', password, merchant.tpin);
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.code, 'branch_not_initialized');
  });
});
