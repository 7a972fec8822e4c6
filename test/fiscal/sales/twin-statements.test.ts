// The twin hot statements (issue 31): the document insert, the filing outcome and the tenant-token
// lookup each have a one-row and a many-row form, built from one column list. The same input
// through either form must store the same row (modulo id and number) / give the same answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findOneTenantToken, findTenantTokens } from '../../../src/credentials/tenant-token-lookup.ts';
import { hashSecret } from '../../../src/credentials/secret-format.ts';
import { claimBranches } from '../../../src/domain/fiscal/filing/queue.ts';
import {
  recordManyOutcomes,
  recordOneOutcome,
  uploadedFields,
  type OutcomeOptions,
} from '../../../src/domain/fiscal/filing/outcome-store.ts';
import { insertDocuments, insertOneDocument, type InsertOutcome } from '../../../src/domain/fiscal/sales/document-insert.ts';
import type { NewDocument } from '../../../src/domain/fiscal/sales/document-columns.ts';
import type { SaleRow } from '../../../src/domain/fiscal/sales/store.ts';
import { eventRow } from '../../../src/domain/kernel/outbox/events.ts';
import { engineName } from '../../helpers/db.ts';
import { plainSale } from '../../helpers/documents.ts';
import { CLASS_CODE, startHarness, type Harness } from '../../helpers/harness.ts';

describe(`Twin statements agree (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    // No workers: the documents stay pending and nothing but the test records their outcomes.
    h = await startHarness({ workers: false, branches: ['000', '001'], config: { saleWaitMs: 0 } });
  });
  after(() => h.close());

  const options = { month: new Date().toISOString().slice(0, 7), refuseWhenDown: false };
  const stored = (o: InsertOutcome | undefined): SaleRow => {
    assert.equal(o?.kind, 'stored');
    return (o as Extract<InsertOutcome, { kind: 'stored' }>).document.row;
  };
  /** A row without what differs by nature between two stored documents (`updated`: and the time it was last written). */
  const comparable = (row: SaleRow, updated = true) => {
    const { id: _id, invoice_no: _no, created_at: _created, updated_at: updatedAt, ...rest } = row;
    return updated ? { ...rest, updated_at: updatedAt } : rest;
  };
  const storedRow = async (id: number, updated = true) =>
    comparable(await h.ctx.db.selectFrom('sales').selectAll().where('id', '=', id).executeTakeFirstOrThrow(), updated);
  const storedLines = async (id: number) =>
    (await h.ctx.db.selectFrom('sale_lines').selectAll().where('sale_id', '=', id).orderBy('line').execute()).map(
      ({ sale_id: _s, ...line }) => line,
    );

  test('the document insert: one row and many rows store the same document and lines, with the same answer', async () => {
    const original = stored(await insertOneDocument(h.ctx.db, plainSale(h.merchant, '000'), options));
    const partnerKey = await h.ctx.db
      .selectFrom('partner_keys')
      .innerJoin('partners', 'partners.id', 'partner_keys.partner_id')
      .select(['partner_keys.id', 'partner_keys.name', 'partners.name as partner'])
      .where('partner_id', '=', h.merchant.partnerId)
      .executeTakeFirstOrThrow();
    // Every column a document brings set to a value of its own.
    const doc: NewDocument = plainSale(h.merchant, '001', {
      type: 'debit_note',
      clientInvoiceNo: 'twin-1',
      customerName: 'Mwila\'s "Corner" shop',
      customerTpin: '1002003004',
      paymentMethod: '02',
      taxInclusive: false,
      destinationCountryCode: 'ZM',
      occurredAt: new Date('2024-05-06T07:08:09.123Z'),
      originalSaleId: Number(original.id),
      originalReceiptNo: 7,
      originalSdcId: 'SDC-TWIN',
      reasonCode: '01',
      issuedBy: { type: 'partner_key', id: partnerKey.id, partnerId: h.merchant.partnerId },
      filingDetails: { registrant: { id: 'till-7', name: 'Till 7' } },
      lines: [
        {
          line: 1,
          name: 'Sugar 2kg',
          classification_code: CLASS_CODE,
          item_code: 'ZM1NTBA0000001',
          quantity: 2.5,
          price: 12.3456,
          vat_category: 'B',
          vat_rate: 16,
          rrp: 15,
          amount: 30.864,
          discount: 1.5,
          supply: 37.5,
          net: 25.31,
          vat: 4.05,
          total: 29.36,
          original_line: 1,
        },
        {
          line: 2,
          name: 'Bread',
          classification_code: CLASS_CODE,
          item_code: null,
          quantity: 1,
          price: 10,
          vat_category: 'A',
          vat_rate: 16,
          rrp: null,
          amount: 10,
          discount: 0,
          supply: null,
          net: 8.62,
          vat: 1.38,
          total: 10,
          original_line: null,
        },
      ],
    });
    const one = await insertOneDocument(h.ctx.db, doc, options);
    const [many] = await insertDocuments(h.ctx.db, [{ doc, options }], undefined);
    const a = stored(one);
    const b = stored(many);
    assert.equal(Number(b.invoice_no), Number(a.invoice_no) + 1, 'numbered from the same counter');
    // updated_at: the database's now() of each statement.
    assert.deepEqual(comparable(b, false), comparable(a, false), 'the answers agree');
    assert.deepEqual(
      [a.issued_by_type, Number(a.issued_by_id), a.issued_by_name],
      ['partner_key', partnerKey.id, `${partnerKey.name} (${partnerKey.partner})`],
      'the issuer, named in the answer',
    );
    assert.deepEqual(await storedRow(Number(b.id), false), await storedRow(Number(a.id), false), 'the stored documents agree');
    assert.deepEqual(await storedLines(Number(b.id)), await storedLines(Number(a.id)), 'the stored lines agree');
    assert.equal(one.kind === 'stored' && one.document.branchDown, many?.kind === 'stored' && many.document.branchDown);
    // The outcomes without a document agree too.
    const nowhere = plainSale(h.merchant, '999');
    assert.deepEqual(await insertDocuments(h.ctx.db, [{ doc: nowhere, options }], undefined), [
      await insertOneDocument(h.ctx.db, nowhere, options),
    ]);
  });

  for (const leased of [true, false]) {
    test(`the filing outcome (${leased ? 'under the filing lease' : 'without a lease'}): one row and many rows record the same outcome, event and lease`, async () => {
      const occurredAt = new Date();
      const docA = stored(await insertOneDocument(h.ctx.db, plainSale(h.merchant, '000', { occurredAt }), options));
      const docB = stored(await insertOneDocument(h.ctx.db, plainSale(h.merchant, '001', { occurredAt }), options));
      const owner = `twin-${leased}`;
      const claimed = await claimBranches(h.ctx.db, h.ctx.secretBox, [docA.device_id, docB.device_id], owner, 60_000, 25);
      assert.equal(claimed.size, 2);
      const now = new Date('2024-05-06T07:08:09.123Z');
      const outcomeOf = (row: SaleRow) => ({
        sale: {
          ...row,
          ...uploadedFields({
            receiptNo: 41,
            internalData: 'INTERNAL',
            receiptSignature: 'SIGNATURE',
            sdcId: 'SDC1',
            mrcNo: 'MRC1',
            qrCodeUrl: 'https://qr.example/41',
            publishedAt: now,
          }),
          updated_at: now,
        },
        event: {
          row: eventRow({ type: 'invoice.fiscalised', partnerId: h.merchant.partnerId, tenantId: row.tenant_id, created: now }),
          body: `{"id":${Number(row.id)}}`,
        },
        options: { lease: leased ? { owner, leaseMs: 60_000 } : null, next: { batchSize: 25 } } satisfies OutcomeOptions,
      });
      const a = outcomeOf(docA);
      const b = outcomeOf(docB);
      const one = await recordOneOutcome(h.ctx.db, a.sale, a.event, a.options);
      const [many] = await recordManyOutcomes(h.ctx.db, [b]);
      const answer = (r: typeof one) => ({ recorded: r.recorded, leaseHeld: r.leaseHeld, deliveries: r.deliveries, next: r.next.length });
      assert.deepEqual(answer(many!), answer(one));
      assert.deepEqual(answer(one), { recorded: true, leaseHeld: leased, deliveries: 0, next: 0 });
      const [rowA, rowB] = [await storedRow(Number(docA.id)), await storedRow(Number(docB.id))];
      assert.deepEqual(
        { ...rowB, device_id: 0, branch: '' },
        { ...rowA, device_id: 0, branch: '' },
        'the recorded documents agree (but for their branch)',
      );
      const events = await h.ctx.db
        .selectFrom('webhook_events')
        .select(['type', 'body'])
        .where('id', 'in', [a.event.row.id, b.event.row.id])
        .execute();
      assert.equal(events.length, 2, 'each outcome stored its event');
      const leases = await h.ctx.db
        .selectFrom('filing_queues')
        .select(['device_id', 'lease_owner', 'lease_until', 'retry_delay_ms'])
        .where('device_id', 'in', [docA.device_id, docB.device_id])
        .execute();
      const leaseOf = (id: number) => {
        const l = leases.find((q) => q.device_id === id)!;
        return { owner: l.lease_owner, leased: l.lease_until !== null, retryDelayMs: l.retry_delay_ms };
      };
      assert.deepEqual(leaseOf(docB.device_id), leaseOf(docA.device_id), 'the leases agree');
      // Under the lease with nothing left, the branch is given back; without a lease, it is untouched (still ours).
      assert.deepEqual(
        leaseOf(docA.device_id),
        leased ? { owner: null, leased: false, retryDelayMs: null } : { owner, leased: true, retryDelayMs: null },
      );
      if (!leased)
        await h.ctx.db
          .updateTable('filing_queues')
          .set({ lease_owner: null, lease_until: null })
          .where('device_id', 'in', [docA.device_id, docB.device_id])
          .execute();
    });
  }

  test('the tenant-token lookup: one row and many rows find the same holder and count the same', async () => {
    const now = new Date();
    const hash = hashSecret(h.merchant.token);
    const bucket = (name: string) => ({ before: `twin-${name}:`, after: ':v1', windowMs: 60_000 });
    const one = await findOneTenantToken(h.ctx.db, { hash, now }, bucket('one'));
    const unknown = await findOneTenantToken(h.ctx.db, { hash: hashSecret('fg_tt_unknown'), now }, bucket('one'));
    const many = await findTenantTokens(
      h.ctx.db,
      [
        { hash, now },
        { hash: hashSecret('fg_tt_unknown'), now },
      ],
      bucket('many'),
    );
    assert.ok(one, 'the token is found');
    assert.equal(unknown, undefined);
    assert.equal(many[1], undefined);
    const answer = (r: Awaited<ReturnType<typeof findOneTenantToken>>) => r && { ...r, count: r.count && { points: r.count.points } };
    assert.deepEqual(answer(many[0]), answer(one));
    // Without a count (the memory or Redis store), the same holder.
    assert.deepEqual(
      { ...(await findOneTenantToken(h.ctx.db, { hash, now }, undefined))!, count: undefined },
      { ...one!, count: undefined },
    );
  });
});
