// A Kenyan merchant signs up in the console: the sign-up page's authority choice (Zambia ZRA by
// default, Kenya KRA) makes the taxpayer id's label, hint and form follow it; the account made is a
// KRA merchant, whose Devices list shows each device's protocol (OSCU) and its authority.
// test-database: embedded only (scripts/run-tests.mjs): the browser's view does not depend on the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { merchantProfile } from '../../../src/authorities/index.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { openConsole, skipBrowser, type ConsoleBrowser } from './browser-kit.ts';

const PASSWORD = 'correct horse battery staple';

describe('a Kenyan merchant signs up in the console', { skip: skipBrowser }, () => {
  let h: Harness;
  let c: ConsoleBrowser;
  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
    c = await openConsole(h);
  });
  after(async () => {
    await c?.close();
    await h?.close();
  });

  test('choose Kenya — KRA: the PIN is asked for as KRA writes it; the merchant made is KRA, and its device shows OSCU', async () => {
    const { page, base } = c;
    await page.goto(`${base}/console/#/signup`);
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    const authority = page.getByLabel('Tax authority');
    assert.equal(await authority.inputValue(), 'zra', 'Zambia is the default');
    await page.getByLabel('TPIN').waitFor();
    await page.getByText('10 digits.', { exact: true }).waitFor();

    await authority.selectOption({ label: 'Kenya — KRA (eTIMS)' });
    const pin = page.getByLabel('KRA PIN');
    await page.getByText('A letter, 9 digits and a letter, e.g. P051234567X.', { exact: true }).waitFor();
    await page.getByLabel('Merchant name').fill('Nairobi Hardware');
    await pin.fill('1234567890');
    const email = `kenya.${process.pid}.${Date.now()}@example.com`;
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create the account' }).click();
    assert.equal(
      await pin.evaluate((input) => (input as { validationMessage: string }).validationMessage),
      'KRA PIN: A letter, 9 digits and a letter, e.g. P051234567X.',
      'a TPIN is not a KRA PIN',
    );

    const kraPin = `p${String(Date.now() % 1_000_000_000).padStart(9, '0')}k`;
    await pin.fill(kraPin);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();

    const user = await h.ctx.db.selectFrom('users').select('tenant_id').where('email', '=', email).executeTakeFirstOrThrow();
    const tenant = await h.ctx.db
      .selectFrom('tenants')
      .select(['tpin', 'authority', 'timezone', 'origin'])
      .where('id', '=', user.tenant_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(tenant, { tpin: kraPin.toUpperCase(), authority: 'kra', timezone: 'Africa/Nairobi', origin: 'self' });

    // Signed in (the mail round trip is test/partner/console/merchant-journey.test.ts's): its account and its device.
    await c.signInMerchant(
      { tenantId: user.tenant_id } as Parameters<ConsoleBrowser['signInMerchant']>[0],
      await seedSignedInUser(h.ctx, user.tenant_id),
    );
    const kra = merchantProfile('kra');
    await c.open('Account');
    const facts = page.locator('dl.facts');
    await facts.getByText(kra.name, { exact: true }).waitFor();
    await facts.getByText(kraPin.toUpperCase(), { exact: true }).waitFor();

    await c.open('Devices');
    await page.getByTestId('devices-authority').getByText(kra.name).waitFor();
    await page.getByLabel('Device serial').fill('NH-OSCU-0001');
    assert.equal(await page.getByLabel('Branch', { exact: true }).inputValue(), '00', 'the first free KRA branch');
    await page.getByLabel('VSDC address').fill('https://etims-api-sbx.kra.go.ke/etims-api');
    await page.getByRole('button', { name: 'Register the device' }).click();
    const protocol = page.getByRole('table', { name: 'Devices' }).locator('td[data-label="Protocol"]');
    await protocol.getByText('OSCU', { exact: true }).waitFor();
    await protocol.getByText('KRA eTIMS, hosted by KRA').waitFor();
  });
});
