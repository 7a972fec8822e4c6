// Reconciliation against the real simulator: an altered receipt is found and fires one event, a
// lost reply is adopted as uploaded with one invoice event, a document the VSDC does not know is
// reported; bad input and tenancy.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reconcileRound } from '../../../src/domain/fiscal/reconciliation/service.ts';
import { bearer, TEST_ADMIN_TOKEN } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { expectCoded, expectInvalid, expectStatus, saleBody, startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import { registerEndpoint, Receiver } from '../../partner/webhooks/helpers.ts';

const TODAY = new Date().toISOString().slice(0, 10);

interface Run {
  id: number;
  status: string;
  branch: string;
  progress: { total: number; checked: number; matches: number; mismatches: number; unknown: number; adopted: number; notFiled: number };
  results: Array<{
    saleId: number;
    invoiceNo: number;
    outcome: string;
    differences: Array<{ field: string; ours: unknown; theirs: unknown }>;
  }>;
}

/** The parts of a stored event's body these tests read. */
interface StoredEvent {
  data: { document: { saleId: number }; reconciliation: { id: number }; invoice: { id: number } };
}

describe(`reconciliation with the VSDC (${engineName})`, () => {
  let h: Harness;
  let receiver: Receiver;

  before(async () => {
    h = await startHarness({
      // A lost reply defers its branch for a minute, and nothing probes it back meanwhile: the
      // document stays pending until reconciliation finds it.
      config: { saleWaitMs: 0, filingRetryMs: 60_000, vsdcProbeMs: 300_000, reconcilePaceMs: 0, reconcilePendingAfterSec: 0 },
    });
    receiver = new Receiver();
    await receiver.start();
    await registerEndpoint(h.t, h.merchant.partnerSecret, {
      url: `${receiver.url}/recon`,
      events: ['reconciliation.mismatch', 'invoice.fiscalised'],
    });
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  async function postSales(count: number, branch = '000'): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await h.post('/api/v1/sales', saleBody({}, [{ price: 100 + i }]), { 'x-branch': branch });
      assert.ok(res.statusCode === 201 || res.statusCode === 202, res.body);
      ids.push(res.json().data.id);
    }
    return ids;
  }

  async function uploaded(ids: number[]) {
    return eventually(async () => {
      const rows = await h.ctx.db.selectFrom('sales').selectAll().where('id', 'in', ids).orderBy('invoice_no').execute();
      return rows.every((r) => r.status === 'uploaded') ? rows : undefined;
    }, 'the documents to be uploaded');
  }

  async function finished(runId: number, page = ''): Promise<Run> {
    return eventually(async () => {
      const run = expectStatus(await h.get(`/api/v1/reconciliations/${runId}${page}`), 200).data as Run;
      return run.status === 'completed' ? run : undefined;
    }, `reconciliation ${runId} to complete`);
  }

  async function storedEvents(type: string): Promise<StoredEvent[]> {
    const rows = await h.ctx.db
      .selectFrom('webhook_events')
      .select('body')
      .where('tenant_id', '=', h.merchant.tenantId)
      .where('type', '=', type)
      .orderBy('id')
      .execute();
    return rows.map((r) => JSON.parse(r.body));
  }

  test('an altered signature and total are mismatches, a document the VSDC does not know is unknown; one event each', async () => {
    const rows = await uploaded(await postSales(4));
    const [same, signed, totalled, forgotten] = rows;
    const alter = (invoiceNo: number, body: unknown) =>
      fetch(`${h.sim.url}/_sim/devices/${h.merchant.tpin}/000/documents/${invoiceNo}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assert.equal((await alter(Number(signed!.invoice_no), { rcptSign: 'TAMPEREDSIGN0000' })).status, 200);
    assert.equal((await alter(Number(totalled!.invoice_no), { totAmt: 1 })).status, 200);
    assert.equal((await alter(999_999, { totAmt: 1 })).status, 404);
    assert.equal((await alter(Number(same!.invoice_no), { colour: 'red' })).status, 400);
    // The gateway holds a document under a number the VSDC never filed.
    await h.ctx.db.updateTable('sales').set({ invoice_no: 900_000 }).where('id', '=', forgotten!.id).execute();

    const created = expectStatus(await h.post('/api/v1/reconciliations', { branch: '000', from: TODAY, to: TODAY }), 201).data;
    assert.equal(created.status, 'queued');
    const run = await finished(created.id);
    assert.deepEqual(run.progress, { total: 4, checked: 4, matches: 1, mismatches: 2, unknown: 1, adopted: 0, notFiled: 0 });
    const byId = new Map(run.results.map((r) => [r.saleId, r]));
    assert.equal(byId.size, 3, 'the page needing attention leaves the match out');
    assert.deepEqual(byId.get(Number(signed!.id))!.differences, [
      { field: 'receiptSignature', ours: signed!.receipt_signature, theirs: 'TAMPEREDSIGN0000' },
    ]);
    assert.deepEqual(byId.get(Number(totalled!.id))!.differences, [{ field: 'total', ours: Number(totalled!.total), theirs: 1 }]);
    assert.equal(byId.get(Number(forgotten!.id))!.outcome, 'unknown');
    const all = expectStatus(await h.get(`/api/v1/reconciliations/${created.id}?outcome=all`), 200);
    assert.equal(all.meta.total, 4);
    assert.equal(
      expectStatus(await h.get(`/api/v1/reconciliations/${created.id}?outcome=match`), 200).data.results[0].saleId,
      Number(same!.id),
    );

    const events = await storedEvents('reconciliation.mismatch');
    assert.deepEqual(
      events.map((e) => e.data.document.saleId).sort(),
      [signed, totalled, forgotten].map((r) => Number(r!.id)).sort(),
      'one event per mismatch',
    );
    assert.equal(events[0]!.data.reconciliation.id, created.id);
    await eventually(
      () => (receiver.requests.filter((r) => r.headers['x-webhook-event'] === 'reconciliation.mismatch').length === 3 ? true : undefined),
      'the three deliveries',
    );

    const listed = expectStatus(await h.get('/api/v1/reconciliations'), 200);
    assert.equal(listed.data[0].id, created.id);
    assert.equal(listed.data[0].progress.checked, 4);
  });

  test('a lost reply: the pending document the VSDC holds is adopted as uploaded, with one invoice event', async () => {
    await h.registerBranch(h.merchant, '001');
    h.sim.control.setFaults(h.merchant.tpin, '001', { loseReplies: 1 });
    const [saleId] = await postSales(1, '001');
    // The VSDC filed it but the reply was lost: the filer waits out its backoff.
    await eventually(
      () => (h.sim.control.documents(h.merchant.tpin, '001', { filedOnly: true }).length === 1 ? true : undefined),
      'the document to be filed',
    );
    await eventually(async () => {
      const q = await h.ctx.db
        .selectFrom('filing_queues as q')
        .innerJoin('devices as d', 'd.id', 'q.device_id')
        .select('q.retry_delay_ms')
        .where('d.tenant_id', '=', h.merchant.tenantId)
        .where('d.branch', '=', '001')
        .executeTakeFirst();
      return q?.retry_delay_ms != null ? true : undefined;
    }, 'the branch to be deferred');
    assert.equal(
      (await h.ctx.db.selectFrom('sales').select('status').where('id', '=', saleId!).executeTakeFirstOrThrow()).status,
      'pending',
    );

    const created = expectStatus(await h.post('/api/v1/reconciliations', { branch: '001', from: TODAY, to: TODAY }), 201).data;
    const run = await finished(created.id);
    assert.deepEqual(run.progress, { total: 1, checked: 1, matches: 0, mismatches: 0, unknown: 0, adopted: 1, notFiled: 0 });
    assert.equal(run.results[0]!.outcome, 'adopted');

    const filed = h.sim.control.documents(h.merchant.tpin, '001', { filedOnly: true })[0]!.receipt!;
    const sale = expectStatus(await h.get(`/api/v1/sales/${saleId}`), 200).data;
    assert.equal(sale.status, 'uploaded');
    assert.equal(sale.fiscal.receiptNo, filed.rcptNo);
    assert.equal(sale.fiscal.receiptSignature, filed.rcptSign);
    const fiscalised = (await storedEvents('invoice.fiscalised')).filter((e) => e.data.invoice.id === saleId);
    assert.equal(fiscalised.length, 1, 'exactly one invoice.fiscalised');
    assert.equal((await storedEvents('reconciliation.mismatch')).filter((e) => e.data.document.saleId === saleId).length, 0);
  });

  test('a run pauses RECONCILE_PACE_MS after each selectInvoice, before the next one', async () => {
    await h.registerBranch(h.merchant, '002');
    await uploaded(await postSales(3, '002'));
    const lookups = () => h.sim.control.calls(h.merchant.tpin, '002', 'selectInvoice').length;
    await h.stopWorkers();
    try {
      const created = expectStatus(await h.post('/api/v1/reconciliations', { branch: '002', from: TODAY, to: TODAY }), 201).data;
      // Each wait is recorded with how many lookups the VSDC had answered when it began.
      const pauses: Array<{ ms: number; afterLookups: number }> = [];
      const paced = { ...h.ctx, config: { ...h.ctx.config, reconcilePaceMs: 150 } };
      const pause = async (ms: number) => void pauses.push({ ms, afterLookups: lookups() });
      const checked = await reconcileRound(paced, { owner: 'pace-test', signal: new AbortController().signal, runId: created.id, pause });
      assert.equal(checked, 3);
      assert.equal(lookups(), 3);
      assert.deepEqual(
        pauses,
        [
          { ms: 150, afterLookups: 1 },
          { ms: 150, afterLookups: 2 },
        ],
        'a pause between each two lookups, none after the last',
      );
      assert.equal((await finished(created.id)).progress.matches, 3);
    } finally {
      h.startWorkers();
    }
  });

  test('bad input is a 4xx that says what to send; one open run per branch', async () => {
    expectInvalid(await h.post('/api/v1/reconciliations', { branch: '000', from: '2026-03-02', to: '2026-03-01' }), 'to');
    expectInvalid(await h.post('/api/v1/reconciliations', { branch: '000', from: '2026-02-30', to: '2026-03-01' }), 'from');
    expectInvalid(await h.post('/api/v1/reconciliations', { branch: '000', from: '2024-01-01', to: '2026-01-01' }), 'to');
    expectInvalid(await h.post('/api/v1/reconciliations', { branch: '777', from: TODAY, to: TODAY }), 'branch');
    expectInvalid(await h.post('/api/v1/reconciliations', { branch: '000', from: 'yesterday', to: TODAY }), 'from');
    const bothBad = await h.post('/api/v1/reconciliations', { branch: '000', from: '2026-13-01', to: '2026-02-30' });
    assert.equal(bothBad.statusCode, 422, bothBad.body);
    assert.deepEqual(Object.keys(bothBad.json().errors).sort(), ['from', 'to'], 'both days named in one answer');
    const notADay = await h.post('/api/v1/reconciliations', { branch: '000', from: TODAY, to: 'tomorrow' });
    assert.equal(notADay.json().errors.to[0], 'The to field must be a calendar day written YYYY-MM-DD, e.g. 2026-01-15.');
    expectInvalid(await h.post('/api/v1/reconciliations', { branch: '000', to: TODAY }), 'from');
    assert.equal((await h.get('/api/v1/reconciliations/99999999')).statusCode, 404);
    expectInvalid(await h.get('/api/v1/reconciliations/1?outcome=bogus'), 'outcome');

    await h.stopWorkers();
    try {
      const open = expectStatus(await h.post('/api/v1/reconciliations', { branch: '000', from: TODAY, to: TODAY }), 201).data;
      expectCoded(await h.post('/api/v1/reconciliations', { branch: '000', from: TODAY, to: TODAY }), 409, 'reconciliation_in_progress');
      h.startWorkers();
      await finished(open.id);
    } finally {
      h.startWorkers();
    }
  });

  test('tenancy: another merchant and another partner see nothing; the partner and the operator act for the merchant', async () => {
    const other = await h.addMerchant({ branches: ['000'] });
    const mine = expectStatus(await h.get('/api/v1/reconciliations'), 200).data[0];
    assert.equal((await h.get(`/api/v1/reconciliations/${mine.id}`, {}, other)).statusCode, 404);
    assert.equal(expectStatus(await h.get('/api/v1/reconciliations', {}, other), 200).meta.total, 0);

    const partner = bearer(h.merchant.partnerSecret);
    const stranger = bearer(other.partnerSecret);
    const url = `/api/v1/tenants/${h.merchant.tenantId}/reconciliations`;
    assert.equal((await h.t.inject({ method: 'GET', url, headers: stranger })).statusCode, 404);
    assert.equal((await h.t.inject({ method: 'GET', url: `${url}/${mine.id}`, headers: stranger })).statusCode, 404);
    assert.equal(
      (await h.t.inject({ method: 'POST', url, headers: stranger, payload: { branch: '000', from: TODAY, to: TODAY } })).statusCode,
      404,
    );
    assert.equal(expectStatus(await h.t.inject({ method: 'GET', url: `${url}/${mine.id}`, headers: partner }), 200).data.id, mine.id);

    const byPartner = expectStatus(
      await h.t.inject({ method: 'POST', url, headers: partner, payload: { branch: '000', from: TODAY, to: TODAY } }),
      201,
    ).data;
    assert.equal(byPartner.requestedBy, 'partner');
    await finished(byPartner.id);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const byOperator = expectStatus(
      await h.t.inject({
        method: 'POST',
        url: `/admin/v1/tenants/${other.tenantId}/reconciliations`,
        headers: admin,
        payload: { branch: '000', from: TODAY, to: TODAY },
      }),
      201,
    ).data;
    assert.equal(byOperator.tenantId, other.tenantId);
    assert.equal((await h.get(`/api/v1/reconciliations/${byOperator.id}`)).statusCode, 404, "not the harness merchant's");
    const run = await eventually(async () => {
      const got = expectStatus(
        await h.t.inject({ method: 'GET', url: `/admin/v1/tenants/${other.tenantId}/reconciliations/${byOperator.id}`, headers: admin }),
        200,
      ).data;
      return got.status === 'completed' ? got : undefined;
    }, "the operator's run");
    assert.equal(run.progress.total, 0, 'the other merchant has no documents');

    const audited = await h.t.ctx.db
      .selectFrom('audit_log')
      .select(['actor_type', 'tenant_id', 'target_id', 'details'])
      .where('action', '=', 'reconciliation.started')
      .orderBy('id')
      .execute();
    const of = (id: number) => audited.find((a) => a.target_id === String(id));
    assert.deepEqual(
      [of(mine.id)?.actor_type, of(byPartner.id)?.actor_type, of(byOperator.id)?.actor_type],
      ['tenant_token', 'partner_key', 'admin'],
      'every start is audited with who started it',
    );
    assert.equal(Number(of(byOperator.id)?.tenant_id), other.tenantId);
    const details = of(byPartner.id)?.details;
    assert.deepEqual(typeof details === 'string' ? JSON.parse(details) : details, { branch: '000', from: TODAY, to: TODAY });
  });
});
