// The merchant's people: who has access with which role, and whether each initialised branch's
// VSDC has them as a user; owners and admins invite and remove.
import { badge, dateTime, h, table } from '../dom.ts';
import { formatDateTime } from '../time.ts';
import type { AccountUser, BranchUserState, Invitation, ListedAccountUser, PendingInvitation, UserRole } from '../types.ts';
import { developmentLink } from './account-pages.ts';
import { canWrite, confirmAction, errorBox, field, formMessage, heading, type ViewContext } from '../view.ts';

const ROLE_TEXT: Record<UserRole, string> = {
  owner: 'Owner — everything, including owners',
  admin: 'Admin — devices, tokens, users, documents',
  viewer: 'Viewer — reads documents, exports and settings',
};

const REGISTRATION: Record<BranchUserState | 'none', { text: string; tone: 'ok' | 'warn' | 'danger' | 'neutral' }> = {
  registered: { text: 'Registered', tone: 'ok' },
  pending: { text: 'Pending', tone: 'warn' },
  failed: { text: 'Refused', tone: 'danger' },
  none: { text: 'No branch yet', tone: 'neutral' },
};

/** The user's registration with the VSDC: over all branches, then each branch that is not registered (or each, when all are). */
function registrationCell(registration: ListedAccountUser['vsdcRegistration']) {
  const { text, tone } = REGISTRATION[registration.state];
  const branchText = (b: ListedAccountUser['vsdcRegistration']['branches'][number]) =>
    b.state === 'failed'
      ? `Branch ${b.branch}: refused (${b.resultCode ?? '?'}${b.message ? ` ${b.message}` : ''})`
      : `Branch ${b.branch}: ${b.state === 'pending' ? 'waiting for the VSDC' : 'registered'}`;
  const shown = registration.state === 'registered' ? registration.branches : registration.branches.filter((b) => b.state !== 'registered');
  return h('span', { class: 'stack' }, badge(text, tone), ...shown.map((b) => h('small', null, branchText(b))));
}

/** The invitation just sent, said once more on the view it refreshed: the notice, and in development its link from the outbox. */
let justInvited: { text: string; outbox: HTMLElement | null } | undefined;

/** The invitations waiting to be accepted; owners and admins revoke them (only an owner an owner's). */
function pendingInvitations(ctx: ViewContext, invitations: PendingInvitation[], message: ReturnType<typeof formMessage>): HTMLElement[] {
  const writer = canWrite(ctx);
  const me = ctx.account?.user;
  const rows = invitations.map((i) => [
    i.email,
    badge(i.role, i.role === 'viewer' ? 'neutral' : 'ok'),
    dateTime(i.createdAt),
    dateTime(i.expiresAt),
    ...(writer
      ? [
          i.role !== 'owner' || me?.role === 'owner'
            ? confirmAction(
                `Revoke the invitation of ${i.email}`,
                `Revoke the invitation of ${i.email}? Its link stops working.`,
                'Yes, revoke it',
                async () => {
                  try {
                    await ctx.api.delete(`/api/v1/account/users/invitations/${i.id}`);
                    ctx.announce(`The invitation of ${i.email} is revoked.`);
                    ctx.refresh();
                  } catch (err) {
                    message.error(err);
                  }
                },
              )
            : '—',
        ]
      : []),
  ]);
  return [
    h('h2', { id: 'pending-invitations' }, 'Pending invitations'),
    table('Pending invitations', ['Email', 'Role', 'Invited', 'Link valid until', ...(writer ? ['Revoke'] : [])], rows, {
      empty: 'None: every invitation was accepted, revoked or has expired.',
    }),
  ];
}

export async function usersView(ctx: ViewContext) {
  const writer = canWrite(ctx);
  const me = ctx.account?.user;
  const head = heading('Users', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  let users: ListedAccountUser[];
  let invitations: PendingInvitation[];
  try {
    [users, invitations] = await Promise.all([
      ctx.api.get<{ data: ListedAccountUser[] }>('/api/v1/account/users').then((r) => r.data),
      ctx.api.get<{ data: PendingInvitation[] }>('/api/v1/account/users/invitations').then((r) => r.data),
    ]);
  } catch (err) {
    return [head, errorBox(err)];
  }
  const message = formMessage('users-message');
  const removable = (u: AccountUser) => writer && u.id !== me?.id && (u.role !== 'owner' || me?.role === 'owner');
  const rows = users.map((u) => [
    h('span', { class: 'stack' }, h('span', null, u.email), u.id === me?.id ? h('small', null, 'You') : null),
    badge(u.role, u.role === 'viewer' ? 'neutral' : 'ok'),
    u.emailVerified ? 'Confirmed' : h('small', { class: 'muted' }, 'Not confirmed yet'),
    dateTime(u.createdAt),
    registrationCell(u.vsdcRegistration),
    ...(writer
      ? [
          removable(u)
            ? confirmAction(`Remove ${u.email}`, `Remove ${u.email}? Their sessions end at once.`, 'Yes, remove', async () => {
                try {
                  await ctx.api.delete(`/api/v1/account/users/${u.id}`);
                  ctx.announce(`${u.email} removed.`);
                  ctx.refresh();
                } catch (err) {
                  message.error(err);
                }
              })
            : '—',
        ]
      : []),
  ]);
  const content = [
    head,
    message.element,
    table('Users', ['Email', 'Role', 'Email address', 'Since', 'At the VSDC', ...(writer ? ['Remove'] : [])], rows),
    pendingInvitations(ctx, invitations, message),
  ];
  const explained = h(
    'p',
    { class: 'muted' },
    "Every user is registered with the authority's VSDC as a user of each initialised branch; a removed user is registered as no longer in use.",
  );
  if (!writer)
    return [...content, explained, h('p', { class: 'muted' }, 'Viewers see who has access; an owner or admin invites and removes users.')];
  const email = h('input', { type: 'email', required: true, autocomplete: 'off' }) as HTMLInputElement;
  const roles: UserRole[] = me?.role === 'owner' ? ['viewer', 'admin', 'owner'] : ['viewer', 'admin'];
  const role = h(
    'select',
    null,
    roles.map((r) => h('option', { value: r }, ROLE_TEXT[r])),
  ) as HTMLSelectElement;
  const inviteMessage = formMessage('invite-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Send the invitation') as HTMLButtonElement;
  const form = h(
    'form',
    {
      class: 'card wide',
      'aria-labelledby': 'invite-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        const since = Date.now() - 5_000;
        try {
          const invitation = (
            await ctx.api.postJson<{ data: Invitation }>('/api/v1/account/users/invitations', {
              email: email.value.trim(),
              role: role.value,
            })
          ).data;
          const until = `The link works once, until ${formatDateTime(new Date(invitation.expiresAt), { seconds: false })}.`;
          // A development gateway keeps its mails (no SMTP_URL): say so, with the link, as sign-up does.
          const outbox = await developmentLink(invitation.email, 'accept-invitation', since);
          justInvited = {
            text: outbox
              ? `Invitation for ${invitation.email} as ${invitation.role} made, not mailed. ${until}`
              : `Invitation mailed to ${invitation.email} as ${invitation.role}. ${until}`,
            outbox,
          };
          ctx.refresh();
        } catch (err) {
          inviteMessage.error(err);
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'invite-title' }, 'Invite a user'),
    h('p', { class: 'muted' }, 'They get a link by mail, valid 72 hours, to choose a password.'),
    field('invite-email', 'Email', email),
    field('invite-role', 'Role', role),
    inviteMessage.element,
    justInvited?.outbox ?? null,
    submit,
  );
  if (justInvited) inviteMessage.ok(justInvited.text);
  justInvited = undefined;
  return [...content, explained, form];
}
