// The merchant's users and invitations (docs/merchants.md): the users list with each one's
// registration with the branches' VSDCs, invitations made, revoked and accepted, users removed.
import type { AppContext } from '../../kernel/context.ts';
import { sha256 } from '../../../credentials/user-secrets.ts';
import type { SessionUser } from '../../../credentials/user-session.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import type { UserRole } from '../../../platform/db/tables/accounts.ts';
import { roleAtLeast } from '../../kernel/http-access/auth.ts';
import { ApiError, fieldError, NotFoundError } from '../../../platform/errors/errors.ts';
import { invitationMail } from '../../../platform/mail/templates.ts';
import { queueMail } from '../../kernel/mail/outbox.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { presentUserRegistration } from '../../kernel/branch-users/present.ts';
import type { UserVsdcRegistration } from '../../kernel/branch-users/schemas.ts';
import { queueConsoleUser, registrationsOfUsers } from '../../kernel/branch-users/store.ts';
import { tenantOfPartner } from '../../kernel/tenants/service.ts';
import { hashPassword } from '../../../credentials/passwords.ts';
import { assertPasswordRules } from './password-rules.ts';
import { createLink, HOUR_MS, LINK_VALID_MS, linkInvalid } from './links.ts';
import { presentUser, type UserResource } from './present.ts';
import * as store from './store.ts';

/** The merchant's users, each with its registration with the VSDC of every initialised branch. */
export async function listUsers(
  ctx: AppContext,
  session: SessionUser,
): Promise<Array<UserResource & { vsdcRegistration: UserVsdcRegistration }>> {
  const users = await store.usersOf(ctx.db, session.tenant.id);
  const registered = await registrationsOfUsers(
    ctx.db,
    session.tenant.id,
    users.map((u) => u.id),
  );
  return users.map((u) => ({ ...presentUser(u), vsdcRegistration: presentUserRegistration(registered.get(u.id)) }));
}

interface InvitationResource {
  id: number;
  email: string;
  role: UserRole;
  expiresAt: string;
}

/** The invitations still waiting to be accepted (valid, neither accepted nor revoked), newest first. */
export async function listInvitations(ctx: AppContext, session: SessionUser): Promise<Array<InvitationResource & { createdAt: string }>> {
  const rows = await store.pendingInvitations(ctx.db, session.tenant.id, ctx.clock.now());
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role ?? 'viewer',
    expiresAt: new Date(r.expires_at).toISOString(),
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/** Revokes a pending invitation: its link stops working. Only an owner revokes an owner's, as only an owner invites one. */
export async function revokeInvitation(ctx: AppContext, session: SessionUser, id: number): Promise<{ revoked: true; id: number }> {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const [pending] = await store.pendingInvitations(trx, session.tenant.id, now, id);
    if (!pending) throw new NotFoundError('No pending invitation with this id: it was accepted, revoked or has expired.');
    if (pending.role === 'owner' && !roleAtLeast(session.role, 'owner')) {
      throw new ApiError('role_insufficient', 'Only an owner may revoke an invitation of an owner.');
    }
    if (!(await store.voidInvitation(trx, session.tenant.id, id, now)))
      throw new NotFoundError('No pending invitation with this id: it was accepted, revoked or has expired.');
    await recordAudit(trx, {
      actor: { type: 'user', userId: session.userId },
      action: 'account.invitation_revoked',
      tenantId: session.tenant.id,
      targetType: 'user_invitation',
      targetId: id,
      details: { email: pending.email, role: pending.role },
    });
    return { revoked: true as const, id };
  });
}

export async function inviteUser(
  ctx: AppContext,
  session: SessionUser,
  input: { email: string; role: UserRole },
): Promise<InvitationResource> {
  if (input.role === 'owner' && !roleAtLeast(session.role, 'owner')) {
    throw new ApiError('role_insufficient', 'Only an owner may invite another owner; invite an admin or a viewer.');
  }
  const email = input.email.trim();
  const invitation = await ctx.db.transaction().execute(async (trx) => {
    const link = await createLink(trx, ctx, {
      kind: 'invitation',
      tenantId: session.tenant.id,
      userId: null,
      email,
      role: input.role,
      createdBy: `user:${session.userId}`,
    });
    await recordAudit(trx, {
      actor: { type: 'user', userId: session.userId },
      action: 'account.invitation_created',
      tenantId: session.tenant.id,
      targetType: 'user_invitation',
      targetId: link.id,
      details: { email, role: input.role },
    });
    await queueMail(
      trx,
      ctx,
      email,
      invitationMail(session.tenant.name, input.role, link.link, LINK_VALID_MS.invitation / HOUR_MS, link.expiresAt),
    );
    return link;
  });
  return { id: invitation.id, email, role: input.role, expiresAt: invitation.expiresAt.toISOString() };
}

/** A partner's invitation of its merchant's owner: the link is answered too (the partner may pass it on itself). */
export async function invitePartnerTenantOwner(
  ctx: AppContext,
  actor: Extract<Actor, { type: 'partner_key' }>,
  tenantId: number,
  email: string,
): Promise<InvitationResource & { link: string }> {
  const tenant = await tenantOfPartner(ctx.db, actor.partnerId, tenantId);
  const normal = email.trim();
  const invitation = await ctx.db.transaction().execute(async (trx) => {
    const link = await createLink(trx, ctx, {
      kind: 'invitation',
      tenantId: tenant.id,
      userId: null,
      email: normal,
      role: 'owner',
      createdBy: `partner_key:${actor.keyId}`,
    });
    await recordAudit(trx, {
      actor,
      action: 'account.invitation_created',
      tenantId: tenant.id,
      targetType: 'user_invitation',
      targetId: link.id,
      details: { email: normal, role: 'owner' },
    });
    await queueMail(trx, ctx, normal, invitationMail(tenant.name, 'owner', link.link, LINK_VALID_MS.invitation / HOUR_MS, link.expiresAt));
    return link;
  });
  return { id: invitation.id, email: normal, role: 'owner', expiresAt: invitation.expiresAt.toISOString(), link: invitation.link };
}

export async function acceptInvitation(ctx: AppContext, input: { token: string; password: string }): Promise<UserResource> {
  assertPasswordRules(input.password, 'password');
  const hash = await hashPassword(input.password, ctx.config.passwordScryptLog2N);
  const now = ctx.clock.now();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const used = await store.useUserToken(trx, sha256(input.token), 'invitation', now);
      if (!used?.role) throw linkInvalid('invitation');
      if (await store.findUserByEmail(trx, used.email)) throw alreadyUser();
      // The link reached the mailbox: the address counts as verified.
      const user = await store.insertUser(trx, {
        tenant_id: used.tenant_id,
        email: used.email,
        password_hash: hash,
        role: used.role,
        email_verified_at: now,
      });
      await queueConsoleUser(trx, used.tenant_id, user.id, 'Y');
      await recordAudit(trx, {
        actor: { type: 'user', userId: user.id },
        action: 'account.invitation_accepted',
        tenantId: used.tenant_id,
        targetType: 'user',
        targetId: user.id,
        details: { role: user.role, invitationId: used.id },
      });
      return presentUser(user);
    });
  } catch (err) {
    throw isUniqueViolation(err) ? alreadyUser() : err;
  }
}

const alreadyUser = () =>
  fieldError(
    'token',
    'This email address already has an account (an address belongs to one merchant). Sign in with it, or ask for an invitation to another address.',
  );

export async function removeUser(ctx: AppContext, session: SessionUser, userId: number): Promise<{ removed: true; id: number }> {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const user = await store.findUser(trx, session.tenant.id, userId);
    if (!user) throw new NotFoundError('User not found.');
    if (user.id === session.userId) throw fieldError('user', 'You cannot remove yourself; another owner or admin can.');
    if (user.role === 'owner' && !roleAtLeast(session.role, 'owner'))
      throw new ApiError('role_insufficient', 'Only an owner may remove an owner.');
    await store.setUserFields(trx, user.id, { removed_at: now }, now);
    await store.revokeSessions(trx, user.id, now);
    await queueConsoleUser(trx, session.tenant.id, user.id, 'N');
    await recordAudit(trx, {
      actor: { type: 'user', userId: session.userId },
      action: 'account.user_removed',
      tenantId: session.tenant.id,
      targetType: 'user',
      targetId: user.id,
      details: { email: user.email, role: user.role },
    });
    return { removed: true as const, id: user.id };
  });
}
