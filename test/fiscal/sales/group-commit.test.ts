// The sales group commit (issue 22): documents stored at the same moment share one statement and
// one commit. Its invariants: per branch, numbers gap-free and in arrival order; each document's
// outcome its own (no device, branch down, stored); a document at fault (a reused
// Idempotency-Key) fails alone; a failure of the batch itself reaches every waiter.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { batchOrEach, GroupCommit, isDataError } from '../../../src/platform/db/group-commit.ts';
import { isUniqueViolation } from '../../../src/platform/db/database.ts';
import { insertDocument, insertDocuments, type InsertOutcome } from '../../../src/domain/fiscal/sales/document-insert.ts';
import type { SaleRow } from '../../../src/domain/fiscal/sales/store.ts';
import { claimBranches } from '../../../src/domain/fiscal/filing/queue.ts';
import { failedFields, recordManyOutcomes, recordOneOutcome, uploadedFields } from '../../../src/domain/fiscal/filing/outcome-store.ts';
import { eventRow } from '../../../src/domain/kernel/outbox/events.ts';
import { engineName } from '../../helpers/db.ts';
import { plainSale } from '../../helpers/documents.ts';
import { saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';

describe(`Sales group commit (${engineName})`, () => {
  let h: Harness;
  let second: Merchant;
  let unregistered: Merchant;
  before(async () => {
    // No workers: the documents stay pending and nothing but the test touches the counters.
    h = await startHarness({ workers: false, branches: ['000', '001'], config: { saleWaitMs: 0 } });
    second = await h.addMerchant({ branches: ['000'] });
    unregistered = await h.addMerchant();
  });
  after(() => h.close());

  const month = () => new Date().toISOString().slice(0, 7);

  const doc = plainSale;

  const options = { month: month(), refuseWhenDown: false };
  const stored = (o: InsertOutcome) => {
    assert.equal(o.kind, 'stored');
    return (o as Extract<InsertOutcome, { kind: 'stored' }>).document.row;
  };
  const nextNumber = async (merchant: Merchant, branch: string) =>
    Number(
      (
        await h.ctx.db
          .selectFrom('devices')
          .select('next_invoice_no')
          .where('tenant_id', '=', merchant.tenantId)
          .where('branch', '=', branch)
          .executeTakeFirstOrThrow()
      ).next_invoice_no,
    );

  test('one statement numbers several branches: per branch gap-free, in arrival order; lines, quota and outcomes per document', async () => {
    const startA = await nextNumber(h.merchant, '000');
    const startB = await nextNumber(h.merchant, '001');
    const startC = await nextNumber(second, '000');
    const usageBefore = await h.ctx.db
      .selectFrom('tenant_usage')
      .select('documents')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('month', '=', month())
      .executeTakeFirst();
    const items = [
      doc(h.merchant, '000', { clientInvoiceNo: 'a1' }),
      doc(second, undefined, { clientInvoiceNo: 'c1' }),
      doc(h.merchant, '001', { clientInvoiceNo: 'b1' }),
      doc(unregistered, undefined),
      doc(h.merchant, '000', { clientInvoiceNo: 'a2' }),
      doc(h.merchant, '001', { clientInvoiceNo: 'b2' }),
      doc(h.merchant, '000', { clientInvoiceNo: 'a3' }),
      doc(h.merchant, '999'),
    ].map((d) => ({ doc: d, options }));
    const outcomes = await insertDocuments(h.ctx.db, items, undefined);
    assert.equal(outcomes.length, items.length);
    assert.equal(outcomes[3]!.kind, 'no_device');
    assert.equal(outcomes[7]!.kind, 'no_device');
    const numbers = (indexes: number[]) => indexes.map((i) => Number(stored(outcomes[i]!).invoice_no));
    assert.deepEqual(numbers([0, 4, 6]), [startA, startA + 1, startA + 2]);
    assert.deepEqual(numbers([2, 5]), [startB, startB + 1]);
    assert.deepEqual(numbers([1]), [startC]);
    assert.deepEqual(
      [0, 4, 6].map((i) => stored(outcomes[i]!).client_invoice_no),
      ['a1', 'a2', 'a3'],
    );
    assert.equal(stored(outcomes[1]!).branch, '000');
    assert.equal(await nextNumber(h.merchant, '000'), startA + 3);
    assert.equal(await nextNumber(h.merchant, '001'), startB + 2);
    const ids = [0, 1, 2, 4, 5, 6].map((i) => Number(stored(outcomes[i]!).id));
    const lines = await h.ctx.db.selectFrom('sale_lines').select(['sale_id']).where('sale_id', 'in', ids).execute();
    assert.equal(lines.length, ids.length, 'each document has its line');
    const usage = await h.ctx.db
      .selectFrom('tenant_usage')
      .select('documents')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('month', '=', month())
      .executeTakeFirstOrThrow();
    assert.equal(Number(usage.documents) - Number(usageBefore?.documents ?? 0), 5);
  });

  test('a branch known down refuses only the documents whose merchant refuses offline; the others number on', async () => {
    const deviceId = Number(
      (await h.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', second.tenantId).executeTakeFirstOrThrow()).id,
    );
    await sql`insert into filing_queues (device_id, retry_delay_ms, next_attempt_at) values (${deviceId}, 60000, now() + interval '1 hour')
      on conflict (device_id) do update set retry_delay_ms = 60000, next_attempt_at = now() + interval '1 hour'`.execute(h.ctx.db);
    try {
      const start = await nextNumber(second, '000');
      const outcomes = await insertDocuments(
        h.ctx.db,
        [
          { doc: doc(second, undefined), options: { ...options, refuseWhenDown: true } },
          { doc: doc(second, undefined), options },
          { doc: doc(h.merchant, '000'), options: { ...options, refuseWhenDown: true } },
        ],
        undefined,
      );
      assert.deepEqual(outcomes[0], { kind: 'branch_down', branch: '000' });
      const queued = outcomes[1]!;
      assert.equal(Number(stored(queued).invoice_no), start);
      assert.equal(queued.kind === 'stored' && queued.document.branchDown, true);
      assert.equal(outcomes[2]!.kind, 'stored');
      assert.equal(await nextNumber(second, '000'), start + 1);
    } finally {
      await sql`delete from filing_queues where device_id = ${deviceId}`.execute(h.ctx.db);
    }
  });

  test('concurrent writers: the batch that waits for a commit goes as one; a reused key fails alone', async () => {
    const start = await nextNumber(h.merchant, '000');
    const taken = stored(await insertDocument(h.ctx, h.ctx.db, doc(h.merchant, '000', { reference: 'gc-key', requestHash: 'x' }), options));
    // Submitted in one tick: the first goes alone, the rest wait for its commit and go together.
    const results = await Promise.allSettled([
      insertDocument(h.ctx, h.ctx.db, doc(h.merchant, '000', { clientInvoiceNo: 'p0' }), options),
      insertDocument(h.ctx, h.ctx.db, doc(h.merchant, '000', { clientInvoiceNo: 'p1' }), options),
      insertDocument(h.ctx, h.ctx.db, doc(h.merchant, '000', { reference: 'gc-key', requestHash: 'y' }), options),
      insertDocument(h.ctx, h.ctx.db, doc(second, undefined, { clientInvoiceNo: 'q' }), options),
      insertDocument(h.ctx, h.ctx.db, doc(h.merchant, '000', { clientInvoiceNo: 'p2' }), options),
    ]);
    const rejected = results[2]!;
    assert.equal(rejected.status, 'rejected');
    assert.ok(
      isUniqueViolation((rejected as PromiseRejectedResult).reason),
      'the reused key is a unique violation (the route answers with the original)',
    );
    const ok = [0, 1, 4].map((i) => {
      const r = results[i]!;
      assert.equal(r.status, 'fulfilled');
      return Number(stored((r as PromiseFulfilledResult<InsertOutcome>).value).invoice_no);
    });
    assert.equal(results[3]!.status, 'fulfilled');
    assert.deepEqual(ok, [start + 1, start + 2, start + 3], 'in arrival order, no number lost to the failed document');
    assert.equal(Number(taken.invoice_no), start);
    assert.equal(await nextNumber(h.merchant, '000'), start + 4);
  });

  test('concurrent sales over HTTP across branches: every number once, gap-free per branch', async () => {
    const starts = { a: await nextNumber(h.merchant, '000'), b: await nextNumber(h.merchant, '001'), c: await nextNumber(second, '000') };
    const posts = Array.from({ length: 24 }, (_, i) =>
      i % 3 === 2
        ? h.post('/api/v1/sales', saleBody(), {}, second)
        : h.post('/api/v1/sales', saleBody(), { 'x-branch': i % 3 === 0 ? '000' : '001' }),
    );
    const answers = await Promise.all(posts);
    for (const a of answers) assert.equal(a.statusCode, 201, a.body);
    const byBranch = (pick: (i: number) => boolean) =>
      answers
        .filter((_, i) => pick(i))
        .map((a) => a.json().data.invoiceNo as number)
        .sort((x, y) => x - y);
    const range = (from: number, count: number) => Array.from({ length: count }, (_, k) => from + k);
    assert.deepEqual(
      byBranch((i) => i % 3 === 0),
      range(starts.a, 8),
    );
    assert.deepEqual(
      byBranch((i) => i % 3 === 1),
      range(starts.b, 8),
    );
    assert.deepEqual(
      byBranch((i) => i % 3 === 2),
      range(starts.c, 8),
    );
  });

  test('outcomes of several branches in ONE statement: each gets what recording it alone gives (outcome, event, deliveries, lease, next documents)', async () => {
    const insert = async (items: Array<[Merchant, string]>) =>
      (
        await insertDocuments(
          h.ctx.db,
          items.map(([m, b]) => ({ doc: doc(m, b), options })),
          undefined,
        )
      ).map((o) => stored(o));
    // Branch A: two documents (the first's outcome reads the second); B: one; C: one, already recorded elsewhere.
    const [a1, a2, b1, c1] = await insert([
      [h.merchant, '000'],
      [h.merchant, '000'],
      [h.merchant, '001'],
      [second, '000'],
    ]);
    const owner = 'test-owner';
    const claimed = await claimBranches(h.ctx.db, h.ctx.secretBox, [a1!.device_id, b1!.device_id], owner, 60_000, 25);
    assert.deepEqual([...claimed.keys()].sort(), [a1!.device_id, b1!.device_id].sort());
    const endpoint = await h.ctx.db
      .insertInto('webhook_endpoints')
      .values({
        partner_id: h.merchant.partnerId,
        url: 'https://receiver.example/hook',
        events: ['invoice.fiscalised'],
        secret_ciphertext: 'x',
        created_at: new Date(),
        updated_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.ctx.db.updateTable('sales').set({ status: 'failed' }).where('id', '=', c1!.id).execute();
    try {
      const now = new Date();
      const outcome = (row: SaleRow, uploaded: boolean, next: boolean, lessee = owner) => ({
        sale: {
          ...row,
          ...(uploaded
            ? uploadedFields({
                receiptNo: Number(row.invoice_no),
                internalData: 'INTERNAL',
                receiptSignature: 'SIGNATURE',
                sdcId: 'SDC1',
                mrcNo: 'MRC1',
                qrCodeUrl: null,
                publishedAt: now,
              })
            : failedFields('910', 'refused')),
          updated_at: now,
        },
        // The body travels inside the statement's json input as it is: its bytes must be stored unchanged.
        event: {
          row: eventRow({
            type: uploaded ? 'invoice.fiscalised' : 'invoice.failed',
            partnerId: h.merchant.partnerId,
            tenantId: row.tenant_id,
            created: now,
          }),
          body: JSON.stringify({
            event: uploaded ? 'invoice.fiscalised' : 'invoice.failed',
            data: {
              invoice: {
                id: Number(row.id),
                customerName: 'Mwila\'s "Corner" \\ shop\n ü € \u2028 😀',
                total: 12.5,
                lines: [{ name: '  Sugar\t2kg  ' }],
              },
            },
          }),
        },
        options: { lease: { owner: lessee, leaseMs: 60_000 }, ...(next ? { next: { batchSize: 25 } } : {}) },
      });
      const items = [outcome(a1!, true, true), outcome(b1!, false, true), outcome(c1!, true, false, 'someone-else')];
      const results = await recordManyOutcomes(h.ctx.db, items);
      assert.deepEqual(
        results.map((r) => ({
          recorded: r.recorded,
          leaseHeld: r.leaseHeld,
          deliveries: r.deliveries,
          next: r.next.map((d) => Number(d.row.id)),
        })),
        [
          { recorded: true, leaseHeld: true, deliveries: 1, next: [Number(a2!.id)] },
          { recorded: true, leaseHeld: true, deliveries: 0, next: [] },
          { recorded: false, leaseHeld: false, deliveries: 0, next: [] },
        ],
      );
      const rows = await h.ctx.db
        .selectFrom('sales')
        .select(['id', 'status', 'receipt_no', 'result_code'])
        .where('id', 'in', [a1!.id, b1!.id, c1!.id])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.status, r.receipt_no === null ? null : Number(r.receipt_no), r.result_code]),
        [
          ['uploaded', Number(a1!.invoice_no), '000'],
          ['failed', null, '910'],
          ['failed', null, null],
        ],
      );
      const events = await h.ctx.db
        .selectFrom('webhook_events')
        .select(['id', 'type', 'body'])
        .where(
          'id',
          'in',
          items.map((o) => o.event.row.id),
        )
        .orderBy('type')
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        ['invoice.failed', 'invoice.fiscalised'],
        'no event for the document that was not recorded',
      );
      assert.deepEqual(
        events.map((e) => e.body),
        [items[1]!.event.body, items[0]!.event.body],
        'each event body is stored byte for byte as serialised (quotes, escapes, non-ASCII)',
      );
      const leases = await h.ctx.db
        .selectFrom('filing_queues')
        .select(['device_id', 'lease_owner'])
        .where('device_id', 'in', [a1!.device_id, b1!.device_id])
        .execute();
      const leaseOf = (id: number) => leases.find((l) => l.device_id === id)?.lease_owner;
      assert.equal(leaseOf(a1!.device_id), owner, 'a branch with documents left stays leased');
      assert.equal(leaseOf(b1!.device_id), null, 'a branch with nothing left is given back');
      // The same outcome recorded alone answers the same (the document is no longer pending).
      const again = await recordOneOutcome(
        h.ctx.db,
        items[0]!.sale,
        { ...items[0]!.event, row: eventRow({ type: 'invoice.fiscalised', partnerId: h.merchant.partnerId, tenantId: a1!.tenant_id }) },
        items[0]!.options,
      );
      assert.equal(again.recorded, false);
      assert.deepEqual(
        again.next.map((d) => Number(d.row.id)),
        [Number(a2!.id)],
      );
    } finally {
      await h.ctx.db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpoint.id).execute();
      await h.ctx.db.deleteFrom('webhook_endpoints').where('id', '=', endpoint.id).execute();
    }
  });

  test('a batch gathers for one turn: writes submitted in the same turn share it, the first does not go alone', async () => {
    const seen: number[][] = [];
    const batcher = new GroupCommit<number, number>(
      async (items) => {
        seen.push(items);
        return items.map((value) => ({ ok: true as const, value }));
      },
      { maxBatch: 10 },
    );
    const first = batcher.submit(1);
    await Promise.resolve(); // a later callback of the same turn (another request's statement answered)
    const second = batcher.submit(2);
    await Promise.all([first, second, batcher.submit(3)]);
    assert.deepEqual(seen, [[1, 2, 3]]);
    // Writes of a later turn, while that batch commits, form the next one.
    const during = new GroupCommit<number, number>(
      async (items) => {
        seen.push(items);
        await new Promise((resolve) => setImmediate(resolve));
        return items.map((value) => ({ ok: true as const, value }));
      },
      { maxBatch: 2 },
    );
    seen.length = 0;
    const a = during.submit(4);
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([a, during.submit(5), during.submit(6), during.submit(7)]);
    assert.deepEqual(seen, [[4], [5, 6], [7]], 'at most maxBatch a batch, in arrival order');
  });

  test('with parallel batches, a burst does not wait behind one statement: another batch starts only when a full one waits', async () => {
    const seen: number[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const releases: Array<() => void> = [];
    const batcher = new GroupCommit<number, number>(
      async (items) => {
        seen.push(items);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await new Promise<void>((resolve) => releases.push(resolve));
        inFlight--;
        return items.map((value) => ({ ok: true as const, value }));
      },
      { maxBatch: 2, parallel: 2 },
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const all = [batcher.submit(1)];
    await turn();
    all.push(batcher.submit(2));
    await turn();
    assert.deepEqual(seen, [[1]], 'one item short of a full batch waits for the statement in flight');
    all.push(batcher.submit(3));
    await turn();
    assert.deepEqual(seen, [[1], [2, 3]], 'a full batch starts beside it');
    all.push(batcher.submit(4), batcher.submit(5));
    await turn();
    assert.equal(seen.length, 2, 'never more than `parallel` statements at once');
    while (seen.flat().length < 5 || releases.length > 0) {
      releases.splice(0).forEach((release) => release());
      await turn();
    }
    assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5]);
    assert.deepEqual(seen, [[1], [2, 3], [4, 5]]);
    assert.equal(mostInFlight, 2);
    await batcher.close();
  });

  test('a failure of the batch itself (not of one document) reaches every waiter; a data error is retried one by one', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), {});
    let calls = 0;
    const batcher = new GroupCommit<number, number>(
      async (items) => {
        calls++;
        if (items.length > 1) throw lost;
        return items.map((value) => ({ ok: true as const, value }));
      },
      { maxBatch: 10 },
    );
    const first = batcher.submit(1);
    await new Promise((resolve) => setImmediate(resolve)); // its batch is taken: the next three wait together
    const results = await Promise.allSettled([first, ...[2, 3, 4].map((n) => batcher.submit(n))]);
    assert.equal(calls, 2, 'the first alone, the three that waited together');
    assert.deepEqual(results[0], { status: 'fulfilled', value: 1 });
    for (const r of results.slice(1)) assert.deepEqual(r, { status: 'rejected', reason: lost });

    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    assert.ok(isDataError(unique));
    assert.ok(!isDataError(lost));
    const each = await batchOrEach(
      [1, 2, 3],
      async () => {
        throw unique;
      },
      async (n) => {
        if (n === 2) throw unique;
        return n * 10;
      },
    );
    assert.deepEqual(each, [
      { ok: true, value: 10 },
      { ok: false, error: unique },
      { ok: true, value: 30 },
    ]);
    await assert.rejects(
      batchOrEach(
        [1, 2],
        async () => {
          throw lost;
        },
        async (n) => n,
      ),
      lost,
    );
  });
});
