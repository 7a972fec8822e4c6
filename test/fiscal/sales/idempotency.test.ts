import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp, type App } from '../../../src/app/app.ts';
import { closeContext, createContext, type AppContext } from '../../../src/domain/kernel/context.ts';
import { saleSignals } from '../../../src/domain/fiscal/signals/sale-signals.ts';
import { testConfig } from '../../helpers/app.ts';
import { engineName, onPostgres } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

describe(`Idempotency-Key on sale creation (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 1_500 } });
  });
  after(() => h.close());

  const filedWith = (invoiceNo: number) => h.received(h.merchant).filter((d) => d.cisInvcNo === String(invoiceNo));

  test('a repeat with the same key and body returns the original document, marked as replayed', async () => {
    const body = saleBody({ clientInvoiceNo: 'A-1' }, [{ price: 10 }, { price: 20, quantity: 3 }]);
    const first = await h.post('/api/v1/sales', body, { 'idempotency-key': 'key-same' });
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    // Same body with its keys in another order is the same request.
    const reordered = {
      clientInvoiceNo: 'A-1',
      items: (body.items as Array<Record<string, unknown>>).map((l) => Object.fromEntries(Object.entries(l).reverse())),
    };
    const again = await h.post('/api/v1/sales', reordered, { 'idempotency-key': '"key-same"' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json().data, first.json().data);
    // Under load the answer may come back pending before the filing: wait for it, then count.
    await eventually(() => filedWith(first.json().data.invoiceNo).length > 0, 'the sale filed');
    assert.equal(filedWith(first.json().data.invoiceNo).length, 1, 'filed once');
    assert.equal((await h.get('/api/v1/sales?reference=key-same')).json().meta.total, 1);
  });

  test('the same key with a different body, or another branch header, is refused and stores nothing', async () => {
    await h.post('/api/v1/sales', saleBody({}, [{ price: 5 }]), { 'idempotency-key': 'key-diff' });
    const before = (await h.get('/api/v1/sales')).json().meta.total;
    const other = await h.post('/api/v1/sales', saleBody({}, [{ price: 6 }]), { 'idempotency-key': 'key-diff' });
    assert.equal(other.statusCode, 422);
    assert.equal(other.json().error.code, 'idempotency_key_reused');
    const branch = await h.post('/api/v1/sales', saleBody({}, [{ price: 5 }]), { 'idempotency-key': 'key-diff', 'x-branch': '000' });
    assert.equal(branch.json().error.code, 'idempotency_key_reused');
    assert.equal((await h.get('/api/v1/sales')).json().meta.total, before);
  });

  test('keys are scoped to the merchant', async () => {
    const other = await h.addMerchant();
    await h.registerBranch(other, '000');
    const mine = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'shared-key' });
    const theirs = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'shared-key' }, other);
    assert.equal(theirs.statusCode, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.json().data.id, mine.json().data.id);
    assert.equal(theirs.json().data.tpin, other.tpin);
  });

  test('a pending original is replayed as pending, and as uploaded once it is', async () => {
    h.sim.control.setFaults(h.merchant.tpin, '000', { forcedResult: '838' });
    const first = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'key-pending' });
    assert.equal(first.json().data.status, 'pending');
    const again = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'key-pending' });
    assert.equal(again.json().data.status, 'pending');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    h.sim.control.clearFaults(h.merchant.tpin, '000');
    // The worker files it on its next retry; a replay then answers what is stored.
    const later = await eventually(async () => {
      const replay = await h.post('/api/v1/sales', saleBody(), { 'idempotency-key': 'key-pending' });
      return replay.json().data.status === 'uploaded' ? replay : undefined;
    }, 'a replay answered as uploaded');
    assert.equal(later.json().data.id, first.json().data.id);
  });

  test('20 concurrent requests with one key make exactly one document, filed once', async () => {
    const body = saleBody({}, [{ price: 77.77 }]);
    const responses = await Promise.all(Array.from({ length: 20 }, () => h.post('/api/v1/sales', body, { 'idempotency-key': 'key-race' })));
    for (const res of responses) assert.equal(res.statusCode, 201, res.body);
    const ids = new Set(responses.map((r) => r.json().data.id));
    assert.equal(ids.size, 1, 'one document');
    assert.equal(responses.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 19);
    const list = (await h.get('/api/v1/sales?reference=key-race')).json();
    assert.equal(list.meta.total, 1);
    await eventually(() => filedWith(list.data[0].invoiceNo).length > 0, 'the document filed');
    assert.equal(filedWith(list.data[0].invoiceNo).length, 1, 'one filing');
    // The losers consumed no invoice number: the next sale follows directly.
    const next = await h.post('/api/v1/sales', saleBody());
    assert.equal(next.json().data.invoiceNo, list.data[0].invoiceNo + 1);
  });
});

describe(
  `a replay waiting in another process (${engineName})`,
  { skip: onPostgres ? false : 'needs PostgreSQL: set TEST_DATABASE_URL (the embedded database is one process by design)' },
  () => {
    let h: Harness;
    let other: AppContext;
    let otherApp: App;
    before(async () => {
      h = await startHarness({ config: { saleWaitMs: 30_000 } });
      // A second gateway on the same database without workers: it never files, it only waits.
      other = createContext(testConfig({ saleWaitMs: 60_000 }), h.ctx.database);
      otherApp = await buildApp(other, { logger: false });
    });
    after(async () => {
      await otherApp.close();
      await closeContext(other);
      await h.close();
    });

    test(
      'is answered with the outcome once it is recorded, though the first request waited where it was filed',
      { timeout: 30_000 },
      async () => {
        const key = 'key-elsewhere';
        const body = saleBody({}, [{ price: 41 }]);
        h.sim.control.setFaults(h.merchant.tpin, '000', { delayMs: 120_000 });
        const first = h.post('/api/v1/sales', body, { 'idempotency-key': key });
        // Every call to the branch is held, the workers' pulls too: the held call may not be the sale's,
        // so wait for the sale itself to be stored (its filing, whenever it goes, is held as well).
        const stored = await eventually(
          async () => (await h.get(`/api/v1/sales?reference=${key}`)).json().data[0] as { id: number; status: string } | undefined,
          'the sale stored',
        );
        assert.equal(stored.status, 'pending');

        const replay = otherApp.inject({
          method: 'POST',
          url: '/api/v1/sales',
          headers: { authorization: `Bearer ${h.merchant.token}`, 'idempotency-key': key },
          payload: body,
        });
        await eventually(() => saleSignals(other).isAwaitedHere(stored.id), 'the replay to wait in the other gateway');
        assert.ok(saleSignals(h.ctx).storingRequestWaitsHere(stored.id), 'the first request still waits in the filing gateway');
        h.sim.control.setFaults(h.merchant.tpin, '000', { delayMs: 0 });

        const answered = (await first).json().data;
        assert.equal(answered.status, 'uploaded');
        // Its wait runs for 60 s; the test's own limit is far below that.
        const again = await replay;
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.deepEqual(again.json().data, answered);
      },
    );
  },
);
