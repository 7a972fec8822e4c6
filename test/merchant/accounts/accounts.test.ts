import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ManualClock, TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, uniqueTpin, type TestApp } from '../../helpers/app.ts';
import { buildApp } from '../../../src/app/app.ts';
import { closeContext, createContext } from '../../../src/domain/kernel/context.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { engineName } from '../../helpers/db.ts';
import { eventually } from '../../helpers/poll.ts';
import { linkToken, startTestSmtp, type TestSmtp } from '../../helpers/smtp.ts';
import { mailWorker } from '../../../src/domain/kernel/mail/worker.ts';
import { startWorkers, type RunningWorkers } from '../../../src/platform/workers/index.ts';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;

describe(`merchant accounts (${engineName})`, () => {
  const clock = new ManualClock();
  let smtp: TestSmtp;
  let t: TestApp;
  let mail: RunningWorkers;
  let counter = 0;
  const freshEmail = () => `person${++counter}.${Date.now()}@Example.com`;

  before(async () => {
    smtp = await startTestSmtp();
    t = await startTestApp({
      clock,
      config: { smtpUrl: smtp.url, mailFrom: 'Gateway <gateway@example.com>', publicUrl: 'https://gateway.example.com' },
    });
    // The mails leave through the outbox: its worker runs here, as in every process with workers.
    mail = startWorkers(t.ctx, [(ctx) => mailWorker(ctx, { pollIntervalMs: 50 })]);
  });
  after(async () => {
    await mail?.stop();
    await t?.close();
    await smtp?.close();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
    t.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress });
  const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });
  const sessionOf = (res: LightMyRequestResponse) => {
    assert.equal(res.statusCode, 200, res.body);
    const cookie = String(res.headers['set-cookie']);
    const token = /^fg_session=([^;]+)/.exec(cookie)?.[1];
    assert.ok(token, cookie);
    return { cookie: `fg_session=${token}`, 'x-csrf-token': res.json().data.csrfToken as string };
  };
  const codeOf = (res: LightMyRequestResponse) => res.json().error?.code as string | undefined;

  /** Signs up and verifies through the mail; answers the email and the tenant. */
  async function signedUpOwner(): Promise<{ email: string; tenantId: number }> {
    const email = freshEmail();
    const res = await post('/api/v1/account/signup', { merchantName: 'Kabwe Hardware', tpin: uniqueTpin(), email, password: PASSWORD });
    assert.equal(res.statusCode, 202, res.body);
    const verified = await post('/api/v1/account/verify', { token: linkToken(await smtp.mailTo(email, 'Confirm your email')) });
    assert.equal(verified.statusCode, 200, verified.body);
    const user = await t.ctx.db.selectFrom('users').select('tenant_id').where('email', '=', email).executeTakeFirstOrThrow();
    return { email, tenantId: user.tenant_id };
  }
  const signIn = (email: string, password = PASSWORD, remoteAddress = '10.0.0.1') =>
    post('/api/v1/account/signin', { email, password }, {}, remoteAddress);

  test('sign up, verify by mail, sign in, CSRF, change password, sign out', async () => {
    const email = freshEmail();
    const signup = await post('/api/v1/account/signup', { merchantName: 'Lusaka Traders', tpin: uniqueTpin(), email, password: PASSWORD });
    assert.equal(signup.statusCode, 202, signup.body);
    const mail = await smtp.mailTo(email, 'Confirm your email');
    assert.match(mail.text, /https:\/\/gateway\.example\.com\/console\/account\/verify#token=/);

    assert.equal(codeOf(await signIn(email)), 'email_not_verified', 'only after the right password');
    assert.equal(codeOf(await signIn(email, 'a wrong password here')), 'invalid_credentials');
    assert.equal((await post('/api/v1/account/verify', { token: linkToken(mail) })).statusCode, 200);
    const secondVisit = await post('/api/v1/account/verify', { token: linkToken(mail) });
    assert.equal(secondVisit.statusCode, 200, secondVisit.body);
    assert.deepEqual(
      secondVisit.json(),
      { message: 'Your email address is already confirmed. Sign in.', alreadyVerified: true },
      'a second visit says the address is confirmed',
    );

    const res = await signIn(email.toUpperCase());
    const cookie = String(res.headers['set-cookie']);
    for (const attribute of ['HttpOnly', 'SameSite=Lax', 'Path=/']) assert.ok(cookie.includes(attribute), cookie);
    assert.ok(!cookie.includes('Secure'), 'Secure only in production');
    const laptop = sessionOf(res);
    assert.equal(res.json().data.merchant.origin, 'self');
    assert.equal(res.json().data.user.role, 'owner');

    const me = await get('/api/v1/account/me', { cookie: laptop.cookie });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().data.csrfToken, laptop['x-csrf-token']);
    assert.equal(me.json().data.user.email, email);

    const phone = sessionOf(await signIn(email));
    const noHeader = await post(
      '/api/v1/account/password',
      { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
      { cookie: laptop.cookie },
    );
    assert.equal(noHeader.statusCode, 403);
    assert.equal(codeOf(noHeader), 'csrf_token_invalid');
    const wrongHeader = await post(
      '/api/v1/account/password',
      { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' },
      { ...laptop, 'x-csrf-token': phone['x-csrf-token'] },
    );
    assert.equal(codeOf(wrongHeader), 'csrf_token_invalid', 'the token is bound to its session');
    const short = await post('/api/v1/account/password', { currentPassword: PASSWORD, newPassword: 'short' }, laptop);
    assert.equal(short.statusCode, 422);
    assert.match(short.json().errors.newPassword[0], /at least 10 characters/);

    const changed = await post('/api/v1/account/password', { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' }, laptop);
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().data.revokedSessions, 1);
    assert.equal((await get('/api/v1/account/me', { cookie: phone.cookie })).statusCode, 401, 'the other session is signed out');
    assert.equal((await get('/api/v1/account/me', { cookie: laptop.cookie })).statusCode, 200, 'this one stays');
    await smtp.mailTo(email, 'Your password was changed');

    const again = sessionOf(await signIn(email, 'a brand new passphrase'));
    const rotated = await t.inject({
      method: 'POST',
      url: '/api/v1/account/signin',
      payload: { email, password: 'a brand new passphrase' },
      headers: { cookie: again.cookie },
    });
    sessionOf(rotated);
    assert.equal(
      (await get('/api/v1/account/me', { cookie: again.cookie })).statusCode,
      401,
      'signing in again rotates the session the browser had',
    );

    const out = await post('/api/v1/account/signout', undefined, laptop);
    assert.equal(out.statusCode, 200, out.body);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await get('/api/v1/account/me', { cookie: laptop.cookie })).statusCode, 401);

    const user = await t.ctx.db.selectFrom('users').select(['id', 'tenant_id']).where('email', '=', email).executeTakeFirstOrThrow();
    const actions = (
      await t.ctx.db.selectFrom('audit_log').select('action').where('tenant_id', '=', user.tenant_id).orderBy('id').execute()
    ).map((r) => r.action);
    for (const action of [
      'account.signup',
      'account.signin_failed',
      'account.email_verified',
      'account.signin',
      'account.password_changed',
      'account.signout',
    ])
      assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
  });

  test('in production the session cookie is Secure too (sign-in and sign-out), besides HttpOnly and SameSite=Lax', async () => {
    const production = createContext({ ...t.ctx.config, env: 'production' }, t.testDb.database);
    const app = await buildApp(production);
    try {
      const user = await seedSignedInUser(t.ctx, (await seedMerchant(t.ctx)).tenant.id);
      const signin = await app.inject({
        method: 'POST',
        url: '/api/v1/account/signin',
        payload: { email: user.email, password: 'a long enough password' },
        remoteAddress: '10.0.0.9',
      });
      assert.equal(signin.statusCode, 200, signin.body);
      const attributes = (cookie: string) =>
        cookie
          .split(';')
          .map((part) => part.trim())
          .slice(1);
      const set = String(signin.headers['set-cookie']);
      assert.match(set, /^fg_session=[^;]+;/);
      for (const attribute of ['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure'])
        assert.ok(attributes(set).includes(attribute), `${attribute} in ${set}`);
      const session = { cookie: set.split(';')[0]!, 'x-csrf-token': signin.json().data.csrfToken as string };
      const out = await app.inject({ method: 'POST', url: '/api/v1/account/signout', headers: session });
      assert.equal(out.statusCode, 200, out.body);
      const cleared = String(out.headers['set-cookie']);
      for (const attribute of ['Max-Age=0', 'HttpOnly', 'SameSite=Lax', 'Secure'])
        assert.ok(attributes(cleared).includes(attribute), `${attribute} in ${cleared}`);
    } finally {
      await app.close();
      await closeContext(production);
    }
  });

  test('a merchant that signed up on its own and has no branch yet is told to register one, not to wait for a partner', async () => {
    const { email } = await signedUpOwner();
    const signedIn = await signIn(email);
    const session = sessionOf(signedIn);
    const standing = signedIn.json().data.merchant.standing;
    assert.equal(standing.canFile, false, 'no branch: it cannot file yet');
    assert.equal(standing.cause, 'no_branch');
    assert.match(
      standing.reason,
      /No branch is initialised yet\. Register and initialise a branch: in the console under Devices, or POST \/api\/v1\/account\/devices/,
    );
    assert.deepEqual((await get('/api/v1/account/me', { cookie: session.cookie })).json().data.merchant.standing, standing);
    const sale = await post(
      '/api/v1/sales',
      { items: [{ name: 'Cement 50kg', classificationCode: '50221200', quantity: 1, price: 120 }] },
      session,
    );
    assert.equal(sale.statusCode, 422, sale.body);
    assert.equal(codeOf(sale), 'no_device');
    assert.match(sale.json().error.message, /has no device yet.*console under Devices/);
    assert.doesNotMatch(sale.json().error.message, /partner/);
  });

  test('no answer tells whether an email has an account', async () => {
    const { email } = await signedUpOwner();
    const taken = await post('/api/v1/account/signup', { merchantName: 'Another', tpin: uniqueTpin(), email, password: PASSWORD });
    const free = await post('/api/v1/account/signup', {
      merchantName: 'Another',
      tpin: uniqueTpin(),
      email: freshEmail(),
      password: PASSWORD,
    });
    assert.deepEqual([taken.statusCode, taken.body], [free.statusCode, free.body]);
    const existsMail = await smtp.mailTo(email, 'You already have an account');
    assert.ok(linkToken(existsMail), 'it carries a reset link');

    const known = await post('/api/v1/account/password-reset', { email });
    const unknown = await post('/api/v1/account/password-reset', { email: 'nobody-here@example.com' });
    assert.deepEqual([known.statusCode, known.body], [unknown.statusCode, unknown.body]);
    assert.equal(known.statusCode, 202);

    const wrongPassword = await signIn(email, 'not the password at all', '10.0.0.2');
    const unknownEmail = await signIn('nobody-here@example.com', 'not the password at all', '10.0.0.2');
    assert.deepEqual([wrongPassword.statusCode, wrongPassword.json()], [unknownEmail.statusCode, unknownEmail.json()]);
    assert.equal(wrongPassword.statusCode, 401);
  });

  test('a lost or expired verification link: a new one on request, the same answer for any address, at most 5 an hour', async () => {
    const email = freshEmail();
    assert.equal(
      (await post('/api/v1/account/signup', { merchantName: 'Ndola Stores', tpin: uniqueTpin(), email, password: PASSWORD })).statusCode,
      202,
    );
    const first = linkToken(await smtp.mailTo(email, 'Confirm your email'));
    clock.advance(24 * HOUR + 1_000);
    const expired = await post('/api/v1/account/verify', { token: first });
    assert.equal(codeOf(expired), 'link_invalid', expired.body);
    assert.match(expired.json().error.message, /POST \/api\/v1\/account\/verify\/resend/);
    assert.match((await signIn(email)).json().error.message, /verify\/resend/, 'sign-in says how to get a new link');

    const waiting = await post('/api/v1/account/verify/resend', { email: email.toUpperCase() });
    const unknown = await post('/api/v1/account/verify/resend', { email: 'nobody-here@example.com' });
    const { email: confirmed } = await signedUpOwner();
    const alreadyConfirmed = await post('/api/v1/account/verify/resend', { email: confirmed });
    assert.equal(waiting.statusCode, 202, waiting.body);
    for (const other of [unknown, alreadyConfirmed])
      assert.deepEqual(
        [other.statusCode, other.body],
        [waiting.statusCode, waiting.body],
        'no answer tells whether or how an address has an account',
      );

    const second = linkToken(await smtp.mailTo(email, 'Confirm your email', 2));
    assert.equal((await post('/api/v1/account/verify/resend', { email })).statusCode, 202);
    const third = linkToken(await smtp.mailTo(email, 'Confirm your email', 3));
    assert.equal(codeOf(await post('/api/v1/account/verify', { token: second })), 'link_invalid', 'a newer link voids the older ones');
    const verified = await post('/api/v1/account/verify', { token: third });
    assert.deepEqual(verified.json(), { message: 'Your email address is verified. You can sign in.', alreadyVerified: false });
    assert.equal(
      (await post('/api/v1/account/verify', { token: second })).json().alreadyVerified,
      true,
      'once confirmed, an older link says so too',
    );
    assert.equal(
      codeOf(await post('/api/v1/account/verify', { token: 'not-a-link-we-made' })),
      'link_invalid',
      'an unknown link tells nothing',
    );
    sessionOf(await signIn(email));
    assert.equal(
      smtp.mails.filter((m) => m.to === confirmed.toLowerCase() && m.subject.includes('Confirm your email')).length,
      1,
      'a confirmed address gets no new link',
    );

    // A mailbox cannot be filled through the gateway: 5 links of a kind an hour, then silence.
    const flooded = freshEmail();
    assert.equal(
      (await post('/api/v1/account/signup', { merchantName: 'Kitwe Mart', tpin: uniqueTpin(), email: flooded, password: PASSWORD }))
        .statusCode,
      202,
    );
    for (let i = 0; i < 6; i++) assert.equal((await post('/api/v1/account/verify/resend', { email: flooded })).statusCode, 202);
    const links = await t.ctx.db
      .selectFrom('user_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('email', '=', flooded)
      .where('kind', '=', 'verify')
      .executeTakeFirstOrThrow();
    assert.equal(Number(links.n), 5, "the sign-up's link and 4 resent; the other 2 requests made and mailed none");
    // Each new link voids the earlier ones, and with them their mails if they had not left yet.
    const queued = await eventually(async () => {
      const rows = await t.ctx.db.selectFrom('mail_outbox').select(['status']).where('recipient', '=', flooded).orderBy('id').execute();
      return rows.every((r) => r.status !== 'pending') ? rows.map((r) => r.status) : undefined;
    }, "the flooded address's mails sent or voided");
    assert.equal(queued.length, 5, 'a mail per link, no more');
    assert.equal(queued.at(-1), 'sent', 'the newest link is mailed');
    const mailed = smtp.mails.filter((m) => m.to === flooded.toLowerCase()).length;
    assert.equal(mailed, queued.filter((s) => s === 'sent').length);
    clock.advance(HOUR + 1_000);
    assert.equal((await post('/api/v1/account/verify/resend', { email: flooded })).statusCode, 202);
    await smtp.mailTo(flooded, 'Confirm your email', mailed + 1);
  });

  test('sign-in is throttled per account and per address, with Retry-After', async () => {
    const { email } = await signedUpOwner();
    for (let i = 0; i < 5; i++) assert.equal((await signIn(email, 'wrong password number ' + i, `10.1.0.${i}`)).statusCode, 401);
    const throttled = await signIn(email, PASSWORD, '10.1.0.9');
    assert.equal(throttled.statusCode, 429, throttled.body);
    assert.equal(codeOf(throttled), 'signin_throttled');
    assert.ok(Number(throttled.headers['retry-after']) > 0 && Number(throttled.headers['retry-after']) <= 900);
    assert.match(throttled.json().error.message, /Retry after \d+ s/);
    clock.advance(15 * 60_000 + 1_000);
    sessionOf(await signIn(email, PASSWORD, '10.1.0.9'));

    for (let i = 0; i < 20; i++) assert.equal((await signIn(`stranger${i}@example.com`, 'wrong password', '10.2.0.1')).statusCode, 401);
    const byAddress = await signIn(email, PASSWORD, '10.2.0.1');
    assert.equal(codeOf(byAddress), 'signin_throttled');
    assert.match(byAddress.json().error.message, /from your address/);
    sessionOf(await signIn(email, PASSWORD, '10.2.0.2'));
  });

  test('a reset link works once, within the hour, and signs out every session', async () => {
    const { email } = await signedUpOwner();
    const session = sessionOf(await signIn(email));
    assert.equal((await post('/api/v1/account/password-reset', { email })).statusCode, 202);
    const token = linkToken(await smtp.mailTo(email, 'Reset your password'));
    const confirmed = await post('/api/v1/account/password-reset/confirm', { token, newPassword: 'reset passphrase one' });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal((await get('/api/v1/account/me', { cookie: session.cookie })).statusCode, 401);
    assert.equal(
      codeOf(await post('/api/v1/account/password-reset/confirm', { token, newPassword: 'reset passphrase two' })),
      'link_invalid',
    );
    sessionOf(await signIn(email, 'reset passphrase one'));

    assert.equal((await post('/api/v1/account/password-reset', { email })).statusCode, 202);
    const late = linkToken(await smtp.mailTo(email, 'Reset your password', 2));
    clock.advance(HOUR + 1_000);
    assert.equal(
      codeOf(await post('/api/v1/account/password-reset/confirm', { token: late, newPassword: 'reset passphrase two' })),
      'link_invalid',
    );
  });

  test('invitations, roles and removing a user', async () => {
    const { email: ownerEmail, tenantId } = await signedUpOwner();
    const owner = sessionOf(await signIn(ownerEmail));
    const viewerEmail = freshEmail();
    const invited = await post('/api/v1/account/users/invitations', { email: viewerEmail, role: 'viewer' }, owner);
    assert.equal(invited.statusCode, 201, invited.body);
    const token = linkToken(await smtp.mailTo(viewerEmail, 'You are invited'));
    const accepted = await post('/api/v1/account/invitations/accept', { token, password: PASSWORD });
    assert.equal(accepted.statusCode, 201, accepted.body);
    assert.deepEqual([accepted.json().data.role, accepted.json().data.emailVerified], ['viewer', true]);
    assert.equal(
      codeOf(await post('/api/v1/account/invitations/accept', { token, password: PASSWORD })),
      'link_invalid',
      'an invitation works once',
    );

    const viewer = sessionOf(await signIn(viewerEmail));
    const refused = await post('/api/v1/account/users/invitations', { email: freshEmail(), role: 'viewer' }, viewer);
    assert.equal(refused.statusCode, 403);
    assert.equal(codeOf(refused), 'role_insufficient');
    const users = await get('/api/v1/account/users', { cookie: viewer.cookie });
    assert.deepEqual(
      users
        .json()
        .data.map((u: { role: string }) => u.role)
        .sort(),
      ['owner', 'viewer'],
    );

    const lateEmail = freshEmail();
    assert.equal((await post('/api/v1/account/users/invitations', { email: lateEmail, role: 'admin' }, owner)).statusCode, 201);
    const lateToken = linkToken(await smtp.mailTo(lateEmail, 'You are invited'));
    clock.advance(72 * HOUR + 1_000);
    assert.equal(
      codeOf(await post('/api/v1/account/invitations/accept', { token: lateToken, password: PASSWORD })),
      'link_invalid',
      'expired after 72 hours',
    );

    const owner2 = sessionOf(await signIn(ownerEmail));
    const viewerId = users.json().data.find((u: { role: string }) => u.role === 'viewer').id as number;
    const removed = await t.inject({ method: 'DELETE', url: `/api/v1/account/users/${viewerId}`, headers: owner2 });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal((await get('/api/v1/account/me', { cookie: viewer.cookie })).statusCode, 401, 'a removed user is signed out');
    assert.equal(codeOf(await signIn(viewerEmail)), 'invalid_credentials');
    const other = await signedUpOwner();
    const foreign = await t.inject({
      method: 'DELETE',
      url: `/api/v1/account/users/${(await t.ctx.db.selectFrom('users').select('id').where('tenant_id', '=', other.tenantId).executeTakeFirstOrThrow()).id}`,
      headers: owner2,
    });
    assert.equal(foreign.statusCode, 404, "another merchant's user is not found");
    const audit = (await t.ctx.db.selectFrom('audit_log').select('action').where('tenant_id', '=', tenantId).execute()).map(
      (r) => r.action,
    );
    for (const action of ['account.invitation_created', 'account.invitation_accepted', 'account.user_removed'])
      assert.ok(audit.includes(action), action);
  });

  test("pending invitations: listed until accepted, revoked or expired; a revoked link no longer works; only an owner revokes an owner's", async () => {
    const { email: ownerEmail, tenantId } = await signedUpOwner();
    const owner = sessionOf(await signIn(ownerEmail));
    const pending = async (session: Record<string, string>) => {
      const res = await get('/api/v1/account/users/invitations', { cookie: session.cookie! });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as Array<{ id: number; email: string; role: string; createdAt: string; expiresAt: string }>).map((i) => [
        i.email,
        i.role,
      ]);
    };
    const revoke = (id: number, session: Record<string, string>) =>
      t.inject({ method: 'DELETE', url: `/api/v1/account/users/invitations/${id}`, headers: session });
    const [adminEmail, ownerToBe, revokedEmail] = [freshEmail(), freshEmail(), freshEmail()];
    const invite = async (email: string, role: string) => {
      const res = await post('/api/v1/account/users/invitations', { email, role }, owner);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data.id as number;
    };
    await invite(adminEmail, 'admin');
    const ownerInvitation = await invite(ownerToBe, 'owner');
    const toRevoke = await invite(revokedEmail, 'viewer');
    assert.deepEqual(
      await pending(owner),
      [
        [revokedEmail, 'viewer'],
        [ownerToBe, 'owner'],
        [adminEmail, 'admin'],
      ],
      'newest first',
    );

    // The admin accepts: no longer pending. As an admin it revokes a viewer's invitation, not an owner's.
    assert.equal(
      (
        await post('/api/v1/account/invitations/accept', {
          token: linkToken(await smtp.mailTo(adminEmail, 'You are invited')),
          password: PASSWORD,
        })
      ).statusCode,
      201,
    );
    const admin = sessionOf(await signIn(adminEmail));
    assert.deepEqual(await pending(admin), [
      [revokedEmail, 'viewer'],
      [ownerToBe, 'owner'],
    ]);
    const notOwner = await revoke(ownerInvitation, admin);
    assert.equal(codeOf(notOwner), 'role_insufficient', notOwner.body);
    const revoked = await revoke(toRevoke, admin);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.deepEqual(revoked.json().data, { revoked: true, id: toRevoke });
    assert.equal((await revoke(toRevoke, admin)).statusCode, 404, 'once');
    assert.equal(
      codeOf(
        await post('/api/v1/account/invitations/accept', {
          token: linkToken(await smtp.mailTo(revokedEmail, 'You are invited')),
          password: PASSWORD,
        }),
      ),
      'link_invalid',
      'a revoked link no longer works',
    );
    assert.deepEqual(await pending(owner), [[ownerToBe, 'owner']]);

    // Another merchant's invitation is not found; an expired one is no longer pending.
    const other = await signedUpOwner();
    const otherOwner = sessionOf(await signIn(other.email));
    assert.equal((await revoke(ownerInvitation, otherOwner)).statusCode, 404);
    assert.deepEqual(await pending(otherOwner), []);
    clock.advance(72 * HOUR + 1_000);
    assert.deepEqual(await pending(sessionOf(await signIn(ownerEmail))), []);
    const audit = await t.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'target_id'])
      .where('tenant_id', '=', tenantId)
      .where('action', '=', 'account.invitation_revoked')
      .execute();
    assert.deepEqual(
      audit.map((r) => r.target_id),
      [String(toRevoke)],
    );
  });

  test('a self-created merchant is in no partner listing; partners invite owners of their own merchants only', async () => {
    const self = await signedUpOwner();
    const m = await seedMerchant(t.ctx);
    const listed = await get('/api/v1/tenants?page=1', bearer(m.partner.secret));
    assert.equal(listed.statusCode, 200);
    assert.ok(!listed.json().data.some((x: { id: number }) => x.id === self.tenantId));
    assert.equal((await get(`/api/v1/tenants/${self.tenantId}`, bearer(m.partner.secret))).statusCode, 404);
    assert.equal(
      (await post(`/api/v1/tenants/${self.tenantId}/invitations`, { email: freshEmail() }, bearer(m.partner.secret))).statusCode,
      404,
    );

    const admin = await get('/admin/v1/tenants?page=1', bearer(TEST_ADMIN_TOKEN));
    let origins = new Map<number, string>();
    for (let page = 1; ; page++) {
      const res = page === 1 ? admin : await get(`/admin/v1/tenants?page=${page}`, bearer(TEST_ADMIN_TOKEN));
      assert.equal(res.statusCode, 200, res.body);
      origins = new Map([...origins, ...res.json().data.map((x: { id: number; origin: string }) => [x.id, x.origin] as const)]);
      if (res.json().data.length === 0 || origins.has(self.tenantId)) break;
    }
    assert.equal(origins.get(self.tenantId), 'self');

    const ownerEmail = freshEmail();
    const invitation = await post(`/api/v1/tenants/${m.tenant.id}/invitations`, { email: ownerEmail }, bearer(m.partner.secret));
    assert.equal(invitation.statusCode, 201, invitation.body);
    assert.equal(invitation.json().data.role, 'owner');
    const mailed = await smtp.mailTo(ownerEmail, 'You are invited');
    assert.equal(linkToken(mailed), /#token=(.+)$/.exec(invitation.json().data.link)?.[1]);
    const other = await seedMerchant(t.ctx);
    assert.equal(
      (await post(`/api/v1/tenants/${m.tenant.id}/invitations`, { email: freshEmail() }, bearer(other.partner.secret))).statusCode,
      404,
      "another partner's merchant",
    );

    assert.equal((await post('/api/v1/account/invitations/accept', { token: linkToken(mailed), password: PASSWORD })).statusCode, 201);
    const signed = await signIn(ownerEmail);
    sessionOf(signed);
    assert.deepEqual(
      [signed.json().data.merchant.id, signed.json().data.merchant.origin, signed.json().data.user.role],
      [m.tenant.id, 'partner', 'owner'],
    );
  });
});
