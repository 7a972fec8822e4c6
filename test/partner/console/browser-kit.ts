// What every browser test of the console needs: Debian's chromium through playwright-core, a
// gateway from the test harness listening on a real port, and sign-ins without the mail round trip
// (a seeded merchant session, a partner key, the operator token) for tests of one view.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { SESSION_COOKIE } from '../../../src/credentials/user-session.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/app.ts';
import { seedSignedInUser, type SignedInUser } from '../../helpers/accounts.ts';
import type { Harness, Merchant } from '../../helpers/harness.ts';
import { ensureConsoleBuilt } from './build.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Outside CI a machine without chromium skips browser suites; in CI (CI=true) they must run. */
export const skipBrowser =
  !existsSync(CHROMIUM) && !process.env.CI
    ? `chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) to run the browser tests; with CI=true they fail instead of skipping`
    : false;

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** The gateway's base URL (http://127.0.0.1:port). */
  base: string;
  /** Signs a merchant's user in (a seeded owner unless one is given) and waits for the Documents view. */
  signInMerchant(merchant: Merchant, user?: SignedInUser): Promise<SignedInUser>;
  /** Signs in with a partner secret key or the operator token through the sign-in form. */
  signInWithKey(role: 'partner' | 'operator', secret?: string): Promise<void>;
  /** Clicks a navigation entry and waits for the view's heading. */
  open(view: string, heading?: string): Promise<void>;
  close(): Promise<void>;
}

/** Builds the console if needed, makes `h` listen on a free port and opens chromium on it. */
export async function openConsole(h: Harness): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `CI=${process.env.CI}: the browser tests must run, but chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`,
    );
  ensureConsoleBuilt();
  const base = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
  (h.ctx.config as { publicUrl: string }).publicUrl = base;
  const userDataDir = mkdtempSync(join(tmpdir(), 'fg-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: LAPTOP,
    locale: 'en-GB',
    timezoneId: 'Africa/Lusaka',
  });
  const page = context.pages()[0] ?? (await context.newPage());

  const console: ConsoleBrowser = {
    context,
    page,
    base,
    async signInMerchant(merchant, user) {
      const signedIn = user ?? (await seedSignedInUser(h.ctx, merchant.tenantId));
      const token = signedIn.headers.cookie.slice(SESSION_COOKIE.length + 1);
      await context.clearCookies();
      await context.addCookies([{ name: SESSION_COOKIE, value: token, url: base, httpOnly: true, sameSite: 'Strict' }]);
      // The console keeps the CSRF token in this tab's sessionStorage after a sign-in.
      await page.goto(`${base}/console/`);
      await page.evaluate(
        `sessionStorage.setItem('fiscal-gateway.console.session', ${JSON.stringify(JSON.stringify({ role: 'merchant', csrf: signedIn.headers['x-csrf-token'] }))})`,
      );
      await page.goto(`${base}/console/#/documents`);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Documents', exact: true }).waitFor();
      return signedIn;
    },
    async signInWithKey(role, secret = role === 'operator' ? TEST_ADMIN_TOKEN : undefined) {
      assert.ok(secret, 'a partner secret key');
      await context.clearCookies();
      await page.goto(`${base}/console/`);
      await page.evaluate('sessionStorage.clear()');
      await page.reload();
      await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      await page.getByLabel(role === 'partner' ? 'a partner (POS vendor or integrator)' : 'the gateway operator').check();
      await page.getByLabel(role === 'partner' ? 'Partner secret key' : 'Operator token').fill(secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    },
    async open(view, heading = view) {
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  return console;
}
