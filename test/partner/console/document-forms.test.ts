// A document's page in a real browser: looking at a receipt without using up its original, and
// issuing a credit note that shows what is left, starts with nothing chosen and asks first.
// test-database: embedded only (scripts/run-tests.mjs): the page's behaviour does not depend on the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../../helpers/db.ts';
import type { SignedInUser } from '../../helpers/accounts.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { openConsole, skipBrowser, type ConsoleBrowser } from './browser-kit.ts';

interface Sale {
  id: number;
  invoiceNo: number;
  status: string;
  authorityInvoiceNo: string | null;
  notes?: Array<{ id: number; invoiceNo: number }>;
}

describe(`a document's receipt and credit-note form in the browser (${engineName})`, { skip: skipBrowser }, () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  let user: SignedInUser;

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 2_000 } });
    browser = await openConsole(h);
    user = await browser.signInMerchant(h.merchant);
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  async function uploadedSale(): Promise<Sale> {
    const res = await h.post(
      '/api/v1/sales',
      saleBody({}, [
        { name: 'Cooking oil', quantity: 4, price: 58 },
        { name: 'Sugar', quantity: 2, price: 30.5 },
      ]),
    );
    const sale = res.json().data as Sale;
    assert.equal(sale.status, 'uploaded', res.body);
    return sale;
  }

  async function openDocument(sale: Sale): Promise<void> {
    await browser.page.goto(`${browser.base}/console/#/document?id=${sale.id}`);
    await browser.page.getByRole('heading', { level: 1, name: `Sale No. ${sale.invoiceNo}`, exact: true }).waitFor();
  }

  /** Follows a link that opens a new tab and returns that tab's text. */
  async function tabText(name: string): Promise<string> {
    const { page, context } = browser;
    const [tab] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name, exact: true }).click()]);
    await tab.getByText('SDC INFORMATION').waitFor();
    const text = await tab.locator('body').innerText();
    await tab.close();
    return text;
  }

  test('Preview counts no print: the first Print receipt after it is the original, the next says COPY; the PDF is saved under its name', async () => {
    const sale = await uploadedSale();
    await openDocument(sale);
    const { page } = browser;
    await page.getByText('Preview shows the receipt without printing it.').waitFor();

    const preview = await tabText('Preview');
    assert.match(preview, /PREVIEW — NOT A RECEIPT/);
    assert.match(preview, /Not printed yet: the next print is the original\./);
    assert.doesNotMatch(preview, /^COPY$/m);

    const original = await tabText('Print receipt');
    assert.doesNotMatch(original, /^COPY$/m, 'the first real print is the original');
    assert.doesNotMatch(original, /PREVIEW/);
    assert.match(await tabText('Preview'), /Printed 1 time: the next print says COPY\./);
    assert.match(await tabText('Print receipt'), /^COPY$/m, 'the second real print is a copy');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Print receipt (PDF)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `receipt-${sale.authorityInvoiceNo!.replace('/', '-')}-copy.pdf`);
  });

  test('the credit form starts unticked, shows what is left after a partial credit, asks before issuing; the note names its sale and who issued it, the sale lists its notes', async () => {
    const sale = await uploadedSale();
    const partial = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] });
    assert.equal(partial.json().data.status, 'uploaded', partial.body);
    const first = partial.json().data as Sale;
    await openDocument(sale);
    const { page } = browser;

    // The sale's page lists the note already issued, by its number; both name the token that issued them.
    await page.getByRole('link', { name: `Credit note No. ${first.invoiceNo}`, exact: true }).waitFor();
    const token = await h.ctx.db
      .selectFrom('tenant_tokens')
      .select('name')
      .where('tenant_id', '=', h.merchant.tenantId)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    assert.equal(await page.getByTestId('issued-by').innerText(), `${token.name} (token)`);
    assert.match(
      await page.getByRole('row', { name: new RegExp(`^Credit note No\\. ${first.invoiceNo} `) }).innerText(),
      new RegExp(`${token.name} \\(token\\)`),
    );

    const oil = page.getByLabel('1. Cooking oil');
    const sugar = page.getByLabel('2. Sugar');
    assert.equal(await oil.isChecked(), false, 'no line is ticked at first');
    assert.equal(await sugar.isChecked(), false);
    await page.getByText('sold 4 × 58.00, 1 already credited, 3 left to credit').waitFor();
    await page.getByText('sold 2 × 30.50, 2 left to credit').waitFor();

    await page.getByRole('button', { name: 'Issue the credit note' }).click();
    const formMessage = page.locator('#credit-message');
    await formMessage.getByText('Tick the lines to credit and say how much of each.').waitFor();

    // More than is left: the form says so itself (not the browser's "Value must be less than…").
    await page.getByLabel('Quantity to credit of line 1').fill('5');
    assert.equal(await formMessage.textContent(), '', 'a change clears the last message');
    await page.getByRole('button', { name: 'Issue the credit note' }).click();
    await formMessage.getByText('Line 1: credit more than 0 and at most 3, what is left of it.').waitFor();
    await page.getByLabel('Quantity to credit of line 1').fill('1');
    assert.equal(await oil.isChecked(), true, 'typing a quantity ticks its line');
    await sugar.check();
    assert.equal(await page.getByLabel('Quantity to credit of line 2').inputValue(), '2', 'ticking a line offers all that is left of it');
    // No reason is chosen for the merchant: it is filed with the authority.
    assert.equal(await page.getByLabel('Reason').inputValue(), '');
    await page.getByRole('button', { name: 'Issue the credit note' }).click();
    await formMessage.getByText(/Choose the reason for the credit note/).waitFor();
    await page.getByLabel('Reason').selectOption('01');
    await page.getByRole('button', { name: 'Issue the credit note' }).click();
    const question = await page.getByTestId('credit-confirm').innerText();
    assert.match(question, /^Credit 119\.00 ZMW of Sale No\. \d+ \(INV[^)]+\) \(2 lines, reason 01 /, question);
    const notesBefore = ((await h.get(`/api/v1/sales/${sale.id}?expand=credits`)).json().data as Sale).notes!.length;
    assert.equal(notesBefore, 1, 'nothing is issued before the confirmation');

    await page.getByRole('button', { name: 'Yes, issue the credit note' }).click();
    await page.getByRole('heading', { level: 1, name: /^Credit note No\. \d+$/ }).waitFor();
    assert.equal(
      await page.getByTestId('issued-by').innerText(),
      `${user.email} (user)`,
      'the note names the signed-in user who issued it',
    );
    const corrects = page.getByRole('link', { name: `Sale No. ${sale.invoiceNo} (${sale.authorityInvoiceNo})`, exact: true });
    await corrects.click();
    await page.getByRole('heading', { level: 1, name: `Sale No. ${sale.invoiceNo}`, exact: true }).waitFor();
    const notes = ((await h.get(`/api/v1/sales/${sale.id}?expand=credits`)).json().data as Sale).notes!;
    assert.equal(notes.length, 2);
    for (const note of notes) await page.getByRole('link', { name: `Credit note No. ${note.invoiceNo}`, exact: true }).waitFor();
    await page.getByText('sold 4 × 58.00, 2 already credited, 2 left to credit').waitFor();
    assert.equal(await page.getByLabel('2. Sugar').isDisabled(), true, 'a line credited in full cannot be ticked');

    // The audit trail says who credited the sale, newest first: the signed-in user, then the token.
    await page.goto(`${browser.base}/console/#/audit?action=sale.`);
    const credited = page.getByRole('row').filter({ hasText: 'sale.credited' });
    await credited.first().waitFor();
    const [mine, earlier] = await credited.allInnerTexts();
    assert.ok(mine?.includes(user.email) && mine.includes(`sale ${sale.invoiceNo} (branch 000)`), mine);
    assert.ok(earlier?.includes(`note invoice no:`), earlier);
  });
});
