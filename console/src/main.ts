// The console: sign-in, then a hash-routed set of views over the merchant, partner or operator API.
import { Api, ApiProblem, loadSession, saveSession, type Role, type Session } from './api.ts';
import { h, replaceChildren } from './dom.ts';
import { showTimesIn } from './time.ts';
import type { AccountSession } from './types.ts';
import { canWrite, errorBox, flashNotice, standingBanner, type View, type ViewContext } from './view.ts';
import { accountPage, forgotPasswordView, signUpView } from './views/account-pages.ts';
import { activityView } from './views/activity.ts';
import { backlogView } from './views/backlog.ts';
import { documentsView } from './views/documents.ts';
import { merchantAccountView } from './views/merchant-account.ts';
import { merchantAuditView } from './views/merchant-audit.ts';
import { merchantBacklogView } from './views/merchant-backlog.ts';
import { developerView } from './views/merchant-developer.ts';
import { devicesView } from './views/merchant-devices.ts';
import { merchantDocumentView } from './views/merchant-document.ts';
import { merchantDocumentsView } from './views/merchant-documents.ts';
import { merchantItemsView } from './views/merchant-items.ts';
import { merchantStockView } from './views/merchant-stock.ts';
import { exportView } from './views/merchant-export.ts';
import { usersView } from './views/merchant-users.ts';
import { merchantAuthorityView, noticesView } from './views/notices.ts';
import { auditView, merchantsView, partnersView } from './views/operator.ts';
import { reconciliationsView } from './views/reconciliations.ts';
import { merchantBranches, partnerBranches, reportsView } from './views/reports.ts';
import { signInView, type SignedIn } from './views/signin.ts';
import { webhooksView } from './views/webhooks.ts';
import { forgetAuthority } from './authority.ts';

interface Route {
  path: string;
  label: string;
  view: View;
  /** Reached from another view, not from the navigation; `parent` is the navigation entry it belongs to. */
  parent?: string;
}

const ROUTES: Record<Role, Route[]> = {
  merchant: [
    { path: 'documents', label: 'Documents', view: merchantDocumentsView },
    { path: 'document', label: 'Document', view: merchantDocumentView, parent: 'documents' },
    { path: 'backlog', label: 'Backlog & failed', view: merchantBacklogView },
    { path: 'reports', label: 'Reports', view: reportsView(() => '/api/v1/reports', { branches: merchantBranches, close: canWrite }) },
    { path: 'export', label: 'Export', view: exportView },
    { path: 'stock', label: 'Stock', view: merchantStockView },
    { path: 'items', label: 'Items', view: merchantItemsView },
    { path: 'devices', label: 'Devices', view: devicesView },
    { path: 'authority', label: 'Authority', view: merchantAuthorityView },
    { path: 'developer', label: 'Developer', view: developerView },
    { path: 'users', label: 'Users', view: usersView },
    { path: 'audit', label: 'Audit trail', view: merchantAuditView },
    { path: 'account', label: 'Account', view: merchantAccountView },
  ],
  partner: [
    { path: 'backlog', label: 'Backlog', view: backlogView('/api/v1/partner/backlog', '#/documents') },
    { path: 'documents', label: 'Documents', view: documentsView('/api/v1/partner/documents', { printable: true }) },
    { path: 'activity', label: 'Activity', view: activityView('/api/v1/partner/filings') },
    { path: 'webhooks', label: 'Webhooks', view: webhooksView },
    { path: 'authority', label: 'Authority', view: noticesView },
    {
      path: 'reconciliations',
      label: 'Reconciliations',
      view: reconciliationsView((tenant) => `/api/v1/tenants/${encodeURIComponent(tenant)}/reconciliations`),
    },
    {
      path: 'reports',
      label: 'Reports',
      view: reportsView((tenant) => `/api/v1/tenants/${encodeURIComponent(tenant)}/reports`, {
        tenant: true,
        branches: partnerBranches,
        close: () => true,
      }),
    },
  ],
  operator: [
    { path: 'partners', label: 'Partners', view: partnersView },
    { path: 'merchants', label: 'Merchants', view: merchantsView },
    { path: 'audit', label: 'Audit log', view: auditView },
    { path: 'backlog', label: 'Backlog', view: backlogView('/admin/v1/backlog', '#/documents') },
    { path: 'documents', label: 'Documents', view: documentsView('/admin/v1/documents', { printable: false }) },
    { path: 'activity', label: 'Activity', view: activityView('/admin/v1/filings') },
    {
      path: 'reconciliations',
      label: 'Reconciliations',
      view: reconciliationsView((tenant) => `/admin/v1/tenants/${encodeURIComponent(tenant)}/reconciliations`),
    },
    {
      path: 'reports',
      label: 'Reports',
      view: reportsView((tenant) => `/admin/v1/tenants/${encodeURIComponent(tenant)}/reports`, { tenant: true }),
    },
  ],
};

const TITLES: Record<Role, string> = { merchant: 'Merchant console', partner: 'Partner console', operator: 'Operator console' };

const root = document.getElementById('app')!;
let session: Session | undefined = loadSession();
let account: AccountSession | undefined;
let signInNotice: string | undefined;
let timers: number[] = [];
let renderCount = 0;
/** When the visible notice of `announce` was shown. */
let flashShownAt = 0;

function clearTimers(): void {
  for (const timer of timers) window.clearInterval(timer);
  timers = [];
}

function routeParts(): { path: string; params: URLSearchParams } {
  const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { path, params: new URLSearchParams(search) };
}

function currentRoute(role: Role): { route: Route; params: URLSearchParams } {
  const { path, params } = routeParts();
  const routes = ROUTES[role];
  return { route: routes.find((r) => r.path === path) ?? routes[0]!, params };
}

function forget(notice?: string): void {
  forgetAuthority();
  saveSession(undefined);
  session = undefined;
  account = undefined;
  signInNotice = notice;
  clearTimers();
  if (location.pathname.replace(/\/+$/, '') !== '/console') history.replaceState(null, '', '/console/');
  location.hash = '';
  void render({ focus: true });
}

async function signOut(): Promise<void> {
  if (session?.role === 'merchant') {
    try {
      await new Api(session).post('/api/v1/account/signout');
    } catch {
      // the session may have ended already: forget it here all the same
    }
  }
  forget();
}

/** A merchant's session that ended elsewhere (signed out everywhere, expired): back to sign-in. */
function sessionEnded(err: unknown): boolean {
  if (session?.role === 'merchant' && err instanceof ApiProblem && err.status === 401) {
    forget('Your session has ended. Sign in again.');
    return true;
  }
  return false;
}

/** Reads the signed-in user, its merchant and the CSRF token again (a reload, a navigation). */
async function refreshAccount(): Promise<boolean> {
  try {
    const me = await new Api(undefined).get<{ data: AccountSession }>('/api/v1/account/me');
    account = me.data;
    session = { role: 'merchant', csrf: me.data.csrfToken };
    saveSession(session);
    return true;
  } catch {
    return false;
  }
}

function shell(active: Session, route: Route, live: HTMLElement, flash: HTMLElement, main: HTMLElement, banner: HTMLElement): HTMLElement {
  const current = route.parent ?? route.path;
  const nav = h(
    'nav',
    { class: 'nav', 'aria-label': 'Views' },
    h(
      'ul',
      null,
      ROUTES[active.role]
        .filter((r) => !r.parent)
        .map((r) => h('li', null, h('a', { href: `#/${r.path}`, 'aria-current': r.path === current ? 'page' : null }, r.label))),
    ),
  );
  const whoText = active.role === 'merchant' && account ? `${account.merchant.name} · ${account.user.email} (${account.user.role})` : null;
  const who = whoText ? h('span', { class: 'role', title: whoText }, whoText) : null;
  return h(
    'div',
    { class: 'shell' },
    h(
      'header',
      { class: 'topbar' },
      h('p', { class: 'brand' }, 'fiscal-gateway', h('span', { class: 'role' }, TITLES[active.role]), who),
      nav,
      h('button', { type: 'button', class: 'signout', onclick: () => void signOut() }, 'Sign out'),
    ),
    live,
    flash,
    banner,
    main,
  );
}

function renderSignedOut(options: { focus?: boolean }): void {
  const { path } = routeParts();
  const onSignedIn = (signedIn: SignedIn) => {
    session = signedIn.session;
    account = signedIn.account;
    signInNotice = undefined;
    saveSession(signedIn.session);
    location.hash = `#/${ROUTES[signedIn.session.role][0]!.path}`;
    void render({ focus: true });
  };
  const view = path === 'signup' ? signUpView() : path === 'forgot-password' ? forgotPasswordView() : signInView(onSignedIn, signInNotice);
  replaceChildren(root, view);
  document.title = `${view.querySelector('h1')?.textContent ?? 'Sign in'} · fiscal-gateway console`;
  if (options.focus) document.getElementById('signin-title')?.focus();
}

/** Renders the current view; a newer render (navigation, refresh) makes an older one drop its result. */
async function render(options: { focus?: boolean; navigated?: boolean; account?: boolean } = {}): Promise<void> {
  const ticket = ++renderCount;
  clearTimers();
  const linkPage = accountPage(location.pathname);
  if (linkPage) {
    replaceChildren(root, linkPage());
    document.title = `${root.querySelector('h1')?.textContent ?? 'Account'} · fiscal-gateway console`;
    return;
  }
  if (!session) {
    renderSignedOut(options);
    return;
  }
  const active = session;
  if (active.role === 'merchant' && (options.navigated || options.account || !account)) {
    // The merchant's standing and the user's role may have changed since the last view (or the view changed them).
    if (!(await refreshAccount())) {
      if (ticket === renderCount) forget('Your session has ended. Sign in again.');
      return;
    }
    if (ticket !== renderCount) return;
  }
  showTimesIn(active.role === 'merchant' ? account?.merchant.timezone : undefined);
  const { route, params } = currentRoute(active.role);
  const existingMain = document.getElementById('main');
  const main =
    existingMain && root.contains(existingMain) && existingMain.dataset.route === route.path
      ? existingMain
      : h('main', { id: 'main', tabindex: -1, 'data-route': route.path, 'aria-busy': 'true' });
  const live = document.getElementById('live') ?? h('p', { id: 'live', class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const banner = document.getElementById('standing') ?? h('div', { id: 'standing' });
  const flash = document.getElementById('flash') ?? h('div', { id: 'flash' });
  // A notice outlives the navigation its own action makes (to the new document, say), not the next one.
  if (options.navigated && Date.now() - flashShownAt > 1_000) replaceChildren(flash);
  replaceChildren(banner, standingBanner(account, route.path === 'devices'));
  if (main !== existingMain) {
    replaceChildren(root, shell(active, route, live, flash, main, banner));
    // On a phone the navigation scrolls sideways: keep the current view's entry in sight.
    root.querySelector('.nav [aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
  document.title = `${route.label} · fiscal-gateway console`;
  const ctx: ViewContext = {
    api: new Api(session, () => forget('Your session has ended. Sign in again.')),
    params,
    announce: (message, tone = 'ok') => {
      live.textContent = message;
      flashShownAt = Date.now();
      replaceChildren(
        flash,
        flashNotice(message, tone, () => {
          replaceChildren(flash);
          document.getElementById('main')?.focus(); // the Dismiss button had it: keep keyboard users in the view
        }),
      );
    },
    refresh: () => void render(),
    refreshStanding: () => void render({ account: true }),
    every: (ms, run) => {
      timers.push(
        window.setInterval(() => {
          if (!document.hidden) run();
        }, ms),
      );
    },
    ...(active.role === 'merchant' && account ? { account } : {}),
  };
  let content;
  try {
    content = await route.view(ctx);
  } catch (err) {
    if (sessionEnded(err)) return;
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
  if (accountPage(location.pathname)) {
    // Another mailed link opened over this one: read its token.
    if (location.hash.includes('token=')) void render({ focus: true });
    return;
  }
  if (!location.hash.startsWith('#/') && location.hash !== '') return; // the skip link
  void render({ focus: true, navigated: true });
});
document.addEventListener('click', (event) => {
  // Choosing another view in the navigation leaves the last action's notice behind.
  if ((event.target as Element).closest('.nav a')) document.getElementById('flash')?.replaceChildren();
  const link = (event.target as Element).closest('a.skip-link');
  if (!link) return;
  event.preventDefault();
  document.getElementById('main')?.focus();
});

async function boot(): Promise<void> {
  // A merchant whose cookie outlived this tab's storage (a new tab) is still signed in.
  if (!accountPage(location.pathname) && (!session || session.role === 'merchant')) {
    if (await refreshAccount()) {
      if (!location.hash.startsWith('#/') || ['', 'signup', 'forgot-password'].includes(routeParts().path))
        history.replaceState(null, '', '#/documents');
    } else if (session?.role === 'merchant') {
      saveSession(undefined);
      session = undefined;
    }
  }
  await render();
}

void boot();
