// The console: sign-in, then a hash-routed set of views over the partner or operator API.
import { Api, loadSession, saveSession, type Role, type Session } from './api.ts';
import { h, replaceChildren } from './dom.ts';
import { errorBox, type View, type ViewContext } from './view.ts';
import { activityView } from './views/activity.ts';
import { backlogView } from './views/backlog.ts';
import { documentsView } from './views/documents.ts';
import { noticesView } from './views/notices.ts';
import { auditView, merchantsView, partnersView } from './views/operator.ts';
import { reconciliationsView } from './views/reconciliations.ts';
import { signInView } from './views/signin.ts';
import { webhooksView } from './views/webhooks.ts';

interface Route {
  path: string;
  label: string;
  view: View;
}

const ROUTES: Record<Role, Route[]> = {
  partner: [
    { path: 'backlog', label: 'Backlog', view: backlogView('/api/v1/partner/backlog', '#/documents') },
    { path: 'documents', label: 'Documents', view: documentsView('/api/v1/partner/documents', { printable: true }) },
    { path: 'activity', label: 'Activity', view: activityView('/api/v1/partner/filings') },
    { path: 'webhooks', label: 'Webhooks', view: webhooksView },
    { path: 'authority', label: 'Authority', view: noticesView },
    { path: 'reconciliations', label: 'Reconciliations', view: reconciliationsView((tenant) => `/api/v1/tenants/${encodeURIComponent(tenant)}/reconciliations`) },
  ],
  operator: [
    { path: 'partners', label: 'Partners', view: partnersView },
    { path: 'merchants', label: 'Merchants', view: merchantsView },
    { path: 'audit', label: 'Audit log', view: auditView },
    { path: 'backlog', label: 'Backlog', view: backlogView('/admin/v1/backlog', '#/documents') },
    { path: 'documents', label: 'Documents', view: documentsView('/admin/v1/documents', { printable: false }) },
    { path: 'activity', label: 'Activity', view: activityView('/admin/v1/filings') },
    { path: 'reconciliations', label: 'Reconciliations', view: reconciliationsView((tenant) => `/admin/v1/tenants/${encodeURIComponent(tenant)}/reconciliations`) },
  ],
};

const root = document.getElementById('app')!;
let session: Session | undefined = loadSession();
let timers: number[] = [];
let renderCount = 0;

function clearTimers(): void {
  for (const timer of timers) window.clearInterval(timer);
  timers = [];
}

function currentRoute(role: Role): { route: Route; params: URLSearchParams } {
  const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const routes = ROUTES[role];
  return { route: routes.find((r) => r.path === path) ?? routes[0]!, params: new URLSearchParams(search) };
}

function signOut(): void {
  saveSession(undefined);
  session = undefined;
  clearTimers();
  location.hash = '';
  render();
}

function shell(active: Session, route: Route, live: HTMLElement, main: HTMLElement): HTMLElement {
  const nav = h(
    'nav',
    { class: 'nav', 'aria-label': 'Views' },
    h('ul', null, ROUTES[active.role].map((r) => h('li', null, h('a', { href: `#/${r.path}`, 'aria-current': r === route ? 'page' : null }, r.label)))),
  );
  return h(
    'div',
    { class: 'shell' },
    h(
      'header',
      { class: 'topbar' },
      h('p', { class: 'brand' }, 'fiscal-gateway', h('span', { class: 'role' }, active.role === 'partner' ? 'Partner console' : 'Operator console')),
      nav,
      h('button', { type: 'button', class: 'signout', onclick: signOut }, 'Sign out'),
    ),
    live,
    main,
  );
}

/** Renders the current view; a newer render (navigation, refresh) makes an older one drop its result. */
async function render(options: { focus?: boolean } = {}): Promise<void> {
  const ticket = ++renderCount;
  clearTimers();
  if (!session) {
    replaceChildren(root, signInView((signedIn) => {
      session = signedIn;
      saveSession(signedIn);
      location.hash = `#/${ROUTES[signedIn.role][0]!.path}`;
      void render({ focus: true });
    }));
    document.title = 'Sign in · fiscal-gateway console';
    if (options.focus) document.getElementById('signin-title')?.focus();
    return;
  }
  const active = session;
  const { route, params } = currentRoute(active.role);
  const existingMain = document.getElementById('main');
  const main = existingMain && root.contains(existingMain) && existingMain.dataset.route === route.path ? existingMain : h('main', { id: 'main', tabindex: -1, 'data-route': route.path, 'aria-busy': 'true' });
  const live = document.getElementById('live') ?? h('p', { id: 'live', class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  if (main !== existingMain) replaceChildren(root, shell(active, route, live, main));
  document.title = `${route.label} · fiscal-gateway console`;
  const ctx: ViewContext = {
    api: new Api(active),
    params,
    announce: (message) => {
      live.textContent = message;
    },
    refresh: () => void render(),
    every: (ms, run) => {
      timers.push(window.setInterval(() => {
        if (!document.hidden) run();
      }, ms));
    },
  };
  let content;
  try {
    content = await route.view(ctx);
  } catch (err) {
    content = errorBox(err);
  }
  if (ticket !== renderCount) return;
  const hadFocusInside = main.contains(document.activeElement) && document.activeElement !== main;
  const focusedId = hadFocusInside ? (document.activeElement as HTMLElement).id : '';
  replaceChildren(main, content);
  main.setAttribute('aria-busy', 'false');
  // Keep keyboard users where they were across refreshes; move them to the new heading on navigation.
  if (options.focus) document.getElementById('view-title')?.focus();
  else if (focusedId) document.getElementById(focusedId)?.focus();
}

window.addEventListener('hashchange', () => {
  if (!location.hash.startsWith('#/')) return; // the skip link
  void render({ focus: true });
});
document.addEventListener('click', (event) => {
  const link = (event.target as Element).closest('a.skip-link');
  if (!link) return;
  event.preventDefault();
  document.getElementById('main')?.focus();
});

void render();
