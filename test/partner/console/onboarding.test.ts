// A merchant's first steps in the console (issue 34, items 3, 6 and 7): with no initialised branch
// the banner and the empty Documents and Backlog views lead to Devices; the device form offers the
// built-in simulator's address in development, and a failed initialisation says which address was
// tried, why, and leads to Correct device; the developer screen's curl fiscalises a sale with the
// token just made, which stays on screen until dismissed.
// test-database: embedded only (scripts/run-tests.mjs): the browser's view does not depend on the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { announceBuiltinSimulator } from '../../../src/domain/kernel/devices/builtin-simulator.ts';
import { bearer } from '../../helpers/app.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { openConsole, skipBrowser, type ConsoleBrowser } from './browser-kit.ts';

/** A port nothing listens on: the handshake's connection is refused. */
const UNREACHABLE = 'http://127.0.0.1:1';

describe("a merchant's first steps in the console", { skip: skipBrowser }, () => {
  let h: Harness;
  let c: ConsoleBrowser;
  before(async () => {
    h = await startHarness();
    // What the development start does once its simulator listens (src/app/dev/index.ts).
    (h.ctx.config as { builtinSimulator: boolean }).builtinSimulator = true;
    announceBuiltinSimulator(h.ctx, h.sim.url);
    c = await openConsole(h);
  });
  after(async () => {
    await c?.close();
    await h?.close();
  });

  test('no branch yet: the banner and the empty views lead to Devices; the form offers the simulator; an unreachable VSDC is named with its cause and Correct device', async () => {
    const { page } = c;
    await c.signInMerchant(await h.addMerchant({ branches: [] }));
    const banner = page.getByTestId('standing-banner');
    await banner.getByRole('link', { name: 'Go to Devices' }).waitFor();
    assert.match((await banner.textContent())!, /Register the device \(VSDC\) of your branch/, 'words for the shop, not endpoints');
    assert.doesNotMatch((await banner.textContent())!, /\/api\/v1|docs\//);
    const documentsEmpty = page.getByTestId('empty-no-branch');
    await documentsEmpty.getByText('No documents yet.').waitFor();
    assert.equal(await documentsEmpty.getByRole('link', { name: 'Devices', exact: true }).getAttribute('href'), '#/devices');

    await c.open('Backlog & failed');
    await page.getByTestId('empty-no-branch').getByRole('link', { name: 'Go to Devices' }).click();
    await page.getByRole('heading', { level: 1, name: 'Devices', exact: true }).waitFor();

    // Development: the built-in simulator's address is offered and fills the field.
    const offer = page.getByTestId('register-simulator');
    await offer.getByText(h.sim.url).waitFor();
    await offer.getByRole('button', { name: 'Use the built-in simulator' }).click();
    assert.equal(await page.getByLabel('VSDC address').inputValue(), h.sim.url);

    // A wrong address: the failure names it, says why, and leads to Correct device.
    await page.getByLabel('Device serial').fill('FIRST-VSDC-1');
    await page.getByLabel('Branch', { exact: true }).fill('000');
    await page.getByLabel('VSDC address').fill(UNREACHABLE);
    await page.getByRole('button', { name: 'Register the device' }).click();
    await page.getByRole('button', { name: 'Initialise branch 000' }).click();
    const failure = page.getByTestId('init-failure-000');
    await failure.waitFor();
    const said = (await failure.textContent())!;
    assert.ok(said.includes(UNREACHABLE), `the address tried: ${said}`);
    assert.match(said, /connection refused/, 'the cause');
    await failure.getByRole('button', { name: 'Correct device' }).click();
    await page.locator('#correct-url-000:focus').waitFor();
    await page.getByTestId('correct-simulator-000').getByRole('button', { name: 'Use the built-in simulator' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: h.sim.url }).waitFor();
    await page.getByRole('button', { name: 'Initialise branch 000' }).click();
    await page.getByText('Initialised', { exact: true }).waitFor();
    // The banner goes with the initialisation, on the Devices view itself (issue 45 M2).
    await banner.waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Devices', exact: true }).count(), 1);

    // With a branch: no banner, and the empty Documents view says how the first sale gets there.
    await c.open('Documents');
    assert.equal(await banner.count(), 0);
    const firstSale = page.getByTestId('empty-first-sale');
    assert.equal(await firstSale.getByRole('link', { name: 'Developer' }).getAttribute('href'), '#/developer');
    assert.equal(await firstSale.getByRole('link', { name: 'API reference' }).getAttribute('href'), '/docs');
  });

  test("the developer screen: the token's curl fiscalises a sale, and the token stays until dismissed", async () => {
    const { page } = c;
    await c.signInMerchant(await h.addMerchant({ branches: ['000'] }));
    await c.open('Developer');
    await page.getByLabel('Name').fill('Till 1');
    await page.getByRole('button', { name: 'Create the token' }).click();
    const token = await page.getByTestId('new-token').inputValue();
    assert.match(token, /^tt_/);
    assert.equal(await page.getByTestId('revealed-token').getByRole('link', { name: 'API reference' }).getAttribute('href'), '/docs');

    // The curl as shown, run as a shell would: its URL, headers and body.
    const curl = (await page.getByTestId('first-call-curl').textContent())!;
    const url = /curl -sS -X POST '([^']+)'/.exec(curl)?.[1];
    assert.equal(url, `${c.base}/api/v1/sales`, "the gateway's own address");
    const headers = Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
    assert.equal(headers.Authorization, `Bearer ${token}`, 'the token just made');
    const body = /-d '([^']+)'/.exec(curl)?.[1];
    assert.ok(body, curl);
    // Shown as it is copied: each line of the command on a line of its own, none wrapped (it scrolls sideways).
    const shownLines = await page.evaluate<number>(
      '(() => { const range = document.createRange(); range.selectNodeContents(document.querySelector(\'[data-testid="first-call-curl"]\')); return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; })()',
    );
    assert.equal(shownLines, curl.trim().split('\n').length, 'no line of the command wraps');
    const created = await fetch(url, { method: 'POST', headers, body });
    assert.equal(created.status, 201, await created.clone().text());
    const sale = ((await created.json()) as { data: { id: number } }).data;
    await eventually(async () => {
      const res = await h.t.inject({ method: 'GET', url: `/api/v1/sales/${sale.id}`, headers: bearer(token) });
      return res.json().data.status === 'uploaded' ? true : undefined;
    }, "the curl's sale to be fiscalised");

    // Another view and back: the token is still there, until "I have copied it".
    await c.open('Documents');
    await page.getByTestId(`document-${sale.id}`).waitFor();
    await c.open('Developer');
    assert.equal(await page.getByTestId('new-token').inputValue(), token, 'kept across renders until dismissed');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByTestId('new-token').waitFor({ state: 'detached' });
    await page.getByRole('rowheader', { name: 'Till 1', exact: true }).waitFor();
    assert.equal((await page.content()).includes(token), false, 'the plaintext is gone');
  });
});
