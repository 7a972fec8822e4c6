import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { updateTenantAccount } from '../../../src/domain/partner/provisioning/partners-service.ts';
import { TEST_ADMIN_TOKEN, bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { startHarness, type Merchant, type Harness } from '../../helpers/harness.ts';
import { assertWrappedFailure, invoiceBody, mintKey, nextNumber, postInvoice, sdcIdOf, zmGet, type Till } from './helpers.ts';

function assertUnauthenticated(res: LightMyRequestResponse, label: string): void {
  assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
  assert.equal(res.json().error.code, 'unauthenticated', label);
}

describe(`compat surface: credentials, account state and rate limit from a till's point of view (${engineName})`, () => {
  let h: Harness;
  let sdc000: string;
  let sdc001: string;
  let branchKey000: string;
  let tenantKey: string;
  let foreignSdcId: string;

  before(async () => {
    h = await startHarness({ branches: ['000', '001'], config: { saleWaitMs: 500 } });
    sdc000 = await sdcIdOf(h, h.merchant, '000');
    sdc001 = await sdcIdOf(h, h.merchant, '001');
    branchKey000 = (await mintKey(h, h.merchant, { branch: '000' })).key;
    tenantKey = (await mintKey(h, h.merchant)).key;
    const other = await h.addMerchant();
    await h.registerBranch(other, '000');
    foreignSdcId = await sdcIdOf(h, other, '000');
  });
  after(() => h.close());

  const admin = (tenantId: number, patch: Record<string, unknown>) =>
    h.t.inject({ method: 'PATCH', url: `/admin/v1/tenants/${tenantId}`, headers: bearer(TEST_ADMIN_TOKEN), payload: patch });

  test('a branch key files only through its own device; a tenant key through any initialised branch', async () => {
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: branchKey000, sdcId: sdc000 })).statusCode, 200);
    assertUnauthenticated(await zmGet(h, '/zm/api/TaxCodes', { key: branchKey000, sdcId: sdc001 }), 'branch key, other branch');
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: tenantKey, sdcId: sdc000 })).statusCode, 200);
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', { key: tenantKey, sdcId: sdc001 })).statusCode, 200);

    const number = nextNumber('AUTH');
    const refused = await postInvoice(h, { key: branchKey000, sdcId: sdc001 }, invoiceBody(number));
    assertUnauthenticated(refused, 'filing through another branch');
    const filed = await postInvoice(h, { key: tenantKey, sdcId: sdc001 }, invoiceBody(number));
    assert.equal(filed.statusCode, 201, filed.body);
    assert.equal(filed.json().BranchId, '001');
  });

  test('any other X-SdcId is a 401, never a default branch', async () => {
    const before = await h.ctx.db
      .selectFrom('sales')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', h.merchant.tenantId)
      .executeTakeFirstOrThrow();
    await h.registerBranch(h.merchant, '002', { initialize: false });
    const cases: Array<[string, Till]> = [
      ['no X-SdcId', { key: tenantKey, sdcId: undefined }],
      ["another merchant's SDC id", { key: tenantKey, sdcId: foreignSdcId }],
      ['an unknown SDC id', { key: tenantKey, sdcId: 'SDC-UNKNOWN' }],
      ['a branch key without X-SdcId', { key: branchKey000, sdcId: undefined }],
      ['an empty X-SdcId', { key: tenantKey, sdcId: '' }],
    ];
    for (const [label, till] of cases) {
      assertUnauthenticated(await postInvoice(h, till, invoiceBody(nextNumber('AUTH'))), label);
      assertUnauthenticated(await zmGet(h, '/zm/api/TaxCodes', till), label);
      assertUnauthenticated(await zmGet(h, '/zm/api/Signature/1', till), label);
    }
    const after = await h.ctx.db
      .selectFrom('sales')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', h.merchant.tenantId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n), 'nothing was stored');
  });

  test('Terminal-Id is an alias of X-SdcId', async () => {
    const res = await h.t.inject({ method: 'GET', url: '/zm/api/TaxCodes', headers: { 'x-api-key': branchKey000, 'terminal-id': sdc000 } });
    assert.equal(res.statusCode, 200, res.body);
    const wrong = await h.t.inject({
      method: 'GET',
      url: '/zm/api/TaxCodes',
      headers: { 'x-api-key': branchKey000, 'terminal-id': sdc001 },
    });
    assertUnauthenticated(wrong, 'Terminal-Id of another branch');
    const filed = await h.t.inject({
      method: 'POST',
      url: '/zm/api/Invoice',
      headers: { 'x-api-key': tenantKey, 'terminal-id': sdc001 },
      payload: invoiceBody(nextNumber('TID')),
    });
    assert.equal(filed.statusCode, 201, filed.body);
    assert.equal(filed.json().BranchId, '001');
  });

  test('bearer tokens are not credentials here; nor is a tenant token or partner key in X-Api-Key', async () => {
    for (const [label, headers] of [
      ['tenant token as bearer', { ...bearer(h.merchant.token), 'x-sdcid': sdc000 }],
      ['fiscalisation key as bearer', { ...bearer(tenantKey), 'x-sdcid': sdc000 }],
      ['partner key as bearer', { ...bearer(h.merchant.partnerSecret), 'x-sdcid': sdc000 }],
      ['tenant token in X-Api-Key', { 'x-api-key': h.merchant.token, 'x-sdcid': sdc000 }],
      ['partner key in X-Api-Key', { 'x-api-key': h.merchant.partnerSecret, 'x-sdcid': sdc000 }],
    ] as const) {
      assertUnauthenticated(await h.t.inject({ method: 'GET', url: '/zm/api/TaxCodes', headers }), label);
      assertUnauthenticated(await h.t.inject({ method: 'GET', url: '/zm/api/Branches', headers }), label);
    }
  });

  test('a revoked key is refused on the next request', async () => {
    const key = await mintKey(h, h.merchant, { branch: '000' });
    const till = { key: key.key, sdcId: sdc000 };
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', till)).statusCode, 200);
    const revoked = await h.t.inject({
      method: 'DELETE',
      url: `/api/v1/tenants/${h.merchant.tenantId}/api-keys/${key.id}`,
      headers: bearer(h.merchant.partnerSecret),
    });
    assert.deepEqual(revoked.json(), { revoked: true, id: key.id });
    assertUnauthenticated(await zmGet(h, '/zm/api/TaxCodes', till), 'revoked key');
    assertUnauthenticated(await zmGet(h, '/zm/api/Branches', { key: key.key, sdcId: undefined }), 'revoked key on Branches');
    assertUnauthenticated(await postInvoice(h, till, invoiceBody(nextNumber())), 'revoked key filing');
  });

  test("402 for a blocked subscription or an exhausted quota (403 when suspended), bare or wrapped by the key's dialect", async () => {
    const merchant = await h.addMerchant();
    await h.registerBranch(merchant, '000');
    const sdcId = await sdcIdOf(h, merchant);
    const bare = { key: (await mintKey(h, merchant, { branch: '000' })).key, sdcId };
    const wrapped = { key: (await mintKey(h, merchant, { branch: '000', dialect: 'wrapped' })).key, sdcId };

    assert.equal((await admin(merchant.tenantId, { subscription: 'blocked' })).statusCode, 200);
    for (const call of [
      (t: Till) => postInvoice(h, t, invoiceBody(nextNumber())),
      (t: Till) => zmGet(h, '/zm/api/TaxCodes', t),
      (t: Till) => zmGet(h, '/zm/api/Branches', t),
    ]) {
      const plain = await call(bare);
      assert.equal(plain.statusCode, 402, plain.body);
      assert.equal(plain.json().error.code, 'subscription_blocked');
      const body = assertWrappedFailure(await call(wrapped), 402);
      assert.deepEqual(body.error, plain.json().error);
    }

    await admin(merchant.tenantId, { subscription: 'active', monthlyQuota: 1 });
    assert.equal((await postInvoice(h, bare, invoiceBody(nextNumber()))).statusCode, 201);
    const over = await postInvoice(h, bare, invoiceBody(nextNumber()));
    assert.equal(over.statusCode, 402, over.body);
    assert.equal(over.json().error.code, 'quota_exhausted');
    assert.equal(
      (assertWrappedFailure(await zmGet(h, '/zm/api/TaxCodes', wrapped), 402).error as { code: string }).code,
      'quota_exhausted',
    );
    await admin(merchant.tenantId, { monthlyQuota: null, status: 'suspended' });
    const suspended = await zmGet(h, '/zm/api/TaxCodes', bare);
    assert.equal(suspended.statusCode, 403, suspended.body);
    assert.equal(suspended.json().error.code, 'tenant_suspended');
    assertWrappedFailure(await zmGet(h, '/zm/api/TaxCodes', wrapped), 403);
    await admin(merchant.tenantId, { status: 'active' });
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', bare)).statusCode, 200);
  });

  test("300 a minute by default, the tenant's override when set: 429 with Retry-After, counted per merchant across keys", async () => {
    const tillOf = async (rateLimitPerMinute: number | null) => {
      const merchant: Merchant = await h.addMerchant();
      await h.registerBranch(merchant, '000');
      await updateTenantAccount(h.ctx.db, { type: 'cli' }, merchant.tenantId, { rateLimitPerMinute });
      const sdcId = await sdcIdOf(h, merchant);
      return {
        bare: { key: (await mintKey(h, merchant, { branch: '000' })).key, sdcId },
        wrapped: { key: (await mintKey(h, merchant, { dialect: 'wrapped' })).key, sdcId },
      };
    };

    const byDefault = await tillOf(null);
    const first = await zmGet(h, '/zm/api/TaxCodes', byDefault.bare);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-limit'], '300', 'the /zm/api default with no plan');
    assert.equal(first.headers['x-ratelimit-remaining'], '299');

    const { bare, wrapped } = await tillOf(3);
    assert.equal((await zmGet(h, '/zm/api/TaxCodes', bare)).statusCode, 200);
    assert.equal((await zmGet(h, '/zm/api/Branches', wrapped)).statusCode, 200);
    const third = await zmGet(h, '/zm/api/TaxCodes', wrapped);
    assert.equal(third.statusCode, 200);
    assert.equal(third.headers['x-ratelimit-limit'], '3');
    assert.equal(third.headers['x-ratelimit-remaining'], '0');

    const limited = await zmGet(h, '/zm/api/TaxCodes', bare);
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(limited.json().error.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.headers['x-ratelimit-reset'], limited.headers['retry-after']);
    const wrappedLimited = await postInvoice(h, wrapped, invoiceBody(nextNumber()));
    assert.equal((assertWrappedFailure(wrappedLimited, 429).error as { code: string }).code, 'rate_limited');
    assert.ok(Number(wrappedLimited.headers['retry-after']) >= 1);
  });
});
