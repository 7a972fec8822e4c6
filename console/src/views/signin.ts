// Sign in: a merchant's people with email and password (the gateway sets its session cookie), a
// partner with a secret key, the operator with its token. Keys are checked against the API, then
// kept for this tab only.
import { Api, ApiProblem, publicRequest, type Role, type Session } from '../api.ts';
import { h } from '../dom.ts';
import type { AccountSession } from '../types.ts';
import { productName } from '../view.ts';
import { kindOf, PREFIXES } from '../../../src/credentials/secret-prefixes.ts';

const CHECKS: Record<'partner' | 'operator', string> = {
  partner: '/api/v1/partner/backlog?page=1',
  operator: '/admin/v1/partners',
};

async function check(session: Session & { role: 'partner' | 'operator' }): Promise<string | undefined> {
  try {
    await new Api(session).get(CHECKS[session.role]);
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiProblem)) return 'The key could not be checked.';
    // A partner key without tenants:read may still read webhooks: let it in.
    if (err.status === 403 && session.role === 'partner') return undefined;
    if (err.status === 404 && session.role === 'operator')
      return 'The operator API is not enabled on this gateway (ADMIN_TOKEN is not set).';
    return err.message;
  }
}

const PARTNER_KEY = 'partners sign in with their partner secret key (sk_live_… or sk_test_…)';
const MERCHANTS = 'Merchants sign in with their email and password (choose "a merchant" above)';

/** What a pasted secret is when it cannot open this role's console, and how to sign in instead. */
function wrongCredential(role: 'partner' | 'operator', secret: string): string | undefined {
  const kind = kindOf(secret)?.kind;
  if (kind === 'tenant_token')
    return `This is a tenant token (${PREFIXES.tenantToken}…): a merchant's key for the API, not for the console. ${MERCHANTS}; ${PARTNER_KEY}.`;
  if (kind === 'fiscalisation_key')
    return `This is a fiscalisation key (${PREFIXES.fiscalisationKey}…): a till's key for /zm/api, not for the console. ${MERCHANTS}; ${PARTNER_KEY}.`;
  if (secret.startsWith(PREFIXES.webhookSecret))
    return `This is a webhook signing secret (${PREFIXES.webhookSecret}…): your receiver checks deliveries with it; it does not open the console. Partners sign in with their partner secret key (sk_live_… or sk_test_…).`;
  if (kind === 'partner_key' && role === 'operator')
    return 'This is a partner secret key: choose "a partner" above to sign in with it. The operator signs in with the gateway\'s ADMIN_TOKEN.';
  return undefined;
}

function signInMessage(err: unknown): Array<string | HTMLElement> {
  if (!(err instanceof ApiProblem)) return ['Signing in failed.'];
  if (err.code === 'email_not_verified') {
    return [
      'Confirm your email address first: open the link in the mail we sent when you signed up. Lost it, or did it expire? ',
      h('a', { href: '/console/account/verify' }, 'Mail me a new link'),
      '.',
    ];
  }
  return [err.message];
}

export interface SignedIn {
  session: Session;
  account?: AccountSession;
}

export function signInView(onSignedIn: (signedIn: SignedIn) => void, notice?: string): HTMLElement {
  let role: Role = 'merchant';
  const error = h('p', { id: 'signin-error', class: 'error-text', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in') as HTMLButtonElement;

  // The merchant's fields.
  const email = h('input', {
    id: 'email',
    name: 'email',
    type: 'email',
    autocomplete: 'username',
    required: true,
    spellcheck: 'false',
  }) as HTMLInputElement;
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  }) as HTMLInputElement;
  const merchantFields = h(
    'div',
    { class: 'merchant-fields' },
    h('div', { class: 'field' }, h('label', { for: 'email' }, 'Email'), email),
    h('div', { class: 'field' }, h('label', { for: 'password' }, 'Password'), password),
  );
  // The partner's and the operator's.
  const secretLabel = h('label', { for: 'secret' }, 'Partner secret key');
  const hint = h(
    'p',
    { id: 'secret-hint', class: 'muted' },
    'sk_live_… or sk_test_…. Kept in this tab only and sent only to this gateway.',
  );
  const secret = h('input', {
    id: 'secret',
    name: 'secret',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'secret-hint',
  }) as HTMLInputElement;
  const secretFields = h('div', { class: 'field', hidden: true }, secretLabel, secret, hint);
  const links = h(
    'p',
    { class: 'account-links' },
    h('a', { href: '#/signup' }, 'Create an account'),
    h('a', { href: '#/forgot-password' }, 'Forgot your password?'),
  );

  const choose = (next: Role) => {
    role = next;
    const merchant = next === 'merchant';
    merchantFields.hidden = !merchant;
    links.hidden = !merchant;
    secretFields.hidden = merchant;
    email.required = merchant;
    password.required = merchant;
    secret.required = !merchant;
    secretLabel.textContent = next === 'partner' ? 'Partner secret key' : 'Operator token';
    hint.textContent =
      next === 'partner'
        ? 'sk_live_… or sk_test_…. Kept in this tab only and sent only to this gateway.'
        : "The gateway's ADMIN_TOKEN. Kept in this tab only.";
    error.textContent = '';
  };
  const radio = (value: Role, label: string) =>
    h(
      'label',
      { class: 'radio' },
      h('input', { type: 'radio', name: 'role', value, checked: value === role, onchange: () => choose(value) }),
      ` ${label}`,
    );

  const busy = (on: boolean) => {
    submit.disabled = on;
    submit.textContent = on ? 'Checking…' : 'Sign in';
  };

  const form = h(
    'form',
    {
      class: 'signin card',
      'aria-labelledby': 'signin-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        error.textContent = '';
        if (role === 'merchant') {
          if (!email.value.trim() || !password.value) {
            error.textContent = 'Enter your email and password.';
            (email.value.trim() ? password : email).focus();
            return;
          }
          busy(true);
          try {
            const answer = await publicRequest<{ data: AccountSession }>('POST', '/api/v1/account/signin', {
              email: email.value.trim(),
              password: password.value,
            });
            password.value = '';
            onSignedIn({ session: { role: 'merchant', csrf: answer.data.csrfToken }, account: answer.data });
          } catch (err) {
            error.replaceChildren(...signInMessage(err));
            password.setAttribute('aria-invalid', 'true');
            password.focus();
          } finally {
            busy(false);
          }
          return;
        }
        const session = { role, secret: secret.value.trim() };
        if (!session.secret) {
          error.textContent = 'Enter a key.';
          secret.focus();
          return;
        }
        const wrong = wrongCredential(role, session.secret);
        busy(true);
        const problem = wrong ?? (await check(session));
        busy(false);
        if (problem) {
          error.textContent = problem;
          secret.setAttribute('aria-invalid', 'true');
          secret.focus();
          return;
        }
        secret.value = '';
        onSignedIn({ session });
      },
    },
    productName(),
    h('h1', { id: 'signin-title', tabindex: -1 }, 'Sign in to the console'),
    notice ? h('p', { class: 'notice notice-ok', role: 'status' }, notice) : null,
    h(
      'fieldset',
      null,
      h('legend', null, 'I am'),
      radio('merchant', 'a merchant (email and password)'),
      radio('partner', 'a partner (POS vendor or integrator)'),
      radio('operator', 'the gateway operator'),
    ),
    merchantFields,
    secretFields,
    error,
    submit,
    links,
  );
  return h('main', { id: 'main', class: 'signin-page' }, form);
}
