// Merchant accounts (docs/merchants.md): sign-up, email verification, sign-in with throttling,
// sessions, password change and reset; users and invitations: users-service.ts. No answer tells
// whether an email address has an account: sign-up and reset answer the same either way, and a
// wrong email costs the same scrypt as a wrong password.
import { sql, type Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import { currentMonth, documentsInMonth } from '../../../credentials/standing.ts';
import { csrfTokenOf, newSecret, sha256 } from '../../../credentials/user-secrets.ts';
import { SESSION_LIFETIME_MS, type SessionUser } from '../../../credentials/user-session.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { ApiError, FieldErrors, fieldError, NotFoundError, requiredText } from '../../../platform/errors/errors.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { DEFAULT_AUTHORITY } from '../../kernel/devices/authorities.ts';
import { checkTenantInput } from '../../kernel/tenants/service.ts';
import { accountExistsMail, passwordChangedMail, passwordResetMail, verifyEmailMail } from '../../../platform/mail/templates.ts';
import { linkTopic, queueMail } from '../../kernel/mail/outbox.ts';
import { recordAudit } from '../../kernel/audit/store.ts';
import { queueConsoleUser } from '../../kernel/branch-users/store.ts';
import { decoyHash, hashPassword, verifyPassword } from '../../../credentials/passwords.ts';
import { assertPasswordRules } from './password-rules.ts';
import { createLink, linkCapReached, linkInvalid, voidLinks } from './links.ts';
import { presentMerchant, presentUser, type MerchantResource, type UserResource } from './present.ts';
import * as store from './store.ts';

/** Failed sign-ins counted over this window: per account (the email tried) and per client address. */
const SIGNIN_WINDOW_MS = 15 * 60_000;
const SIGNIN_FAILURES_PER_ACCOUNT = 5;
const SIGNIN_FAILURES_PER_ADDRESS = 20;

/** How much of a client's User-Agent a session keeps. */
export const USER_AGENT_CHARACTERS = 500;

export interface ClientInfo {
  ip: string;
  /** At most USER_AGENT_CHARACTERS characters. */
  userAgent: string | null;
}

const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * `authority`: `zra` unless given; the taxpayer id is checked against its form, and the merchant
 * takes its time zone (and with it its currency and codes). A refusal stores nothing.
 */
export async function signUp(
  ctx: AppContext,
  input: { merchantName: string; tpin: string; authority?: string; email: string; password: string },
  client: ClientInfo,
): Promise<void> {
  const authority = input.authority ?? DEFAULT_AUTHORITY;
  checkTenantInput(new FieldErrors(), { authority, tpin: input.tpin }).throwIfAny();
  assertPasswordRules(input.password, 'password');
  const tenantName = requiredText(input.merchantName, 'merchantName');
  const email = input.email.trim();
  // Hash first, whether or not the address is taken: both answers take the same time.
  const passwordHash = await hashPassword(input.password, ctx.config.passwordScryptLog2N);
  const existing = await store.findUserByEmail(ctx.db, email);
  if (existing) {
    if (await linkCapReached(ctx, existing.id, 'reset', ctx.clock.now())) return;
    await ctx.db.transaction().execute(async (trx) => {
      const link = await createLink(trx, ctx, {
        kind: 'reset',
        tenantId: existing.tenant_id,
        userId: existing.id,
        email: existing.email,
        role: null,
        createdBy: null,
      });
      await recordAudit(trx, {
        actor: { type: 'anonymous' },
        action: 'account.signup_existing',
        tenantId: existing.tenant_id,
        targetType: 'user',
        targetId: existing.id,
        details: { ip: client.ip },
      });
      await queueMail(trx, ctx, existing.email, accountExistsMail(link.link, link.expiresAt), linkTopic('reset', existing.id));
    });
    return;
  }
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const tenant = await store.insertSelfTenant(trx, {
        name: tenantName,
        tpin: input.tpin,
        authority,
        timezone: merchantProfile(authority).timeZone,
        email,
      });
      const user = await store.insertUser(trx, {
        tenant_id: tenant.id,
        email,
        password_hash: passwordHash,
        role: 'owner',
        email_verified_at: null,
      });
      await queueConsoleUser(trx, tenant.id, user.id, 'Y');
      const verify = await createLink(trx, ctx, {
        kind: 'verify',
        tenantId: tenant.id,
        userId: user.id,
        email,
        role: null,
        createdBy: null,
      });
      await recordAudit(trx, {
        actor: { type: 'anonymous' },
        action: 'account.signup',
        tenantId: tenant.id,
        targetType: 'user',
        targetId: user.id,
        details: { ip: client.ip, tenantOrigin: 'self', authority },
      });
      await queueMail(trx, ctx, email, verifyEmailMail(tenant.name, verify.link, verify.expiresAt), linkTopic('verify', user.id));
    });
  } catch (err) {
    // The same address signed up at the same moment: the other request created it.
    if (!isUniqueViolation(err)) throw err;
  }
}

/**
 * Confirms the address of a verification link. A link that no longer works (used, voided by a
 * newer one, expired) of an address confirmed since answers `alreadyVerified`: only the holder of
 * the mailed link learns it, about that link's own address.
 */
export async function verifyEmail(ctx: AppContext, token: string): Promise<{ alreadyVerified: boolean }> {
  const now = ctx.clock.now();
  const tokenHash = sha256(token);
  return ctx.db.transaction().execute(async (trx) => {
    const used = await store.useUserToken(trx, tokenHash, 'verify', now);
    if (!used?.user_id) {
      if (await store.linkOfVerifiedUser(trx, tokenHash, 'verify')) return { alreadyVerified: true };
      throw linkInvalid('verification', 'Ask for a new one: POST /api/v1/account/verify/resend {email}.');
    }
    await store.setUserFields(trx, used.user_id, { email_verified_at: now }, now);
    await recordAudit(trx, {
      actor: { type: 'anonymous' },
      action: 'account.email_verified',
      tenantId: used.tenant_id,
      targetType: 'user',
      targetId: used.user_id,
    });
    return { alreadyVerified: false };
  });
}

/**
 * Mails a new verification link to an address that has an account not yet confirmed (voiding the
 * previous links); for any other address nothing happens. The answer is the same either way.
 */
export async function resendVerification(ctx: AppContext, email: string, client: ClientInfo): Promise<void> {
  const user = await store.findUserByEmail(ctx.db, email.trim());
  if (!user || user.email_verified_at) return;
  const now = ctx.clock.now();
  if (await linkCapReached(ctx, user.id, 'verify', now)) return;
  await ctx.db.transaction().execute(async (trx) => {
    await voidLinks(trx, user.id, 'verify', now);
    const link = await createLink(trx, ctx, {
      kind: 'verify',
      tenantId: user.tenant_id,
      userId: user.id,
      email: user.email,
      role: null,
      createdBy: null,
    });
    await recordAudit(trx, {
      actor: { type: 'anonymous' },
      action: 'account.verification_resent',
      tenantId: user.tenant_id,
      targetType: 'user',
      targetId: user.id,
      details: { ip: client.ip },
    });
    const tenant = await trx.selectFrom('tenants').select('name').where('id', '=', user.tenant_id).executeTakeFirstOrThrow();
    await queueMail(trx, ctx, user.email, verifyEmailMail(tenant.name, link.link, link.expiresAt), linkTopic('verify', user.id));
  });
}

async function assertNotThrottled(ctx: AppContext, email: string, ip: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - SIGNIN_WINDOW_MS);
  const [byAccount, byAddress] = await Promise.all([
    store.signinFailures(ctx.db, 'email', email, since),
    store.signinFailures(ctx.db, 'ip', ip, since),
  ]);
  const over =
    byAccount.count >= SIGNIN_FAILURES_PER_ACCOUNT
      ? { failures: byAccount, what: `${SIGNIN_FAILURES_PER_ACCOUNT} failed sign-ins for this account` }
      : byAddress.count >= SIGNIN_FAILURES_PER_ADDRESS
        ? { failures: byAddress, what: `${SIGNIN_FAILURES_PER_ADDRESS} failed sign-ins from your address` }
        : undefined;
  if (!over) return;
  const retryAfter = Math.max(1, Math.ceil(((over.failures.oldest?.getTime() ?? now.getTime()) + SIGNIN_WINDOW_MS - now.getTime()) / 1000));
  throw new ApiError(
    'signin_throttled',
    `Too many failed sign-ins (${over.what} in ${SIGNIN_WINDOW_MS / 60_000} minutes). Retry after ${retryAfter} s, or reset your password.`,
    { 'retry-after': String(retryAfter) },
  );
}

export interface SignedIn {
  sessionToken: string;
  csrfToken: string;
  user: UserResource;
  merchant: MerchantResource;
}

/** The merchant with its standing, in one statement. */
async function merchantOf(db: Kysely<DB>, tenantId: number, now: Date): Promise<MerchantResource> {
  const t = await db
    .selectFrom('tenants as t')
    .select([
      't.id',
      't.name',
      't.tpin',
      't.origin',
      't.status',
      't.subscription',
      't.monthly_quota',
      't.timezone',
      documentsInMonth(sql`t.id`, currentMonth(now)).as('documents'),
      store.initialisedBranchCount(sql`t.id`).as('branches'),
    ])
    .where('t.id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return presentMerchant({ ...t, monthlyQuota: t.monthly_quota, documentsThisMonth: Number(t.documents) }, Number(t.branches), t.timezone);
}

/** `previousSession`: the cookie the browser sent, if any; it is revoked (the session is rotated). */
export async function signIn(
  ctx: AppContext,
  input: { email: string; password: string },
  client: ClientInfo,
  previousSession: string | undefined,
): Promise<SignedIn> {
  const now = ctx.clock.now();
  const email = normalEmail(input.email);
  await assertNotThrottled(ctx, email, client.ip, now);
  const user = await store.findUserByEmail(ctx.db, email);
  const matches = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash(ctx.config.passwordScryptLog2N)));
  if (!user || !matches) {
    await store.recordSigninFailure(ctx.db, email, client.ip, now, SIGNIN_WINDOW_MS);
    await recordAudit(ctx.db, {
      actor: { type: 'anonymous' },
      action: 'account.signin_failed',
      tenantId: user?.tenant_id ?? null,
      ...(user ? { targetType: 'user', targetId: user.id } : {}),
      details: { ip: client.ip },
    });
    throw new ApiError(
      'invalid_credentials',
      'The email or password is wrong. After 5 failed attempts sign-in pauses for 15 minutes; reset your password if you forgot it.',
    );
  }
  if (!user.email_verified_at) {
    throw new ApiError(
      'email_not_verified',
      'Confirm your email address first with the link we mailed you. Lost it, or did it expire? Ask for a new one: POST /api/v1/account/verify/resend {email}, or "Mail me a new link" on the console\'s confirmation page (/console/account/verify).',
    );
  }
  const sessionToken = newSecret();
  await ctx.db.transaction().execute(async (trx) => {
    if (previousSession) await store.revokeSession(trx, sha256(previousSession), now);
    await store.insertSession(trx, {
      id: sha256(sessionToken),
      user_id: user.id,
      now,
      expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS),
      ip: client.ip,
      user_agent: client.userAgent,
    });
    await store.clearSigninFailures(trx, email);
    await recordAudit(trx, {
      actor: { type: 'user', userId: user.id },
      action: 'account.signin',
      tenantId: user.tenant_id,
      targetType: 'user',
      targetId: user.id,
      details: { ip: client.ip },
    });
  });
  return {
    sessionToken,
    csrfToken: csrfTokenOf(sessionToken),
    user: presentUser(user),
    merchant: await merchantOf(ctx.db, user.tenant_id, now),
  };
}

export async function signOut(ctx: AppContext, session: SessionUser, everywhere: boolean): Promise<number> {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const revoked = everywhere
      ? await store.revokeSessions(trx, session.userId, now)
      : (await store.revokeSession(trx, session.sessionId, now), 1);
    await recordAudit(trx, {
      actor: { type: 'user', userId: session.userId },
      action: everywhere ? 'account.signout_everywhere' : 'account.signout',
      tenantId: session.tenant.id,
      targetType: 'user',
      targetId: session.userId,
      details: { sessions: revoked },
    });
    return revoked;
  });
}

export async function me(ctx: AppContext, session: SessionUser, sessionToken: string) {
  // The session's lookup brought the merchant with its standing; the user and whether it has an initialised branch come in one read.
  const user = await store.findUserWithBranches(ctx.db, session.tenant.id, session.userId);
  if (!user) throw new NotFoundError('User not found.');
  return {
    user: presentUser(user),
    merchant: presentMerchant(session.tenant, Number(user.branches), user.timezone),
    csrfToken: csrfTokenOf(sessionToken),
  };
}

export async function changePassword(
  ctx: AppContext,
  session: SessionUser,
  input: { currentPassword: string; newPassword: string },
): Promise<{ revokedSessions: number }> {
  const now = ctx.clock.now();
  const user = await store.findUser(ctx.db, session.tenant.id, session.userId);
  if (!user) throw new NotFoundError('User not found.');
  if (!(await verifyPassword(input.currentPassword, user.password_hash)))
    throw fieldError('currentPassword', 'The current password is wrong.');
  assertPasswordRules(input.newPassword, 'newPassword');
  const hash = await hashPassword(input.newPassword, ctx.config.passwordScryptLog2N);
  const revoked = await ctx.db.transaction().execute(async (trx) => {
    await store.setUserFields(trx, user.id, { password_hash: hash, password_changed_at: now }, now);
    const n = await store.revokeSessions(trx, user.id, now, session.sessionId);
    await voidLinks(trx, user.id, 'reset', now);
    await recordAudit(trx, {
      actor: { type: 'user', userId: user.id },
      action: 'account.password_changed',
      tenantId: user.tenant_id,
      targetType: 'user',
      targetId: user.id,
      details: { revokedSessions: n },
    });
    await queueMail(trx, ctx, user.email, passwordChangedMail());
    return n;
  });
  return { revokedSessions: revoked };
}

export async function requestPasswordReset(ctx: AppContext, email: string, client: ClientInfo): Promise<void> {
  const user = await store.findUserByEmail(ctx.db, email.trim());
  if (!user) return;
  const now = ctx.clock.now();
  if (await linkCapReached(ctx, user.id, 'reset', now)) return;
  await ctx.db.transaction().execute(async (trx) => {
    await voidLinks(trx, user.id, 'reset', now);
    const link = await createLink(trx, ctx, {
      kind: 'reset',
      tenantId: user.tenant_id,
      userId: user.id,
      email: user.email,
      role: null,
      createdBy: null,
    });
    await recordAudit(trx, {
      actor: { type: 'anonymous' },
      action: 'account.password_reset_requested',
      tenantId: user.tenant_id,
      targetType: 'user',
      targetId: user.id,
      details: { ip: client.ip },
    });
    await queueMail(trx, ctx, user.email, passwordResetMail(link.link, link.expiresAt), linkTopic('reset', user.id));
  });
}

export async function confirmPasswordReset(ctx: AppContext, input: { token: string; newPassword: string }): Promise<void> {
  assertPasswordRules(input.newPassword, 'newPassword');
  const hash = await hashPassword(input.newPassword, ctx.config.passwordScryptLog2N);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const used = await store.useUserToken(trx, sha256(input.token), 'reset', now);
    if (!used?.user_id) throw linkInvalid('password reset');
    // The link reached the mailbox: the address is proven, as a verification link would.
    await store.setUserFields(trx, used.user_id, { password_hash: hash, password_changed_at: now, email_verified_at: now }, now);
    const revoked = await store.revokeSessions(trx, used.user_id, now);
    await recordAudit(trx, {
      actor: { type: 'anonymous' },
      action: 'account.password_reset',
      tenantId: used.tenant_id,
      targetType: 'user',
      targetId: used.user_id,
      details: { revokedSessions: revoked },
    });
  });
}
