// What every view gets, and the shared bits views are made of.
import { ApiProblem, type Api, type Page } from './api.ts';
import { h, type Child } from './dom.ts';

export interface ViewContext {
  api: Api;
  /** The query part of the route (`#/documents?status=failed` → status=failed). */
  params: URLSearchParams;
  /** Tells assistive technology what just happened (polite live region). */
  announce(message: string): void;
  /** Re-runs the current view (the Refresh button, timers). */
  refresh(): void;
  /** Registers a timer the router clears when the view is left. */
  every(ms: number, run: () => void): void;
}

export type View = (ctx: ViewContext) => Promise<Child>;

export function problemMessage(err: unknown): string {
  if (err instanceof ApiProblem) {
    if (err.code === 'missing_scope') return `${err.message} Ask for a key with that scope to see this view.`;
    return err.message;
  }
  return 'Something went wrong while loading this view.';
}

export function errorBox(err: unknown): HTMLElement {
  return h('div', { class: 'notice notice-danger', role: 'alert' }, problemMessage(err));
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
