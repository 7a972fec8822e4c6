// The console's polish (issue 34): the second visit to a verification link, no focus ring on a
// heading the console focuses itself, visible success notices, one-line header and filter bars at
// 1,280 px, a pasted tenant token named for what it is, and the operator's readable audit log.
// test-database: embedded only (scripts/run-tests.mjs): what the browser shows does not depend on the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { uniqueTpin } from '../../helpers/app.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { openConsole, skipBrowser, type ConsoleBrowser } from './browser-kit.ts';

/** Whether the children of the element `selector` sit on one line: every one overlaps every other vertically. */
const ON_ONE_LINE = (selector: string) => `(() => {
  const boxes = [...document.querySelector(${JSON.stringify(selector)}).children].filter((c) => c.getClientRects().length).map((c) => c.getBoundingClientRect());
  return boxes.length > 1 && Math.max(...boxes.map((b) => b.top)) < Math.min(...boxes.map((b) => b.bottom));
})()`;

describe('the console, polished', { skip: skipBrowser }, () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  before(async () => {
    h = await startHarness({ workers: false });
    browser = await openConsole(h);
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  test('a verification link opened twice says the address is confirmed; a dead link offers a new one', async () => {
    const { page, base } = browser;
    const email = `owner-${Date.now()}@example.com`;
    const signup = await h.t.inject({
      method: 'POST',
      url: '/api/v1/account/signup',
      payload: { merchantName: 'Kabwe Hardware', tpin: uniqueTpin(), email, password: 'correct horse battery staple' },
    });
    assert.equal(signup.statusCode, 202, signup.body);
    const link = await eventually(
      () => h.ctx.mailer.outboxMails().find((m) => m.to === email && m.kind === 'verify_email')?.link ?? undefined,
      'the verification mail',
    );
    await page.goto(link);
    await page.getByText('Your email address is confirmed.').waitFor();
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByText('Your email address is already confirmed — sign in.').waitFor();
    assert.equal(await page.getByRole('link', { name: 'sign in' }).getAttribute('href'), '/console/#/');

    await page.goto(`${base}/console/account/verify#token=a-link-that-never-was`);
    await page.getByText(/unknown, already used or expired/).waitFor();
    await page.getByLabel('Email').fill('nobody-here@example.com');
    await page.getByRole('button', { name: 'Mail me a new link' }).click();
    await page.getByText(/If the address has an account waiting for confirmation, a new link is on its way/).waitFor();
  });

  test('a direct load focuses nothing; a heading the console focuses shows no ring; a success is seen, not only announced', async () => {
    const { page, base } = browser;
    const other = await seedSignedInUser(h.ctx, h.merchant.tenantId, 'viewer');
    await browser.signInMerchant(h.merchant);
    const focus = `(() => { const a = document.activeElement; const style = getComputedStyle(a); return { tag: a.tagName, ring: style.outlineStyle !== 'none' || style.boxShadow !== 'none' }; })()`;
    assert.deepEqual(await page.evaluate(focus), { tag: 'BODY', ring: false }, 'a load focuses no heading');
    // An address typed over the open console: the heading takes focus for screen readers, without a ring.
    await page.goto(`${base}/console/#/users`);
    await page.getByRole('heading', { level: 1, name: 'Users', exact: true }).waitFor();
    assert.deepEqual(await page.evaluate(focus), { tag: 'H1', ring: false });

    await page.getByRole('button', { name: `Remove ${other.email}` }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    const notice = page.getByTestId('flash');
    await notice.getByText(`${other.email} removed.`).waitFor();
    assert.equal(await page.locator('#live').textContent(), `${other.email} removed.`, 'the live region still tells screen readers');
    await notice.getByRole('button', { name: 'Dismiss the notice' }).click();
    await notice.waitFor({ state: 'hidden' });
  });

  test('at 1,280 px the header and the filter bars keep to one line', async () => {
    const { page } = browser;
    await browser.signInMerchant(h.merchant);
    assert.equal(await page.evaluate(ON_ONE_LINE('header.topbar')), true, 'the merchant header: brand, navigation, sign out');
    assert.equal(await page.evaluate(ON_ONE_LINE('form.filters')), true, 'the documents filter bar');
    await browser.open('Audit trail');
    assert.equal(await page.evaluate(ON_ONE_LINE('form.filters')), true, 'the audit filter bar');
  });

  test('the cards before sign-in name the product; a TPIN that is not 10 digits is told so, not "match the requested format"', async () => {
    const { page, base, context } = browser;
    await context.clearCookies();
    await page.goto(`${base}/console/`);
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    assert.equal(await page.locator('.signin .product-name').textContent(), 'fiscal-gateway');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Merchant name').fill('Kabwe Hardware');
    await page.getByLabel('TPIN').fill('12345678');
    await page.getByLabel('Email', { exact: true }).fill('tpin-check@example.com');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create the account' }).click();
    assert.equal(
      await page.getByLabel('TPIN').evaluate((input) => (input as { validationMessage: string }).validationMessage),
      'TPIN: 10 digits.',
    );
    await page.getByLabel('TPIN').fill('1234567890');
    assert.equal(
      await page.getByLabel('TPIN').evaluate((input) => (input as { validationMessage: string }).validationMessage),
      '',
      'a change clears it',
    );
  });

  test('a tenant token pasted as a partner key is named, with how to sign in instead', async () => {
    const { page, base, context } = browser;
    await context.clearCookies();
    await page.goto(`${base}/console/`);
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    await page.getByLabel('a partner (POS vendor or integrator)').check();
    await page.getByLabel('Partner secret key').fill(h.merchant.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .locator('#signin-error')
      .getByText(/This is a tenant token \(tt_…\): a merchant's key for the API.*email and password.*partner secret key/)
      .waitFor();
  });

  test("the operator's audit log: details as text, actions to choose by family", async () => {
    const { page } = browser;
    await browser.signInWithKey('operator');
    await browser.open('Audit log');
    await page.locator('tbody tr').first().waitFor();
    assert.doesNotMatch(await page.locator('table').innerText(), /\{"/, 'no raw JSON');
    const action = page.getByLabel('Action');
    assert.equal(await action.evaluate((select) => select.tagName), 'SELECT');
    await action.selectOption('device.');
    await eventually(
      async () => (await page.locator('tbody tr > :nth-child(2)').allInnerTexts()).every((a) => a.startsWith('device.')) || undefined,
      'only device actions',
    );
    await action.selectOption('device.registered');
    await page
      .getByRole('cell', { name: /device serial: SN-/ })
      .first()
      .waitFor();
    // The family's rows hold that cell too: wait for the narrower list to replace them.
    await eventually(
      async () => (await page.locator('tbody tr > :nth-child(2)').allInnerTexts()).every((a) => a === 'device.registered') || undefined,
      'only device.registered',
    );
    assert.deepEqual(new Set(await page.locator('tbody tr > :nth-child(2)').allInnerTexts()), new Set(['device.registered']));
  });
});
