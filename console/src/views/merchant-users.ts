// The merchant's people: who has access with which role; owners and admins invite and remove.
import { badge, dateTime, h, table } from '../dom.ts';
import type { AccountUser, Invitation, UserRole } from '../types.ts';
import { canWrite, confirmAction, errorBox, field, formMessage, heading, type ViewContext } from '../view.ts';

const ROLE_TEXT: Record<UserRole, string> = {
  owner: 'Owner — everything, including owners',
  admin: 'Admin — devices, tokens, users, documents',
  viewer: 'Viewer — reads documents, exports and settings',
};

export async function usersView(ctx: ViewContext) {
  const writer = canWrite(ctx);
  const me = ctx.account?.user;
  const head = heading('Users', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  let users: AccountUser[];
  try {
    users = (await ctx.api.get<{ data: AccountUser[] }>('/api/v1/account/users')).data;
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
    table('Users', ['Email', 'Role', 'Email address', 'Since', ...(writer ? ['Remove'] : [])], rows),
  ];
  if (!writer) return [...content, h('p', { class: 'muted' }, 'Viewers see who has access; an owner or admin invites and removes users.')];
  const email = h('input', { type: 'email', required: true, autocomplete: 'off' }) as HTMLInputElement;
  const roles: UserRole[] = me?.role === 'owner' ? ['viewer', 'admin', 'owner'] : ['viewer', 'admin'];
  const role = h('select', null, roles.map((r) => h('option', { value: r }, ROLE_TEXT[r]))) as HTMLSelectElement;
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
        try {
          const invitation = await ctx.api.postJson<{ data: Invitation }>('/api/v1/account/users/invitations', { email: email.value.trim(), role: role.value });
          inviteMessage.ok(`Invitation mailed to ${invitation.data.email} as ${invitation.data.role}. The link works once, until ${new Date(invitation.data.expiresAt).toLocaleString()}.`);
          email.value = '';
        } catch (err) {
          inviteMessage.error(err);
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'invite-title' }, 'Invite a user'),
    h('p', { class: 'muted' }, 'They get a link by mail, valid 72 hours, to choose a password.'),
    field('invite-email', 'Email', email),
    field('invite-role', 'Role', role),
    inviteMessage.element,
    submit,
  );
  return [...content, form];
}
