// Branch users (saveBrancheUser): the merchant's console users, at every initialised branch, and
// its till logins, at their branch, registered with the VSDC when created, removed, or when a
// branch is initialised later; retried while the VSDC is down; refusals shown with their code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, uniqueTpin } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectStatus, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { linkToken, startTestSmtp, type TestSmtp } from '../../helpers/smtp.ts';
import { mailWorker } from '../../../src/domain/kernel/mail/worker.ts';
import { branchUserWorker } from '../../../src/domain/kernel/branch-users/worker.ts';

const PASSWORD = 'correct horse battery staple';
type Session = { cookie: string; 'x-csrf-token': string };
interface BranchState {
  branch: string;
  state: string;
  resultCode: string | null;
  message: string | null;
}
interface ListedUser {
  id: number;
  email: string;
  role: string;
  vsdcRegistration: { state: string; branches: BranchState[] };
}
interface TillLogin {
  id: number;
  username: string;
  branch: string;
  vsdcRegistration: { state: string; resultCode: string | null; message: string | null };
}

describe(`branch users registered with the VSDC (${engineName})`, () => {
  let smtp: TestSmtp;
  let h: Harness;
  let counter = 0;

  before(async () => {
    smtp = await startTestSmtp();
    h = await startHarness({
      workers: false,
      catalogue: false,
      config: { smtpUrl: smtp.url, mailFrom: 'Gateway <gateway@example.com>', publicUrl: 'https://gateway.example.com' },
    });
    h.startWorkers([(ctx) => branchUserWorker(ctx, { pollMs: 50 }), (ctx) => mailWorker(ctx, { pollIntervalMs: 50 })]);
  });
  after(async () => {
    await h?.close();
    await smtp?.close();
  });

  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
    h.t.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const dataOf = (res: LightMyRequestResponse, status = 200) => expectStatus(res, status).data;
  const freshEmail = (name: string) => `${name}-${++counter}-${Date.now()}@example.com`;

  /** The simulator's branch users of a branch, as [userId, userNm, useYn]. */
  const atVsdc = (tpin: string, branch: string) =>
    (h.sim.control.getDevice(tpin, branch)?.branchUsers ?? [])
      .map((u) => [u.userId, u.userNm, u.useYn])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

  async function signIn(email: string): Promise<Session> {
    const res = await inject('POST', '/api/v1/account/signin', {}, { email, password: PASSWORD });
    const data = dataOf(res);
    const token = /^fg_session=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
    return { cookie: `fg_session=${token}`, 'x-csrf-token': data.csrfToken as string };
  }

  const usersOf = async (session: Session) =>
    dataOf(await inject('GET', '/api/v1/account/users', { cookie: session.cookie })) as ListedUser[];
  const userSettled = (session: Session, email: string, state: string) =>
    eventually(async () => {
      const user = (await usersOf(session)).find((u) => u.email === email);
      return user?.vsdcRegistration.state === state ? user : undefined;
    }, `${email} ${state}`);

  const tillLogins = async (m: Merchant) =>
    dataOf(await inject('GET', `/api/v1/tenants/${m.tenantId}/till-logins`, bearer(m.partnerSecret))) as TillLogin[];
  const loginSettled = (m: Merchant, id: number, state: string) =>
    eventually(async () => {
      const login = (await tillLogins(m)).find((l) => l.id === id);
      return login?.vsdcRegistration.state === state ? login : undefined;
    }, `till login ${id} ${state}`);
  const createLogin = async (m: Merchant, username: string, branch = '000') =>
    dataOf(
      await inject('POST', `/api/v1/tenants/${m.tenantId}/till-logins`, bearer(m.partnerSecret), {
        username,
        branch,
        password: 'a till password 123',
      }),
      201,
    ) as TillLogin;
  const deleteLogin = async (m: Merchant, id: number) =>
    expectStatus(await inject('DELETE', `/api/v1/tenants/${m.tenantId}/till-logins/${id}`, bearer(m.partnerSecret)), 200);

  test('a signed-up owner and an accepted invitation are registered at each initialised branch; a removal files useYn N', async () => {
    const ownerEmail = freshEmail('owner');
    const tpin = uniqueTpin();
    expectStatus(
      await inject('POST', '/api/v1/account/signup', {}, { merchantName: 'Ndola Stores', tpin, email: ownerEmail, password: PASSWORD }),
      202,
    );
    expectStatus(
      await inject('POST', '/api/v1/account/verify', {}, { token: linkToken(await smtp.mailTo(ownerEmail, 'Confirm your email')) }),
      200,
    );
    const owner = await signIn(ownerEmail);
    assert.deepEqual((await usersOf(owner))[0]!.vsdcRegistration, { state: 'none', branches: [] }, 'no initialised branch yet');

    for (const branch of ['000', '001']) {
      dataOf(
        await inject('POST', '/api/v1/account/devices', owner, { deviceSerial: `SN-${tpin}-${branch}`, branch, vsdcBaseUrl: h.sim.url }),
        201,
      );
      dataOf(await inject('POST', `/api/v1/account/devices/${branch}/initialize`, owner));
    }
    const registered = await userSettled(owner, ownerEmail, 'registered');
    assert.deepEqual(registered.vsdcRegistration.branches, [
      { branch: '000', state: 'registered', resultCode: '000', message: null },
      { branch: '001', state: 'registered', resultCode: '000', message: null },
    ]);
    const ownerId = `U${registered.id}`;
    for (const branch of ['000', '001']) assert.deepEqual(atVsdc(tpin, branch), [[ownerId, ownerEmail, 'Y']]);
    const call = h.sim.control.calls(tpin, '000', 'saveBrancheUser')[0]!.request;
    assert.equal(call.regrId, 'fiscal-gateway');
    assert.equal(call.pwd, undefined, 'no password is ever sent');

    const cashierEmail = freshEmail('cashier');
    dataOf(await inject('POST', '/api/v1/account/users/invitations', owner, { email: cashierEmail, role: 'admin' }), 201);
    const accepted = dataOf(
      await inject(
        'POST',
        '/api/v1/account/invitations/accept',
        {},
        { token: linkToken(await smtp.mailTo(cashierEmail, 'You are invited')), password: PASSWORD },
      ),
      201,
    );
    await userSettled(owner, cashierEmail, 'registered');
    const cashierId = `U${accepted.id}`;
    for (const branch of ['000', '001'])
      assert.deepEqual(
        atVsdc(tpin, branch),
        [
          [ownerId, ownerEmail, 'Y'],
          [cashierId, cashierEmail, 'Y'],
        ].sort(),
      );

    dataOf(await inject('DELETE', `/api/v1/account/users/${accepted.id}`, owner));
    await eventually(
      () => ['000', '001'].every((branch) => atVsdc(tpin, branch).some(([id, , yn]) => id === cashierId && yn === 'N')),
      'the removal filed at both branches',
    );
    // The VSDC has both answers; the worker records them just after.
    const settled = async () =>
      (await h.ctx.db.selectFrom('branch_users').select(['use_yn', 'state']).where('user_id', '=', accepted.id).execute()).map((r) => [
        r.use_yn,
        r.state,
      ]);
    await eventually(async () => (await settled()).every(([, state]) => state === 'registered'), 'both removals recorded');
    assert.deepEqual(await settled(), [
      ['N', 'registered'],
      ['N', 'registered'],
    ]);
    assert.deepEqual(
      (await usersOf(owner)).map((u) => u.email),
      [ownerEmail],
      'a removed user is not listed',
    );
  });

  test('a till login is registered at its branch and filed N when deleted; a branch initialised later gets the existing users', async () => {
    const m = await h.addMerchant({ branches: ['000'] });
    const invitation = dataOf(
      await inject('POST', `/api/v1/tenants/${m.tenantId}/invitations`, bearer(m.partnerSecret), { email: freshEmail('partner-owner') }),
      201,
    );
    const owner = dataOf(
      await inject(
        'POST',
        '/api/v1/account/invitations/accept',
        {},
        { token: /#token=(.+)$/.exec(invitation.link)![1], password: PASSWORD },
      ),
      201,
    );

    const till = await createLogin(m, 'till-main');
    assert.ok(['pending', 'registered'].includes(till.vsdcRegistration.state), 'queued with the login');
    assert.deepEqual((await loginSettled(m, till.id, 'registered')).vsdcRegistration, {
      state: 'registered',
      resultCode: '000',
      message: null,
    });
    await eventually(() => atVsdc(m.tpin, '000').length === 2, 'owner and till login at 000');
    assert.deepEqual(atVsdc(m.tpin, '000'), [
      [`T${till.id}`, 'till-main', 'Y'],
      [`U${owner.id}`, owner.email, 'Y'],
    ]);

    await h.registerBranch(m, '001', { initialize: false });
    const later = await createLogin(m, 'till-second', '001');
    assert.deepEqual(later.vsdcRegistration, { state: 'none', resultCode: null, message: null }, 'its branch is not initialised yet');
    expectStatus(await inject('POST', `/api/v1/tenants/${m.tenantId}/devices/001/initialize`, bearer(m.partnerSecret)), 200);
    await loginSettled(m, later.id, 'registered');
    await eventually(() => atVsdc(m.tpin, '001').length === 2, 'the existing users at 001');
    assert.deepEqual(
      atVsdc(m.tpin, '001'),
      [
        [`T${later.id}`, 'till-second', 'Y'],
        [`U${owner.id}`, owner.email, 'Y'],
      ],
      "only its own branch's till login",
    );

    await deleteLogin(m, till.id);
    await eventually(() => atVsdc(m.tpin, '000').some(([id, , yn]) => id === `T${till.id}` && yn === 'N'), 'the deleted login filed N');
    assert.deepEqual(
      (await tillLogins(m)).map((l) => l.id),
      [later.id],
    );
    assert.equal(
      h.sim.control.calls(m.tpin, '001', 'saveBrancheUser').some((c) => c.request.userId === `T${till.id}`),
      false,
      'never filed at another branch',
    );
  });

  test('VSDC down: pending and retried, registered after recovery; a refusal is failed with its code until a later change', async () => {
    const m = await h.addMerchant({ branches: ['000'] });
    h.sim.control.setFaults(m.tpin, '000', { down: true });
    const waiting = await createLogin(m, 'till-offline');
    await eventually(async () => {
      const row = await h.ctx.db
        .selectFrom('branch_users')
        .select(['state', 'retry_attempts', 'last_unreachable'])
        .where('till_login_id', '=', waiting.id)
        .executeTakeFirstOrThrow();
      return row.retry_attempts >= 1 && row.last_unreachable !== null && row.state === 'pending';
    }, 'an unreachable attempt recorded');
    assert.equal((await tillLogins(m)).find((l) => l.id === waiting.id)!.vsdcRegistration.state, 'pending');
    h.sim.control.clearFaults(m.tpin, '000');
    await loginSettled(m, waiting.id, 'registered');
    const recovered = await h.ctx.db
      .selectFrom('branch_users')
      .select(['retry_attempts', 'last_unreachable'])
      .where('till_login_id', '=', waiting.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([recovered.retry_attempts, recovered.last_unreachable], [0, null]);

    h.sim.control.setFaults(m.tpin, '000', {
      reject: { count: 'all', code: '910', message: 'Validation error for fields: [userNm]', endpoints: ['saveBrancheUser'] },
    });
    const refused = await createLogin(m, 'till-refused');
    const failed = await loginSettled(m, refused.id, 'failed');
    assert.deepEqual(failed.vsdcRegistration, { state: 'failed', resultCode: '910', message: 'Validation error for fields: [userNm]' });
    const attempts = h.sim.control.calls(m.tpin, '000', 'saveBrancheUser').filter((c) => c.request.userId === `T${refused.id}`).length;
    assert.equal(attempts, 1, 'a refusal is not retried');
    h.sim.control.clearFaults(m.tpin, '000');
    await deleteLogin(m, refused.id);
    await eventually(() => atVsdc(m.tpin, '000').some(([id, , yn]) => id === `T${refused.id}` && yn === 'N'), 'the later change filed');
  });
});
