// The documents views' default total — a partner's failed documents — is a count kept by triggers
// (migration 0035), not a count of the fleet's refusals on every page. It must stay the documents'
// own under the filer's concurrent outcome statements (several at once, refusals of two partners'
// merchants in each, which may deadlock and be recorded again one by one) and through resolutions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { bearer, TEST_ADMIN_TOKEN } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness, type Merchant } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';

const BRANCHES = ['000', '001', '002', '003'];
const PER_BRANCH = 6;

describe(`kept counts of failed documents (${engineName})`, () => {
  let h: Harness;
  let other: Merchant;

  before(async () => {
    h = await startHarness({ branches: BRANCHES, config: { saleWaitMs: 0 } });
    other = await h.addMerchant({ branches: BRANCHES });
  });
  after(() => h.close());

  /** Each partner's kept count against its documents counted afresh, and what the views answer. */
  async function assertKept(): Promise<Map<number, number>> {
    const live = await sql<{ partner_id: number; n: number }>`
      select t.partner_id, count(*)::int as n from sales s join tenants t on t.id = s.tenant_id where s.status = 'failed' group by t.partner_id`.execute(
      h.ctx.db,
    );
    const byPartner = new Map(live.rows.map((r) => [Number(r.partner_id), Number(r.n)]));
    for (const merchant of [h.merchant, other]) {
      const page = await h.t.inject({ method: 'GET', url: '/api/v1/partner/documents', headers: bearer(merchant.partnerSecret) });
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.json().meta.total, byPartner.get(merchant.partnerId) ?? 0, `partner ${merchant.partnerId}'s failed documents`);
      // Its pages are its failed documents, newest first: the list kept beside the count.
      const newest = await sql<{ id: string }>`
        select s.id from sales s join tenants t on t.id = s.tenant_id where s.status = 'failed' and t.partner_id = ${merchant.partnerId} order by s.id desc`.execute(
        h.ctx.db,
      );
      for (const n of [1, 2, 3]) {
        const listed = await h.t.inject({
          method: 'GET',
          url: `/api/v1/partner/documents?page=${n}`,
          headers: bearer(merchant.partnerSecret),
        });
        assert.deepEqual(
          listed.json().data.map((d: { id: number; status: string }) => [d.id, d.status]),
          newest.rows.slice((n - 1) * 20, n * 20).map((r) => [Number(r.id), 'failed']),
          `partner ${merchant.partnerId}, page ${n}`,
        );
      }
    }
    const everyone = await h.t.inject({ method: 'GET', url: '/admin/v1/documents', headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(
      everyone.json().meta.total,
      [...byPartner.values()].reduce((a, b) => a + b, 0),
    );
    return byPartner;
  }

  test("refusals filed at once on two partners' branches, then resolutions: the totals are the documents'", async () => {
    for (const merchant of [h.merchant, other]) {
      for (const branch of BRANCHES)
        h.sim.control.setFaults(merchant.tpin, branch, { reject: { count: PER_BRANCH, code: '910', message: 'Request parameter error' } });
    }
    // Every branch's documents at once, so that the outcome statements carry both partners' refusals.
    const posted = await Promise.all(
      [h.merchant, other].flatMap((merchant) =>
        BRANCHES.flatMap((branch) =>
          Array.from({ length: PER_BRANCH }, () => h.post('/api/v1/sales', saleBody(), { 'x-branch': branch }, merchant)),
        ),
      ),
    );
    for (const res of posted) assert.equal(res.statusCode < 300, true, res.body);
    const ids = posted.map((res) => Number(res.json().data.id));
    await eventually(async () => {
      const left = await h.ctx.db.selectFrom('sales').select('id').where('id', 'in', ids).where('status', '=', 'pending').execute();
      return left.length === 0 ? true : undefined;
    }, 'every document refused');
    const kept = await assertKept();
    assert.equal(kept.get(h.merchant.partnerId), BRANCHES.length * PER_BRANCH);
    assert.equal(kept.get(other.partnerId), BRANCHES.length * PER_BRANCH);

    // Resolutions at once, on both partners: each leaves the count.
    const resolved = await Promise.all(
      [h.merchant, other].flatMap((merchant) =>
        ids.filter((_, k) => k % 3 === 0).map((id) => h.post(`/api/v1/sales/${id}/resolve`, { note: 'Cancelled' }, {}, merchant)),
      ),
    );
    const done = resolved.filter((res) => res.statusCode === 200).length;
    assert.equal(done, ids.filter((_, k) => k % 3 === 0).length, 'each resolved by its own merchant (the other is a 404)');
    const after = await assertKept();
    assert.equal((after.get(h.merchant.partnerId) ?? 0) + (after.get(other.partnerId) ?? 0), 2 * BRANCHES.length * PER_BRANCH - done);
  });
});
