// Self sign-up by authority: a Kenyan merchant signs up with `authority: kra` and its KRA PIN and
// gets a KRA tenant (Nairobi's zone, KES); a TPIN on `kra` or a PIN on `zra` (the default) is the
// tenant create path's 422 naming tpin, and a refusal stores nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, uniqueTpin, type TestApp } from '../../helpers/app.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { engineName } from '../../helpers/db.ts';

const PASSWORD = 'correct horse battery staple';

let pinCounter = Math.floor(Math.random() * 800_000_000);
/** A KRA PIN no other test of this run uses: a letter, 9 digits, a letter. */
function uniquePin(): string {
  pinCounter += 1;
  return `P${String(pinCounter).padStart(9, '0')}K`;
}

/** A refusal's 422: the fields it names, and its sentences. */
function refusal(res: { statusCode: number; body: string; json(): unknown }): { fields: string[]; said: string } {
  assert.equal(res.statusCode, 422, res.body);
  const body = res.json() as { errors: Record<string, string[]> };
  return { fields: Object.keys(body.errors).sort(), said: Object.values(body.errors).flat().join(' ') };
}

describe(`self sign-up by authority (${engineName})`, () => {
  let t: TestApp;
  let counter = 0;
  const freshEmail = () => `signup${++counter}.${process.pid}.${Date.now()}@example.com`;

  before(async () => {
    t = await startTestApp();
  });
  after(() => t?.close());

  const signUp = (body: Record<string, unknown>) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/account/signup',
      payload: { merchantName: 'Nairobi Traders', email: freshEmail(), password: PASSWORD, ...body },
    });
  const tenantOf = (tpin: string) =>
    t.ctx.db
      .selectFrom('tenants')
      .select(['id', 'authority', 'timezone', 'origin', 'partner_id'])
      .where('tpin', '=', tpin)
      .executeTakeFirst();
  const usersOf = async (email: string) => (await t.ctx.db.selectFrom('users').select('id').where('email', '=', email).execute()).length;

  test('a KRA sign-up makes a KRA merchant of its own: its PIN, Nairobi time, KES and the KRA profile', async () => {
    const pin = uniquePin();
    const res = await signUp({ tpin: pin, authority: 'kra' });
    assert.equal(res.statusCode, 202, res.body);
    const tenant = await tenantOf(pin);
    assert.ok(tenant, 'the tenant is stored');
    assert.deepEqual(
      { authority: tenant.authority, timezone: tenant.timezone, origin: tenant.origin, partner: tenant.partner_id },
      { authority: 'kra', timezone: 'Africa/Nairobi', origin: 'self', partner: null },
    );
    const audit = await t.ctx.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', tenant.id)
      .where('action', '=', 'account.signup')
      .executeTakeFirstOrThrow();
    assert.equal((audit.details as { authority?: string }).authority, 'kra');

    const user = await seedSignedInUser(t.ctx, tenant.id, 'viewer');
    const authority = await t.inject({ method: 'GET', url: '/api/v1/account/authority', headers: user.headers });
    assert.equal(authority.statusCode, 200, authority.body);
    const profile = authority.json().data as { authority: string; currency: string; taxpayerId: { label: string } };
    assert.deepEqual([profile.authority, profile.currency, profile.taxpayerId.label], ['kra', 'KES', 'PIN']);
  });

  test('without an authority, or with zra, the merchant is Zambian as before', async () => {
    for (const body of [{ tpin: uniqueTpin() }, { tpin: uniqueTpin(), authority: 'zra' }]) {
      const res = await signUp(body);
      assert.equal(res.statusCode, 202, res.body);
      const tenant = await tenantOf(body.tpin);
      assert.deepEqual([tenant?.authority, tenant?.timezone], ['zra', 'Africa/Lusaka']);
    }
  });

  test('a TPIN on kra and a PIN on zra are 422 naming tpin and saying what the id looks like; nothing is stored', async () => {
    const tpin = uniqueTpin();
    const onKra = { tpin, authority: 'kra', email: freshEmail() };
    const kraRefusal = refusal(await signUp(onKra));
    assert.deepEqual(kraRefusal.fields, ['tpin']);
    assert.match(kraRefusal.said, /KRA taxpayer id/);
    assert.match(kraRefusal.said, /P051234567X/, 'says what a KRA PIN looks like');

    const pin = uniquePin();
    const onZra = { tpin: pin, email: freshEmail() };
    const zraRefusal = refusal(await signUp(onZra));
    assert.deepEqual(zraRefusal.fields, ['tpin']);
    assert.match(zraRefusal.said, /ZRA taxpayer id: 10 digits/);
    assert.deepEqual(refusal(await signUp({ tpin: pin, authority: 'zra' })).fields, ['tpin'], 'zra said outright is the same');

    const unknown = refusal(await signUp({ tpin: uniqueTpin(), authority: 'rra' }));
    assert.deepEqual(unknown.fields, ['authority']);

    for (const [id, email] of [
      [tpin, onKra.email],
      [pin, onZra.email],
    ] as const) {
      assert.equal(await tenantOf(id), undefined, `no tenant with ${id}`);
      assert.equal(await usersOf(email), 0, `no user ${email}`);
    }
    const mails = await t.ctx.db.selectFrom('mail_outbox').select('id').where('recipient', 'in', [onKra.email, onZra.email]).execute();
    assert.equal(mails.length, 0, 'no mail queued');
  });

  test("the refusal comes before the address is looked at: a taken address's sign-up with a wrong id is the same 422", async () => {
    const email = freshEmail();
    assert.equal((await signUp({ tpin: uniqueTpin(), email })).statusCode, 202);
    assert.deepEqual(refusal(await signUp({ tpin: uniqueTpin(), authority: 'kra', email })).fields, ['tpin']);
  });
});
