// Names of only blanks (spec 2.11: a token's name is required): every name the gateway trims before
// storing — tenant tokens (the partner's and the merchant's own), partner keys, partners, merchants
// and a sign-up's merchant name — is a 422 naming the field when nothing is left, as an empty one
// is, and nothing is stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { seedSignedInUser, type SignedInUser } from '../../helpers/accounts.ts';
import { TEST_ADMIN_TOKEN, bearer, uniqueTpin } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectInvalid, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';

const BLANKS = [' ', '\t', '  \n '];

describe(`names of only blanks are refused (${engineName})`, () => {
  let h: Harness;
  let owner: SignedInUser;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
    owner = await seedSignedInUser(h.ctx, h.merchant.tenantId);
  });
  after(() => h.close());

  const post = (url: string, headers: Record<string, string>, payload: Record<string, unknown>) =>
    h.t.inject({ method: 'POST', url, headers, payload });
  const count = async (table: 'tenant_tokens' | 'partner_keys' | 'partners' | 'tenants') =>
    Number(
      (
        await h.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Each blank name is a 422 naming `field` that stores nothing; a name with blanks around it is stored trimmed. */
  async function refusesBlanks(
    field: string,
    table: Parameters<typeof count>[0],
    send: (name: string) => Promise<LightMyRequestResponse>,
    storedName: (res: LightMyRequestResponse) => string,
  ) {
    const before = await count(table);
    for (const name of ['', ...BLANKS]) {
      const res = await send(name);
      expectInvalid(res, field);
      assert.match(res.body, name === '' ? /./ : /not only spaces/, `${JSON.stringify(name)}: ${res.body}`);
    }
    assert.equal(await count(table), before, 'nothing stored');
    assert.equal(storedName(await send('  Till 3 ')), 'Till 3');
  }

  test("tenant tokens, the partner's and the merchant's own", async () => {
    await refusesBlanks(
      'name',
      'tenant_tokens',
      (name) => post(`/api/v1/tenants/${h.merchant.tenantId}/tokens`, bearer(h.merchant.partnerSecret), { name }),
      (res) => expectStatus(res, 201).data.name,
    );
    await refusesBlanks(
      'name',
      'tenant_tokens',
      (name) => post('/api/v1/account/tokens', owner.headers, { name }),
      (res) => expectStatus(res, 201).data.name,
    );
  });

  test('partner keys, partners and merchants', async () => {
    await refusesBlanks(
      'name',
      'partner_keys',
      (name) => post('/api/v1/partner/keys', bearer(h.merchant.partnerSecret), { name, scopes: ['tenants:read'] }),
      (res) => expectStatus(res, 201).data.name,
    );
    await refusesBlanks(
      'name',
      'partners',
      (name) => post('/admin/v1/partners', bearer(TEST_ADMIN_TOKEN), { name }),
      (res) => expectStatus(res, 201).data.partner.name,
    );
    await refusesBlanks(
      'name',
      'tenants',
      (name) => post('/api/v1/tenants', bearer(h.merchant.partnerSecret), { name, tpin: uniqueTpin() }),
      (res) => expectStatus(res, 201).data.name,
    );
  });

  test("a sign-up's merchant name", async () => {
    const before = await count('tenants');
    for (const merchantName of BLANKS) {
      const res = await post(
        '/api/v1/account/signup',
        {},
        { merchantName, tpin: uniqueTpin(), email: `blank-${Date.now()}@example.com`, password: 'correct horse battery staple' },
      );
      expectInvalid(res, 'merchantName');
    }
    assert.equal(await count('tenants'), before);
  });
});
