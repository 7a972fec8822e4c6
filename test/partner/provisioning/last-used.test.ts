// `lastUsedAt` of tenant tokens, partner keys and fiscalisation keys: stamped by the credential
// lookup itself, at most once per throttle window per credential.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LAST_USED_THROTTLE_MS } from '../../../src/credentials/lookup.ts';
import { ManualClock, bearer, seedMerchant, startTestApp, type TestApp } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';

describe(`lastUsedAt is kept current, throttled (${engineName})`, () => {
  const start = new Date('2030-03-01T08:00:00.000Z');
  const clock = new ManualClock(start);
  let t: TestApp;
  let seeded: Awaited<ReturnType<typeof seedMerchant>>;

  before(async () => {
    t = await startTestApp({ clock });
    seeded = await seedMerchant(t.ctx);
  });
  after(() => t.close());

  const partner = () => bearer(seeded.partner.secret);
  const at = (ms: number) => new Date(start.getTime() + ms).toISOString();

  /** Reads through the database, not the API, so reading does not itself use a credential. */
  async function stamps() {
    const token = await t.ctx.db
      .selectFrom('tenant_tokens')
      .select('last_used_at')
      .where('id', '=', seeded.tokenId)
      .executeTakeFirstOrThrow();
    const key = await t.ctx.db.selectFrom('api_keys').select('last_used_at').where('id', '=', seeded.apiKeyId).executeTakeFirstOrThrow();
    const partnerKey = await t.ctx.db
      .selectFrom('partner_keys')
      .select('last_used_at')
      .where('id', '=', seeded.partner.keyId)
      .executeTakeFirstOrThrow();
    const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
    return { token: iso(token.last_used_at), apiKey: iso(key.last_used_at), partnerKey: iso(partnerKey.last_used_at) };
  }

  async function useAll(): Promise<void> {
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/sales', headers: bearer(seeded.token) })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: '/zm/api/Branches', headers: { 'x-api-key': seeded.apiKey } })).statusCode, 200);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/partner/keys', headers: partner() })).statusCode, 200);
  }

  test('unused credentials have none; a use stamps it; a use within the throttle leaves it; a later one moves it', async () => {
    assert.deepEqual(await stamps(), { token: null, apiKey: null, partnerKey: null });

    await useAll();
    assert.deepEqual(await stamps(), { token: at(0), apiKey: at(0), partnerKey: at(0) });

    clock.advance(LAST_USED_THROTTLE_MS / 2);
    await useAll();
    assert.deepEqual(await stamps(), { token: at(0), apiKey: at(0), partnerKey: at(0) }, 'within the throttle nothing is written');

    clock.advance(LAST_USED_THROTTLE_MS / 2 + 1_000);
    await useAll();
    const later = at(LAST_USED_THROTTLE_MS + 1_000);
    assert.deepEqual(await stamps(), { token: later, apiKey: later, partnerKey: later });
  });

  test('the listings show it', async () => {
    const tokens = (await t.inject({ method: 'GET', url: `/api/v1/tenants/${seeded.tenant.id}/tokens`, headers: partner() })).json().data;
    assert.equal(tokens.find((k: { id: number }) => k.id === seeded.tokenId).lastUsedAt, at(LAST_USED_THROTTLE_MS + 1_000));
    const keys = (await t.inject({ method: 'GET', url: `/api/v1/tenants/${seeded.tenant.id}/api-keys`, headers: partner() })).json().data;
    assert.equal(keys.find((k: { id: number }) => k.id === seeded.apiKeyId).lastUsedAt, at(LAST_USED_THROTTLE_MS + 1_000));
    const partnerKeys = (await t.inject({ method: 'GET', url: '/api/v1/partner/keys', headers: partner() })).json().data;
    assert.equal(partnerKeys.find((k: { id: number }) => k.id === seeded.partner.keyId).lastUsedAt, at(LAST_USED_THROTTLE_MS + 1_000));
  });

  test('a refused presentation of a revoked token stamps nothing', async () => {
    const revoked = await t.inject({
      method: 'DELETE',
      url: `/api/v1/tenants/${seeded.tenant.id}/tokens/${seeded.tokenId}`,
      headers: partner(),
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    clock.advance(LAST_USED_THROTTLE_MS * 2);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/sales', headers: bearer(seeded.token) })).statusCode, 401);
    assert.equal((await stamps()).token, at(LAST_USED_THROTTLE_MS + 1_000));
  });
});
