// What every view gets, and the shared bits views are made of.
import { ApiProblem, type Api, type Page } from './api.ts';
import { h, type Child } from './dom.ts';
import type { AccountSession } from './types.ts';

export interface ViewContext {
  api: Api;
  /** The query part of the route (`#/documents?status=failed` → status=failed). */
  params: URLSearchParams;
  /**
   * Says what an action just did: in the polite live region for assistive technology, and in a
   * visible notice until dismissed or the next view (`tone` error for a failure).
   */
  announce(message: string, tone?: 'ok' | 'error'): void;
  /** Re-runs the current view (the Refresh button, timers). */
  refresh(): void;
  /** Reads the merchant's standing again, then re-runs the view: after a change that moves it (a device initialised or removed). */
  refreshStanding(): void;
  /** Registers a timer the router clears when the view is left. */
  every(ms: number, run: () => void): void;
  /** The signed-in merchant user, its merchant and standing (merchant console only). */
  account?: AccountSession;
}

export type View = (ctx: ViewContext) => Promise<Child>;

export function problemMessage(err: unknown): string {
  if (err instanceof ApiProblem) {
    if (err.code === 'role_insufficient') return `${err.message} Ask an owner or admin of your merchant.`;
    if (err.code === 'missing_scope') return `${err.message} Ask for a key with that scope to see this view.`;
    return err.message;
  }
  return 'Something went wrong while loading this view.';
}

export function errorBox(err: unknown): HTMLElement {
  return h('div', { class: 'notice notice-danger', role: 'alert' }, problemMessage(err));
}

/** The visible notice of `announce`: its message and a Dismiss button. */
export function flashNotice(message: string, tone: 'ok' | 'error', dismiss: () => void): HTMLElement {
  return h(
    'div',
    { class: `notice flash ${tone === 'ok' ? 'notice-ok' : 'notice-danger'}`, 'data-testid': 'flash' },
    h('span', null, message),
    h('button', { type: 'button', class: 'link-button', 'aria-label': 'Dismiss the notice', onclick: dismiss }, 'Dismiss'),
  );
}

export function pager(page: Page<unknown>['meta'], go: (page: number) => void): Child {
  if (page.lastPage <= 1) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', disabled: page.page <= 1, onclick: () => go(page.page - 1) }, 'Previous'),
    h('span', { 'aria-live': 'polite' }, `Page ${page.page} of ${page.lastPage} (${page.total})`),
    h('button', { type: 'button', disabled: page.page >= page.lastPage, onclick: () => go(page.page + 1) }, 'Next'),
  );
}

/** The product's name on the cards before signing in (the top bar names it after). */
export function productName(): HTMLElement {
  return h('p', { class: 'product-name' }, 'fiscal-gateway');
}

export function heading(title: string, ...extra: Child[]): HTMLElement {
  return h('div', { class: 'view-head' }, h('h1', { tabindex: -1, id: 'view-title' }, title), ...extra);
}

/** Replaces one query parameter of the current route and navigates there. */
export function setParam(name: string, value: string | undefined): void {
  const [path = '#/', search = ''] = location.hash.split('?');
  const params = new URLSearchParams(search);
  if (value === undefined || value === '') params.delete(name);
  else params.set(name, value);
  const next = params.toString();
  location.hash = next ? `${path}?${next}` : path;
}

/** Owners and admins write; viewers read. Partners and the operator are governed by their keys. */
export function canWrite(ctx: ViewContext): boolean {
  return !ctx.account || ctx.account.user.role !== 'viewer';
}

/**
 * Why the merchant cannot file now, in the API's words (its 402/403 message, from GET
 * /api/v1/account/me), or null when it can: the one text the banner and the document forms show.
 */
export function whyFilingIsStopped(account: AccountSession | undefined): string | null {
  const standing = account?.merchant.standing;
  if (!standing || standing.canFile) return null;
  return standing.reason ?? 'Your merchant cannot file documents right now.';
}

/**
 * A form field: a label over its control, with an optional hint. A control with a `pattern` that
 * its value misses says the hint (`TPIN: 10 digits.`), not the browser's "Please match the
 * requested format."
 */
export function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  control.id = id;
  if (hint) control.setAttribute('aria-describedby', `${id}-hint`);
  if (hint && control instanceof HTMLInputElement && control.pattern) {
    control.addEventListener('invalid', () => control.setCustomValidity(control.validity.patternMismatch ? `${label}: ${hint}` : ''));
    control.addEventListener('input', () => control.setCustomValidity(''));
  }
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('small', { id: `${id}-hint`, class: 'muted' }, hint) : null,
  );
}

/** A message line that forms fill after a submit: an error (role alert) or a success (status). */
export function formMessage(id: string): { element: HTMLElement; error(err: unknown): void; ok(text: string): void; clear(): void } {
  const element = h('p', { id, class: 'form-message', 'aria-live': 'polite' });
  return {
    element,
    error(err) {
      element.className = 'form-message error-text';
      element.setAttribute('role', 'alert');
      element.textContent = typeof err === 'string' ? err : problemMessage(err);
    },
    ok(text) {
      element.className = 'form-message ok-text';
      element.setAttribute('role', 'status');
      element.textContent = text;
    },
    clear() {
      element.textContent = '';
    },
  };
}

/**
 * A destructive action asked twice, inline (no browser dialog): the first click shows what will
 * happen with "Yes, …" and "Cancel"; the second runs it.
 */
export function confirmAction(label: string, question: string, confirmLabel: string, run: () => Promise<void>): HTMLElement {
  const wrap = h('span', { class: 'confirm' });
  const start: HTMLButtonElement = h('button', { type: 'button', class: 'danger', onclick: () => ask() }, label);
  const ask = () => {
    const yes: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: 'danger primary-danger',
        onclick: async () => {
          yes.disabled = true;
          try {
            await run();
          } finally {
            yes.disabled = false;
          }
        },
      },
      confirmLabel,
    );
    const no = h(
      'button',
      {
        type: 'button',
        onclick: () => {
          wrap.replaceChildren(start);
          start.focus();
        },
      },
      'Cancel',
    );
    wrap.replaceChildren(h('span', { class: 'confirm-question', role: 'alert' }, question), yes, no);
    yes.focus();
  };
  wrap.append(start);
  return wrap;
}

/**
 * The banner every merchant view carries while the merchant cannot file. With no branch yet it
 * speaks to the shop, not to a developer (the API's reason names endpoints); `onDevices`: the
 * view where that is done, which needs no link to itself.
 */
export function standingBanner(account: AccountSession | undefined, onDevices = false): Child {
  const standing = account?.merchant.standing;
  if (!standing || standing.canFile) return null;
  if (standing.cause === 'no_branch') {
    return h(
      'div',
      { class: 'notice notice-warn standing', role: 'status', 'data-testid': 'standing-banner' },
      h('strong', null, 'No branch can file yet. '),
      'Register the device (VSDC) of your branch and initialise it with the authority; then your sales are fiscalised.',
      account?.merchant.origin === 'partner' ? ' Your partner may do it for you.' : null,
      onDevices ? null : [' ', h('a', { href: '#/devices' }, 'Go to Devices')],
    );
  }
  return h(
    'div',
    { class: 'notice notice-danger standing', role: 'alert', 'data-testid': 'standing-banner' },
    h('strong', null, 'Filing is stopped. '),
    whyFilingIsStopped(account),
    ' Until it is restored the gateway refuses your documents and their reads, from the console and the API alike; your account and users still work.',
  );
}
