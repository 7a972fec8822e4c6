// A Kenyan merchant whose branch runs KRA's VSCU jar: the device is registered with protocol
// `vscu` and files to the jar's VSDC-family paths (tin and bhfId in every body, no cmcKey).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kraControl, type KraControl } from '@fiscal-gateway/simulator';
import { engineName } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';
import { bearer } from '../helpers/app.ts';
import { expectStatus, startHarness, type Harness } from '../helpers/harness.ts';

const PIN = 'A123456789Z';
/** A code both authorities' catalogues hold (cereals and grains). */
const CLASS = '50221200';

describe(`Kenya: a KRA merchant on VSCU (${engineName})`, () => {
  let h: Harness;
  let kra: KraControl;
  let token: string;
  const post = (url: string, body: unknown) => h.t.inject({ method: 'POST', url, headers: bearer(token), payload: body as object });
  const settled = (id: number) =>
    eventually(async () => {
      const sale = (await h.t.inject({ method: 'GET', url: `/api/v1/sales/${id}`, headers: bearer(token) })).json().data;
      return sale.status !== 'pending' ? sale : undefined;
    }, `sale ${id} filed or failed`);

  before(async () => {
    h = await startHarness();
    kra = kraControl(h.sim, 'kra-vscu');
    const partner = bearer(h.merchant.partnerSecret);
    const tenant = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: '/api/v1/tenants',
        headers: partner,
        payload: { name: 'Mombasa Stores', tpin: PIN, authority: 'kra' },
      }),
      201,
    ).data;
    const payload = { deviceSerial: 'KE-VSCU-1', branch: '01', vsdcBaseUrl: h.sim.urlOf('kra-vscu'), protocol: 'vscu' };
    assert.equal(
      expectStatus(await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/devices`, headers: partner, payload }), 201).data
        .protocol,
      'vscu',
    );
    expectStatus(await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/devices/01/initialize`, headers: partner }), 200);
    token = expectStatus(
      await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/tokens`, headers: partner, payload: { name: 'till' } }),
      201,
    ).data.token;
  });
  after(() => h?.close());

  test('a sale and its credit note are filed to the jar, branch 01, with tin and bhfId in the body', async () => {
    const created = await post('/api/v1/sales', {
      items: [{ name: 'Rice 5kg', classificationCode: CLASS, quantity: 2, price: 580, vatCategory: 'B' }],
    });
    assert.equal(created.statusCode, 201, created.body);
    const sale = await settled(created.json().data.id);
    assert.equal(sale.status, 'uploaded', sale.lastError ?? '');
    // The jar's profile finds the device by the body's tin and bhfId only (it ignores headers).
    const filed = kra.filed(PIN, '01').find((d) => d.invcNo === sale.invoiceNo)!;
    assert.ok(filed, 'filed under the merchant’s PIN and branch 01');
    assert.equal(filed.salesTyCd, 'N');
    assert.equal(sale.fiscal.receiptNo, filed.receipt.curRcptNo);
    const note = await settled(expectStatus(await post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' }), 201).data.id);
    assert.equal(note.status, 'uploaded', note.lastError ?? '');
    const filedNote = kra.filed(PIN, '01').find((d) => d.invcNo === note.invoiceNo)!;
    assert.equal(filedNote.rcptTyCd, 'R');
    assert.equal(filedNote.orgInvcNo, sale.invoiceNo);
  });
});
