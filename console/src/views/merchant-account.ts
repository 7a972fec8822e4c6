// The signed-in user's account: the merchant's details, change the password, sign out everywhere.
import { h } from '../dom.ts';
import { confirmAction, errorBox, field, formMessage, heading, type ViewContext } from '../view.ts';
import { merchantAuthority, type Authority } from '../authority.ts';

export async function merchantAccountView(ctx: ViewContext) {
  const account = ctx.account;
  if (!account) return heading('Account');
  const { user, merchant } = account;
  let authority: Authority;
  try {
    authority = await merchantAuthority(ctx.api);
  } catch (err) {
    return [heading('Account'), errorBox(err)];
  }
  const current = h('input', { type: 'password', required: true, autocomplete: 'current-password' }) as HTMLInputElement;
  const next = h('input', {
    type: 'password',
    required: true,
    autocomplete: 'new-password',
    minlength: '10',
    maxlength: '200',
  }) as HTMLInputElement;
  const message = formMessage('password-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Change the password') as HTMLButtonElement;
  const everywhere = formMessage('everywhere-message');
  const standing = merchant.standing;
  return [
    heading('Account'),
    h(
      'dl',
      { class: 'facts' },
      h('div', null, h('dt', null, 'Merchant'), h('dd', null, merchant.name)),
      h('div', null, h('dt', null, authority.taxpayerId.label), h('dd', null, merchant.tpin)),
      h('div', null, h('dt', null, 'Tax authority'), h('dd', null, authority.name)),
      h('div', null, h('dt', null, 'Origin'), h('dd', null, merchant.origin === 'self' ? 'Signed up here' : 'Provisioned by a partner')),
      h(
        'div',
        null,
        h('dt', null, 'Account'),
        h('dd', null, merchant.status === 'active' ? 'Active' : 'Suspended', ' · subscription ', merchant.subscription),
      ),
      h(
        'div',
        null,
        h('dt', null, 'Filing'),
        h('dd', null, !standing || standing.canFile ? 'Allowed' : `Stopped: ${standing.reason ?? ''}`),
      ),
      h('div', null, h('dt', null, 'You'), h('dd', null, `${user.email} (${user.role})`)),
    ),
    h(
      'form',
      {
        class: 'card wide',
        'aria-labelledby': 'password-title',
        onsubmit: async (e: Event) => {
          e.preventDefault();
          submit.disabled = true;
          try {
            const answer = await ctx.api.postJson<{ data: { revokedSessions: number } }>('/api/v1/account/password', {
              currentPassword: current.value,
              newPassword: next.value,
            });
            current.value = '';
            next.value = '';
            message.ok(
              `Password changed. ${answer.data.revokedSessions} other session${answer.data.revokedSessions === 1 ? '' : 's'} signed out.`,
            );
          } catch (err) {
            message.error(err);
          } finally {
            submit.disabled = false;
          }
        },
      },
      h('h2', { id: 'password-title' }, 'Change your password'),
      h('p', { class: 'muted' }, 'Your other sessions (other browsers, other devices) end; this one stays.'),
      h('input', {
        type: 'text',
        name: 'username',
        autocomplete: 'username',
        value: user.email,
        hidden: true,
        'aria-hidden': 'true',
        tabindex: -1,
        'aria-label': 'Email',
      }),
      field('current-password', 'Current password', current),
      field('new-password', 'New password', next, 'At least 10 characters.'),
      message.element,
      submit,
    ),
    h(
      'section',
      { class: 'card wide', 'aria-labelledby': 'everywhere-title' },
      h('h2', { id: 'everywhere-title' }, 'Sign out everywhere'),
      h(
        'p',
        { class: 'muted' },
        'Ends every session of your account, this one included: use it after losing a phone or signing in on a shared computer.',
      ),
      everywhere.element,
      confirmAction('Sign out everywhere', 'End every session of your account, this one too?', 'Yes, sign out everywhere', async () => {
        try {
          await ctx.api.post('/api/v1/account/signout-everywhere');
          location.reload();
        } catch (err) {
          everywhere.error(err);
        }
      }),
    ),
  ];
}
