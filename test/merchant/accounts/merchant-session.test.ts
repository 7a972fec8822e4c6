// The console's session on the merchant API (the same standing, rate limit and tenancy as the
// merchant's tenant tokens; the role grants the abilities) and the developer screen's API
// (tenant tokens and fiscalisation keys minted, listed and revoked by the merchant's own users).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { initializeDevice } from '../../../src/domain/kernel/devices/initialisation.ts';
import { registerDevice } from '../../../src/domain/kernel/devices/service.ts';
import { authorityHandshake } from '../../../src/domain/kernel/devices/handshake.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { TEST_ADMIN_TOKEN, bearer, uniqueTpin } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { linkToken, startTestSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const PASSWORD = 'correct horse battery staple';
type Session = { cookie: string; 'x-csrf-token': string };

describe(`the console session on the merchant API and the developer screen (${engineName})`, () => {
  let smtp: TestSmtp;
  let h: Harness;
  let counter = 0;

  before(async () => {
    smtp = await startTestSmtp();
    h = await startHarness({
      config: { smtpUrl: smtp.url, mailFrom: 'Gateway <gateway@example.com>', publicUrl: 'https://gateway.example.com' },
    });
  });
  after(async () => {
    await h?.close();
    await smtp?.close();
  });

  const request = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, headers: Record<string, string>, payload?: unknown) =>
    h.t.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const get = (url: string, headers: Record<string, string>) => request('GET', url, headers);
  const post = (url: string, headers: Record<string, string>, payload?: unknown) => request('POST', url, headers, payload ?? {});
  const del = (url: string, headers: Record<string, string>) => request('DELETE', url, headers);
  const admin = (url: string, payload: unknown) => request('PATCH', url, bearer(TEST_ADMIN_TOKEN), payload);
  const dataOf = (res: LightMyRequestResponse, status = 200) => {
    assert.equal(res.statusCode, status, res.body);
    return res.json().data;
  };
  const cookieOnly = (s: Session) => ({ cookie: s.cookie });

  /** A merchant of its own: signed up, verified through the mail, signed in. */
  async function selfMerchant(name: string): Promise<{ email: string; tenantId: number; session: Session }> {
    const email = `${name.toLowerCase()}-${++counter}-${Date.now()}@example.com`;
    const signup = await post('/api/v1/account/signup', {}, { merchantName: name, tpin: uniqueTpin(), email, password: PASSWORD });
    assert.equal(signup.statusCode, 202, signup.body);
    assert.equal(
      (await post('/api/v1/account/verify', {}, { token: linkToken(await smtp.mailTo(email, 'Confirm your email')) })).statusCode,
      200,
    );
    const signin = await post('/api/v1/account/signin', {}, { email, password: PASSWORD });
    const data = dataOf(signin);
    const token = /^fg_session=([^;]+)/.exec(String(signin.headers['set-cookie']))![1]!;
    return {
      email,
      tenantId: data.merchant.id as number,
      session: { cookie: `fg_session=${token}`, 'x-csrf-token': data.csrfToken as string },
    };
  }

  /** Registers and initialises branch 000 of a self-signed-up merchant on the simulator. */
  async function initialiseBranch(tenantId: number): Promise<void> {
    const tenant = await h.ctx.db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirstOrThrow();
    await registerDevice(h.ctx.db, { type: 'cli' }, tenant, { deviceSerial: `SN-${tenant.tpin}`, branch: '000', vsdcBaseUrl: h.sim.url });
    await initializeDevice(h.ctx.db, { type: 'cli' }, tenant, '000', authorityHandshake(h.ctx));
  }

  const settled = (id: number, headers: Record<string, string>) =>
    eventually(async () => {
      const sale = dataOf(await get(`/api/v1/sales/${id}`, headers));
      return sale.status === 'pending' ? undefined : sale;
    }, `document ${id} settled`);

  test('the session reads and files through the merchant API: CSRF on writes, viewers only read, the user is the actor', async () => {
    const owner = await seedSignedInUser(h.ctx, h.merchant.tenantId, 'owner');
    const viewer = await seedSignedInUser(h.ctx, h.merchant.tenantId, 'viewer');

    const list = await get('/api/v1/sales', cookieOnly(owner.headers));
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(Array.isArray(list.json().data));

    expectCoded(await post('/api/v1/sales', cookieOnly(owner.headers), saleBody()), 403, 'csrf_token_invalid');
    expectCoded(
      await post('/api/v1/sales', { ...owner.headers, 'x-csrf-token': viewer.headers['x-csrf-token'] }, saleBody()),
      403,
      'csrf_token_invalid',
    );
    const filed = dataOf(await post('/api/v1/sales', owner.headers, saleBody({ clientInvoiceNo: 'CONSOLE-1' })), 201);
    const sale = await settled(filed.id, cookieOnly(owner.headers));
    assert.equal(sale.status, 'uploaded');
    const receipt = await get(`/api/v1/sales/${filed.id}/receipt`, cookieOnly(viewer.headers));
    assert.equal(receipt.statusCode, 200, receipt.body);
    assert.match(String(receipt.headers['content-type']), /text\/html/);
    assert.ok(receipt.body.includes(sale.authorityInvoiceNo), 'the fiscal receipt of that document');

    const refused = await post('/api/v1/sales', viewer.headers, saleBody());
    expectCoded(refused, 403, 'role_insufficient');
    assert.match(refused.json().error.message, /viewer.*may only read/);
    assert.equal(dataOf(await get(`/api/v1/sales/${filed.id}`, cookieOnly(viewer.headers))).id, filed.id, 'a viewer reads');

    // A failed document resolved from the console: the user resolved it, and the audit log says so.
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Invalid customer TPIN' } });
    const failing = dataOf(await post('/api/v1/sales', owner.headers, saleBody()), 201);
    assert.equal((await settled(failing.id, cookieOnly(owner.headers))).status, 'failed');
    const resolved = dataOf(await post(`/api/v1/sales/${failing.id}/resolve`, owner.headers, { note: 'Filed again by hand' }));
    assert.deepEqual(resolved.resolution.by, { type: 'user', id: owner.userId });
    const audit = await h.ctx.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_id'])
      .where('action', '=', 'sale.resolved')
      .where('target_id', '=', String(failing.id))
      .executeTakeFirstOrThrow();
    assert.deepEqual(audit, { actor_type: 'user', actor_id: String(owner.userId) });
    const past = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    expectCoded(await post('/api/v1/reports/daily/close', viewer.headers, { date: past, branch: '000' }), 403, 'role_insufficient');
    assert.equal(
      dataOf(await post('/api/v1/reports/daily/close', owner.headers, { date: past, branch: '000' }), 201).closedBy,
      `user:${owner.userId}`,
    );

    await post('/api/v1/account/signout', owner.headers);
    expectCoded(await get('/api/v1/sales', cookieOnly(owner.headers)), 401, 'unauthenticated');
    expectCoded(await get('/api/v1/sales', { cookie: 'fg_session=not-a-session' }), 401, 'unauthenticated');
  });

  test('a suspended or blocked merchant cannot file with the session either, and /account/me says why', async () => {
    const m = await h.addMerchant({ branches: ['000'] });
    const owner = await seedSignedInUser(h.ctx, m.tenantId, 'owner');
    assert.deepEqual(dataOf(await get('/api/v1/account/me', cookieOnly(owner.headers))).merchant.standing, {
      canFile: true,
      reason: null,
      cause: null,
    });

    assert.equal((await admin(`/admin/v1/tenants/${m.tenantId}`, { status: 'suspended' })).statusCode, 200);
    const byCookie = await post('/api/v1/sales', owner.headers, saleBody());
    const byToken = await post('/api/v1/sales', bearer(m.token), saleBody());
    expectCoded(byCookie, 403, 'tenant_suspended');
    assert.deepEqual(byCookie.json(), byToken.json(), 'answered exactly as a tenant token is');
    const me = dataOf(await get('/api/v1/account/me', cookieOnly(owner.headers)));
    assert.deepEqual(me.merchant.standing, { canFile: false, reason: byCookie.json().error.message, cause: 'account' });
    assert.match(me.merchant.standing.reason, /suspended/);
    const signedIn = dataOf(await post('/api/v1/account/signin', {}, { email: owner.email, password: 'a long enough password' }));
    assert.equal(signedIn.merchant.standing.canFile, false, 'the sign-in answer says it too');

    assert.equal((await admin(`/admin/v1/tenants/${m.tenantId}`, { status: 'active', subscription: 'blocked' })).statusCode, 200);
    const blocked = await post('/api/v1/sales', owner.headers, saleBody());
    expectCoded(blocked, 402, 'subscription_blocked');
    assert.deepEqual(dataOf(await get('/api/v1/account/me', cookieOnly(owner.headers))).merchant.standing, {
      canFile: false,
      reason: blocked.json().error.message,
      cause: 'account',
    });
    expectCoded(await post('/api/v1/account/tokens', owner.headers, { name: 'x' }), 402, 'subscription_blocked');

    assert.equal((await admin(`/admin/v1/tenants/${m.tenantId}`, { subscription: 'active' })).statusCode, 200);
    assert.equal((await post('/api/v1/sales', owner.headers, saleBody())).statusCode, 201);
  });

  test("console actions and the merchant's tokens share one rate limit", async () => {
    for (const spendWith of ['token', 'cookie'] as const) {
      const m = await h.addMerchant();
      const owner = await seedSignedInUser(h.ctx, m.tenantId, 'owner');
      assert.equal((await admin(`/admin/v1/tenants/${m.tenantId}`, { rateLimitPerMinute: 3 })).statusCode, 200);
      const spend = spendWith === 'token' ? bearer(m.token) : cookieOnly(owner.headers);
      const paths = ['/api/v1/sales', spendWith === 'token' ? '/api/v1/me' : '/api/v1/account/me', '/api/v1/sales'];
      for (const path of paths) assert.equal((await get(path, spend)).statusCode, 200, `${spendWith} ${path}`);
      const other = spendWith === 'token' ? cookieOnly(owner.headers) : bearer(m.token);
      const limited = await get('/api/v1/sales', other);
      expectCoded(limited, 429, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      if (spendWith === 'token') expectCoded(await get('/api/v1/account/me', other), 429, 'rate_limited');
    }
  });

  test('the developer screen: a token shown once, listed masked with its last use, read-only tokens, revocation; viewers only read', async () => {
    const x = await selfMerchant('Developer');
    const owner = x.session;

    expectCoded(await post('/api/v1/account/tokens', cookieOnly(owner), { name: 'Website shop' }), 403, 'csrf_token_invalid');
    const created = await post('/api/v1/account/tokens', owner, { name: 'Website shop' });
    const minted = dataOf(created, 201);
    assert.equal(created.headers['cache-control'], 'no-store');
    assert.match(minted.token, /^tt_/);
    assert.deepEqual(minted.abilities, ['invoices:read', 'invoices:write']);

    const listed = await get('/api/v1/account/tokens', cookieOnly(owner));
    assert.ok(!listed.body.includes(minted.token), 'the plaintext is never listed');
    const entry = dataOf(listed).find((t: { id: number }) => t.id === minted.id);
    assert.deepEqual(
      { ...entry, createdAt: undefined },
      {
        id: minted.id,
        name: 'Website shop',
        abilities: minted.abilities,
        training: false,
        masked: minted.masked,
        createdAt: undefined,
        lastUsedAt: null,
      },
    );
    assert.match(entry.masked, /^tt_.*[A-Za-z0-9]{4}$/);

    assert.equal((await get('/api/v1/sales', bearer(minted.token))).statusCode, 200);
    const used = dataOf(await get('/api/v1/account/tokens', cookieOnly(owner))).find((t: { id: number }) => t.id === minted.id);
    assert.ok(used.lastUsedAt && Date.parse(used.lastUsedAt) >= Date.parse(entry.createdAt), `lastUsedAt ${used.lastUsedAt}`);

    const readOnly = dataOf(await post('/api/v1/account/tokens', owner, { name: 'Accountant', abilities: ['invoices:read'] }), 201);
    assert.deepEqual(readOnly.abilities, ['invoices:read']);
    assert.equal((await get('/api/v1/sales', bearer(readOnly.token))).statusCode, 200);
    expectCoded(await post('/api/v1/sales', bearer(readOnly.token), saleBody()), 403, 'missing_ability');
    for (const abilities of [[], ['invoices:read', 'invoices:read'], ['invoices:delete']]) {
      const bad = await post('/api/v1/account/tokens', owner, { name: 'Bad', abilities });
      assert.equal(bad.statusCode, 422, `${JSON.stringify(abilities)}: ${bad.body}`);
      assert.ok(
        Object.keys(bad.json().errors).some((field) => field.startsWith('abilities')),
        bad.body,
      );
    }

    // Viewers see the screen but cannot mint or revoke.
    const viewer = await seedSignedInUser(h.ctx, x.tenantId, 'viewer');
    assert.ok(dataOf(await get('/api/v1/account/tokens', cookieOnly(viewer.headers))).some((t: { id: number }) => t.id === minted.id));
    expectCoded(await post('/api/v1/account/tokens', viewer.headers, { name: 'Mine' }), 403, 'role_insufficient');
    expectCoded(await del(`/api/v1/account/tokens/${minted.id}`, viewer.headers), 403, 'role_insufficient');
    expectCoded(await post('/api/v1/account/api-keys', viewer.headers, {}), 403, 'role_insufficient');

    const revoke = await del(`/api/v1/account/tokens/${minted.id}`, owner);
    assert.equal(revoke.statusCode, 200, revoke.body);
    assert.deepEqual(revoke.json(), { revoked: true, id: minted.id });
    expectCoded(await get('/api/v1/sales', bearer(minted.token)), 401, 'unauthenticated');
    assert.deepEqual(
      (await del(`/api/v1/account/tokens/${minted.id}`, owner)).json(),
      { revoked: false, id: minted.id },
      'revoking twice is not an error',
    );
    assert.ok(!dataOf(await get('/api/v1/account/tokens', cookieOnly(owner))).some((t: { id: number }) => t.id === minted.id));

    // Fiscalisation keys, as the partner's.
    const key = dataOf(await post('/api/v1/account/api-keys', owner, { dialect: 'wrapped' }), 201);
    assert.match(key.key, /^pk_/);
    assert.deepEqual({ branch: key.branch, dialect: key.dialect }, { branch: null, dialect: 'wrapped' });
    expectCoded(await post('/api/v1/account/api-keys', owner, { branch: '001' }), 404, 'device_not_found');
    const keys = await get('/api/v1/account/api-keys', cookieOnly(viewer.headers));
    assert.ok(!keys.body.includes(key.key));
    assert.deepEqual(
      dataOf(keys).map((k: { id: number }) => k.id),
      [key.id],
    );
    assert.equal((await get('/zm/api/Branches', { 'x-api-key': key.key })).statusCode, 200);
    assert.ok(dataOf(await get('/api/v1/account/api-keys', cookieOnly(owner)))[0].lastUsedAt, 'its last use is shown');
    assert.deepEqual((await del(`/api/v1/account/api-keys/${key.id}`, owner)).json(), { revoked: true, id: key.id });
    assert.equal((await get('/zm/api/Branches', { 'x-api-key': key.key })).statusCode, 401);

    const user = await h.ctx.db.selectFrom('users').select('id').where('email', '=', x.email).executeTakeFirstOrThrow();
    const audit = await h.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'actor_type', 'actor_id', 'target_id'])
      .where('tenant_id', '=', x.tenantId)
      .where('action', 'in', ['token.created', 'token.revoked', 'api_key.created', 'api_key.revoked'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      audit.map((a) => `${a.action} ${a.actor_type}:${a.actor_id} ${a.target_id}`),
      [
        `token.created user:${user.id} ${minted.id}`,
        `token.created user:${user.id} ${readOnly.id}`,
        `token.revoked user:${user.id} ${minted.id}`,
        `api_key.created user:${user.id} ${key.id}`,
        `api_key.revoked user:${user.id} ${key.id}`,
      ],
    );
  });

  test('the partner may mint a read-only token too (the optional abilities)', async () => {
    const res = await post(`/api/v1/tenants/${h.merchant.tenantId}/tokens`, bearer(h.merchant.partnerSecret), {
      name: 'Reports',
      abilities: ['invoices:read'],
    });
    const token = dataOf(res, 201);
    assert.deepEqual(token.abilities, ['invoices:read']);
    expectCoded(await post('/api/v1/sales', bearer(token.token), saleBody()), 403, 'missing_ability');
    assert.deepEqual(
      dataOf(await post(`/api/v1/tenants/${h.merchant.tenantId}/tokens`, bearer(h.merchant.partnerSecret), { name: 'Till 9' }), 201)
        .abilities,
      ['invoices:read', 'invoices:write'],
      'both unless given',
    );
  });

  test("tenancy: one merchant's session never sees or revokes another's tokens, keys or documents; with a token the header decides", async () => {
    const x = await selfMerchant('Xenon');
    const y = await selfMerchant('Yellow');
    await initialiseBranch(y.tenantId);
    const yToken = dataOf(await post('/api/v1/account/tokens', y.session, { name: 'Y till' }), 201);
    const yKey = dataOf(await post('/api/v1/account/api-keys', y.session, { branch: '000' }), 201);
    const ySale = dataOf(await post('/api/v1/sales', y.session, saleBody({ clientInvoiceNo: 'Y-1' })), 201);
    assert.equal((await settled(ySale.id, cookieOnly(y.session))).status, 'uploaded');
    const xToken = dataOf(await post('/api/v1/account/tokens', x.session, { name: 'X till' }), 201);

    assert.deepEqual(
      dataOf(await get('/api/v1/account/tokens', cookieOnly(x.session))).map((t: { id: number }) => t.id),
      [xToken.id],
    );
    assert.deepEqual(dataOf(await get('/api/v1/account/api-keys', cookieOnly(x.session))), []);
    assert.equal((await del(`/api/v1/account/tokens/${yToken.id}`, x.session)).statusCode, 404);
    assert.equal((await del(`/api/v1/account/api-keys/${yKey.id}`, x.session)).statusCode, 404);
    assert.equal((await del('/api/v1/account/tokens/2147483647', x.session)).statusCode, 404, 'an unknown id is the same 404');
    assert.equal((await get('/api/v1/sales', bearer(yToken.token))).statusCode, 200, "Y's token still works");

    assert.equal((await get(`/api/v1/sales/${ySale.id}`, cookieOnly(x.session))).statusCode, 404);
    assert.equal((await get(`/api/v1/sales/${ySale.id}/receipt`, cookieOnly(x.session))).statusCode, 404);
    assert.ok(!dataOf(await get('/api/v1/sales', cookieOnly(x.session))).some((s: { id: number }) => s.id === ySale.id));

    // The Authorization header decides: X's cookie beside Y's token acts as Y (and needs no CSRF).
    const both = { cookie: x.session.cookie, ...bearer(yToken.token) };
    assert.equal(dataOf(await get('/api/v1/me', both)).id, y.tenantId);
    assert.equal(dataOf(await get(`/api/v1/sales/${ySale.id}`, both)).id, ySale.id);
    const filed = dataOf(await post('/api/v1/sales', both, saleBody({ clientInvoiceNo: 'Y-2' })), 201);
    assert.equal(dataOf(await get(`/api/v1/sales/${filed.id}`, bearer(yToken.token))).clientInvoiceNo, 'Y-2', "filed as Y's");
    expectCoded(await get('/api/v1/sales', { cookie: y.session.cookie, ...bearer('tt_not_a_token') }), 401, 'unauthenticated');
    // Partner, compat and operator routes never take the cookie.
    expectCoded(await get('/api/v1/tenants', cookieOnly(y.session)), 401, 'unauthenticated');
    expectCoded(await get('/zm/api/Branches', cookieOnly(y.session)), 401, 'unauthenticated');
    expectCoded(await get('/admin/v1/partners', cookieOnly(y.session)), 401, 'unauthenticated');
  });
});
