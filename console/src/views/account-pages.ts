// The pages a person reaches before signing in: create an account, forgot password, and the three
// pages the mailed links open (/console/account/verify, /reset-password, /accept-invitation), whose
// one-time token is in the URL's fragment (#token=…): never sent to a server in a request line.
import { ApiProblem, publicRequest } from '../api.ts';
import { h } from '../dom.ts';
import type { OutboxMail } from '../types.ts';
import { field, formMessage, problemMessage, productName } from '../view.ts';

const SIGN_IN_HREF = '/console/#/';

function page(title: string, ...content: Parameters<typeof h>[2][]): HTMLElement {
  return h(
    'main',
    { id: 'main', class: 'signin-page' },
    h('div', { class: 'card account-card' }, productName(), h('h1', { id: 'signin-title', tabindex: -1 }, title), ...content),
  );
}

function input(attributes: Record<string, string | boolean>): HTMLInputElement {
  return h('input', attributes) as HTMLInputElement;
}

function linkMessage(err: unknown, what: string): string {
  if (err instanceof ApiProblem && err.code === 'link_invalid')
    return `This ${what} link is unknown, already used or expired. Links work once and for a limited time; ask for a new one${what === 'confirmation' ? ' below' : ''}.`;
  return problemMessage(err);
}

/** In development without SMTP_URL the gateway keeps its mails in an outbox: show the link from it. */
export async function developmentLink(email: string, kind: string, since = Date.now() - 5_000): Promise<HTMLElement | null> {
  try {
    let mail: OutboxMail | undefined;
    // The gateway sends a mail after its answer: give it a moment to reach the outbox.
    for (let attempt = 0; attempt < 10 && !mail; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 300));
      const outbox = await publicRequest<{ data: OutboxMail[] }>('GET', '/api/v1/dev/outbox');
      const matching = outbox.data.filter(
        (m) => m.to.toLowerCase() === email.toLowerCase() && m.link !== null && m.link.includes(kind) && Date.parse(m.sentAt) >= since,
      );
      mail = matching.sort((a, b) => Date.parse(b.sentAt) - Date.parse(a.sentAt))[0]; // the newest: asking again voids older links
    }
    if (!mail?.link) return null;
    return h(
      'div',
      { class: 'notice notice-dev' },
      h('strong', null, 'Development gateway: '),
      'mails are not sent (no SMTP_URL), so here is the link from the outbox: ',
      h('a', { href: mail.link, 'data-testid': 'outbox-link' }, mail.subject),
    );
  } catch {
    return null; // production, or an operator token guards the outbox
  }
}

/** The token after #token= of the current URL. */
function tokenFromUrl(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  return match ? decodeURIComponent(match[1]!) : null;
}

/** Takes the token out of the address bar (and the history) once read. */
function forgetToken(): void {
  history.replaceState(null, '', location.pathname);
}

function passwordInput(id: string, autocomplete: string): HTMLInputElement {
  return input({ id, name: id, type: 'password', autocomplete, required: true, minlength: '10', maxlength: '200' });
}

/**
 * The authorities a merchant may sign up with and the form of each one's taxpayer id. Before
 * sign-in there is no merchant whose authority the server could describe (GET
 * /api/v1/account/authority needs a session), so the choice is written here; the server checks
 * the id against the chosen authority's form all the same.
 */
const SIGN_UP_AUTHORITIES = [
  {
    value: 'zra',
    label: 'Zambia — ZRA (Smart Invoice)',
    idLabel: 'TPIN',
    pattern: '[0-9]{10}',
    maxlength: 10,
    inputmode: 'numeric',
    hint: '10 digits.',
  },
  {
    value: 'kra',
    label: 'Kenya — KRA (eTIMS)',
    idLabel: 'KRA PIN',
    pattern: '[A-Za-z][0-9]{9}[A-Za-z]',
    maxlength: 11,
    inputmode: 'text',
    hint: 'A letter, 9 digits and a letter, e.g. P051234567X.',
  },
] as const;
type SignUpAuthority = (typeof SIGN_UP_AUTHORITIES)[number];

/** The taxpayer id's input, whose label, hint and form follow the chosen authority. */
function taxpayerIdField(): { element: HTMLElement; input: HTMLInputElement; follow(authority: SignUpAuthority): void } {
  const id = 'tpin';
  const tpin = input({ id, type: 'text', name: 'tpin', required: true, autocomplete: 'off', 'aria-describedby': `${id}-hint` });
  const label = h('label', { for: id });
  const hint = h('small', { id: `${id}-hint`, class: 'muted' });
  let current: SignUpAuthority = SIGN_UP_AUTHORITIES[0];
  tpin.addEventListener('invalid', () =>
    tpin.setCustomValidity(tpin.validity.patternMismatch ? `${current.idLabel}: ${current.hint}` : ''),
  );
  tpin.addEventListener('input', () => tpin.setCustomValidity(''));
  const follow = (authority: SignUpAuthority) => {
    current = authority;
    label.textContent = authority.idLabel;
    hint.textContent = authority.hint;
    tpin.pattern = authority.pattern;
    tpin.maxLength = authority.maxlength;
    tpin.inputMode = authority.inputmode;
    tpin.setCustomValidity('');
  };
  follow(current);
  return { element: h('div', { class: 'field' }, label, tpin, hint), input: tpin, follow };
}

export function signUpView(): HTMLElement {
  const name = input({ type: 'text', name: 'merchantName', autocomplete: 'organization', required: true, maxlength: '200' });
  const taxpayerId = taxpayerIdField();
  const authority = h(
    'select',
    { name: 'authority', onchange: () => taxpayerId.follow(chosenAuthority()) },
    SIGN_UP_AUTHORITIES.map((a) => h('option', { value: a.value }, a.label)),
  ) as HTMLSelectElement;
  const chosenAuthority = () => SIGN_UP_AUTHORITIES.find((a) => a.value === authority.value) ?? SIGN_UP_AUTHORITIES[0];
  const email = input({ name: 'email', type: 'email', autocomplete: 'email', required: true });
  const password = passwordInput('signup-password', 'new-password');
  const message = formMessage('signup-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create the account') as HTMLButtonElement;
  const container = page(
    'Create an account',
    h(
      'p',
      { class: 'muted' },
      'For a merchant that files its own documents. We mail a link to confirm your address; you can sign in once you open it.',
    ),
  );
  const form = h(
    'form',
    {
      class: 'stack-form',
      'aria-labelledby': 'signin-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        message.clear();
        submit.disabled = true;
        const since = Date.now() - 5_000;
        try {
          await publicRequest('POST', '/api/v1/account/signup', {
            merchantName: name.value.trim(),
            authority: chosenAuthority().value,
            tpin: taxpayerId.input.value.trim().toUpperCase(),
            email: email.value.trim(),
            password: password.value,
          });
          const address = email.value.trim();
          const done = page(
            'Check your email',
            h(
              'p',
              { role: 'status' },
              'We sent a link to ',
              h('strong', null, address),
              ' to confirm the address. Open it, then sign in. The link works once, for 24 hours.',
            ),
            h('p', null, h('a', { href: SIGN_IN_HREF }, 'Back to sign in')),
          );
          container.replaceWith(done);
          done.querySelector<HTMLElement>('h1')?.focus();
          const dev = await developmentLink(address, '/account/', since);
          if (dev) done.querySelector('.card')?.append(dev);
        } catch (err) {
          message.error(err);
        } finally {
          submit.disabled = false;
        }
      },
    },
    field('merchant-name', 'Merchant name', name, 'As registered with the tax authority.'),
    field('signup-authority', 'Tax authority', authority, 'Where the merchant files its invoices; it cannot change later.'),
    taxpayerId.element,
    field('signup-email', 'Email', email),
    field('signup-password', 'Password', password, 'At least 10 characters. A few unrelated words make a good one.'),
    message.element,
    submit,
    h('p', { class: 'account-links' }, h('a', { href: SIGN_IN_HREF }, 'I have an account: sign in')),
  );
  container.querySelector('.card')!.append(form);
  return container;
}

export function forgotPasswordView(): HTMLElement {
  const email = input({ name: 'email', type: 'email', autocomplete: 'email', required: true });
  const message = formMessage('forgot-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Mail me a reset link') as HTMLButtonElement;
  const form = h(
    'form',
    {
      class: 'stack-form',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        const since = Date.now() - 5_000;
        try {
          await publicRequest('POST', '/api/v1/account/password-reset', { email: email.value.trim() });
          message.ok('If the address has an account, a link to choose a new password is on its way. It works once, for 1 hour.');
          const dev = await developmentLink(email.value.trim(), 'reset-password', since);
          if (dev) form.append(dev);
        } catch (err) {
          message.error(err);
        } finally {
          submit.disabled = false;
        }
      },
    },
    field('forgot-email', 'Email', email),
    message.element,
    submit,
    h('p', { class: 'account-links' }, h('a', { href: SIGN_IN_HREF }, 'Back to sign in')),
  );
  return page('Forgot your password?', h('p', { class: 'muted' }, 'We mail a link to choose a new one.'), form);
}

/** Asks for a new verification link: the same answer whatever the address. */
function resendVerificationForm(): HTMLElement {
  const email = input({ name: 'email', type: 'email', autocomplete: 'email', required: true });
  const message = formMessage('resend-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Mail me a new link') as HTMLButtonElement;
  const form = h(
    'form',
    {
      class: 'stack-form',
      'aria-labelledby': 'resend-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        const since = Date.now() - 5_000;
        try {
          await publicRequest('POST', '/api/v1/account/verify/resend', { email: email.value.trim() });
          message.ok(
            'If the address has an account waiting for confirmation, a new link is on its way: it works once, for 24 hours, and replaces the earlier ones. If the address is confirmed already, sign in.',
          );
          const dev = await developmentLink(email.value.trim(), '/account/verify', since);
          if (dev) form.append(dev);
        } catch (err) {
          message.error(err);
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'resend-title' }, 'Get a new link'),
    field('resend-email', 'Email', email, 'The address you signed up with.'),
    message.element,
    submit,
    h('p', { class: 'account-links' }, h('a', { href: SIGN_IN_HREF }, 'Back to sign in')),
  );
  return form;
}

/** /console/account/verify#token=…: confirms the address at once; without a link that works, offers a new one. */
function verifyEmailView(): HTMLElement {
  const token = tokenFromUrl();
  forgetToken();
  const status = h('p', { role: 'status' }, 'Confirming your email address…');
  const container = page('Confirm your email', status);
  const card = container.querySelector('.card')!;
  if (!token) {
    status.replaceWith(
      h(
        'p',
        { role: 'status' },
        'Open the link from the mail we sent you, in full. Lost the mail, or did the link expire? We mail you a new one.',
      ),
    );
    card.append(resendVerificationForm());
    return container;
  }
  void publicRequest<{ alreadyVerified: boolean }>('POST', '/api/v1/account/verify', { token })
    .then((answer) =>
      status.replaceWith(
        answer.alreadyVerified
          ? h(
              'p',
              { role: 'status', class: 'ok-text' },
              'Your email address is already confirmed — ',
              h('a', { href: SIGN_IN_HREF }, 'sign in'),
              '.',
            )
          : h('p', { role: 'status', class: 'ok-text' }, 'Your email address is confirmed. ', h('a', { href: SIGN_IN_HREF }, 'Sign in')),
      ),
    )
    .catch((err: unknown) => {
      status.replaceWith(h('p', { role: 'alert', class: 'error-text' }, linkMessage(err, 'confirmation')));
      if (err instanceof ApiProblem && err.code === 'link_invalid') card.append(resendVerificationForm());
      else card.append(h('p', { class: 'account-links' }, h('a', { href: SIGN_IN_HREF }, 'Sign in')));
    });
  return container;
}

function choosePasswordPage(
  title: string,
  intro: string,
  what: string,
  submitLabel: string,
  send: (token: string, password: string) => Promise<unknown>,
  done: string,
): HTMLElement {
  const token = tokenFromUrl();
  forgetToken();
  if (!token) return page(title, h('p', { class: 'error-text', role: 'alert' }, 'This page needs the link from the mail, in full.'));
  const password = passwordInput('new-password', 'new-password');
  const again = passwordInput('new-password-again', 'new-password');
  const message = formMessage('password-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, submitLabel) as HTMLButtonElement;
  const form = h(
    'form',
    {
      class: 'stack-form',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        if (password.value !== again.value) {
          message.error('The two passwords differ.');
          again.focus();
          return;
        }
        submit.disabled = true;
        try {
          await send(token, password.value);
          form.replaceWith(h('p', { role: 'status', class: 'ok-text' }, done, ' ', h('a', { href: SIGN_IN_HREF }, 'Sign in')));
        } catch (err) {
          message.error(linkMessage(err, what));
        } finally {
          submit.disabled = false;
        }
      },
    },
    field('new-password', 'New password', password, 'At least 10 characters.'),
    field('new-password-again', 'The same again', again),
    message.element,
    submit,
  );
  return page(title, h('p', { class: 'muted' }, intro), form);
}

function resetPasswordView(): HTMLElement {
  return choosePasswordPage(
    'Choose a new password',
    'Every session of your account ends: sign in again afterwards.',
    'password reset',
    'Set the password',
    (token, newPassword) => publicRequest('POST', '/api/v1/account/password-reset/confirm', { token, newPassword }),
    'Your password is set.',
  );
}

function acceptInvitationView(): HTMLElement {
  return choosePasswordPage(
    'Accept the invitation',
    'Choose a password for your account. Your email address counts as confirmed.',
    'invitation',
    'Create my account',
    (token, password) => publicRequest('POST', '/api/v1/account/invitations/accept', { token, password }),
    'Your account is ready.',
  );
}

/** Which link page a path is, if any. */
export function accountPage(pathname: string): (() => HTMLElement) | undefined {
  const path = pathname.replace(/\/+$/, '');
  if (path.endsWith('/console/account/verify')) return verifyEmailView;
  if (path.endsWith('/console/account/reset-password')) return resetPasswordView;
  if (path.endsWith('/console/account/accept-invitation')) return acceptInvitationView;
  return undefined;
}
