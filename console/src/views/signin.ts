// Sign in with a partner secret key or the operator token. The secret is checked against the
// API, then kept for this tab only.
import { Api, ApiProblem, type Role, type Session } from '../api.ts';
import { h } from '../dom.ts';

const CHECKS: Record<Role, string> = {
  partner: '/api/v1/partner/backlog?page=1',
  operator: '/admin/v1/partners',
};

async function check(session: Session): Promise<string | undefined> {
  try {
    await new Api(session).get(CHECKS[session.role]);
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiProblem)) return 'The key could not be checked.';
    // A partner key without tenants:read may still read webhooks: let it in.
    if (err.status === 403 && session.role === 'partner') return undefined;
    if (err.status === 404 && session.role === 'operator') return 'The operator API is not enabled on this gateway (ADMIN_TOKEN is not set).';
    return err.message;
  }
}

export function signInView(onSignedIn: (session: Session) => void): HTMLElement {
  let role: Role = 'partner';
  const secretLabel = h('label', { for: 'secret' }, 'Partner secret key');
  const hint = h('p', { id: 'secret-hint', class: 'muted' }, 'sk_live_… or sk_test_…. Kept in this tab only and sent only to this gateway.');
  const secret = h('input', { id: 'secret', name: 'secret', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'secret-hint' }) as HTMLInputElement;
  const error = h('p', { id: 'signin-error', class: 'error-text', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in') as HTMLButtonElement;
  const choose = (next: Role) => {
    role = next;
    secretLabel.textContent = next === 'partner' ? 'Partner secret key' : 'Operator token';
    hint.textContent = next === 'partner' ? 'sk_live_… or sk_test_…. Kept in this tab only and sent only to this gateway.' : 'The gateway\'s ADMIN_TOKEN. Kept in this tab only.';
  };
  const radio = (value: Role, label: string) =>
    h('label', { class: 'radio' }, h('input', { type: 'radio', name: 'role', value, checked: value === role, onchange: () => choose(value) }), ` ${label}`);

  const form = h(
    'form',
    {
      class: 'signin card',
      'aria-labelledby': 'signin-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        error.textContent = '';
        const session = { role, secret: secret.value.trim() };
        if (!session.secret) {
          error.textContent = 'Enter a key.';
          secret.focus();
          return;
        }
        submit.disabled = true;
        submit.textContent = 'Checking…';
        const problem = await check(session);
        submit.disabled = false;
        submit.textContent = 'Sign in';
        if (problem) {
          error.textContent = problem;
          secret.setAttribute('aria-invalid', 'true');
          secret.focus();
          return;
        }
        secret.value = '';
        onSignedIn(session);
      },
    },
    h('h1', { id: 'signin-title', tabindex: -1 }, 'Sign in to the console'),
    h('fieldset', null, h('legend', null, 'I am'), radio('partner', 'a partner (POS vendor or integrator)'), radio('operator', 'the gateway operator')),
    h('div', { class: 'field' }, secretLabel, secret, hint),
    error,
    submit,
  );
  return h('main', { id: 'main', class: 'signin-page' }, form);
}
