// Training and proforma documents of a KRA merchant, per branch: its VSCU branch files them (salesTyCd
// T/P) from the branch's one sequence, which the jar keys by invcNo; its OSCU branch refuses them
// with a 422 before any number is taken, whether the body or a training credential asks. Both
// insert statements (one document, the group commit's many) check the unit and pick the sequence.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { kraControl, type KraControl } from '@fiscal-gateway/simulator';
import { engineName } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';
import { bearer } from '../helpers/app.ts';
import { expectStatus, startHarness, type Harness } from '../helpers/harness.ts';
import { plainSale } from '../helpers/documents.ts';
import { insertDocuments, insertOneDocument, type InsertOutcome } from '../../src/domain/fiscal/sales/document-insert.ts';
import type { SalesType } from '../../src/platform/db/tables/sales.ts';

const PIN = 'P052345678Y';
/** A code both authorities' catalogues hold (cereals and grains). */
const CLASS = '50221200';
const LINE = { name: 'Rice 5kg', classificationCode: CLASS, quantity: 2, price: 580, vatCategory: 'B' };
const OSCU = '00';
const VSCU = '01';

interface Sale {
  id: number;
  invoiceNo: number;
  salesType: SalesType;
  type: string;
  status: string;
  authorityInvoiceNo: string | null;
  lastError: string | null;
}

describe(`Kenya: training and proforma documents per branch (${engineName})`, () => {
  let h: Harness;
  let vscu: KraControl;
  let tenantId: number;
  let token: string;
  let trainingToken: string;
  const post = (url: string, body: unknown, branch: string, as = token) =>
    h.t.inject({ method: 'POST', url, headers: { ...bearer(as), 'x-branch': branch }, payload: body as object });
  const get = (url: string) => h.t.inject({ method: 'GET', url, headers: bearer(token) });
  const settled = (id: number): Promise<Sale> =>
    eventually(async () => {
      const sale = (await get(`/api/v1/sales/${id}`)).json().data as Sale;
      return sale.status !== 'pending' ? sale : undefined;
    }, `sale ${id} filed or failed`);
  const sale = async (branch: string, salesType: SalesType = 'normal', as = token): Promise<Sale> =>
    settled(expectStatus(await post('/api/v1/sales', { items: [LINE], salesType }, branch, as), 201).data.id);
  const stored = async () =>
    Number(
      (
        await h.ctx.db
          .selectFrom('sales')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const counters = async (branch: string) =>
    h.ctx.db
      .selectFrom('devices')
      .select(['id', 'next_invoice_no', 'next_training_no', 'next_proforma_no'])
      .where('tenant_id', '=', tenantId)
      .where('branch', '=', branch)
      .executeTakeFirstOrThrow();

  before(async () => {
    h = await startHarness();
    vscu = kraControl(h.sim, 'kra-vscu');
    const partner = bearer(h.merchant.partnerSecret);
    tenantId = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: '/api/v1/tenants',
        headers: partner,
        payload: { name: 'Kisumu Grocers', tpin: PIN, authority: 'kra' },
      }),
      201,
    ).data.id;
    const devices = [
      { deviceSerial: 'KE-OSCU-K', branch: OSCU, vsdcBaseUrl: h.sim.urlOf('kra-oscu') },
      { deviceSerial: 'KE-VSCU-K', branch: VSCU, vsdcBaseUrl: h.sim.urlOf('kra-vscu'), protocol: 'vscu' },
    ];
    for (const payload of devices) {
      expectStatus(await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenantId}/devices`, headers: partner, payload }), 201);
      expectStatus(
        await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenantId}/devices/${payload.branch}/initialize`, headers: partner }),
        200,
      );
    }
    const mint = async (payload: object) =>
      expectStatus(await h.t.inject({ method: 'POST', url: `/api/v1/tenants/${tenantId}/tokens`, headers: partner, payload }), 201).data
        .token as string;
    token = await mint({ name: 'till' });
    trainingToken = await mint({ name: 'training till', training: true });
  });
  after(() => h?.close());

  test('a VSCU branch files normal, training and proforma documents in one gap-free sequence; the jar holds each number once', async () => {
    const first = (await counters(VSCU)).next_invoice_no;
    const kinds: SalesType[] = ['normal', 'training', 'proforma', 'training', 'normal'];
    const sales: Sale[] = [];
    for (const kind of kinds) sales.push(await sale(VSCU, kind));
    assert.deepEqual(
      sales.map((s) => [s.salesType, s.invoiceNo, s.status]),
      kinds.map((kind, i) => [kind, first + i, 'uploaded']),
      sales.map((s) => s.lastError).join(' '),
    );
    const filed = vscu.filed(PIN, VSCU).filter((d) => sales.some((s) => s.invoiceNo === d.invcNo));
    assert.deepEqual(
      filed.map((d) => [d.invcNo, d.salesTyCd, d.rcptTyCd]),
      sales.map((s, i) => [s.invoiceNo, ['N', 'T', 'P', 'T', 'N'][i], 'S']),
      'each once, with its kind',
    );
    assert.equal(new Set(vscu.filed(PIN, VSCU).map((d) => d.invcNo)).size, vscu.filed(PIN, VSCU).length, 'no number filed twice');
    // A training document shows its number like any other: the CU invoice number {sdcId}/{invoiceNo}.
    assert.match(sales[1]!.authorityInvoiceNo ?? '', new RegExp(`/${sales[1]!.invoiceNo}$`));
    const device = await counters(VSCU);
    assert.equal(device.next_invoice_no, first + kinds.length);
    assert.deepEqual([device.next_training_no, device.next_proforma_no], [1, 1], 'the kinds’ own counters are not used');
    const listed = (await get(`/api/v1/sales?branch=${VSCU}`)).json();
    assert.equal(listed.meta.total, listed.data.length, 'the count of one sequence across kinds');

    // Receipts of training and proforma documents carry the banner, not TAX INVOICE.
    for (const [s, banner] of [
      [sales[1]!, 'TRAINING — NOT A TAX INVOICE'],
      [sales[2]!, 'PROFORMA — NOT A TAX INVOICE'],
    ] as const) {
      const html = (await get(`/api/v1/sales/${s.id}/receipt`)).body;
      assert.ok(html.includes(`<p class="banner" role="note">${banner}</p>`), html);
      assert.ok(!html.includes('<p class="title">'), 'no TAX INVOICE title');
    }
    assert.ok((await get(`/api/v1/sales/${sales[0]!.id}/receipt`)).body.includes('<p class="title">TAX INVOICE</p>'));
  });

  test('a VSCU training sale is credited in training (TR), from the same sequence; a proforma takes no note', async () => {
    const training = await sale(VSCU, 'training');
    const note = await settled(
      expectStatus(await post(`/api/v1/sales/${training.id}/credit-note`, { reasonCode: '06' }, VSCU), 201).data.id,
    );
    assert.deepEqual(
      [note.type, note.salesType, note.status, note.invoiceNo],
      ['credit_note', 'training', 'uploaded', training.invoiceNo + 1],
      note.lastError ?? '',
    );
    const filedNote = vscu.filed(PIN, VSCU).find((d) => d.invcNo === note.invoiceNo)!;
    assert.deepEqual([filedNote.rcptTyCd, filedNote.salesTyCd, filedNote.orgInvcNo], ['R', 'T', training.invoiceNo]);
    const html = (await get(`/api/v1/sales/${note.id}/receipt`)).body;
    assert.ok(html.includes('TRAINING — NOT A TAX INVOICE'));
    const proforma = await sale(VSCU, 'proforma');
    const refused = await post(`/api/v1/sales/${proforma.id}/credit-note`, { reasonCode: '06' }, VSCU);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.body, /proforma/);
  });

  test('an OSCU branch of the same merchant refuses training and proforma documents with a 422 and takes no number', async () => {
    const before = await sale(OSCU);
    const count = await stored();
    const device = await counters(OSCU);
    for (const salesType of ['training', 'proforma'] as const) {
      const refused = await post('/api/v1/sales', { items: [LINE], salesType }, OSCU);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(
        refused.json().errors.salesType[0],
        new RegExp(`branch ${OSCU} .*OSCU.* files no ${salesType} documents: send salesType normal\\. Nothing was stored`),
      );
    }
    assert.equal(await stored(), count, 'nothing stored');
    assert.deepEqual(await counters(OSCU), device, 'no counter moved');
    const after = await sale(OSCU);
    assert.equal(after.invoiceNo, before.invoiceNo + 1, 'the next normal sale takes the next number');
    assert.equal(after.status, 'uploaded', after.lastError ?? '');
  });

  test('a training credential: 422 on the OSCU branch (not a 5xx), training documents on the VSCU branch', async () => {
    const count = await stored();
    const refused = await post('/api/v1/sales', { items: [LINE] }, OSCU, trainingToken);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.json().errors.salesType[0], /files no training documents \(this credential was minted in training mode\)/);
    assert.equal(await stored(), count);
    const first = (await counters(VSCU)).next_invoice_no;
    const training = await sale(VSCU, 'normal', trainingToken);
    assert.deepEqual([training.salesType, training.invoiceNo, training.status], ['training', first, 'uploaded'], training.lastError ?? '');
  });

  test('both insert statements: the unit checked per document, training and proforma numbered from the normal sequence on VSCU', async () => {
    const merchant = { tenantId, tpin: PIN };
    const options = { month: new Date().toISOString().slice(0, 7), refuseWhenDown: false };
    const doc = (branch: string, salesType: SalesType) =>
      plainSale(merchant, branch, {
        authority: 'kra',
        salesType,
        currency: 'KES',
        lines: [{ ...plainSale(merchant, branch).lines[0]!, vat_category: 'B' }],
      });
    const numberOf = (o: InsertOutcome) => (o.kind === 'stored' ? Number(o.document.row.invoice_no) : o.kind);
    const start = (await counters(VSCU)).next_invoice_no;
    const oscu = await counters(OSCU);

    const one = [
      await insertOneDocument(h.ctx.db, doc(VSCU, 'training'), options),
      await insertOneDocument(h.ctx.db, doc(OSCU, 'proforma'), options),
    ];
    assert.deepEqual(one.map(numberOf), [start, 'kind_refused']);
    assert.deepEqual(one[1], { kind: 'kind_refused', branch: OSCU, protocol: 'oscu' });

    const kinds: Array<[string, SalesType]> = [
      [VSCU, 'proforma'],
      [OSCU, 'training'],
      [VSCU, 'normal'],
      [OSCU, 'normal'],
      [VSCU, 'training'],
    ];
    const many = await insertDocuments(
      h.ctx.db,
      kinds.map(([branch, salesType]) => ({ doc: doc(branch, salesType), options })),
      undefined,
    );
    assert.deepEqual(many.map(numberOf), [start + 1, 'kind_refused', start + 2, oscu.next_invoice_no, start + 3]);
    const vscuNow = await counters(VSCU);
    assert.deepEqual([vscuNow.next_invoice_no, vscuNow.next_training_no, vscuNow.next_proforma_no], [start + 4, 1, 1]);
    const oscuNow = await counters(OSCU);
    assert.deepEqual(
      [oscuNow.next_invoice_no, oscuNow.next_training_no, oscuNow.next_proforma_no],
      [oscu.next_invoice_no + 1, oscu.next_training_no, oscu.next_proforma_no],
    );
  });
});
