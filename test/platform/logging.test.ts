import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`request logs (${engineName})`, () => {
  let t: TestApp;
  const lines: string[] = [];
  before(async () => {
    t = await startTestApp({ logLines: lines });
  });
  after(() => t.close());

  test('one structured line per request, with the request id, and never a secret', async () => {
    const m = await seedMerchant(t.ctx);
    lines.length = 0;
    const secrets = [m.partner.secret, m.token, m.apiKey, TEST_ADMIN_TOKEN];
    const minted = await t.inject({ method: 'POST', url: `/api/v1/tenants/${m.tenant.id}/tokens`, headers: { ...bearer(m.partner.secret), 'x-request-id': 'log-test-1' }, payload: { name: 'logged?' } });
    assert.equal(minted.statusCode, 201);
    secrets.push(minted.json().data.token);
    await t.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(m.token) });
    await t.inject({ method: 'GET', url: '/admin/v1/partners', headers: bearer(TEST_ADMIN_TOKEN) });
    await t.inject({ method: 'GET', url: '/api/v1/tenants', headers: bearer(m.apiKey) });
    await t.inject({ method: 'GET', url: `/api/v1/partner/keys/${m.partner.keyId}/secret`, headers: bearer(m.partner.secret) });

    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    assert.equal(requests.length, 5, 'exactly one line per request');
    const first = requests[0]!;
    assert.deepEqual([first.reqId, first.method, first.route, first.status, first.partner], ['log-test-1', 'POST', '/api/v1/tenants/:tenant/tokens', 201, m.partner.partnerId]);
    assert.equal(typeof first.ms, 'number');
    const all = lines.join('\n');
    for (const secret of secrets) assert.ok(!all.includes(secret), 'no secret reaches the log');
    assert.ok(!/authorization/i.test(all), 'no headers are logged');
  });
});
