// The merchant's console in a real browser (Debian's chromium through playwright-core) against a
// gateway on a real port, a real SMTP server in this process and the real simulator: a person
// signs up, confirms the address from the delivered mail, signs in, registers and initialises a
// device, mints a token, fiscalises a sale with it over HTTP, finds it and prints its receipt,
// revokes the token; an invited viewer reads without the controls that write; every view fits a
// 390 px phone. With CONSOLE_SCREENSHOT_DIR set, it saves each view at laptop and phone widths.
// test-database: embedded only (scripts/run-tests.mjs): the browser's view does not depend on the engine.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { TEST_ADMIN_TOKEN, bearer, uniqueTpin } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { startTestSmtp, type DeliveredMail, type TestSmtp } from '../../helpers/smtp.ts';
import { CHROMIUM, CHROMIUM_ARGS, LAPTOP, PHONE, skipBrowser } from './browser-kit.ts';
import { ensureConsoleBuilt } from './build.ts';

const PASSWORD = 'correct horse battery staple';
const VIEWS = [
  ['Documents', 'Documents'],
  ['Backlog & failed', 'Backlog & failed'],
  ['Reports', 'Reports'],
  ['Export', 'Export'],
  ['Stock', 'Stock'],
  ['Items', 'Items'],
  ['Devices', 'Devices'],
  ['Authority', 'Authority'],
  ['Developer', 'Developer'],
  ['Users', 'Users'],
  ['Audit trail', 'Audit trail'],
  ['Account', 'Account'],
] as const;

/** The one-time link of a mail, as the person would click it. */
function linkIn(mail: DeliveredMail): string {
  const link = /https?:\/\/\S+#token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  assert.ok(link, `a link in the mail: ${mail.text}`);
  return link;
}

describe(`the merchant's console in a real browser (${engineName})`, { skip: skipBrowser }, () => {
  let h: Harness;
  let smtp: TestSmtp;
  let browser: BrowserContext;
  let page: Page;
  let base: string;
  let userDataDir: string;
  // Each run has a database of its own (test/helpers/db.ts).
  const ownerEmail = 'owner@kabwe-hardware.example';
  const viewerEmail = 'cashier@kabwe-hardware.example';
  const shotDir = process.env.CONSOLE_SCREENSHOT_DIR
    ? resolve(process.env.CONSOLE_SCREENSHOT_DIR)
    : mkdtempSync(join(tmpdir(), 'fg-merchant-shots-'));

  /** The page is no wider than a 390 px phone: tables scroll or stack inside their own box. */
  async function assertFitsPhone(name: string): Promise<void> {
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate<number>(
      'new Promise((r) => requestAnimationFrame(() => r(document.documentElement.scrollWidth - document.documentElement.clientWidth)))',
    );
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than a 390 px phone`);
  }

  /** Saves the current view at laptop and phone widths, and checks nothing spills sideways on the phone. */
  async function shoot(name: string): Promise<void> {
    await page.setViewportSize(LAPTOP);
    await page.screenshot({ path: join(shotDir, `merchant-${name}-laptop.png`), fullPage: true });
    await assertFitsPhone(name);
    await page.screenshot({ path: join(shotDir, `merchant-${name}-phone.png`), fullPage: true });
    await page.setViewportSize(LAPTOP);
  }

  async function open(view: string, heading: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  }

  async function signIn(email: string): Promise<void> {
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Documents', exact: true }).waitFor();
  }

  async function signOut(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
  }

  const api = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);

  before(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `CI=${process.env.CI}: the browser tests must run, but chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`,
      );
    ensureConsoleBuilt();
    mkdirSync(shotDir, { recursive: true });
    smtp = await startTestSmtp();
    h = await startHarness({ config: { saleWaitMs: 2_000, smtpUrl: smtp.url, mailFrom: 'Fiscal Gateway <gateway@example.com>' } });
    base = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    // The mailed links name the gateway's public address, known once it listens.
    (h.ctx.config as { publicUrl: string }).publicUrl = base;
    userDataDir = mkdtempSync(join(tmpdir(), 'fg-chromium-'));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: LAPTOP,
      locale: 'en-GB',
      timezoneId: 'Africa/Lusaka',
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await smtp?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    if (!process.env.CONSOLE_SCREENSHOT_DIR) rmSync(shotDir, { recursive: true, force: true });
  });

  test('sign up → confirm by mail → sign in → device → token → a sale over the API → its receipt → revoke → 401', async () => {
    // Sign up.
    await page.goto(`${base}/console`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    assert.equal(await page.getByLabel('a merchant (email and password)').isChecked(), true, 'merchants are the default');
    await shoot('sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Merchant name').fill('Kabwe Hardware');
    await page.getByLabel('TPIN').fill(uniqueTpin());
    await page.getByLabel('Email', { exact: true }).fill(ownerEmail);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await shoot('sign-up');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    assert.equal(await page.getByTestId('outbox-link').count(), 0, 'with SMTP_URL set, no development outbox');

    // The link from the delivered mail, opened in the browser; it works once.
    const verifyLink = linkIn(await smtp.mailTo(ownerEmail, 'Confirm your email'));
    assert.ok(verifyLink.startsWith(`${base}/console/account/verify#token=`), verifyLink);
    await page.goto(verifyLink);
    await page.getByText('Your email address is confirmed.').waitFor();
    assert.ok(!page.url().includes('token='), 'the token leaves the address bar once read');
    await page.goto('about:blank');
    await page.goto(verifyLink);
    await page.getByText('Your email address is already confirmed — sign in.').waitFor();
    // The plan's rate limit (120 a minute on the free trial) is not what this test is about.
    const { tenant_id: tenantId } = await h.ctx.db
      .selectFrom('users')
      .select('tenant_id')
      .where('email', '=', ownerEmail)
      .executeTakeFirstOrThrow();
    const unlimited = await h.t.inject({
      method: 'PATCH',
      url: `/admin/v1/tenants/${tenantId}`,
      headers: bearer(TEST_ADMIN_TOKEN),
      payload: { rateLimitPerMinute: 1_000_000 },
    });
    assert.equal(unlimited.statusCode, 200, unlimited.body);

    // Signing in with a wrong password says so; the right one opens the console.
    await page.goto(`${base}/console/`);
    await page.getByLabel('Email', { exact: true }).fill(ownerEmail);
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .locator('#signin-error')
      .getByText(/email or password/i)
      .waitFor();
    await signIn(ownerEmail);
    assert.equal(await page.evaluate<boolean>("document.cookie.includes('fg_session')"), false, 'the session cookie is HttpOnly');
    // A reload keeps the session (the cookie) and re-reads the CSRF token.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Documents', exact: true }).waitFor();

    // Register and initialise a device on the simulator.
    await open('Devices', 'Devices');
    await page.getByLabel('Device serial').fill('KH-VSDC-0001');
    await page.getByLabel('Branch', { exact: true }).fill('000');
    await page.getByLabel('VSDC address').fill(h.sim.url);
    await page.getByRole('button', { name: 'Register the device' }).click();
    await page.getByRole('button', { name: 'Initialise branch 000' }).click();
    await page.getByText('Initialised', { exact: true }).waitFor();
    await shoot('devices');
    // The branch as the authority knows it (learnt at initialisation), with its device here.
    await open('Authority', 'Authority');
    const branches = page.getByRole('table', { name: /at the authority/ });
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await branches.getByRole('row').filter({ hasText: 'registered' }).count()) === 1 ? true : undefined;
    }, 'branch 000 at the authority, with its device');
    await page.getByText('No notices from the authority.').waitFor();

    // Mint a token; its plaintext is shown once.
    await open('Developer', 'Developer');
    await page.getByLabel('Name').fill('Till 1');
    await page.getByRole('button', { name: 'Create the token' }).click();
    const token = await page.getByTestId('new-token').inputValue();
    assert.match(token, /^tt_/);
    await page.getByText('you will not see it again', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();
    await shoot('developer');
    // A second token, kept for the viewer to see.
    await page.getByLabel('Name').fill('Reporting');
    await page.locator('#ability-invoices-write').uncheck();
    await page.getByRole('button', { name: 'Create the token' }).click();
    await page.getByRole('rowheader', { name: 'Reporting', exact: true }).waitFor();
    assert.notEqual(await page.getByTestId('new-token').inputValue(), token);
    const second = await page.getByTestId('new-token').inputValue();
    await open('Documents', 'Documents');
    await open('Developer', 'Developer');
    assert.equal(await page.getByTestId('new-token').inputValue(), second, 'the plaintext stays until dismissed');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('new-token').waitFor({ state: 'detached' });
    assert.equal((await page.content()).includes(token), false);
    assert.equal((await page.content()).includes(second), false);

    // A sale over HTTP with that token.
    const created = await api('/api/v1/sales', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        saleBody({ clientInvoiceNo: 'KH-000001', customer: { name: 'Chanda Mwila' } }, [{ name: 'Claw hammer', price: 185, quantity: 2 }]),
      ),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const sale = ((await created.json()) as { data: { id: number; invoiceNo: number; status: string } }).data;
    await eventually(async () => {
      const res = await api(`/api/v1/sales/${sale.id}`, { headers: { authorization: `Bearer ${token}` } });
      return ((await res.json()) as { data: { status: string } }).data.status === 'uploaded' ? true : undefined;
    }, 'the sale to be fiscalised');

    // It is in Documents, found by its reference; its page shows lines, totals and the fiscal block.
    await open('Documents', 'Documents');
    await page.getByLabel('Reference').fill('KH-000001');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: `No. ${sale.invoiceNo}`, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Sale No. ${sale.invoiceNo}` }).waitFor();
    await page.getByText('Claw hammer', { exact: true }).waitFor();
    await page.getByText('Fiscal information').waitFor();
    await page.getByText('SDC id').first().waitFor();
    await shoot('document');
    // Its receipt opens in a new tab with the session cookie.
    const [receipt] = await Promise.all([browser.waitForEvent('page'), page.getByRole('link', { name: 'Print receipt' }).click()]);
    await receipt.getByText('SDC INFORMATION').waitFor();
    await receipt.getByText('Claw hammer').first().waitFor();
    await receipt.close();

    // A credit note for one of the two hammers, issued from the sale's page (cookie and CSRF token).
    await page.getByLabel('Quantity to credit of line 1').fill('1');
    await page.getByLabel('Reason').selectOption('03');
    await page.getByRole('button', { name: 'Issue the credit note' }).click();
    await page.getByRole('button', { name: 'Yes, issue the credit note' }).click();
    await page.getByRole('heading', { level: 1, name: `Credit note No. ${sale.invoiceNo + 1}` }).waitFor();
    await page.getByRole('link', { name: new RegExp(`^Sale No\\. ${sale.invoiceNo} \\(INV`) }).waitFor();
    await page.getByText('03 Damaged goods').waitFor();

    await open('Documents', 'Documents');
    await page.getByRole('link', { name: `No. ${sale.invoiceNo}`, exact: true }).waitFor();
    await shoot('documents');

    // The export link downloads this month's documents as CSV with the session cookie.
    await open('Export', 'Export');
    const exportUrl = await page.getByTestId('export-link').getAttribute('href');
    assert.match(exportUrl!, /^\/api\/v1\/exports\/documents\?from=\d{4}-\d{2}-01&to=\d{4}-\d{2}-\d{2}&format=csv$/);
    const csv = await page.request.get(`${base}${exportUrl}`);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type']!, /^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    assert.match(lines[0]!, /^documentId,type,status,/);
    assert.equal(lines.filter((line) => line.includes('Claw hammer')).length, 2, 'the sale and its credit note, one line each');

    // Revoke the token in the page: the next call with it is a 401.
    await open('Developer', 'Developer');
    await page.getByRole('button', { name: 'Revoke token Till 1' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByRole('rowheader', { name: 'Till 1', exact: true }).waitFor({ state: 'detached' });
    const refused = await api('/api/v1/sales?page=1', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 401);

    // The revocation is in the audit trail, by the signed-in owner; the download keeps the filter.
    await open('Audit trail', 'Audit trail');
    await page.getByLabel('Action').selectOption('token.');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    // The unfiltered list already held that row: wait for the filtered render's link.
    await page.locator('[data-testid="audit-export"][href="/api/v1/audit/export?action=token."]').waitFor();
    const revokedRow = page.getByRole('row').filter({ hasText: 'token.revoked' }).first();
    await revokedRow.waitFor();
    assert.ok((await revokedRow.innerText()).includes(ownerEmail), 'who revoked it, by email');
  });

  test('every merchant view fits a 390 px phone', async () => {
    for (const [view, heading] of VIEWS) {
      await page.setViewportSize(LAPTOP);
      await open(view, heading);
      if (['Reports', 'Export', 'Users', 'Account'].includes(view)) await shoot(view.toLowerCase().replace(/[^a-z]+/g, '-'));
      else await assertFitsPhone(view);
      const unlabelled = await page.evaluate<string[]>(
        "[...document.querySelectorAll('input:not([type=hidden]):not([hidden]), select, textarea')].filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).map((el) => el.outerHTML)",
      );
      assert.deepEqual(unlabelled, [], `${view}: every control has a label`);
    }
    await page.setViewportSize(LAPTOP);
  });

  test('an invited viewer reads without the controls that write', async () => {
    await open('Users', 'Users');
    await page.getByLabel('Email', { exact: true }).fill(viewerEmail);
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByText(`Invitation mailed to ${viewerEmail.toLowerCase()}`, { exact: false }).waitFor();
    const pendingInvitations = page.getByRole('region', { name: 'Pending invitations' });
    await pendingInvitations.getByRole('rowheader', { name: viewerEmail }).waitFor();
    // One sent to a wrong address is revoked from the list.
    const mistaken = 'kasier@kabwe-hardware.example';
    await page.getByLabel('Email', { exact: true }).fill(mistaken);
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await pendingInvitations.getByRole('rowheader', { name: mistaken }).waitFor();
    await page.getByRole('button', { name: `Revoke the invitation of ${mistaken}` }).click();
    await page.getByRole('button', { name: 'Yes, revoke it' }).click();
    await pendingInvitations.getByRole('rowheader', { name: mistaken }).waitFor({ state: 'detached' });
    const revokedLink = linkIn(await smtp.mailTo(mistaken, 'You are invited'));
    const refusedAccept = await api('/api/v1/account/invitations/accept', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: revokedLink.split('#token=')[1], password: PASSWORD }),
    });
    assert.equal(refusedAccept.status, 400, "a revoked invitation's link no longer works");
    await signOut();

    const invitation = linkIn(await smtp.mailTo(viewerEmail, 'You are invited'));
    await page.goto(invitation);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByText('Your account is ready.').waitFor();
    await signIn(viewerEmail);

    await open('Developer', 'Developer');
    await page.getByRole('rowheader', { name: 'Reporting', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Create the|Revoke/ }).count(), 0, 'no create or revoke controls for a viewer');
    await open('Devices', 'Devices');
    await page.getByRole('cell', { name: 'KH-VSDC-0001' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Register|Initialise|Remove/ }).count(), 0);
    await open('Users', 'Users');
    assert.equal(await page.getByRole('button', { name: /Send the invitation|Remove/ }).count(), 0);
    // The owner, a user since before branch 000 was initialised, is registered with its VSDC.
    await page.getByText('Branch 000: registered').first().waitFor();
    await open('Documents', 'Documents');
    await page.locator('a[data-testid^="document-"]').first().click();
    await page.getByText('Fiscal information').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Issue the credit note' }).count(), 0);
    await signOut();
  });

  test("a blocked subscription: every view says why, and the API's refusal is shown", async () => {
    const { tenant_id: tenantId } = await h.ctx.db
      .selectFrom('users')
      .select('tenant_id')
      .where('email', '=', ownerEmail.toLowerCase())
      .executeTakeFirstOrThrow();
    const block = (subscription: 'active' | 'blocked') =>
      h.t.inject({ method: 'PATCH', url: `/admin/v1/tenants/${tenantId}`, headers: bearer(TEST_ADMIN_TOKEN), payload: { subscription } });
    assert.equal((await block('blocked')).statusCode, 200);
    await signIn(ownerEmail);
    const banner = page.getByTestId('standing-banner');
    await banner.waitFor();
    assert.match((await banner.textContent())!, /Filing is stopped/);
    // The API refuses the merchant's documents as it refuses its tokens: the view shows its message.
    await page.getByRole('alert').getByText('subscription is blocked').first().waitFor();
    await page.locator('main').getByText("This merchant's subscription is blocked", { exact: false }).waitFor();
    await open('Users', 'Users');
    await page.getByRole('cell', { name: 'viewer', exact: true }).waitFor();
    await open('Developer', 'Developer');
    await banner.waitFor();
    await assertFitsPhone('the banner');
    await page.setViewportSize(LAPTOP);
    assert.equal((await block('active')).statusCode, 200);
    await open('Documents', 'Documents');
    await banner.waitFor({ state: 'detached' });
  });

  test('a refused document: Backlog & failed lists it, and its page reissues it with a corrected customer and line', async () => {
    const { tpin } = await h.ctx.db
      .selectFrom('tenants')
      .innerJoin('users', 'users.tenant_id', 'tenants.id')
      .select('tenants.tpin')
      .where('users.email', '=', ownerEmail)
      .executeTakeFirstOrThrow();
    h.sim.control.setFaults(tpin, '000', { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    // Filed from the console's own session: the cookie, and the CSRF token the console keeps.
    const csrf = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('fiscal-gateway.console.session')).csrf");
    const posted = await page.request.post(`${base}/api/v1/sales`, {
      headers: { 'x-csrf-token': csrf },
      data: saleBody({ clientInvoiceNo: 'KH-000002', customer: { name: 'Mwila Trading', tpin: '1000000000' } }, [
        { name: 'Spirit level', price: 240 },
      ]),
    });
    assert.equal(posted.status(), 201, await posted.text());
    const refused = ((await posted.json()) as { data: { id: number; invoiceNo: number } }).data;
    await eventually(async () => {
      const res = await page.request.get(`${base}/api/v1/sales/${refused.id}`);
      return ((await res.json()) as { data: { status: string } }).data.status === 'failed' ? true : undefined;
    }, 'the authority to refuse the sale');

    await open('Backlog & failed', 'Backlog & failed');
    await page.getByText('Request parameter error').waitFor();
    await shoot('backlog');
    await page.getByRole('link', { name: `No. ${refused.invoiceNo}`, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Sale No. ${refused.invoiceNo}` }).waitFor();
    await page
      .getByRole('alert')
      .getByText(/refused it \(code 910\)/)
      .waitFor();
    await shoot('failed-document');
    await page.getByLabel('Customer TPIN').fill('2000000011');
    // A line corrected too: its price and VAT category.
    const line = page.getByRole('group', { name: 'Line 1: Spirit level' });
    await line.getByLabel('Price').fill('250');
    await line.getByLabel('VAT category').selectOption('D');
    await page.getByRole('button', { name: 'Reissue as a new sale' }).click();
    await page.getByRole('link', { name: `Refused document ${refused.id}` }).waitFor();
    await page.getByRole('heading', { level: 1, name: `Sale No. ${refused.invoiceNo + 1}` }).waitFor();
    const original = await page.request.get(`${base}/api/v1/sales/${refused.id}`);
    const resolved = ((await original.json()) as { data: { status: string; resolution: { kind: string } } }).data;
    assert.equal(resolved.status, 'failed', "the spec's status; the resolution says it was dealt with");
    assert.equal(resolved.resolution.kind, 'reissued');
    const reissuedId = new URL(page.url()).hash.match(/id=(\d+)/)?.[1];
    await page.getByRole('link', { name: `Refused document ${refused.id}` }).click();
    await page.getByText('failed · resolved', { exact: true }).waitFor();
    assert.equal(
      await page.getByRole('button', { name: 'Reissue as a new sale' }).count(),
      0,
      'a resolved document offers no second resolution',
    );
    const reissued = await page.request.get(`${base}/api/v1/sales/${reissuedId}`);
    const corrected = (
      (await reissued.json()) as { data: { customer: { tpin: string }; items: Array<{ price: number; vatCategory: string }> } }
    ).data;
    assert.deepEqual(
      [corrected.customer.tpin, corrected.items[0]!.price, corrected.items[0]!.vatCategory],
      ['2000000011', 250, 'D'],
      'the corrections are the new sale',
    );
  });

  test('goods sold by name alone: Stock says why nothing moved and leads to Items; an item registered there moves stock once a sale names it', async () => {
    await open('Stock', 'Stock');
    const empty = page.getByTestId('stock-empty');
    await empty.getByText('No stock moved at branch 000 yet.').waitFor();
    assert.match((await empty.textContent())!, /only when its line names a registered goods item by its item code \(itemCode\)/);
    await empty.getByText('You have no items registered yet.').waitFor();
    await empty.getByRole('link', { name: 'Register your goods under Items' }).click();
    await page.getByRole('heading', { level: 1, name: 'Items', exact: true }).waitFor();
    await page.getByText('No items yet.', { exact: false }).waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Claw hammer');
    await page.getByLabel('Classification code').fill(CLASS_CODE);
    await page.getByLabel('Default price').fill('185');
    await page.getByLabel('Item code (optional)').fill('HAMMER-1');
    await page.getByRole('button', { name: 'Register the item' }).click();
    await page.getByTestId('flash').getByText('Item HAMMER-1 (Claw hammer): registered.', { exact: false }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'HAMMER-1' });
    await row.getByText('Registered', { exact: true }).waitFor();
    await row.getByText('None moved yet').waitFor();

    // A sale naming it by its code, from the console's own session.
    const csrf = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('fiscal-gateway.console.session')).csrf");
    const posted = await page.request.post(`${base}/api/v1/sales`, {
      headers: { 'x-csrf-token': csrf },
      data: saleBody({ items: [{ name: 'Claw hammer', classificationCode: CLASS_CODE, itemCode: 'HAMMER-1', quantity: 2, price: 185 }] }),
    });
    assert.equal(posted.status(), 201, await posted.text());
    const sold = ((await posted.json()) as { data: { id: number } }).data;
    await eventually(async () => {
      const res = await page.request.get(`${base}/api/v1/sales/${sold.id}`);
      return ((await res.json()) as { data: { stock: { state: string } } }).data.stock.state === 'sent' ? true : undefined;
    }, "the sale's stock to be booked and sent");
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('item-stock-HAMMER-1-000').getByText('Branch 000: -2 U').waitFor();
    await shoot('items');

    await open('Stock', 'Stock');
    await page.getByTestId('stock-difference-HAMMER-1').waitFor();
    assert.equal(await page.getByTestId('stock-empty').count(), 0);
  });

  test('Account: a wrong current password is named; signing out everywhere ends this session too', async () => {
    await open('Account', 'Account');
    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.locator('#password-message').getByText('The current password is wrong.').waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('button', { name: 'Yes, sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    const me = await page.request.get(`${base}/api/v1/account/me`);
    assert.equal(me.status(), 401, 'the cookie no longer signs anyone in');
  });
});
