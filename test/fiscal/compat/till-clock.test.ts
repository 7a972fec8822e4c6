// The till's clock is its merchant's time zone (tenants.timezone), not a fixed UTC+2: SaleDate is
// read on it and vsdcdate written on it. A Lusaka merchant's till is what it was.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromCompactLocal, toCompactLocal } from '../../../src/platform/lib/time-zones.ts';
import { engineName } from '../../helpers/db.ts';
import { startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { anHourAgo, mintKey, nextNumber, postInvoice, realBody, sdcIdOf, tillDateTime, zmGet, type Till } from './helpers.ts';

test("yyyyMMddHHmmss on a zone's wall clock, both ways; a date that is no date is null", () => {
  const at = new Date('2026-11-27T15:29:47Z');
  assert.equal(toCompactLocal(at, 'Africa/Lusaka'), '20261127172947');
  assert.equal(toCompactLocal(at, 'Africa/Nairobi'), '20261127182947');
  assert.equal(toCompactLocal(at, 'Asia/Kolkata'), '20261127205947');
  for (const zone of ['Africa/Lusaka', 'Africa/Nairobi', 'Asia/Kolkata', 'Europe/Berlin', 'America/New_York']) {
    assert.equal(fromCompactLocal(toCompactLocal(at, zone), zone)?.toISOString(), at.toISOString(), zone);
  }
  // Summer time in Berlin: UTC+2 in July.
  assert.equal(fromCompactLocal('20260701120000', 'Europe/Berlin')?.toISOString(), '2026-07-01T10:00:00.000Z');
  assert.equal(fromCompactLocal('20260631120000', 'Africa/Lusaka'), null);
  assert.equal(fromCompactLocal('20261127250000', 'Africa/Lusaka'), null);
  assert.equal(fromCompactLocal('2026112712000', 'Africa/Lusaka'), null);
  assert.equal(toCompactLocal(at, 'Africa/Lusaka'), tillDateTime(at), 'a Lusaka till reads as before');
});

describe(`a till on its merchant's clock (${engineName})`, () => {
  let h: Harness;
  let merchant: Merchant;
  let till: Till;

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 1_000 } });
    merchant = await h.addMerchant({ branches: ['000'] });
    // A zone whose offset is not Lusaka's, nor a whole number of hours.
    await h.ctx.db.updateTable('tenants').set({ timezone: 'Asia/Kolkata' }).where('id', '=', merchant.tenantId).execute();
    const sdcId = await sdcIdOf(h, merchant);
    till = { key: (await mintKey(h, merchant, { branch: '000' })).key, sdcId };
  });
  after(() => h.close());

  test("SaleDate is read, and vsdcdate written, in the merchant's zone", async () => {
    const number = nextNumber('CLOCK');
    const at = anHourAgo();
    const res = await postInvoice(h, till, realBody(number, till.sdcId!, { SaleDate: toCompactLocal(at, 'Asia/Kolkata') }));
    assert.equal(res.statusCode, 201, res.body);
    const sale = (await h.get(`/api/v1/sales?reference=${encodeURIComponent(number)}`, {}, merchant)).json().data[0];
    assert.equal(sale.occurredAt, at.toISOString());
    const invoice = await eventually(async () => {
      const read = (await zmGet(h, `/zm/api/Invoice/${encodeURIComponent(number)}`, till)).json();
      return read.Status === 'uploaded' ? read : undefined;
    }, `invoice ${number} uploaded`);
    assert.equal(invoice.vsdcdate, toCompactLocal(new Date(invoice.PublishedAt), 'Asia/Kolkata'));
    assert.notEqual(invoice.vsdcdate, tillDateTime(new Date(invoice.PublishedAt)), 'not Lusaka time');
  });
});
