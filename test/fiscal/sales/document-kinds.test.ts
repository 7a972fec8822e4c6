// Issue 32: the documents Zambian merchants issue. Training and proforma documents (own sequences,
// salesTyCd T/P, never fiscal), foreign currency (currencyTyCd/exchangeRt, kwacha in reports),
// zero-rated LPO sales (lpoNumber), RVAT principals (principalId), the customer's address, and
// credentials minted in training mode — each filed with the real simulator and read back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import {
  CLASS_CODE,
  expectCoded,
  expectInvalid,
  expectStatus,
  saleBody,
  startHarness,
  type Harness,
  type Merchant,
} from '../../helpers/harness.ts';
import { pullDuePrincipalBranches } from '../../../src/domain/feeds/principals/service.ts';
import { invoiceBody, mintKey, nextNumber, sdcIdOf, zmPost } from '../compat/helpers.ts';

type Body = Record<string, unknown>;

describe(`document kinds, currencies, LPO sales and principals (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  /** The saveSales bodies the simulator received for the merchant's branch, oldest first. */
  const filedBodies = (merchant: Merchant, branch = '000') =>
    h.sim.control.calls(merchant.tpin, branch, 'saveSales').map((c) => c.request as Body);
  const lastFiled = (merchant: Merchant) => filedBodies(merchant).at(-1)!;
  const sale = async (body: Body, merchant: Merchant = h.merchant, headers: Record<string, string> = {}) => {
    const res = await h.post('/api/v1/sales', body, headers, merchant);
    expectStatus(res, 201);
    return res.json().data;
  };
  const storedCount = async (merchant: Merchant) =>
    Number(
      (
        await h.ctx.db
          .selectFrom('sales')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', merchant.tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('training and proforma documents take sequences of their own, filed T-n / P-n, and never use a fiscal number', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const first = await sale(saleBody(), merchant);
    const training = await sale(saleBody({ salesType: 'training' }), merchant);
    const proforma = await sale(saleBody({ salesType: 'proforma' }), merchant);
    const training2 = await sale(saleBody({ salesType: 'training' }), merchant);
    const second = await sale(saleBody(), merchant);

    assert.deepEqual(
      [first, training, proforma, training2, second].map((s) => [s.salesType, s.invoiceNo, s.status]),
      [
        ['normal', 1, 'uploaded'],
        ['training', 1, 'uploaded'],
        ['proforma', 1, 'uploaded'],
        ['training', 2, 'uploaded'],
        ['normal', 2, 'uploaded'],
      ],
    );
    assert.deepEqual(
      filedBodies(merchant).map((b) => [b.cisInvcNo, b.salesTyCd, b.rcptTyCd]),
      [
        ['1', 'N', 'S'],
        ['T-1', 'T', 'S'],
        ['P-1', 'P', 'S'],
        ['T-2', 'T', 'S'],
        ['2', 'N', 'S'],
      ],
      'filed in the order stored, each kind from its own sequence',
    );

    const listed = async (query: string) => (await h.get(`/api/v1/sales?${query}`, {}, merchant)).json();
    assert.deepEqual(
      (await listed('salesType=training')).data.map((s: { id: number }) => s.id),
      [training2.id, training.id],
    );
    assert.deepEqual(
      (await listed('salesType=normal')).data.map((s: { id: number }) => s.id),
      [second.id, first.id],
    );
    assert.equal((await listed('')).meta.total, 5, 'the unfiltered count covers every kind');
    expectInvalid(await h.get('/api/v1/sales?salesType=copy', {}, merchant), 'salesType');

    const me = (await h.get('/api/v1/me', {}, merchant)).json().data;
    assert.equal(me.documentsThisMonth, 2, 'only the fiscal documents count against the quota');

    const device = (
      await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${merchant.tenantId}`, headers: bearer(merchant.partnerSecret) })
    ).json().data.devices[0];
    assert.deepEqual([device.nextInvoiceNo, device.nextTrainingInvoiceNo, device.nextProformaInvoiceNo], [3, 3, 2]);
  });

  test("a branch's training and proforma sequences continue the VSDC's counters", async () => {
    const merchant = await h.addMerchant();
    h.sim.control.presetDevice(merchant.tpin, '000', { lastSaleInvcNo: 40, lastTrainInvcNo: 7, lastProfrmInvcNo: 12 });
    await h.registerBranch(merchant, '000');
    const [normal, training, proforma] = [
      await sale(saleBody(), merchant),
      await sale(saleBody({ salesType: 'training' }), merchant),
      await sale(saleBody({ salesType: 'proforma' }), merchant),
    ];
    assert.deepEqual([normal.invoiceNo, training.invoiceNo, proforma.invoiceNo], [41, 8, 13]);
    assert.deepEqual(
      filedBodies(merchant).map((b) => b.cisInvcNo),
      ['41', 'T-8', 'P-13'],
    );
    const summary = h.sim.control.listDevices().find((d) => d.tpin === merchant.tpin && d.bhfId === '000');
    assert.deepEqual(
      [summary?.lastSaleInvcNo, summary?.lastTrainInvcNo, summary?.lastProfrmInvcNo],
      [41, 8, 13],
      "the simulator's counters moved with them",
    );
  });

  test('a proforma cannot be credited or debited; a training sale is credited in training (TR)', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const proforma = await sale(saleBody({ salesType: 'proforma' }), merchant);
    const credit = await h.post(`/api/v1/sales/${proforma.id}/credit-note`, { reasonCode: '01' }, {}, merchant);
    expectCoded(credit, 422, 'not_a_sale');
    assert.match(credit.json().error.message, /proforma/);
    expectCoded(
      await h.post(
        `/api/v1/sales/${proforma.id}/debit-note`,
        { reasonCode: '01', items: [{ name: 'x', classificationCode: CLASS_CODE, quantity: 1, price: 1 }] },
        {},
        merchant,
      ),
      422,
      'not_a_sale',
    );

    const training = await sale(saleBody({ salesType: 'training' }), merchant);
    const note = expectStatus(await h.post(`/api/v1/sales/${training.id}/credit-note`, { reasonCode: '01' }, {}, merchant), 201).data;
    assert.equal(note.salesType, 'training');
    assert.equal(note.status, 'uploaded');
    assert.deepEqual([lastFiled(merchant).salesTyCd, lastFiled(merchant).rcptTyCd, lastFiled(merchant).cisInvcNo], ['T', 'R', 'T-2']);
    assert.equal(await storedCount(merchant), 3, 'the refused notes stored nothing');
  });

  test('the simulator refuses the pairs the VSDC refuses (834)', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const proforma = await sale(saleBody({ salesType: 'proforma' }), merchant);
    const body = {
      ...lastFiled(merchant),
      cisInvcNo: 'P-99',
      rcptTyCd: 'R',
      orgInvcNo: proforma.fiscal.receiptNo,
      orgSdcId: proforma.fiscal.sdcId,
      rfdRsnCd: '01',
    };
    const answer = await fetch(`${h.sim.url}/trnsSales/saveSales`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await answer.json()) as { resultCd: string; resultMsg: string };
    assert.equal(json.resultCd, '834');
    assert.match(json.resultMsg, /NS-NR-ND-TS-TR-TD-CS-CR-CD-PS/);
  });

  test('a token or fiscalisation key minted in training mode issues training documents only', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const normal = await sale(saleBody(), merchant);
    const minted = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${merchant.tenantId}/tokens`,
      headers: bearer(merchant.partnerSecret),
      payload: { name: 'Training till', training: true },
    });
    const token = expectStatus(minted, 201).data;
    assert.equal(token.training, true);
    const trainee: Merchant = { ...merchant, token: token.token };

    const forced = await sale(saleBody({ salesType: 'normal' }), trainee);
    assert.equal(forced.salesType, 'training', 'the body asked for normal; the credential decides');
    assert.equal(lastFiled(merchant).salesTyCd, 'T');
    const refused = await h.post(`/api/v1/sales/${normal.id}/credit-note`, { reasonCode: '01' }, {}, trainee);
    expectCoded(refused, 422, 'not_a_sale');
    assert.match(refused.json().error.message, /training mode/);

    const listedTokens = (
      await h.t.inject({ method: 'GET', url: `/api/v1/tenants/${merchant.tenantId}/tokens`, headers: bearer(merchant.partnerSecret) })
    ).json().data;
    assert.deepEqual(listedTokens.map((t: { training: boolean }) => t.training).sort(), [false, true]);

    const key = await mintKey(h, merchant, { training: true } as never);
    const till = { key: key.key, sdcId: await sdcIdOf(h, merchant) };
    const filed = await zmPost(h, '/zm/api/Invoice', till, invoiceBody(nextNumber('TRAIN')));
    expectStatus(filed, 201);
    assert.deepEqual([lastFiled(merchant).salesTyCd, String(lastFiled(merchant).cisInvcNo).startsWith('T-')], ['T', true]);
    const me = (await h.get('/api/v1/me', {}, merchant)).json().data;
    assert.equal(me.documentsThisMonth, 1, 'training documents are not counted');
  });

  test('a foreign-currency sale is filed with its rate, reads in its currency, and reports add it up in kwacha', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const usd = await sale(saleBody({ currency: 'USD', exchangeRate: 27.15 }, [{ price: 100, quantity: 2 }]), merchant);
    assert.equal(usd.status, 'uploaded');
    assert.deepEqual([usd.totals.currency, usd.totals.total, usd.exchangeRate, usd.totalInKwacha], ['USD', 200, 27.15, 5430]);
    assert.deepEqual([lastFiled(merchant).currencyTyCd, lastFiled(merchant).exchangeRt, lastFiled(merchant).totAmt], ['USD', 27.15, 200]);
    await sale(saleBody({}, [{ price: 116 }]), merchant);
    await sale(saleBody({ salesType: 'training' }, [{ price: 1000 }]), merchant);

    const report = expectStatus(await h.get('/api/v1/reports/daily', {}, merchant), 200).data;
    assert.equal(report.fiscal.sales.total, 5546, 'the USD sale in kwacha (5430) and the ZMW one (116); the training sale left out');
    assert.equal(report.fiscal.sales.count, 2);
    assert.equal(report.counts.documents, 2);
    assert.deepEqual(report.nonFiscal, [{ salesType: 'training', type: 'sale', count: 1, taxable: 862.07, vat: 137.93, total: 1000 }]);

    const today = report.date as string;
    const csv = await h.get(`/api/v1/exports/documents?from=${today}&to=${today}`, {}, merchant);
    assert.equal(csv.statusCode, 200, csv.body);
    const [header, ...rows] = csv.body
      .trim()
      .split('\r\n')
      .map((line) => line.split(','));
    const column = (name: string) => header!.indexOf(name);
    const usdRow = rows.find((r) => r[column('currency')] === 'USD')!;
    assert.deepEqual(
      [usdRow[column('exchangeRate')], usdRow[column('documentTotalZmw')], usdRow[column('salesType')]],
      ['27.1500', '5430.00', 'normal'],
    );
    assert.ok(
      rows.some((r) => r[column('salesType')] === 'training'),
      'the export marks the training document',
    );
  });

  test('a currency or rate the authority would refuse is a 422 naming the field, and nothing is stored', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const cases: Array<[Body, string]> = [
      [{ currency: 'USD' }, 'exchangeRate'],
      [{ currency: 'USD', exchangeRate: 1 }, 'exchangeRate'],
      [{ currency: 'USD', exchangeRate: 27.12345 }, 'exchangeRate'],
      [{ currency: 'XYZ', exchangeRate: 2 }, 'currency'],
      [{ currency: 'usd', exchangeRate: 2 }, 'currency'],
      [{ exchangeRate: 2 }, 'exchangeRate'],
      [{ currency: 'USD', exchangeRate: 0 }, 'exchangeRate'],
      [{ salesType: 'copy' }, 'salesType'],
      [{ lpoNumber: 'LPO-1' }, 'lpoNumber'],
      [{ lpoNumber: '' }, 'lpoNumber'],
      [{ customer: { name: 'A', address: 'x'.repeat(201) } }, 'customer.address'],
      [{ principalId: '404' }, 'principalId'],
    ];
    for (const [overrides, field] of cases) {
      const res = await h.post('/api/v1/sales', saleBody(overrides), {}, merchant);
      expectInvalid(res, field);
      assert.ok(res.json().errors[field].join(' ').length > 40, `${JSON.stringify(overrides)}: says what to send`);
    }
    expectInvalid(await h.post('/api/v1/sales', saleBody({}, [{ vatCategory: 'C2' }]), {}, merchant), 'lpoNumber');
    assert.equal(await storedCount(merchant), 0);
    const device = await h.ctx.db
      .selectFrom('devices')
      .select(['next_invoice_no', 'next_training_no'])
      .where('tenant_id', '=', merchant.tenantId)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(device.next_invoice_no), Number(device.next_training_no)], [1, 1], 'no number was used');
  });

  test('a zero-rated LPO sale carries the LPO number; an RVAT sale its principal; the customer its address', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const lpo = await sale(
      saleBody(
        {
          lpoNumber: 'GRZ/MOH/LPO/2026/0415',
          customer: { name: 'Ministry of Health', tpin: '1000000017', address: 'Ndeke House, Lusaka' },
        },
        [{ vatCategory: 'C2', price: 5000 }],
      ),
      merchant,
    );
    assert.equal(lpo.status, 'uploaded');
    assert.deepEqual([lpo.lpoNumber, lpo.customer.address, lpo.totals.vat], ['GRZ/MOH/LPO/2026/0415', 'Ndeke House, Lusaka', 0]);
    assert.deepEqual([lastFiled(merchant).lpoNumber, lastFiled(merchant).taxblAmtC2], ['GRZ/MOH/LPO/2026/0415', 5000]);
    assert.equal((await sale(saleBody(), merchant)).lpoNumber, null);
    assert.equal(lastFiled(merchant).lpoNumber, null);

    // A registered customer's address is used when the sale names its TPIN without one.
    expectStatus(
      await h.post('/api/v1/customers', { name: 'Kafue Traders', tpin: '1000000025', address: 'Plot 12, Kafue Road' }, {}, merchant),
      201,
    );
    const registered = await sale(saleBody({ customer: { name: 'Kafue Traders', tpin: '1000000025' } }), merchant);
    assert.equal(registered.customer.address, 'Plot 12, Kafue Road');
    assert.equal((await h.get(`/api/v1/sales/${registered.id}`, {}, merchant)).json().data.customer.address, 'Plot 12, Kafue Road');

    // Principals are pulled from the VSDC; a sale may name only one it lists.
    h.sim.control.feedPrincipals(merchant.tpin, '000', [{ id: 31, tpin: '1002003004', principalNm: 'Zamtel Ltd' }]);
    expectInvalid(await h.post('/api/v1/sales', saleBody({ principalId: '31' }, [{ vatCategory: 'RVAT' }]), {}, merchant), 'principalId');
    await h.ctx.db
      .updateTable('feed_pulls')
      .set({ next_pull_at: new Date(0) })
      .where('feed', '=', 'principals')
      .execute();
    await pullDuePrincipalBranches(h.ctx, 3_600_000);
    const rvat = await sale(saleBody({ principalId: '31' }, [{ vatCategory: 'RVAT' }]), merchant);
    assert.deepEqual([rvat.status, rvat.principalId, lastFiled(merchant).principalId], ['uploaded', '31', 31]);
  });

  test('the legacy body files its currencyType and conversionRate', async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const till = { key: (await mintKey(h, merchant)).key, sdcId: await sdcIdOf(h, merchant) };
    const filed = await zmPost(h, '/zm/api/Invoice', till, invoiceBody(nextNumber('FX'), { currencyType: 'EUR', conversionRate: 31.2 }));
    expectStatus(filed, 201);
    assert.deepEqual([lastFiled(merchant).currencyTyCd, lastFiled(merchant).exchangeRt], ['EUR', 31.2]);
    assert.equal(filed.json().Currency ?? filed.json().data?.Currency, 'EUR');
    const refused = await zmPost(h, '/zm/api/Invoice', till, invoiceBody(nextNumber('FX'), { currencyType: 'EUR' }));
    expectStatus(refused, 422);
    assert.match(refused.body, /conversionRate/);
  });

  test("random foreign-currency and LPO sales pass the simulator's own arithmetic", async () => {
    const merchant = await h.addMerchant({ branches: ['000'] });
    const line = fc.record({
      quantity: fc.integer({ min: 1, max: 50_000 }).map((n) => n / 100),
      price: fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 100),
      vatCategory: fc.constantFrom('A', 'C2', 'C3', 'D', 'E', 'F'),
    });
    const document = fc.record({
      currency: fc.constantFrom('ZMW', 'USD', 'EUR', 'ZAR', 'GBP'),
      rate: fc.integer({ min: 10_001, max: 400_000 }).map((n) => n / 10_000),
      taxInclusive: fc.boolean(),
      lines: fc.array(line, { minLength: 1, maxLength: 6 }),
    });
    let filed = 0;
    await fc.assert(
      fc.asyncProperty(document, async ({ currency, rate, taxInclusive, lines }) => {
        const lpo = lines.some((l) => l.vatCategory === 'C2') ? { lpoNumber: `LPO-${filed}` } : {};
        const money = currency === 'ZMW' ? {} : { currency, exchangeRate: rate };
        const res = await h.post('/api/v1/sales', saleBody({ taxInclusive, ...lpo, ...money }, lines), {}, merchant);
        if (res.statusCode === 422 && /rounds to 0\.00/.test(res.body)) return;
        expectStatus(res, 201);
        const doc = res.json().data;
        assert.equal(doc.status, 'uploaded', `${doc.resultCode} ${doc.lastError}`);
        assert.equal(lastFiled(merchant).totAmt, doc.totals.total);
        filed += 1;
      }),
      { numRuns: 25 },
    );
    assert.ok(filed >= 20, `${filed} of 25 runs reached the simulator`);
  });
});
