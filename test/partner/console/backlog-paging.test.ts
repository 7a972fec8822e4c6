// The console's backlog views read only the page they show (issue 36: a fleet of 200,000
// branches). Their answer must not change: the same rows, in the same order and the same pages,
// as the definition they replaced — every branch in scope with a count of its pending documents,
// sorted by the oldest one (two stored at the same time: the one stored first), then by merchant
// and branch — which this test keeps as the reference.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { insertOneDocument } from '../../../src/domain/fiscal/sales/document-insert.ts';
import { listBacklog, type BacklogRow } from '../../../src/domain/partner/console/backlog-store.ts';
import { scopeConditions, type Scope } from '../../../src/domain/partner/console/scope.ts';
import { offsetOf, PER_PAGE } from '../../../src/platform/http/pagination.ts';
import { engineName } from '../../helpers/db.ts';
import { plainSale } from '../../helpers/documents.ts';
import { startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';

const branches = (n: number) => Array.from({ length: n }, (_, i) => String(i).padStart(3, '0'));

describe(`The backlog views page as they did (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;
  let deep: Merchant;

  /** The views' definition before issue 36: a lateral count for every branch in scope, sorted. */
  async function reference(scope: Scope, page: number, pendingOnly: boolean): Promise<{ rows: BacklogRow[]; total: number }> {
    const where = sql`where true ${scopeConditions(scope)}${pendingOnly ? sql` and p.pending > 0` : sql``}`;
    const from = sql`
      from devices d
      join tenants t on t.id = d.tenant_id
      left join lateral (select count(*)::int as pending, min(created_at) as oldest_pending_at, (array_agg(id order by created_at, id))[1] as oldest_id
                         from sales s where s.device_id = d.id and s.status = 'pending') p on true`;
    const rows = await sql<BacklogRow>`
      select t.id as tenant_id, t.name as tenant_name, t.tpin, t.partner_id, d.branch, d.branch_name, d.device_serial,
        d.initialized, d.sdc_id, p.pending, p.oldest_pending_at,
        (select count(*)::int from sales s where s.device_id = d.id and s.status = 'failed') as failed,
        q.retry_delay_ms, q.last_error, q.next_attempt_at,
        last.status as last_status, last.updated_at as last_outcome_at,
        a.threshold_sec, a.fired_at
      ${from}
      left join filing_queues q on q.device_id = d.id
      left join lateral (select s.status, s.updated_at from sales s where s.device_id = d.id and s.status <> 'pending' order by s.id desc limit 1) last on true
      left join backlog_alarms a on a.device_id = d.id
      ${where}
      order by p.oldest_pending_at asc nulls last, p.oldest_id, t.id, d.branch
      limit ${PER_PAGE} offset ${offsetOf(page)}`.execute(h.ctx.db);
    const count = await sql<{ n: number }>`select count(*)::int as n ${from} ${where}`.execute(h.ctx.db);
    return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
  }

  const options = { month: new Date().toISOString().slice(0, 7), refuseWhenDown: false };
  async function store(merchant: Merchant, branch: string, createdAt: string, status: 'pending' | 'failed' = 'pending'): Promise<void> {
    const outcome = await insertOneDocument(h.ctx.db, plainSale(merchant, branch), options);
    assert.equal(outcome?.kind, 'stored');
    const id = Number((outcome as Extract<typeof outcome, { kind: 'stored' }>).document.row.id);
    await h.ctx.db
      .updateTable('sales')
      .set({ created_at: new Date(createdAt), status, ...(status === 'failed' ? { result_code: '910', last_error: 'refused' } : {}) })
      .where('id', '=', id)
      .execute();
  }
  /** `n` pending documents on one branch, all stored at `createdAt` (as a group commit stores them). */
  async function storeMany(merchant: Merchant, branch: string, createdAt: string, n: number): Promise<void> {
    const ids: number[] = [];
    for (let k = 0; k < n; k++) {
      const outcome = await insertOneDocument(h.ctx.db, plainSale(merchant, branch), options);
      ids.push(Number((outcome as Extract<typeof outcome, { kind: 'stored' }>).document.row.id));
    }
    await h.ctx.db
      .updateTable('sales')
      .set({ created_at: new Date(createdAt) })
      .where('id', 'in', ids)
      .execute();
  }

  before(async () => {
    // No workers: the documents stay as the test leaves them. 26 branches under two partners: more
    // than a page, so that a page holds both branches with a backlog and branches without.
    h = await startHarness({ workers: false, branches: branches(12), config: { saleWaitMs: 0 } });
    other = await h.addMerchant({ branches: branches(14) });
    await store(h.merchant, '001', '2026-01-01T10:00:00Z');
    await store(h.merchant, '001', '2026-01-01T09:00:00Z');
    await store(h.merchant, '001', '2026-01-01T11:00:00Z');
    // The same oldest document in two branches of two merchants: merchant, then branch decides.
    await store(h.merchant, '004', '2026-01-01T08:00:00Z');
    await store(other, '002', '2026-01-01T08:00:00Z');
    await store(other, '002', '2026-01-01T12:00:00Z');
    await store(h.merchant, '007', '2026-01-02T00:00:00Z');
    await store(h.merchant, '007', '2026-01-01T07:00:00Z');
    await store(h.merchant, '010', '2026-01-03T00:00:00Z');
    await store(other, '005', '2026-01-01T08:00:00Z');
    await store(other, '013', '2026-01-01T06:00:00Z');
    await store(other, '000', '2026-01-04T00:00:00Z');
    // Refused documents, on branches with a backlog and without.
    await store(h.merchant, '001', '2026-01-01T05:00:00Z', 'failed');
    await store(h.merchant, '002', '2026-01-01T05:00:00Z', 'failed');
    await store(other, '011', '2026-01-01T05:00:00Z', 'failed');
    // A third partner's merchant with a deep backlog older than every other and one stored at the
    // same time as another's: a walk of the oldest documents meets few branches per read, so the
    // views read on where they stopped, for every scope.
    deep = await h.addMerchant({ branches: branches(3) });
    await storeMany(deep, '000', '2025-12-31T00:00:00Z', 230);
    await store(deep, '001', '2026-01-01T08:00:00Z');
    await store(deep, '002', '2026-01-05T00:00:00Z');
  });
  after(() => h.close());

  test('every scope, page and filter answers as the reference does', async () => {
    const scopes: Array<[string, Scope]> = [
      ['the operator', {}],
      ['a partner', { partnerId: h.merchant.partnerId }],
      ['the other partner', { partnerId: other.partnerId }],
      ["a partner's merchant", { partnerId: h.merchant.partnerId, tenantId: h.merchant.tenantId }],
      ["the operator's merchant", { tenantId: other.tenantId }],
      ['a merchant not of the partner', { partnerId: h.merchant.partnerId, tenantId: other.tenantId }],
      ["the deep backlog's partner", { partnerId: deep.partnerId }],
    ];
    for (const [name, scope] of scopes) {
      for (const pendingOnly of [false, true]) {
        for (const page of [1, 2, 3]) {
          const expected = await reference(scope, page, pendingOnly);
          assert.deepEqual(
            await listBacklog(h.ctx.db, scope, { page, pendingOnly }),
            expected,
            `${name}, page ${page}${pendingOnly ? ', pending only' : ''}`,
          );
        }
      }
    }
    // The test means something: the operator's first page ends in branches without a backlog and
    // its second holds only those; the branches with a backlog come in the reference's order.
    const first = await listBacklog(h.ctx.db, {}, { page: 1 });
    assert.equal(first.total, 29);
    assert.equal(first.rows.filter((r) => r.pending > 0).length, 11);
    assert.deepEqual(
      first.rows.slice(0, 7).map((r) => [r.tenant_id, r.branch, r.pending]),
      [
        [deep.tenantId, '000', 230],
        [other.tenantId, '013', 1],
        [h.merchant.tenantId, '007', 2],
        [h.merchant.tenantId, '004', 1],
        [other.tenantId, '002', 2],
        [other.tenantId, '005', 1],
        [deep.tenantId, '001', 1],
      ],
    );
    assert.equal((await listBacklog(h.ctx.db, {}, { page: 2 })).rows.length, 9);
  });

  test('the totals are kept as branches are added and removed, however they are written', async () => {
    // Straight into the table, as a bulk load or a maintenance script would: the kept count follows.
    const before = (await listBacklog(h.ctx.db, { partnerId: other.partnerId }, { page: 1 })).total;
    await sql`insert into devices (tenant_id, branch, device_serial, vsdc_base_url)
      select ${other.tenantId}, lpad(g::text, 3, '0'), 'SERIAL' || g, 'http://127.0.0.1:9' from generate_series(900, 904) g`.execute(
      h.ctx.db,
    );
    assert.equal((await listBacklog(h.ctx.db, { partnerId: other.partnerId }, { page: 1 })).total, before + 5);
    assert.deepEqual(await listBacklog(h.ctx.db, {}, { page: 2 }), await reference({}, 2, false));
    await sql`delete from devices where tenant_id = ${other.tenantId} and branch >= '900'`.execute(h.ctx.db);
    assert.equal((await listBacklog(h.ctx.db, { partnerId: other.partnerId }, { page: 1 })).total, before);
    assert.deepEqual(await listBacklog(h.ctx.db, {}, { page: 2 }), await reference({}, 2, false));
  });
});
