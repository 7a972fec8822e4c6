// The Reports view in a real browser: a merchant reads its day's X report, downloads it as PDF and
// CSV, closes the day through the confirmation and finds the Z among its closed days; a viewer
// is not offered the close; its partner and the operator read the same report.
// test-database: embedded only (scripts/run-tests.mjs): the browser's view does not depend on the engine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { dayOf } from '../../../src/platform/lib/time-zones.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { LAPTOP, openConsole, PHONE, skipBrowser, type ConsoleBrowser } from './browser-kit.ts';

interface Sale {
  id: number;
  status: string;
  totals: { net: number; vat: number; total: number };
}

/** An amount as the console writes it in the browser's en-GB locale. */
const shown = (n: number) => n.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

describe(`the Reports view in a real browser (${engineName})`, { skip: skipBrowser }, () => {
  let h: Harness;
  let c: ConsoleBrowser;
  let sale: Sale['totals'];
  let today: string;

  before(async () => {
    h = await startHarness();
    const created = await h.post('/api/v1/sales', saleBody({ paymentMethod: '01' }, [{ quantity: 2, price: 116 }]));
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id as number;
    sale = await eventually(async () => {
      const read = (await h.get(`/api/v1/sales/${id}`)).json().data as Sale;
      return read.status === 'uploaded' ? read.totals : undefined;
    }, 'the sale filed');
    today = dayOf(new Date(), 'Africa/Lusaka');
    c = await openConsole(h);
  });
  after(async () => {
    await c?.close();
    await h?.close();
  });

  /** The report card's heading, e.g. `X report, 2026-11-28, branch 000 …`. */
  const reportHeading = (type: 'X' | 'Z') =>
    c.page.getByRole('heading', { level: 2, name: new RegExp(`^${type} report, ${today}, branch 000`) });

  /** The Sales row of the fiscal figures: documents, taxable, VAT, total. */
  async function salesFigures(): Promise<string[]> {
    const row = c.page.getByRole('region', { name: 'Fiscalised (uploaded) documents, ZMW' }).getByRole('row', { name: /^Sales/ });
    return (await row.getByRole('cell').allInnerTexts()).slice(0, 4);
  }

  test('a viewer reads the X report but is not offered "Close the day"', async () => {
    await c.signInMerchant(h.merchant, await seedSignedInUser(h.ctx, h.merchant.tenantId, 'viewer'));
    await c.open('Reports');
    await reportHeading('X').waitFor();
    assert.deepEqual(await salesFigures(), ['1', shown(sale.net), shown(sale.vat), shown(sale.total)]);
    await c.page.getByText('Viewers read reports; an owner or admin closes the day.').waitFor();
    assert.equal(await c.page.getByRole('button', { name: 'Close the day' }).count(), 0);
  });

  test('a merchant reads the X report, downloads its PDF and CSV, closes the day and finds the Z among the closed days', async () => {
    const { page } = c;
    const owner = await c.signInMerchant(h.merchant);
    await c.open('Reports');
    await reportHeading('X').waitFor();
    assert.deepEqual(await salesFigures(), ['1', shown(sale.net), shown(sale.vat), shown(sale.total)], 'the day holds the filed sale');
    await page.getByText('No day of this branch is closed yet.').waitFor();
    const unlabelled = await page.evaluate<string[]>(
      "[...document.querySelectorAll('main input:not([type=hidden]):not([hidden]), main select')].filter((el) => !el.labels?.length && !el.getAttribute('aria-label')).map((el) => el.outerHTML)",
    );
    assert.deepEqual(unlabelled, [], 'every control has a label');
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate<number>(
      'new Promise((r) => requestAnimationFrame(() => r(document.documentElement.scrollWidth - document.documentElement.clientWidth)))',
    );
    assert.ok(overflow <= 0, `the view is ${overflow}px wider than a 390 px phone`);
    await page.setViewportSize(LAPTOP);

    // The downloads, as the person gets them: named after the report, the CSV holding the sale.
    const name = `X-report-${h.merchant.tpin}-000-${today}`;
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    assert.equal(csv.suggestedFilename(), `${name}.csv`);
    const csvText = readFileSync(await csv.path(), 'utf8');
    assert.match(csvText, /^section,type,key,value,count,taxable,vat,total,discount/);
    assert.ok(csvText.includes(`fiscal,sale,,,1,${sale.net.toFixed(2)},${sale.vat.toFixed(2)},${sale.total.toFixed(2)},`), csvText);
    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
    assert.equal(pdf.suggestedFilename(), `${name}.pdf`);
    assert.equal(
      readFileSync(await pdf.path())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
    // And what the gateway answers the signed-in session for each format.
    for (const [accept, type] of [
      ['application/pdf', /^application\/pdf/],
      ['text/csv', /^text\/csv/],
    ] as const) {
      const res = await page.request.get(`${c.base}/api/v1/reports/daily?date=${today}&branch=000`, { headers: { accept } });
      assert.equal(res.status(), 200, accept);
      assert.match(res.headers()['content-type'] ?? '', type);
    }

    // Closing asks first, saying it cannot be undone; Cancel leaves the day open.
    await page.getByRole('button', { name: 'Close the day' }).click();
    await page.getByText(/Close .* for branch 000\? Its Z report is taken now and this cannot be undone/).waitFor();
    await page.getByText(/It is today: sales of today issued after the close will be in no daily report/).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await h.get('/api/v1/reports/daily')).json().data.type, 'X', 'nothing closed before the confirmation');
    await page.getByRole('button', { name: 'Close the day' }).click();
    await page.getByRole('button', { name: 'Yes, close the day' }).click();
    await page.getByRole('main').getByText(`Day ${today} of branch 000 closed: this is its Z report.`).waitFor();
    await reportHeading('Z').waitFor();
    assert.deepEqual(await salesFigures(), ['1', shown(sale.net), shown(sale.vat), shown(sale.total)]);
    assert.equal(await page.getByRole('button', { name: 'Close the day' }).count(), 0, 'a closed day cannot be closed again');
    const z = (await h.get('/api/v1/reports/daily')).json().data as { type: string; closedBy: string };
    assert.equal(z.type, 'Z');
    assert.match(z.closedBy, /^user:\d+$/, 'closed by the signed-in user');
    assert.match(
      await page.getByTestId('closed-by').innerText(),
      new RegExp(` by ${owner.email.replace(/[.]/g, '\\.')}$`),
      'named by email, as the audit trail names people',
    );
    await page.getByText('No document of this day was stored after the close.').waitFor();

    // A sale of the same day after the close: in no daily report, and the Z says so plainly.
    const late = await h.post('/api/v1/sales', saleBody({}, [{ price: 58 }]));
    assert.equal(late.statusCode, 201, late.body);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const afterClose = page.getByTestId('after-close');
    await afterClose.getByText(`1 document of this day was stored after the close (net total ${shown(58)} ZMW`).waitFor();
    assert.equal(
      await afterClose.getByRole('link', { name: 'Documents' }).getAttribute('href'),
      `#/documents?from=${today}&to=${today}&branch=000`,
    );
    assert.deepEqual(await salesFigures(), ['1', shown(sale.net), shown(sale.vat), shown(sale.total)], 'the Z itself never changes');

    const closedDay = page.getByRole('region', { name: 'Closed days of branch 000' }).getByRole('row', { name: new RegExp(`^${today}`) });
    await closedDay.waitFor();
    const closedRow = await closedDay.innerText();
    assert.ok(closedRow.includes(shown(sale.total)), 'the closed day with its net total');
    assert.ok(closedRow.includes(owner.email), `closed by the user's email: ${closedRow}`);
    assert.ok(closedRow.includes('1 stored after the close'), closedRow);
    // Opening it from the list reads that day's stored Z.
    await closedDay.getByRole('link', { name: today }).click();
    await page.waitForURL(new RegExp(`#/reports\\?.*date=${today}`));
    await reportHeading('Z').waitFor();
  });

  for (const role of ['partner', 'operator'] as const) {
    test(`the ${role} reads the same Z report and the closed days of the merchant`, async () => {
      const { page } = c;
      await c.signInWithKey(role, role === 'partner' ? h.merchant.partnerSecret : undefined);
      await c.open('Reports');
      await page.getByText('Enter a merchant id to read its reports.').waitFor();
      await page.getByLabel('Merchant id').fill(String(h.merchant.tenantId));
      await page.getByRole('button', { name: 'Show' }).click();
      await reportHeading('Z').waitFor();
      assert.deepEqual(await salesFigures(), ['1', shown(sale.net), shown(sale.vat), shown(sale.total)]);
      await page
        .getByRole('region', { name: 'Closed days of branch 000' })
        .getByRole('row', { name: new RegExp(`^${today}`) })
        .waitFor();
      assert.equal(await page.getByRole('button', { name: 'Close the day' }).count(), 0);
      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      assert.equal(csv.suggestedFilename(), `Z-report-${h.merchant.tpin}-000-${today}.csv`);
    });
  }
});
