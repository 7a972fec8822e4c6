// The console in a real browser (Debian's chromium through playwright-core) against a gateway on
// a real port, with the real simulator, filing and delivery workers and a real webhook receiver.
// test-database: embedded only (scripts/run-tests.mjs): the browser's view does not depend on the engine.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { TEST_ADMIN_TOKEN, bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { FAST_DELIVERY, Receiver, answer, registerEndpoint } from '../webhooks/helpers.ts';
import { eventually } from '../../helpers/poll.ts';
import { CHROMIUM, CHROMIUM_ARGS, LAPTOP, PHONE, skipBrowser } from './browser-kit.ts';
import { ensureConsoleBuilt } from './build.ts';

const SMALL_PHONE = { width: 375, height: 667 };
/** The browser's zone in these tests, and how the console writes a time in it. */
const TIME_ZONE = 'Africa/Lusaka';
const WITH_ZONE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\+02:00$/;

/** `iso` as the console shows it in Lusaka (UTC+02:00, no daylight saving). */
function inLusaka(iso: string): string {
  const local = new Date(new Date(iso).getTime() + 2 * 3_600_000).toISOString();
  return `${local.slice(0, 10)} ${local.slice(11, 19)} UTC+02:00`;
}

interface AxisLayout {
  spanMs: number;
  viewportWidth: number;
  labels: Array<{ text: string; left: number; right: number; top: number; bottom: number }>;
}

/** The activity chart's time labels as laid out now (after the layout of the next frames). */
const AXIS_LAYOUT = `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
  const axis = document.querySelector('[data-testid="chart-ticks"]');
  if (!axis) return resolve(null);
  resolve({
    spanMs: Number(axis.dataset.to) - Number(axis.dataset.from),
    viewportWidth: document.documentElement.clientWidth,
    labels: [...axis.children].map((label) => {
      const r = label.getBoundingClientRect();
      return { text: label.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }),
  });
})))`;

describe(`the console is served by the gateway (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    ensureConsoleBuilt();
    h = await startHarness({ workers: false });
  });
  after(() => h.close());

  test('index with a strict CSP and no-cache; hashed assets immutable; revalidation; a missing asset is a 404', async () => {
    const index = await h.t.inject({ method: 'GET', url: '/console' });
    assert.equal(index.statusCode, 200);
    assert.match(index.headers['content-type'] as string, /^text\/html/);
    assert.equal(index.headers['cache-control'], 'no-cache');
    assert.match(index.headers['content-security-policy'] as string, /script-src 'self'/);
    assert.equal(index.headers['x-content-type-options'], 'nosniff');
    const script = /src="\/console\/(assets\/[^"]+\.js)"/.exec(index.body)?.[1];
    const style = /href="\/console\/(assets\/[^"]+\.css)"/.exec(index.body)?.[1];
    assert.ok(script && style, index.body);
    const js = await h.t.inject({ method: 'GET', url: `/console/${script}` });
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['content-type'] as string, /^text\/javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    const css = await h.t.inject({ method: 'GET', url: `/console/${style}` });
    assert.match(css.headers['content-type'] as string, /^text\/css/);
    const again = await h.t.inject({ method: 'GET', url: `/console/${script}`, headers: { 'if-none-match': js.headers.etag as string } });
    assert.equal(again.statusCode, 304);
    assert.equal((await h.t.inject({ method: 'GET', url: '/console/' })).statusCode, 200);
    assert.equal((await h.t.inject({ method: 'GET', url: '/console/backlog' })).body, index.body, 'client routes get the app');
    assert.equal((await h.t.inject({ method: 'GET', url: '/console/assets/nope.js' })).statusCode, 404);
  });
});

describe(`the console in a real browser (${engineName})`, { skip: skipBrowser }, () => {
  let h: Harness;
  let receiver: Receiver;
  let browser: BrowserContext;
  let page: Page;
  let base: string;
  let userDataDir: string;
  const shotDir = process.env.CONSOLE_SCREENSHOT_DIR
    ? resolve(process.env.CONSOLE_SCREENSHOT_DIR)
    : mkdtempSync(join(tmpdir(), 'fg-console-shots-'));

  /** Saves the current view at laptop and phone widths, and checks nothing spills sideways on the phone. */
  async function shoot(name: string): Promise<void> {
    await page.screenshot({ path: join(shotDir, `${name}-laptop.png`) });
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than a phone (tables scroll inside their own region)`);
    await page.screenshot({ path: join(shotDir, `${name}-phone.png`) });
    await page.setViewportSize(LAPTOP);
  }

  async function signIn(role: 'partner' | 'operator', secret: string): Promise<void> {
    await page.goto(`${base}/console`);
    await page.getByLabel(role === 'partner' ? 'a partner (POS vendor or integrator)' : 'the gateway operator').check();
    await page.getByLabel(role === 'partner' ? 'Partner secret key' : 'Operator token').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function open(view: string, heading: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    assert.equal(await page.evaluate<string>('document.activeElement?.id'), 'view-title', "focus moves to the new view's heading");
  }

  before(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `CI=${process.env.CI}: the browser tests must run, but chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`,
      );
    ensureConsoleBuilt();
    mkdirSync(shotDir, { recursive: true });
    receiver = await new Receiver().start();
    h = await startHarness({ config: { saleWaitMs: 300, ...FAST_DELIVERY } });
    base = await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    await h.ctx.db.updateTable('tenants').set({ name: 'Lusaka Trading Ltd' }).where('id', '=', h.merchant.tenantId).execute();
    await h.ctx.db.updateTable('partners').set({ name: 'Acme POS' }).where('id', '=', h.merchant.partnerId).execute();
    userDataDir = mkdtempSync(join(tmpdir(), 'fg-chromium-'));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: LAPTOP,
      locale: 'en-GB',
      timezoneId: TIME_ZONE,
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await receiver?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    if (!process.env.CONSOLE_SCREENSHOT_DIR) rmSync(shotDir, { recursive: true, force: true });
  });

  test('a partner signs in, sees a backlog appear when the VSDC goes down, finds the refused document and resends a failed delivery', async () => {
    // Some history: filed sales, one the authority refuses, deliveries to a receiver that is down.
    for (let i = 0; i < 24; i++) assert.equal((await h.post('/api/v1/sales', saleBody({}, [{ price: 100 + i }]))).statusCode, 201);
    // Spread them over the day, so the activity chart has a day to show.
    await sql`update sales set created_at = created_at - make_interval(mins => ((id * 53) % 1380)::int) where tenant_id = ${h.merchant.tenantId} and status = 'uploaded'`.execute(
      h.ctx.db,
    );
    // Fewer failed deliveries than the 10 that disable an endpoint.
    receiver.behaviour = answer(500);
    const { endpoint } = await registerEndpoint(h.t, h.merchant.partnerSecret, { url: `${receiver.url}/erp`, description: 'ERP' });
    await h.post('/api/v1/sales', saleBody({}, [{ price: 99 }]));
    h.sim.control.setFaults(h.merchant.tpin, '000', { reject: { count: 1, code: '910', message: 'Request parameter error' } });
    await h.post('/api/v1/sales', saleBody({ clientInvoiceNo: 'POS-1042' }));
    const failedDelivery = await eventually(async () => {
      const rows = await h.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status'])
        .where('endpoint_id', '=', endpoint.id)
        .where('status', '=', 'failed')
        .orderBy('id')
        .execute();
      return rows.length >= 2 ? rows[0] : undefined;
    }, 'deliveries to fail');

    await page.goto(`${base}/console`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate<string>('document.activeElement?.textContent'),
      'Skip to content',
      'the first Tab reaches the skip link',
    );
    await shoot('sign-in');
    await signIn('partner', h.merchant.partnerSecret);
    await page.getByRole('heading', { level: 1, name: 'Backlog per branch' }).waitFor();
    assert.ok(!page.url().includes(h.merchant.partnerSecret), 'the secret is never in the URL');
    assert.equal(
      await page.evaluate<boolean>("Object.values(sessionStorage).some((v) => v.includes('sk_'))"),
      true,
      "kept in this tab's sessionStorage",
    );

    // The VSDC goes down and a sale is queued: the branch shows its backlog.
    h.sim.control.setFaults(h.merchant.tpin, '000', { down: true });
    const queued = await h.post('/api/v1/sales', saleBody({ clientInvoiceNo: 'POS-1043' }));
    assert.equal(queued.json().data.status, 'pending');
    const pendingCell = page.getByTestId(`pending-${h.merchant.tenantId}-000`);
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      const unreachable = await page.getByText('Unreachable').count();
      return (await pendingCell.textContent()) === '1' && unreachable > 0 ? true : undefined;
    }, 'the backlog to show in the console');
    await shoot('partner-backlog');

    await open('Documents', 'Documents');
    await page.getByRole('cell', { name: '910', exact: true }).waitFor();
    await page.getByText('Request parameter error').first().waitFor();
    await page.getByRole('cell', { name: 'POS-1042', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'Not fiscalised' }).first().waitFor();
    const stored = page.locator('td[data-label="Stored"] time').first();
    assert.equal(
      await stored.textContent(),
      inLusaka((await stored.getAttribute('datetime'))!),
      "times are the viewer's, with the zone written out",
    );
    assert.match((await stored.textContent())!, WITH_ZONE);
    await shoot('partner-failed-documents');

    await page.locator('#status-filter').selectOption('uploaded');
    const authorityNo = page.locator('td[data-label="Authority invoice no."]').first();
    const newestUploaded = (await h.get('/api/v1/sales?page=1')).json().data.find((d: { status: string }) => d.status === 'uploaded');
    // The filtered list replaces the unfiltered one, whose first row may still be on screen.
    await eventually(
      async () => ((await authorityNo.textContent()) === newestUploaded.authorityInvoiceNo ? true : undefined),
      'the uploaded documents to list the newest one with its authority invoice number',
    );
    // A refusal the merchant resolved: still failed (the spec's status), under "Failed, resolved".
    const refusedDoc = (await h.get('/api/v1/sales?reference=POS-1042')).json().data[0] as { id: number };
    assert.equal((await h.post(`/api/v1/sales/${refusedDoc.id}/resolve`, { note: 'Re-rung by hand' })).statusCode, 200);
    await page.locator('#status-filter').selectOption('resolved');
    const resolvedRow = page.getByRole('row').filter({ hasText: 'POS-1042' });
    await resolvedRow.getByText('failed · resolved', { exact: true }).waitFor();
    await resolvedRow.getByText('Marked resolved').waitFor();

    await open('Activity', 'Filings per minute');
    assert.equal(await page.locator('#window-filter').inputValue(), '1h', 'the activity view opens on the last hour');
    await page.getByText(/Pending: 1/).waitFor();
    assert.match((await page.locator('.chart-period').textContent())!, /^Times in UTC\+02:00 /);
    await shoot('partner-activity');
    for (const viewport of [SMALL_PHONE, LAPTOP]) {
      await page.setViewportSize(viewport);
      for (const [window, spanMs] of [
        ['1h', 3_600_000],
        ['6h', 21_600_000],
        ['24h', 86_400_000],
      ] as const) {
        await page.locator('#window-filter').selectOption(window);
        const layout = await eventually(async () => {
          const now = await page.evaluate<AxisLayout | null>(AXIS_LAYOUT);
          // A refresh may have just replaced the chart, whose labels come with the next layout.
          return now && now.spanMs === spanMs && now.viewportWidth === viewport.width && now.labels.length >= 2 ? now : undefined;
        }, `the ${window} chart at ${viewport.width} px with at least two time labels`);
        const where = `${window} at ${viewport.width}×${viewport.height}: ${JSON.stringify(layout.labels)}`;
        for (const label of layout.labels)
          assert.ok(label.left >= 0 && label.right <= layout.viewportWidth, `labels stay on screen (${where})`);
        for (let i = 1; i < layout.labels.length; i++) {
          const [a, b] = [layout.labels[i - 1]!, layout.labels[i]!];
          const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          assert.ok(!overlap, `labels ${a.text} and ${b.text} do not overlap (${where})`);
        }
      }
    }
    await page.locator('#window-filter').selectOption('1h');

    await open('Authority', 'Authority');
    await page.locator('td[data-label="Device"]').getByText('registered', { exact: true }).waitFor();

    await open('Webhooks', 'Webhooks');
    await page.getByRole('link', { name: 'Deliveries' }).click();
    const status = page.getByTestId(`delivery-status-${failedDelivery.id}`);
    await status.getByText('failed').waitFor();
    await page.getByText('No more attempts: resend it to try again').first().waitFor();
    await shoot('partner-webhooks');

    // With the workers paused, the resent delivery waits with its next attempt shown.
    await h.stopWorkers();
    receiver.behaviour = answer(200);
    await page.getByRole('button', { name: `Resend delivery ${failedDelivery.id}`, exact: true }).click();
    await page.getByRole('status').getByText(`Delivery ${failedDelivery.id} queued for redelivery.`).waitFor({ state: 'attached' });
    const nextAttempt = page.getByTestId(`delivery-next-retry-${failedDelivery.id}`).locator('time');
    await nextAttempt.waitFor();
    const queuedDelivery = (
      await h.ctx.db
        .selectFrom('webhook_deliveries')
        .select('next_attempt_at')
        .where('id', '=', failedDelivery.id)
        .executeTakeFirstOrThrow()
    ).next_attempt_at!;
    assert.equal(
      await nextAttempt.textContent(),
      inLusaka(new Date(queuedDelivery).toISOString()),
      "the delivery's next attempt, in the viewer's zone",
    );
    h.startWorkers();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await status.textContent({ timeout: 2_000 }).catch(() => null)) === 'delivered' ? true : undefined;
    }, 'the resent delivery to arrive');
    assert.ok(
      receiver.requestsFor(failedDelivery.id).some((r) => r.headers['x-webhook-event']),
      'the receiver got it',
    );

    // A reconciliation started from the console, followed to its end.
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    const altered = h.sim.control.documents(h.merchant.tpin, '000', { filedOnly: true })[0]!;
    h.sim.control.alterFiled(h.merchant.tpin, '000', altered.cisInvcNo!, { rcptSign: 'TAMPEREDSIGN0000' });
    await open('Reconciliations', 'Reconciliations');
    await page.getByLabel('Merchant id').fill(String(h.merchant.tenantId));
    await page.getByRole('button', { name: 'Reconcile' }).click();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      const done = (await page.getByText('completed', { exact: true }).count()) > 0;
      return done && (await page.getByText(/receiptSignature: ours .*, the VSDC's TAMPEREDSIGN0000/).count()) > 0 ? true : undefined;
    }, 'the reconciliation to complete in the console, with the altered document');
    await shoot('partner-reconciliations');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    assert.equal(await page.evaluate<number>('sessionStorage.length'), 0, 'signing out forgets the key');
  });

  test('the operator signs in and sees partners, merchants with their account states, and the audit log', async () => {
    await signIn('operator', TEST_ADMIN_TOKEN);
    await page.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();
    await page.getByRole('cell', { name: 'Acme POS', exact: true }).waitFor();
    await shoot('operator-partners');

    const suspend = await h.t.inject({
      method: 'PATCH',
      url: `/admin/v1/tenants/${h.merchant.tenantId}`,
      headers: bearer(TEST_ADMIN_TOKEN),
      payload: { plan: 'growth' },
    });
    assert.equal(suspend.statusCode, 200);
    await open('Merchants', 'Merchants');
    await page.getByText('Lusaka Trading Ltd').waitFor();
    await page.getByRole('cell', { name: 'growth', exact: true }).waitFor();
    await shoot('operator-merchants');

    await open('Audit log', 'Audit log');
    // The table's cells, not the action picker's options of the same names.
    await page.locator('tbody').getByText('webhook_delivery.resent').first().waitFor();
    await page.locator('tbody').getByText('tenant.account_updated').first().waitFor();
    // Who and what by name, not by id.
    const resent = page.getByRole('row').filter({ hasText: 'webhook_delivery.resent' }).first();
    await resent.getByText('Partner key “Initial key”').waitFor();
    await resent.getByText('Acme POS').waitFor();
    await resent.getByText(`${receiver.url}/erp`, { exact: false }).waitFor();
    const updated = page.getByRole('row').filter({ hasText: 'tenant.account_updated' }).first();
    await updated.getByRole('cell', { name: 'Operator', exact: true }).waitFor();
    assert.equal(await updated.locator('td[data-label="Target"] span span').first().textContent(), 'Lusaka Trading Ltd');
    await shoot('operator-audit');

    const unlabelled = await page.evaluate<number>(
      "[...document.querySelectorAll('input, select')].filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).length",
    );
    assert.equal(unlabelled, 0, 'every control has a label');
  });

  test('a printed receipt at 80 mm', async () => {
    const sale = (await h.get('/api/v1/sales?page=1')).json().data.find((s: { status: string }) => s.status === 'uploaded');
    const html = await h.get(`/api/v1/sales/${sale.id}/receipt`);
    assert.equal(html.statusCode, 200);
    // A page of its own: the console's CSP would hold back the receipt's inline styles.
    const receiptPage = await browser.newPage();
    await receiptPage.setViewportSize({ width: 360, height: 600 });
    await receiptPage.setContent(html.body);
    await receiptPage.getByText('SDC INFORMATION').waitFor();
    await receiptPage.screenshot({ path: join(shotDir, 'receipt-80mm.png'), fullPage: true });
    await receiptPage.close();
  });

  test('the API reference at /docs renders under its strict CSP with no violation or script error', async () => {
    const reference = await browser.newPage();
    const problems: string[] = [];
    reference.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    reference.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await reference.addInitScript(`window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile));`);
    const answer = await reference.goto(`${base}/docs/`);
    assert.match(answer?.headers()['content-security-policy'] ?? '', /style-src 'self' https: ;/, 'the policy itself is not loosened');
    // Swagger UI draws the whole document in the page: on a loaded two-core machine that once
    // took more than Playwright's default 30 s. A wait that runs out says what the page logged.
    await reference
      .getByRole('heading', { name: /fiscal-gateway API/ })
      .waitFor({ timeout: 90_000 })
      .catch((error: Error) => assert.fail(`${error.message}\nwhat the page logged: ${problems.join('\n') || 'nothing'}`));
    // An operation opened shows its parameters and responses, drawn by the same scripts.
    await reference.locator('.opblock-summary').first().click();
    await reference.locator('.responses-wrapper').first().waitFor();
    assert.deepEqual(await reference.evaluate('window.cspViolations'), [], 'no Content-Security-Policy violation');
    assert.deepEqual(problems, [], 'nothing logged as an error');
    await reference.close();
  });
});
