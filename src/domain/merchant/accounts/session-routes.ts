import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { cookieValue, SESSION_COOKIE, SESSION_LIFETIME_MS } from '../../../credentials/user-session.ts';
import { requireUser } from '../../kernel/http-access/auth.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { MerchantAuthority, presentAuthority } from './authority.ts';
import { ACCEPTED, PUBLIC, TAG, clientOf as client, viewer } from './route-parts.ts';

/** The signed-in user's session: sign in and out, who it is, its password and the password reset. */
export function sessionRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const secure = ctx.config.env === 'production' ? '; Secure' : '';
    const setSession = (reply: FastifyReply, token: string) =>
      reply.header(
        'set-cookie',
        `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_LIFETIME_MS / 1000}${secure}`,
      );
    const clearSession = (reply: FastifyReply) =>
      reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);

    app.post(
      '/api/v1/account/signin',
      {
        config: { ...PUBLIC, errors: ['invalid_credentials', 'email_not_verified', 'signin_throttled'], whileStorageLow: 'served' },
        schema: {
          operationId: 'signIn',
          tags: TAG,
          summary: 'Sign in: sets the session cookie',
          description:
            'Sets `fg_session` (HttpOnly, SameSite=Lax) and answers the CSRF token to send as `X-CSRF-Token` on every write. 5 failures per account or 20 per address in 15 minutes pause sign-in (429).',
          body: S.SignInBody,
          response: { 200: data(S.Session) },
        },
      },
      async (request, reply) => {
        const signed = await service.signIn(ctx, request.body, client(request), cookieValue(request.headers.cookie, SESSION_COOKIE));
        setSession(reply, signed.sessionToken);
        return { data: { user: signed.user, merchant: signed.merchant, csrfToken: signed.csrfToken } };
      },
    );

    app.post(
      '/api/v1/account/signout',
      {
        config: { ...viewer, whileStorageLow: 'served' },
        schema: { operationId: 'signOut', tags: TAG, summary: 'Sign out this session', response: { 200: data(S.SignOutResult) } },
      },
      async (request, reply) => {
        const revoked = await service.signOut(ctx, requireUser(request).user, false);
        clearSession(reply);
        return { data: { revokedSessions: revoked } };
      },
    );

    app.post(
      '/api/v1/account/signout-everywhere',
      {
        config: { ...viewer, whileStorageLow: 'served' },
        schema: {
          operationId: 'signOutEverywhere',
          tags: TAG,
          summary: 'Sign out every session of this user',
          response: { 200: data(S.SignOutResult) },
        },
      },
      async (request, reply) => {
        const revoked = await service.signOut(ctx, requireUser(request).user, true);
        clearSession(reply);
        return { data: { revokedSessions: revoked } };
      },
    );

    app.get(
      '/api/v1/account/me',
      {
        config: viewer,
        schema: {
          operationId: 'getAccount',
          tags: TAG,
          summary: 'The signed-in user, its merchant and the CSRF token',
          response: { 200: data(S.Session) },
        },
      },
      async (request) => {
        const { user, sessionToken } = requireUser(request);
        return { data: await service.me(ctx, user, sessionToken) };
      },
    );

    app.get(
      '/api/v1/account/authority',
      {
        config: viewer,
        schema: {
          operationId: 'getAccountAuthority',
          tags: TAG,
          summary: "The merchant's tax authority: its letters and rates, payment types, note reasons, currency and identifier forms",
          description:
            "What the console builds its forms and labels from: the merchant's authority profile (ZRA for a Zambian merchant, KRA for a Kenyan one).",
          response: { 200: data(MerchantAuthority) },
        },
      },
      async (request) => ({ data: presentAuthority(merchantProfile(requireUser(request).user.tenant.authority)) }),
    );

    app.post(
      '/api/v1/account/password',
      {
        config: viewer,
        schema: {
          operationId: 'changePassword',
          tags: TAG,
          summary: 'Change the password (signs out every other session)',
          body: S.ChangePasswordBody,
          response: { 200: data(S.SignOutResult) },
        },
      },
      async (request) => ({
        data: await service
          .changePassword(ctx, requireUser(request).user, request.body)
          .then((r) => ({ revokedSessions: r.revokedSessions })),
      }),
    );

    app.post(
      '/api/v1/account/password-reset',
      {
        config: PUBLIC,
        schema: {
          operationId: 'requestPasswordReset',
          tags: TAG,
          summary: 'Mail a one-time password reset link (1 hour)',
          description: 'The answer is the same whether or not the address has an account.',
          body: S.ResetRequestBody,
          response: { 202: S.Accepted },
        },
      },
      async (request, reply) => {
        await service.requestPasswordReset(ctx, request.body.email, client(request));
        return reply.code(202).send({ message: `${ACCEPTED} Open the link in it within an hour to choose a new password.` });
      },
    );

    app.post(
      '/api/v1/account/password-reset/confirm',
      {
        config: { ...PUBLIC, errors: ['link_invalid'] },
        schema: {
          operationId: 'confirmPasswordReset',
          tags: TAG,
          summary: 'Choose a new password with the mailed link (signs out every session)',
          body: S.ResetConfirmBody,
          response: { 200: S.Accepted },
        },
      },
      async (request) => {
        await service.confirmPasswordReset(ctx, request.body);
        return { message: 'Your password is changed and every session was signed out. Sign in with the new password.' };
      },
    );
  };
}
