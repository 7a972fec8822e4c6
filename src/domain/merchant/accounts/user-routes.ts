import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { partnerActor, requireUser } from '../../kernel/http-access/auth.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { TenantParam } from '../../kernel/tenants/schemas.ts';
import * as S from './schemas.ts';
import * as users from './users-service.ts';
import { PUBLIC, TAG, admin, viewer } from './route-parts.ts';

/** The merchant's users and their invitations (a partner may invite its merchant's owner). */
export function userRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/api/v1/account/users',
      {
        config: viewer,
        schema: {
          operationId: 'listAccountUsers',
          tags: TAG,
          summary: 'The users of your merchant',
          description:
            'Each with `vsdcRegistration`: where its registration as a user of each initialised branch stands with the VSDC (saveBrancheUser).',
          response: { 200: data(Type.Array(S.ListedUser)) },
        },
      },
      async (request) => ({ data: await users.listUsers(ctx, requireUser(request).user) }),
    );

    app.post(
      '/api/v1/account/users/invitations',
      {
        config: admin,
        schema: {
          operationId: 'inviteAccountUser',
          tags: TAG,
          summary: 'Invite a user by mail (owner or admin)',
          description: 'Mails a one-time link valid 72 hours. Only an owner may invite an owner.',
          body: S.InviteBody,
          response: { 201: data(S.Invitation) },
        },
      },
      async (request, reply) => reply.code(201).send({ data: await users.inviteUser(ctx, requireUser(request).user, request.body) }),
    );

    app.get(
      '/api/v1/account/users/invitations',
      {
        config: viewer,
        schema: {
          operationId: 'listAccountInvitations',
          tags: TAG,
          summary: 'The invitations waiting to be accepted',
          description: 'Valid, neither accepted nor revoked, newest first.',
          response: { 200: data(Type.Array(S.PendingInvitation)) },
        },
      },
      async (request) => ({ data: await users.listInvitations(ctx, requireUser(request).user) }),
    );

    app.delete(
      '/api/v1/account/users/invitations/:id',
      {
        config: admin,
        schema: {
          operationId: 'revokeAccountInvitation',
          tags: TAG,
          summary: "Revoke a pending invitation (owner or admin; only an owner revokes an owner's)",
          description:
            'Its link stops working at once (`400 link_invalid` if it is opened). An invitation accepted, revoked or expired is a 404.',
          params: S.UserParam,
          response: { 200: data(S.RevokedInvitation) },
        },
      },
      async (request) => ({ data: await users.revokeInvitation(ctx, requireUser(request).user, request.params.id) }),
    );

    app.delete(
      '/api/v1/account/users/:id',
      {
        config: admin,
        schema: {
          operationId: 'removeAccountUser',
          tags: TAG,
          summary: 'Remove a user (owner or admin; signs out its sessions)',
          params: S.UserParam,
          response: { 200: data(S.RemovedUser) },
        },
      },
      async (request) => ({ data: await users.removeUser(ctx, requireUser(request).user, request.params.id) }),
    );

    app.post(
      '/api/v1/account/invitations/accept',
      {
        config: { ...PUBLIC, errors: ['link_invalid'] },
        schema: {
          operationId: 'acceptInvitation',
          tags: TAG,
          summary: 'Accept an invitation: choose a password (the email counts as verified)',
          body: S.AcceptInvitationBody,
          response: { 201: data(S.User) },
        },
      },
      async (request, reply) => reply.code(201).send({ data: await users.acceptInvitation(ctx, request.body) }),
    );

    app.post(
      '/api/v1/tenants/:tenant/invitations',
      {
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
      },
      async (request, reply) => {
        const invitation = await users.invitePartnerTenantOwner(ctx, partnerActor(request), request.params.tenant, request.body.email);
        return reply.code(201).send({ data: invitation });
      },
    );
  };
}
