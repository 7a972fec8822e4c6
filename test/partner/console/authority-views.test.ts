// The console shows a merchant its own authority's letters, forms and words, read from the server
// (GET /api/v1/account/authority), never written into the console. The Kenyan half runs once the
// registry has the `kra-oscu` profile.
// test-database: embedded only (scripts/run-tests.mjs): the page's behaviour does not depend on the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AUTHORITY_PROFILES } from '../../../src/authorities/index.ts';
import type { AuthorityProfile } from '../../../src/authorities/port/profile.ts';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { openConsole, skipBrowser, type ConsoleBrowser } from './browser-kit.ts';

const kra = (AUTHORITY_PROFILES as Readonly<Record<string, AuthorityProfile | undefined>>)['kra-oscu'];

describe(`the console by the merchant's authority (${engineName})`, { skip: skipBrowser }, () => {
  let h: Harness;
  let browser: ConsoleBrowser;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
    browser = await openConsole(h);
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  /** The VAT select of the item form: its options' values and the one chosen. */
  async function itemCategories(): Promise<{ codes: string[]; chosen: string }> {
    await browser.open('Items');
    const select = browser.page.getByLabel('VAT category');
    const codes = await select.locator('option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
    return { codes, chosen: await select.inputValue() };
  }

  test("a Zambian merchant: ZRA's letters (A chosen), its item codes and its 3-digit branches", async () => {
    await browser.signInMerchant(h.merchant);
    const { codes, chosen } = await itemCategories();
    assert.deepEqual(codes, ['A', 'B', 'C1', 'C2', 'C3', 'D', 'RVAT', 'E', 'F']);
    assert.equal(chosen, 'A');
    await browser.page.getByText('the gateway makes one (ZM2NTU0000001…)').waitFor();
    await browser.open('Devices');
    await browser.page.getByText('3 digits; 000 is headquarters.').waitFor();
  });

  test(
    "a Kenyan merchant: KRA's letters (B chosen), KE item codes and 2-digit branches",
    { skip: kra ? false : 'the registry has no kra-oscu profile yet (src/authorities/index.ts): runs once the KRA adapter is merged' },
    async () => {
      const kenyan = await h.addMerchant();
      await h.ctx.db
        .updateTable('tenants')
        .set({ authority: 'kra', timezone: 'Africa/Nairobi' })
        .where('id', '=', kenyan.tenantId)
        .execute();
      await browser.signInMerchant(kenyan);
      const { codes, chosen } = await itemCategories();
      assert.deepEqual(
        codes,
        kra!.taxCategories.map((c) => c.code),
      );
      assert.equal(chosen, 'B');
      await browser.page.getByText('the gateway makes one (KE2NTU0000001…)').waitFor();
      await browser.open('Devices');
      await browser.page.getByText(`${kra!.branch.words}; 00 is headquarters.`).waitFor();

      // Its devices show their protocol: here, to the merchant, and to the operator.
      const registered = await h.t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${kenyan.tenantId}/devices`,
        headers: bearer(kenyan.partnerSecret),
        payload: { deviceSerial: 'KE-VSCU-0001', branch: '00', vsdcBaseUrl: h.sim.url, protocol: 'vscu' },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      await browser.page.getByRole('button', { name: 'Refresh' }).click();
      const protocol = browser.page.locator('td[data-label="Protocol"]');
      await protocol.getByText('VSCU', { exact: true }).waitFor();
      await protocol.getByText('KRA eTIMS, run by the taxpayer').waitFor();
      await browser.signInWithKey('operator');
      await browser.open('Merchants');
      const row = browser.page.getByRole('row').filter({ hasText: `#${kenyan.tenantId} · KRA` });
      await row.getByText('00 VSCU (not initialised)').waitFor();
    },
  );
});
