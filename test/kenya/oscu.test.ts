// A Kenyan merchant end to end: KRA tenant and OSCU device through the partner API, initialised
// against the simulator's kra-oscu profile (cmcKey), sales of every letter filed with the KRA
// arithmetic the simulator checks, credit notes pointing at the original's invcNo, a lost reply
// adopted through selectInvoiceDetails, an outage queued and drained in invoice order.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kraControl, type KraControl } from '@fiscal-gateway/simulator';
import { engineName } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';
import { bearer } from '../helpers/app.ts';
import { assertArrivalOrder, expectStatus, startHarness, type Harness } from '../helpers/harness.ts';

const PIN = 'P051234567X';
/** A code of KRA's item classes only (packaged food). */
const KE_CLASS = '5059690800';

interface Sale {
  id: number;
  invoiceNo: number;
  status: string;
  authorityInvoiceNo: string | null;
  resultCode: string | null;
  lastError: string | null;
  totals: Record<string, unknown>;
  fiscal: Record<string, unknown>;
}

describe(`Kenya: a KRA merchant on OSCU (${engineName})`, () => {
  let h: Harness;
  let kra: KraControl;
  let token: string;
  let sdcId: string;
  const post = (url: string, body: unknown) => h.t.inject({ method: 'POST', url, headers: bearer(token), payload: body as object });
  const get = async (url: string) => (await h.t.inject({ method: 'GET', url, headers: bearer(token) })).json().data;
  const settled = (id: number): Promise<Sale> =>
    eventually(async () => {
      const sale = (await get(`/api/v1/sales/${id}`)) as Sale;
      return sale.status !== 'pending' ? sale : undefined;
    }, `sale ${id} filed or failed`);

  before(async () => {
    h = await startHarness();
    kra = kraControl(h.sim, 'kra-oscu');
    const partner = bearer(h.merchant.partnerSecret);
    const tenant = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: '/api/v1/tenants',
        headers: partner,
        payload: { name: 'Nairobi Traders', tpin: PIN, authority: 'kra' },
      }),
      201,
    ).data;
    assert.equal(tenant.authority, 'kra');
    const device = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: `/api/v1/tenants/${tenant.id}/devices`,
        headers: partner,
        payload: { deviceSerial: 'KE-OSCU-1', branch: '00', vsdcBaseUrl: h.sim.urlOf('kra-oscu') },
      }),
      201,
    ).data;
    assert.equal(device.protocol, 'oscu', 'OSCU is a KRA device’s default protocol');
    const initialised = expectStatus(
      await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/devices/00/initialize`, headers: partner }),
      200,
    ).data;
    assert.equal(initialised.initialized, true);
    assert.equal(initialised.unitKeySet, true, 'the cmcKey is kept (sealed)');
    sdcId = initialised.sdcId;
    token = expectStatus(
      await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/tokens`, headers: partner, payload: { name: 'till' } }),
      201,
    ).data.token;
  });
  after(() => h?.close());

  test('a sale of every letter is filed with KRA’s fields and answered with its receipt', async () => {
    const lines = ['A', 'B', 'C', 'D', 'E'].map((letter, i) => ({
      classificationCode: KE_CLASS,
      name: `Item ${letter}`,
      quantity: i + 1,
      price: 116.5,
      vatCategory: letter,
      ...(letter === 'B' ? { discount: 10 } : {}),
    }));
    const res = await post('/api/v1/sales', { items: lines, clientInvoiceNo: 'POS-1' });
    assert.equal(res.statusCode, 201, res.body);
    const sale = await settled(res.json().data.id);
    assert.equal(sale.status, 'uploaded', sale.lastError ?? '');
    assert.equal(sale.totals.currency, 'KES');
    assert.equal(sale.authorityInvoiceNo, `${sdcId}/${sale.invoiceNo}`);
    const filed = kra.filed(PIN, '00').find((d) => d.invcNo === sale.invoiceNo)!;
    assert.ok(filed, 'the simulator holds the sale under its invoice number');
    assert.equal(sale.fiscal.receiptNo, filed.receipt.curRcptNo);
    assert.equal(sale.fiscal.totalReceiptNo, filed.receipt.totRcptNo);
    assert.equal(sale.fiscal.receiptSignature, filed.receipt.rcptSign);
    assert.equal(
      sale.fiscal.qrCodeUrl,
      `https://etims-sbx.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=${PIN}00${filed.receipt.rcptSign}`,
    );
    const body = filed.body;
    assert.equal(body.rcptTyCd, 'S');
    assert.equal(body.orgInvcNo, 0);
    assert.equal(body.trdInvcNo, 'POS-1');
    assert.equal(body.totItemCnt, 5);
    assert.equal(body.taxRtB, 16);
    assert.equal(body.taxRtE, 8);
    assert.match(String(body.cfmDt), /^[0-9]{14}$/);
    const items = body.itemList as Array<Record<string, unknown>>;
    assert.deepEqual(
      items.map((l) => l.taxTyCd),
      ['A', 'B', 'C', 'D', 'E'],
    );
    // Tax-inclusive prices: the base is backed out of the gross, the tax is the rest.
    const b = items[1]!;
    assert.equal(b.splyAmt, 233);
    assert.equal(b.dcAmt, 10);
    assert.equal(b.taxblAmt, 192.24);
    assert.equal(b.taxAmt, 30.76);
  });

  test('a credit note points at the original’s invcNo, from the same sequence; a debit note is refused', async () => {
    const created = await post('/api/v1/sales', {
      items: [{ classificationCode: KE_CLASS, name: 'Maize flour', quantity: 2, price: 200 }],
    });
    const sale = await settled(created.json().data.id);
    assert.equal(sale.status, 'uploaded', sale.lastError ?? '');
    const noted = await post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '06' });
    assert.equal(noted.statusCode, 201, noted.body);
    const note = await settled(noted.json().data.id);
    assert.equal(note.status, 'uploaded', note.lastError ?? '');
    assert.equal(note.invoiceNo, sale.invoiceNo + 1, 'sales and credit notes share the branch’s sequence');
    const filed = kra.filed(PIN, '00').find((d) => d.invcNo === note.invoiceNo)!;
    assert.equal(filed.rcptTyCd, 'R');
    assert.equal(filed.orgInvcNo, sale.invoiceNo);
    assert.equal(filed.body.rfdRsnCd, '06');
    const debit = await post(`/api/v1/sales/${sale.id}/debit-note`, {
      reasonCode: '01',
      items: [{ classificationCode: KE_CLASS, name: 'Maize flour', quantity: 1, price: 10 }],
    });
    assert.equal(debit.statusCode, 422, debit.body);
    assert.match(debit.body, /debit note/i);
  });

  test('a reply lost after filing: the retry finds the receipt with selectInvoiceDetails and adopts it; one receipt, no gap', async () => {
    kra.setFaults(PIN, '00', { loseReplies: 1 });
    const created = await post('/api/v1/sales', { items: [{ classificationCode: KE_CLASS, name: 'Sugar 2kg', quantity: 1, price: 310 }] });
    const sale = await settled(created.json().data.id);
    assert.equal(sale.status, 'uploaded', sale.lastError ?? '');
    const filed = kra.filed(PIN, '00').filter((d) => d.invcNo === sale.invoiceNo);
    assert.equal(filed.length, 1, 'filed once');
    assert.equal(sale.fiscal.receiptSignature, filed[0]!.receipt.rcptSign, 'the lost receipt is the one adopted');
    assert.ok(kra.documents(PIN, '00').some((d) => d.invcNo === sale.invoiceNo && d.replyLost));
    kra.clearFaults(PIN, '00');
  });

  test('OSCU down: sales are queued pending at once, then filed in invoice order when it answers', async () => {
    kra.setFaults(PIN, '00', { down: true });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await post('/api/v1/sales', {
        items: [{ classificationCode: KE_CLASS, name: `Queued ${i}`, quantity: 1, price: 50 + i }],
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().data.status, 'pending');
      ids.push(res.json().data.id);
    }
    const before = kra.filed(PIN, '00').length;
    kra.clearFaults(PIN, '00');
    const sales = await Promise.all(ids.map((id) => settled(id)));
    assert.ok(sales.every((s) => s.status === 'uploaded'));
    const arrivals = kra
      .filed(PIN, '00')
      .slice(before)
      .map((d) => d.invcNo);
    assert.deepEqual(
      arrivals,
      sales.map((s) => s.invoiceNo),
    );
    assertArrivalOrder(arrivals);
  });

  test('a rejection is failed with KRA’s code and text, and the branch carries on', async () => {
    kra.setFaults(PIN, '00', { forcedResult: { code: '910', message: 'Request parameter error', endpoints: ['saveTrnsSalesOsdc'] } });
    const res = await post('/api/v1/sales', { items: [{ classificationCode: KE_CLASS, name: 'Refused', quantity: 1, price: 5 }] });
    const failed = await settled(res.json().data.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.resultCode, '910');
    kra.clearFaults(PIN, '00');
    const next = await settled(
      (await post('/api/v1/sales', { items: [{ classificationCode: KE_CLASS, name: 'After', quantity: 1, price: 5 }] })).json().data.id,
    );
    assert.equal(next.status, 'uploaded', next.lastError ?? '');
  });

  test('a KRA merchant’s own words: letters, payment methods and currency are its authority’s', async () => {
    const wrongLetter = await post('/api/v1/sales', {
      items: [{ classificationCode: KE_CLASS, name: 'X', quantity: 1, price: 1, vatCategory: 'C1' }],
    });
    assert.equal(wrongLetter.statusCode, 422, wrongLetter.body);
    assert.match(wrongLetter.body, /A, B, C, D, E|A.*B.*C.*D.*E/);
    const zraPayment = await post('/api/v1/sales', {
      items: [{ classificationCode: KE_CLASS, name: 'X', quantity: 1, price: 1 }],
      paymentMethod: '08',
    });
    assert.equal(zraPayment.statusCode, 422, zraPayment.body);
    const usd = await post('/api/v1/sales', {
      items: [{ classificationCode: KE_CLASS, name: 'X', quantity: 1, price: 1 }],
      currency: 'USD',
      exchangeRate: 130,
    });
    assert.equal(usd.statusCode, 422, usd.body);
  });
});
