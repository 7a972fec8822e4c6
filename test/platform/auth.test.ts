import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app/app.ts';
import type { CatalogedRoute } from '../../src/domain/kernel/http-access/auth.ts';
import { SCOPES, type Scope } from '../../src/credentials/abilities.ts';
import { PREFIXES } from '../../src/credentials/secret-format.ts';
import { registerDevice } from '../../src/domain/kernel/devices/service.ts';
import { mintApiKey, revokeApiKey, revokeToken } from '../../src/domain/kernel/tenants/credentials-service.ts';
import { seedSignedInUser, type SignedInUser } from '../helpers/accounts.ts';
import { engineName } from '../helpers/db.ts';
import { ManualClock, TEST_ADMIN_TOKEN, bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from '../helpers/app.ts';
import { markInitialised, partnerKeyWithScopes, tokenWithAbilities, unknownSecret } from '../helpers/credentials.ts';

function assertCoded(res: LightMyRequestResponse, status: number, code?: string): void {
  assert.equal(res.statusCode, status, `${res.statusCode} ${res.body}`);
  const body = res.json();
  assert.equal(typeof body.error?.message, 'string', res.body);
  if (code) assert.equal(body.error.code, code);
  assert.ok(!/at \S+\.ts:\d+/.test(res.body), 'no stack traces in bodies');
}

/**
 * A 401 of a bearer surface names the scheme (RFC 6750): `Bearer`, with `error="invalid_token"`
 * when a token was sent; the till and account surfaces, which take no bearer token, name none.
 */
function assertChallenge(res: LightMyRequestResponse, sent: Record<string, string>, bearerSurface: boolean): void {
  if (!bearerSurface) return assert.equal(res.headers['www-authenticate'], undefined, res.body);
  assert.equal(res.headers['www-authenticate'], sent.authorization === undefined ? 'Bearer' : 'Bearer error="invalid_token"');
}

describe(`authentication and authorisation on every route (${engineName})`, () => {
  let t: TestApp;
  const clock = new ManualClock();
  const creds = {} as {
    partner: string;
    /** For each scope, a key of the partner with every scope but that one. */
    lackingScope: Record<Scope, string>;
    revokedPartner: string;
    token: string;
    readOnlyToken: string;
    writeOnlyToken: string;
    revokedToken: string;
    tenantKey: string;
    branchKey: string;
    revokedKey: string;
    sdcId: string;
    otherSdcId: string;
    foreignSdcId: string;
    tenantId: number;
    owner: SignedInUser;
    viewer: SignedInUser;
    signedOut: SignedInUser;
  };

  before(async () => {
    t = await startTestApp({ clock });
    const m = await seedMerchant(t.ctx);
    const actor = { type: 'cli' as const };
    const hq = await registerDevice(t.ctx.db, actor, m.tenantRow, {
      deviceSerial: 'SER-HQ',
      branch: '000',
      vsdcBaseUrl: 'http://127.0.0.1:9/vsdc',
    });
    const b1 = await registerDevice(t.ctx.db, actor, m.tenantRow, {
      deviceSerial: 'SER-B1',
      branch: '001',
      vsdcBaseUrl: 'http://127.0.0.1:9/vsdc',
    });
    await markInitialised(t.ctx, hq.id, 'SDC-HQ-0001');
    await markInitialised(t.ctx, b1.id, 'SDC-B1-0001');
    const other = await seedMerchant(t.ctx);
    const od = await registerDevice(t.ctx.db, actor, other.tenantRow, {
      deviceSerial: 'SER-O',
      branch: '000',
      vsdcBaseUrl: 'http://127.0.0.1:9/vsdc',
    });
    await markInitialised(t.ctx, od.id, 'SDC-OTHER-01');

    const branchKey = await mintApiKey(t.ctx.db, actor, m.tenantRow, { branch: '000' });
    const revokedKey = await mintApiKey(t.ctx.db, actor, m.tenantRow, {});
    await revokeApiKey(t.ctx.db, actor, m.tenantRow, revokedKey.id);
    const revokedToken = await seedMerchant(t.ctx, m.partner);
    await revokeToken(t.ctx.db, actor, revokedToken.tenantRow, revokedToken.tokenId);
    const revokedPartner = await partnerKeyWithScopes(t.ctx, m.partner.partnerId, ['tenants:read']);
    await t.ctx.db
      .updateTable('partner_keys')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', revokedPartner.id)
      .execute();
    const lackingScope = {} as Record<Scope, string>;
    for (const scope of SCOPES) {
      lackingScope[scope] = (
        await partnerKeyWithScopes(
          t.ctx,
          m.partner.partnerId,
          SCOPES.filter((s) => s !== scope),
        )
      ).secret;
    }

    const signedOut = await seedSignedInUser(t.ctx, m.tenant.id);
    await t.ctx.db.updateTable('user_sessions').set({ revoked_at: clock.now() }).where('user_id', '=', signedOut.userId).execute();
    Object.assign(creds, {
      owner: await seedSignedInUser(t.ctx, m.tenant.id, 'owner'),
      viewer: await seedSignedInUser(t.ctx, m.tenant.id, 'viewer'),
      signedOut,
      partner: m.partner.secret,
      lackingScope,
      revokedPartner: revokedPartner.secret,
      token: m.token,
      readOnlyToken: await tokenWithAbilities(t.ctx, m.tenant.id, ['invoices:read']),
      writeOnlyToken: await tokenWithAbilities(t.ctx, m.tenant.id, ['invoices:write']),
      revokedToken: revokedToken.token,
      tenantKey: m.apiKey,
      branchKey: branchKey.key,
      revokedKey: revokedKey.key,
      sdcId: 'SDC-HQ-0001',
      otherSdcId: 'SDC-B1-0001',
      foreignSdcId: 'SDC-OTHER-01',
      tenantId: m.tenant.id,
    });
  });
  after(() => t.close());

  const urlOf = (route: CatalogedRoute) =>
    route.url
      .replace(':tenant', String(creds.tenantId))
      .replace(':branch', '000')
      .replace(/:[A-Za-z]+/g, '1');
  const call = (route: CatalogedRoute, headers: Record<string, string>) =>
    t.inject({
      method: route.method as 'GET',
      url: urlOf(route),
      headers: { ...headers, 'content-type': 'application/json' },
      payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
    });

  test('every route declares its surface, and the catalogue covers partner and admin routes', () => {
    const surfaces = new Set(t.app.routeCatalog.map((r) => r.auth.surface));
    assert.ok(surfaces.has('partner'));
    assert.ok(surfaces.has('admin'));
  });

  test('an app with a route that declares no auth refuses to start, naming the route', async () => {
    const app = await buildApp(t.ctx, { logger: false });
    try {
      // As a module's routes are registered: a plugin, loaded on start-up.
      const startUp = async () => {
        await app.register(async (scope) => {
          scope.get('/api/v1/undeclared', async () => ({ ok: true }));
        });
        await app.ready();
      };
      await assert.rejects(startUp, (err: Error) => {
        assert.equal(err.message, 'route GET /api/v1/undeclared declares no auth');
        return true;
      });
    } finally {
      await app.close().catch(() => {});
    }
  });

  test('each route answers the wrong credentials for its surface with 401/403 in the coded shape', async () => {
    const routes = t.app.routeCatalog;
    let checked = 0;
    let refused = 0;
    for (const route of routes) {
      const surface = route.auth.surface;
      if (surface === 'partner') {
        for (const h of <Array<Record<string, string>>>[
          {},
          bearer(creds.token),
          bearer(creds.tenantKey),
          bearer('sk_live_nonsense'),
          bearer(unknownSecret(PREFIXES.partnerLive)),
          bearer(creds.revokedPartner),
          { 'x-api-key': creds.tenantKey, 'x-sdcid': creds.sdcId },
          creds.owner.headers,
        ]) {
          const res = await call(route, h);
          assertCoded(res, 401);
          assertChallenge(res, h, true);
        }
        assertCoded(await call(route, bearer(creds.lackingScope[route.auth.scope])), 403, 'missing_scope');
        refused += 1;
      } else if (surface === 'merchant') {
        // The session cookie is taken here too, without Authorization: a session that ended, a
        // cookie that is no session (a token in it), or an Authorization header beside a good
        // cookie (the header decides) are refused.
        for (const h of <Array<Record<string, string>>>[
          {},
          bearer(creds.partner),
          bearer(creds.tenantKey),
          bearer('tt_garbage'),
          bearer(unknownSecret(PREFIXES.tenantToken)),
          bearer(creds.revokedToken),
          { 'x-api-key': creds.tenantKey, 'x-sdcid': creds.sdcId },
          { cookie: 'fg_session=garbage' },
          creds.signedOut.headers,
          { cookie: `fg_session=${creds.token}` },
          { ...creds.owner.headers, ...bearer('tt_garbage') },
          { ...creds.owner.headers, ...bearer(creds.partner) },
        ]) {
          const res = await call(route, h);
          assertCoded(res, 401);
          assertChallenge(res, h, true);
        }
        const lacking = route.auth.ability === 'invoices:read' ? creds.writeOnlyToken : creds.readOnlyToken;
        assertCoded(await call(route, bearer(lacking)), 403, 'missing_ability');
        if (route.method !== 'GET') {
          assertCoded(await call(route, { cookie: creds.owner.headers.cookie }), 403, 'csrf_token_invalid');
          assertCoded(
            await call(route, { ...creds.owner.headers, 'x-csrf-token': creds.viewer.headers['x-csrf-token'] }),
            403,
            'csrf_token_invalid',
          );
        }
        // A viewer's session has invoices:read only.
        if (route.auth.ability === 'invoices:write') assertCoded(await call(route, creds.viewer.headers), 403, 'role_insufficient');
        refused += 1;
      } else if (surface === 'compat') {
        const needsBranch = route.auth.branch !== 'none';
        for (const h of <Array<Record<string, string>>>[
          {},
          bearer(creds.token),
          { 'x-api-key': creds.token, 'x-sdcid': creds.sdcId },
          { 'x-api-key': creds.revokedKey, 'x-sdcid': creds.sdcId },
          { 'x-api-key': 'pk_nonsense', 'x-sdcid': creds.sdcId },
          { ...creds.owner.headers, 'x-sdcid': creds.sdcId },
        ]) {
          const res = await call(route, h);
          assertCoded(res, 401);
          assertChallenge(res, h, false);
        }
        if (needsBranch) {
          assertCoded(await call(route, { 'x-api-key': creds.tenantKey }), 401);
          assertCoded(await call(route, { 'x-api-key': creds.tenantKey, 'x-sdcid': creds.foreignSdcId }), 401);
          assertCoded(await call(route, { 'x-api-key': creds.branchKey, 'x-sdcid': creds.otherSdcId }), 401);
          assertCoded(await call(route, { 'x-api-key': creds.tenantKey, 'x-sdcid': 'SDC-UNKNOWN' }), 401);
        }
      } else if (surface === 'admin') {
        for (const h of <Array<Record<string, string>>>[
          {},
          bearer('wrong-admin-token-000000'),
          bearer(creds.partner),
          bearer(creds.token),
          creds.owner.headers,
        ]) {
          const res = await call(route, h);
          assertCoded(res, 401);
          assertChallenge(res, h, true);
        }
      } else if (surface === 'account') {
        for (const h of <Array<Record<string, string>>>[
          {},
          bearer(creds.token),
          bearer(creds.partner),
          { cookie: 'fg_session=garbage' },
          creds.signedOut.headers,
          { cookie: `fg_session=${creds.token}` },
        ]) {
          const res = await call(route, h);
          assertCoded(res, 401);
          assertChallenge(res, h, false);
        }
        if (route.method !== 'GET') {
          assertCoded(await call(route, { cookie: creds.owner.headers.cookie }), 403, 'csrf_token_invalid');
          assertCoded(
            await call(route, { ...creds.owner.headers, 'x-csrf-token': creds.viewer.headers['x-csrf-token'] }),
            403,
            'csrf_token_invalid',
          );
        }
        if (route.auth.role !== 'viewer') assertCoded(await call(route, creds.viewer.headers), 403, 'role_insufficient');
      } else if (surface === 'public' || surface === 'till_login') {
        continue; // no credential to refuse (till_login: the body's login, tested in compat)
      } else {
        assert.fail(`surface ${String(surface)} of ${route.method} ${route.url} has no row in this matrix`);
      }
      checked++;
    }
    const guarded = routes.filter((r) => r.auth.surface !== 'public' && r.auth.surface !== 'till_login');
    const permissioned = routes.filter((r) => r.auth.surface === 'partner' || r.auth.surface === 'merchant');
    assert.ok(permissioned.length > 50, `the catalogue holds the module routes (${permissioned.length} with a scope or ability)`);
    assert.equal(checked, guarded.length, 'every route with a credential is refused the wrong ones');
    assert.equal(refused, permissioned.length, 'every route with a scope or an ability is refused (403) a credential lacking it');
  });

  test('a valid credential passes the hook on its own surface', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(creds.partner) });
    assert.equal(res.statusCode, 200);
    for (const headers of [bearer(creds.token), { cookie: creds.viewer.headers.cookie }]) {
      assert.equal(
        (await t.inject({ method: 'GET', url: '/api/v1/sales', headers })).statusCode,
        200,
        'a tenant token or a session on the merchant API',
      );
    }
    const admin = await t.inject({ method: 'GET', url: '/admin/v1/partners', headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(admin.statusCode, 200);
  });

  test('a rotated partner key works through its grace window and is refused after it', async () => {
    const p = await seedPartner(t.ctx);
    const rotate = await t.inject({ method: 'POST', url: `/api/v1/partner/keys/${p.keyId}/rotate`, headers: bearer(p.secret) });
    assert.equal(rotate.statusCode, 201, rotate.body);
    const replacement = rotate.json().data.secret as string;
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(p.secret) })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(replacement) })).statusCode, 200);
    clock.advance(t.ctx.config.keyRotationGraceSec * 1000 + 60_000);
    assertCoded(await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(p.secret) }), 401, 'api_key_expired');
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(replacement) })).statusCode, 200);
  });

  test('a suspended partner is answered 402 on partner endpoints, and works again when resumed', async () => {
    const p = await seedPartner(t.ctx);
    const suspend = await t.inject({ method: 'POST', url: `/admin/v1/partners/${p.partnerId}/suspend`, headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(suspend.statusCode, 200);
    assertCoded(await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(p.secret) }), 402, 'partner_suspended');
    await t.inject({ method: 'POST', url: `/admin/v1/partners/${p.partnerId}/resume`, headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(p.secret) })).statusCode, 200);
  });

  test('a blocked or over-quota merchant refuses partner changes with 402 but stays readable', async () => {
    const m = await seedMerchant(t.ctx);
    const patch = (body: object) =>
      t.inject({ method: 'PATCH', url: `/admin/v1/tenants/${m.tenant.id}`, headers: bearer(TEST_ADMIN_TOKEN), payload: body });
    assert.equal((await patch({ subscription: 'blocked' })).statusCode, 200);
    const mint = () =>
      t.inject({ method: 'POST', url: `/api/v1/tenants/${m.tenant.id}/tokens`, headers: bearer(m.partner.secret), payload: { name: 'x' } });
    assertCoded(await mint(), 402, 'subscription_blocked');
    assert.equal(
      (await t.inject({ method: 'GET', url: `/api/v1/tenants/${m.tenant.id}`, headers: bearer(m.partner.secret) })).statusCode,
      200,
    );
    await patch({ subscription: 'active', monthlyQuota: 0 });
    assertCoded(await mint(), 402, 'quota_exhausted');
    await patch({ monthlyQuota: null });
    assert.equal((await mint()).statusCode, 201);
  });

  test('the development outbox, where there is none, is a 404 before any credential is asked for', async () => {
    const withSmtp = await startTestApp({ config: { smtpUrl: 'smtp://127.0.0.1:1' } });
    try {
      for (const headers of [{}, bearer('wrong-admin-token-000000'), bearer(TEST_ADMIN_TOKEN)]) {
        const res = await withSmtp.inject({ method: 'GET', url: '/api/v1/dev/outbox', headers });
        assert.equal(res.statusCode, 404, res.body);
        assert.deepEqual(res.json(), { message: 'The outbox exists only in development without SMTP_URL.' });
      }
    } finally {
      await withSmtp.close();
    }
    const res = await t.inject({ method: 'GET', url: '/api/v1/dev/outbox' });
    assert.equal(res.statusCode, 401, 'with the outbox, the operator token guards it');
  });

  test('admin routes do not exist without ADMIN_TOKEN', async () => {
    const bare = await startTestApp({ config: { adminToken: undefined } });
    try {
      const res = await bare.inject({ method: 'GET', url: '/admin/v1/partners', headers: bearer(TEST_ADMIN_TOKEN) });
      assert.equal(res.statusCode, 404);
    } finally {
      await bare.close();
    }
  });
});
