// What an empty Documents or Backlog view says: without an initialised branch nothing can be
// fiscalised, so it leads to Devices; with one, it says how the first sale gets here (a token
// under Developer, the API reference at /docs).
import { h } from '../dom.ts';
import { canWrite, type ViewContext } from '../view.ts';

/** No branch of the merchant is initialised yet (the account's standing says so: GET /api/v1/account/me). */
export function noInitialisedBranch(ctx: ViewContext): boolean {
  return ctx.account?.merchant.standing?.cause === 'no_branch';
}

const apiReference = () => h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API reference');

/** The empty state of a merchant view that lists documents: `nothing` says what is empty. */
export function firstStepsEmpty(ctx: ViewContext, nothing: string): HTMLElement {
  const writer = canWrite(ctx);
  if (noInitialisedBranch(ctx)) {
    return h(
      'div',
      { class: 'empty', 'data-testid': 'empty-no-branch' },
      h('p', null, h('strong', null, `${nothing} No branch can fiscalise yet.`)),
      h(
        'p',
        null,
        writer
          ? "Register your branch's device (its VSDC: serial and address) and initialise it with the authority under "
          : "An owner or admin of your merchant registers your branch's device (its VSDC) and initialises it under ",
        h('a', { href: '#/devices' }, 'Devices'),
        ctx.account?.merchant.origin === 'partner' ? ' (or ask your provider, who usually does it for you)' : null,
        '. Once a branch is initialised, the sales you fiscalise appear here.',
      ),
      writer ? h('p', null, h('a', { href: '#/devices', class: 'button-link' }, 'Go to Devices')) : null,
    );
  }
  return h(
    'div',
    { class: 'empty', 'data-testid': 'empty-first-sale' },
    h('p', null, h('strong', null, nothing)),
    h(
      'p',
      null,
      'To fiscalise your first sale, your till or shop system sends it to ',
      h('code', null, 'POST /api/v1/sales'),
      ' with an API token: ',
      writer ? 'create one under ' : 'an owner or admin creates one under ',
      h('a', { href: '#/developer' }, 'Developer'),
      ' (it shows a ready curl command to try), and see the ',
      apiReference(),
      ' for every field.',
    ),
  );
}
