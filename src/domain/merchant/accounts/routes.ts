// Merchant accounts over HTTP (docs/merchants.md). Sign-up, sign-in and the one-time links are
// public; the rest need the session cookie (surface `account`), and writes its X-CSRF-Token.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { cookieValue, SESSION_COOKIE, SESSION_LIFETIME_MS } from '../../../credentials/user-session.ts';
import { partnerActor, requireUser } from '../../kernel/access/auth.ts';
import { headerText } from '../../../platform/http/header-text.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { TenantParam } from '../../kernel/tenants/schemas.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';
import * as users from './users-service.ts';
import { LINKS_PER_HOUR } from './links.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { MerchantAuthority, presentAuthority } from './authority.ts';

const TAG = ['Merchant: account'];
const PUBLIC = { auth: { surface: 'public' } } as const;
const viewer = { auth: { surface: 'account', role: 'viewer' } } as const;
const admin = { auth: { surface: 'account', role: 'admin' } } as const;
const ACCEPTED = 'If the address can be used, a mail is on its way.';

export function accountRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const secure = ctx.config.env === 'production' ? '; Secure' : '';

    const client = (request: FastifyRequest): service.ClientInfo => ({ ip: request.ip, userAgent: headerText(request.headers['user-agent'], service.USER_AGENT_CHARACTERS) });
    const setSession = (reply: FastifyReply, token: string) =>
      reply.header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_LIFETIME_MS / 1000}${secure}`);
    const clearSession = (reply: FastifyReply) => reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);

    app.post('/api/v1/account/signup', {
      config: PUBLIC,
      schema: {
        operationId: 'signUp',
        tags: TAG,
        summary: 'Sign up a merchant and its owner',
        description: 'Creates a merchant of its own (no partner) and its owner, and mails a link to verify the email address. The answer is the same whether or not the address already has an account (then a mail says so).',
        body: S.SignUpBody,
        response: { 202: S.Accepted },
      },
    }, async (request, reply) => {
      await service.signUp(ctx, request.body, client(request));
      return reply.code(202).send({ message: `${ACCEPTED} Open the link in it to verify your email address, then sign in.` });
    });

    app.post('/api/v1/account/verify', {
      config: { ...PUBLIC, errors: ['link_invalid'] },
      schema: {
        operationId: 'verifyEmail',
        tags: TAG,
        summary: 'Verify an email address with the mailed link',
        description: 'A link opened again after its address was confirmed answers 200 with `alreadyVerified: true`. An unknown or expired link of an address not confirmed is 400 `link_invalid`: ask for a new one with `POST /api/v1/account/verify/resend`.',
        body: S.TokenBody,
        response: { 200: S.Verified },
      },
    }, async (request) => {
      const { alreadyVerified } = await service.verifyEmail(ctx, request.body.token);
      return alreadyVerified
        ? { message: 'Your email address is already confirmed. Sign in.', alreadyVerified }
        : { message: 'Your email address is verified. You can sign in.', alreadyVerified };
    });

    app.post('/api/v1/account/verify/resend', {
      config: PUBLIC,
      schema: {
        operationId: 'resendVerification',
        tags: TAG,
        summary: 'Mail a new link to verify an email address (24 hours)',
        description: `The answer is the same whatever the address. Only an account whose address is not confirmed yet gets a mail; the new link voids the earlier ones. At most ${LINKS_PER_HOUR} links of a kind reach an address in an hour: more requests mail nothing.`,
        body: S.ResetRequestBody,
        response: { 202: S.Accepted },
      },
    }, async (request, reply) => {
      await service.resendVerification(ctx, request.body.email, client(request));
      return reply.code(202).send({ message: `${ACCEPTED} If the address has an account waiting for confirmation, open the new link in it within 24 hours; if it is confirmed already, sign in.` });
    });

    app.post('/api/v1/account/signin', {
      config: { ...PUBLIC, errors: ['invalid_credentials', 'email_not_verified', 'signin_throttled'], whileStorageLow: 'served' },
      schema: {
        operationId: 'signIn',
        tags: TAG,
        summary: 'Sign in: sets the session cookie',
        description: 'Sets `fg_session` (HttpOnly, SameSite=Lax) and answers the CSRF token to send as `X-CSRF-Token` on every write. 5 failures per account or 20 per address in 15 minutes pause sign-in (429).',
        body: S.SignInBody,
        response: { 200: data(S.Session) },
      },
    }, async (request, reply) => {
      const signed = await service.signIn(ctx, request.body, client(request), cookieValue(request.headers.cookie, SESSION_COOKIE));
      setSession(reply, signed.sessionToken);
      return { data: { user: signed.user, merchant: signed.merchant, csrfToken: signed.csrfToken } };
    });

    app.post('/api/v1/account/signout', {
      config: { ...viewer, whileStorageLow: 'served' },
      schema: { operationId: 'signOut', tags: TAG, summary: 'Sign out this session', response: { 200: data(S.SignOutResult) } },
    }, async (request, reply) => {
      const revoked = await service.signOut(ctx, requireUser(request).user, false);
      clearSession(reply);
      return { data: { revokedSessions: revoked } };
    });

    app.post('/api/v1/account/signout-everywhere', {
      config: { ...viewer, whileStorageLow: 'served' },
      schema: { operationId: 'signOutEverywhere', tags: TAG, summary: 'Sign out every session of this user', response: { 200: data(S.SignOutResult) } },
    }, async (request, reply) => {
      const revoked = await service.signOut(ctx, requireUser(request).user, true);
      clearSession(reply);
      return { data: { revokedSessions: revoked } };
    });

    app.get('/api/v1/account/me', {
      config: viewer,
      schema: { operationId: 'getAccount', tags: TAG, summary: 'The signed-in user, its merchant and the CSRF token', response: { 200: data(S.Session) } },
    }, async (request) => {
      const { user, sessionToken } = requireUser(request);
      return { data: await service.me(ctx, user, sessionToken) };
    });

    app.get('/api/v1/account/authority', {
      config: viewer,
      schema: {
        operationId: 'getAccountAuthority',
        tags: TAG,
        summary: "The merchant's tax authority: its letters and rates, payment types, note reasons, currency and identifier forms",
        description: 'What the console builds its forms and labels from: the merchant\'s authority profile (ZRA for a Zambian merchant, KRA for a Kenyan one).',
        response: { 200: data(MerchantAuthority) },
      },
    }, async (request) => ({ data: presentAuthority(merchantProfile(requireUser(request).user.tenant.authority)) }));

    app.post('/api/v1/account/password', {
      config: viewer,
      schema: { operationId: 'changePassword', tags: TAG, summary: 'Change the password (signs out every other session)', body: S.ChangePasswordBody, response: { 200: data(S.SignOutResult) } },
    }, async (request) => ({ data: await service.changePassword(ctx, requireUser(request).user, request.body).then((r) => ({ revokedSessions: r.revokedSessions })) }));

    app.post('/api/v1/account/password-reset', {
      config: PUBLIC,
      schema: { operationId: 'requestPasswordReset', tags: TAG, summary: 'Mail a one-time password reset link (1 hour)', description: 'The answer is the same whether or not the address has an account.', body: S.ResetRequestBody, response: { 202: S.Accepted } },
    }, async (request, reply) => {
      await service.requestPasswordReset(ctx, request.body.email, client(request));
      return reply.code(202).send({ message: `${ACCEPTED} Open the link in it within an hour to choose a new password.` });
    });

    app.post('/api/v1/account/password-reset/confirm', {
      config: { ...PUBLIC, errors: ['link_invalid'] },
      schema: { operationId: 'confirmPasswordReset', tags: TAG, summary: 'Choose a new password with the mailed link (signs out every session)', body: S.ResetConfirmBody, response: { 200: S.Accepted } },
    }, async (request) => {
      await service.confirmPasswordReset(ctx, request.body);
      return { message: 'Your password is changed and every session was signed out. Sign in with the new password.' };
    });

    app.get('/api/v1/account/users', {
      config: viewer,
      schema: { operationId: 'listAccountUsers', tags: TAG, summary: 'The users of your merchant', description: 'Each with `vsdcRegistration`: where its registration as a user of each initialised branch stands with the VSDC (saveBrancheUser).', response: { 200: data(Type.Array(S.ListedUser)) } },
    }, async (request) => ({ data: await users.listUsers(ctx, requireUser(request).user) }));

    app.post('/api/v1/account/users/invitations', {
      config: admin,
      schema: { operationId: 'inviteAccountUser', tags: TAG, summary: 'Invite a user by mail (owner or admin)', description: 'Mails a one-time link valid 72 hours. Only an owner may invite an owner.', body: S.InviteBody, response: { 201: data(S.Invitation) } },
    }, async (request, reply) => reply.code(201).send({ data: await users.inviteUser(ctx, requireUser(request).user, request.body) }));

    app.get('/api/v1/account/users/invitations', {
      config: viewer,
      schema: { operationId: 'listAccountInvitations', tags: TAG, summary: 'The invitations waiting to be accepted', description: 'Valid, neither accepted nor revoked, newest first.', response: { 200: data(Type.Array(S.PendingInvitation)) } },
    }, async (request) => ({ data: await users.listInvitations(ctx, requireUser(request).user) }));

    app.delete('/api/v1/account/users/invitations/:id', {
      config: admin,
      schema: {
        operationId: 'revokeAccountInvitation',
        tags: TAG,
        summary: 'Revoke a pending invitation (owner or admin; only an owner revokes an owner\'s)',
        description: 'Its link stops working at once (`400 link_invalid` if it is opened). An invitation accepted, revoked or expired is a 404.',
        params: S.UserParam,
        response: { 200: data(S.RevokedInvitation) },
      },
    }, async (request) => ({ data: await users.revokeInvitation(ctx, requireUser(request).user, request.params.id) }));

    app.delete('/api/v1/account/users/:id', {
      config: admin,
      schema: { operationId: 'removeAccountUser', tags: TAG, summary: 'Remove a user (owner or admin; signs out its sessions)', params: S.UserParam, response: { 200: data(S.RemovedUser) } },
    }, async (request) => ({ data: await users.removeUser(ctx, requireUser(request).user, request.params.id) }));

    app.post('/api/v1/account/invitations/accept', {
      config: { ...PUBLIC, errors: ['link_invalid'] },
      schema: { operationId: 'acceptInvitation', tags: TAG, summary: 'Accept an invitation: choose a password (the email counts as verified)', body: S.AcceptInvitationBody, response: { 201: data(S.User) } },
    }, async (request, reply) => reply.code(201).send({ data: await users.acceptInvitation(ctx, request.body) }));

    app.post('/api/v1/tenants/:tenant/invitations', {
      config: { auth: { surface: 'partner', scope: 'tenants:write' } },
      schema: {
        operationId: 'inviteTenantOwner',
        tags: ['Partner: provisioning'],
        summary: 'Invite an owner for your merchant (one-time link, 72 hours)',
        description: 'Mails the link and answers it (shown once), so you can also pass it on yourself.',
        params: TenantParam,
        body: S.PartnerInviteBody,
        response: { 201: data(S.PartnerInvitation) },
      },
    }, async (request, reply) => {
      const invitation = await users.invitePartnerTenantOwner(ctx, partnerActor(request), request.params.tenant, request.body.email);
      return reply.code(201).send({ data: invitation });
    });

    app.get('/api/v1/dev/outbox', {
      // Without the outbox, a 404 whoever asks: the operator token would not make it exist.
      config: { auth: { surface: 'admin', withoutToken: 'open', absentBecause: () => (ctx.mailer.usesOutbox ? undefined : 'The outbox exists only in development without SMTP_URL.') } },
      schema: { operationId: 'devOutbox', tags: ['Operator'], summary: 'Development only: the last 50 mails not sent (no SMTP_URL)', response: { 200: data(Type.Array(S.OutboxMail)) } },
    }, async () => ({ data: ctx.mailer.outboxMails() }));
  };
}
