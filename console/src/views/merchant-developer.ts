// The developer screen: tenant tokens (for the merchant API) and fiscalisation keys (pk_, for the
// legacy VSDC-shaped API). Each is shown in plaintext once, when made, with a copy button, and stays
// on screen (across re-renders and visits to other views) until the person says they have copied
// it; a new token comes with a ready curl that fiscalises a sale with it. The lists show masked
// values and last use; revoking takes effect on the next request.
import { badge, dateTime, h, table } from '../dom.ts';
import type { FiscalisationKey, TenantToken } from '../types.ts';
import { canWrite, confirmAction, errorBox, field, formMessage, heading, type ViewContext } from '../view.ts';
import { branchesOf, branchLabel, type Branch } from './merchant-common.ts';

const ABILITIES: Array<[string, string]> = [
  ['invoices:read', 'invoices:read — read documents, receipts, reports'],
  ['invoices:write', 'invoices:write — fiscalise sales and notes'],
];

/** A sale the authority's catalogue classifies (the same one the development start prints). */
const FIRST_SALE = { items: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 2, price: 185 }] };

interface Reveal {
  kind: 'token' | 'key';
  secret: string;
  /** A token's abilities: its curl fiscalises a sale only with invoices:write. */
  abilities: string[];
  /** The user who made it: another user signing in on this tab never sees it. */
  userId: number | undefined;
}
/** The plaintext of what was just created, kept until the person dismisses it. */
let reveal: Reveal | undefined;

async function copy(text: string, select: () => void): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (a page not served securely): select it for Ctrl+C.
    select();
    return document.execCommand?.('copy') ?? false;
  }
}

/** A copy button for `text`, with its status line (what happened, also announced). */
function copyButton(
  ctx: ViewContext,
  text: string,
  select: () => void,
  label = 'Copy',
): { button: HTMLButtonElement; status: HTMLElement } {
  const status = h('span', { class: 'muted', 'aria-live': 'polite' });
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        status.textContent = (await copy(text, select)) ? 'Copied.' : 'Select the text and copy it.';
        ctx.announce(status.textContent);
      },
    },
    label,
  );
  return { button, status };
}

/** The branch a request without X-Branch acts on (the headquarters, 000 or KRA's 00, else the only one): the curl names another when that one cannot fiscalise. */
function branchHeaderFor(branches: Branch[]): string | undefined {
  const byDefault = branches.find((b) => b.branch === '000' || b.branch === '00') ?? (branches.length === 1 ? branches[0] : undefined);
  if (byDefault?.initialized) return undefined;
  return branches.find((b) => b.initialized)?.branch;
}

/** The curl that tries a new token: a sale with invoices:write, else the documents list. */
function firstCallCurl(origin: string, token: string, abilities: string[], branches: Branch[]): string {
  const branch = branchHeaderFor(branches);
  const lines = abilities.includes('invoices:write')
    ? [
        `curl -sS -X POST '${origin}/api/v1/sales' \\`,
        `  -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' \\`,
        ...(branch ? [`  -H 'X-Branch: ${branch}' \\`] : []),
        `  -d '${JSON.stringify(FIRST_SALE)}'`,
      ]
    : [
        `curl -sS '${origin}/api/v1/sales' \\`,
        ...(branch ? [`  -H 'X-Branch: ${branch}' \\`] : []),
        `  -H 'Authorization: Bearer ${token}'`,
      ];
  return lines.join('\n');
}

/** The plaintext until dismissed: a read-only field, a copy button, the warning; for a token, a curl to try it. */
function revealed(ctx: ViewContext, shown: Reveal, branches: Branch[]): HTMLElement {
  const { kind, secret } = shown;
  const input = h('input', {
    type: 'text',
    readonly: true,
    value: secret,
    id: `new-${kind}-value`,
    class: 'mono secret',
    'data-testid': `new-${kind}`,
    spellcheck: 'false',
    autocomplete: 'off',
  }) as HTMLInputElement;
  const copySecret = copyButton(ctx, secret, () => input.select());
  const done = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        reveal = undefined;
        ctx.announce(`The new ${kind} is hidden now.`);
        ctx.refresh();
      },
    },
    'I have copied it',
  );
  // Once on the page, bring it into view and put the keyboard on Copy.
  requestAnimationFrame(() => {
    if (copySecret.button.isConnected) copySecret.button.focus();
  });
  let tryIt: HTMLElement | null = null;
  if (kind === 'token') {
    const curl = firstCallCurl(location.origin, secret, shown.abilities, branches);
    const block = h(
      'pre',
      { class: 'code-block', 'data-testid': 'first-call-curl', tabindex: 0, 'aria-label': 'A curl command that tries the new token' },
      h('code', null, curl),
    );
    const copyCurl = copyButton(ctx, curl, () => window.getSelection()?.selectAllChildren(block), 'Copy the command');
    tryIt = h(
      'div',
      { class: 'try-it' },
      h(
        'p',
        null,
        h('strong', null, 'Try it: '),
        shown.abilities.includes('invoices:write')
          ? 'this fiscalises a sale (2 × Maize meal 25kg at 185.00) from your shell; it then shows under Documents.'
          : 'this lists your documents from your shell.',
        ' Every field and answer is in the ',
        h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API reference'),
        '.',
      ),
      block,
      h('div', { class: 'copy-row' }, copyCurl.button, copyCurl.status),
    );
  }
  return h(
    'div',
    { class: 'notice notice-ok revealed', role: 'status', 'data-testid': `revealed-${kind}` },
    h(
      'p',
      null,
      h('strong', null, `Your new ${kind}. Copy it now: once you hide it, you will not see it again.`),
      " Keep it in your till's settings or a secret store; anyone who has it can act as your merchant.",
    ),
    h(
      'div',
      { class: 'copy-row' },
      h('label', { for: input.id, class: 'visually-hidden' }, `New ${kind}`),
      input,
      copySecret.button,
      copySecret.status,
    ),
    tryIt,
    h('p', null, done),
  );
}

/** Training mode: every document the credential issues is a training document (never a tax invoice). */
function trainingBox(id: string): { box: HTMLInputElement; label: HTMLElement } {
  const box = h('input', { type: 'checkbox', id }) as HTMLInputElement;
  return {
    box,
    label: h(
      'label',
      { class: 'checkbox', for: id },
      box,
      ' Training mode: every document it issues is a training document, filed as such and never a tax invoice (for cashiers learning the till)',
    ),
  };
}

function tokenSection(
  ctx: ViewContext,
  tokens: TenantToken[],
  writer: boolean,
  branches: Branch[],
  message: ReturnType<typeof formMessage>,
  shown: Reveal | undefined,
): HTMLElement {
  const rows = tokens.map((t) => [
    t.training ? h('span', null, t.name, ' ', badge('Training', 'warn')) : t.name,
    h('span', { class: 'mono' }, t.masked),
    t.abilities.join(', '),
    dateTime(t.createdAt),
    t.lastUsedAt ? dateTime(t.lastUsedAt) : h('small', { class: 'muted' }, 'Never'),
    ...(writer
      ? [
          confirmAction(
            `Revoke token ${t.name}`,
            `Revoke “${t.name}”? Calls with it fail from the next request on.`,
            'Yes, revoke',
            async () => {
              try {
                await ctx.api.delete(`/api/v1/account/tokens/${t.id}`);
                ctx.announce(`Token ${t.name} revoked.`);
                ctx.refresh();
              } catch (err) {
                message.error(err);
              }
            },
          ),
        ]
      : []),
  ]);
  const section = h(
    'section',
    { 'aria-labelledby': 'tokens-title' },
    h('h2', { id: 'tokens-title' }, 'API tokens'),
    h(
      'p',
      { class: 'muted' },
      'For your tills and systems calling the merchant API (',
      h('code', null, 'Authorization: Bearer tt_…'),
      '): fiscalise sales, read documents and receipts.',
    ),
    table('API tokens', ['Name', 'Token', 'Abilities', 'Created', 'Last used', ...(writer ? ['Revoke'] : [])], rows, {
      empty: 'No token yet.',
    }),
  );
  if (!writer) return section;
  const name = h('input', {
    type: 'text',
    required: true,
    maxlength: '60',
    autocomplete: 'off',
    placeholder: 'Till 2',
  }) as HTMLInputElement;
  const boxes = ABILITIES.map(([value, label]) => {
    const box = h('input', { type: 'checkbox', value, checked: true, id: `ability-${value.replace(':', '-')}` }) as HTMLInputElement;
    return { box, label: h('label', { class: 'checkbox', for: box.id }, box, ` ${label}`) };
  });
  const tokenTraining = trainingBox('token-training');
  const formMsg = formMessage('token-message');
  const result = h('div', null, shown?.kind === 'token' ? revealed(ctx, shown, branches) : null);
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create the token') as HTMLButtonElement;
  section.append(
    h(
      'form',
      {
        class: 'card wide',
        'aria-labelledby': 'new-token-title',
        onsubmit: async (e: Event) => {
          e.preventDefault();
          const abilities = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
          if (abilities.length === 0) {
            formMsg.error('Choose at least one ability.');
            return;
          }
          submit.disabled = true;
          try {
            const created = await ctx.api.postJson<{ data: TenantToken & { token: string } }>('/api/v1/account/tokens', {
              name: name.value.trim(),
              abilities,
              training: tokenTraining.box.checked,
            });
            reveal = { kind: 'token', secret: created.data.token, abilities: created.data.abilities, userId: ctx.account?.user.id };
            ctx.announce(`Token ${created.data.name} created. Copy it now: you will not see it again.`);
            ctx.refresh();
          } catch (err) {
            formMsg.error(err);
          } finally {
            submit.disabled = false;
          }
        },
      },
      h('h3', { id: 'new-token-title' }, 'Create a token'),
      field('token-name', 'Name', name, 'Where it will be used, e.g. “Till 2” or “Online shop”.'),
      h(
        'fieldset',
        { class: 'plain' },
        h('legend', null, 'Abilities'),
        boxes.map((b) => b.label),
      ),
      tokenTraining.label,
      formMsg.element,
      submit,
      result,
    ),
  );
  return section;
}

function keySection(
  ctx: ViewContext,
  keys: FiscalisationKey[],
  writer: boolean,
  branches: Branch[],
  message: ReturnType<typeof formMessage>,
  shown: Reveal | undefined,
): HTMLElement {
  const rows = keys.map((k) => [
    k.training
      ? h('span', null, h('span', { class: 'mono' }, k.masked), ' ', badge('Training', 'warn'))
      : h('span', { class: 'mono' }, k.masked),
    k.branch ?? 'Any branch',
    k.dialect,
    dateTime(k.createdAt),
    k.lastUsedAt ? dateTime(k.lastUsedAt) : h('small', { class: 'muted' }, 'Never'),
    ...(writer
      ? [
          confirmAction(
            `Revoke key ${k.masked}`,
            `Revoke ${k.masked}? Calls with it fail from the next request on.`,
            'Yes, revoke',
            async () => {
              try {
                await ctx.api.delete(`/api/v1/account/api-keys/${k.id}`);
                ctx.announce(`Key ${k.masked} revoked.`);
                ctx.refresh();
              } catch (err) {
                message.error(err);
              }
            },
          ),
        ]
      : []),
  ]);
  const section = h(
    'section',
    { 'aria-labelledby': 'keys-title' },
    h('h2', { id: 'keys-title' }, 'Fiscalisation keys'),
    h(
      'p',
      { class: 'muted' },
      'For tills written for a VSDC (the legacy ',
      h('code', null, '/zm/api'),
      ' calls): a key for one branch, or for the merchant. Dialect ',
      h('code', null, 'bare'),
      ' or ',
      h('code', null, 'wrapped'),
      ' as your till expects.',
    ),
    table('Fiscalisation keys', ['Key', 'Branch', 'Dialect', 'Created', 'Last used', ...(writer ? ['Revoke'] : [])], rows, {
      empty: 'No key yet.',
    }),
  );
  if (!writer) return section;
  const branch = h(
    'select',
    null,
    h('option', { value: '' }, 'Any branch (merchant key)'),
    branches.map((b) => h('option', { value: b.branch }, branchLabel(b))),
  ) as HTMLSelectElement;
  const dialect = h(
    'select',
    null,
    h('option', { value: 'bare' }, 'bare'),
    h('option', { value: 'wrapped' }, 'wrapped'),
  ) as HTMLSelectElement;
  const keyTraining = trainingBox('key-training');
  const formMsg = formMessage('key-message');
  const result = h('div', null, shown?.kind === 'key' ? revealed(ctx, shown, branches) : null);
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create the key') as HTMLButtonElement;
  section.append(
    h(
      'form',
      {
        class: 'card wide',
        'aria-labelledby': 'new-key-title',
        onsubmit: async (e: Event) => {
          e.preventDefault();
          submit.disabled = true;
          try {
            const created = await ctx.api.postJson<{ data: FiscalisationKey & { key: string } }>('/api/v1/account/api-keys', {
              branch: branch.value || null,
              dialect: dialect.value,
              training: keyTraining.box.checked,
            });
            reveal = { kind: 'key', secret: created.data.key, abilities: [], userId: ctx.account?.user.id };
            ctx.announce(`Key ${created.data.masked} created. Copy it now: you will not see it again.`);
            ctx.refresh();
          } catch (err) {
            formMsg.error(err);
          } finally {
            submit.disabled = false;
          }
        },
      },
      h('h3', { id: 'new-key-title' }, 'Create a key'),
      field('key-branch', 'Branch', branch),
      field('key-dialect', 'Dialect', dialect),
      keyTraining.label,
      formMsg.element,
      submit,
      result,
    ),
  );
  return section;
}

export async function developerView(ctx: ViewContext) {
  const writer = canWrite(ctx);
  const head = heading('Developer');
  let tokens: TenantToken[];
  let keys: FiscalisationKey[];
  try {
    [tokens, keys] = await Promise.all([
      ctx.api.get<{ data: TenantToken[] }>('/api/v1/account/tokens').then((r) => r.data),
      ctx.api.get<{ data: FiscalisationKey[] }>('/api/v1/account/api-keys').then((r) => r.data),
    ]);
  } catch (err) {
    return [head, errorBox(err)];
  }
  const branches = writer ? await branchesOf(ctx.api) : [];
  const message = formMessage('developer-message');
  // Shown until dismissed ("I have copied it"), to the user who made it only.
  const shown = writer && reveal?.userId === ctx.account?.user.id ? reveal : undefined;
  return [
    head,
    writer
      ? null
      : h(
          'p',
          { class: 'notice notice-warn' },
          'You are a viewer: you see the tokens and keys, and an owner or admin creates and revokes them.',
        ),
    message.element,
    tokenSection(ctx, tokens, writer, branches, message, shown),
    keySection(ctx, keys, writer, branches, message, shown),
  ];
}
