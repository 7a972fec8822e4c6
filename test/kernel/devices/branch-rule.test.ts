// The branch a merchant request acts on (design.md) has two forms: pickBranch in JavaScript (the
// routes that read a merchant's devices) and defaultBranchSql (the sale's insert, which picks the
// branch in the statement that takes the invoice number). They must agree on every set of devices.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import fc from 'fast-check';
import { defaultBranchSql, pickBranch } from '../../../src/domain/kernel/devices/branch-rule.ts';
import { createTestDatabase, engineName, type TestDatabase } from '../../helpers/db.ts';

describe(`the branch rule, in JavaScript and in SQL (${engineName})`, () => {
  let testDb: TestDatabase;
  before(async () => {
    testDb = await createTestDatabase({ poolSize: 1 });
  });
  after(() => testDb.close());

  let tpin = 1_000_000_000;
  const branchSets = fc.uniqueArray(fc.constantFrom('000', '001', '002', '017', '100'), { maxLength: 4 });

  test('without X-Branch: the 000 branch if registered, else the only branch, else none — in both forms', async () => {
    const db = testDb.database.db;
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(branchSets, async (branches) => {
        const tenant = await db
          .insertInto('tenants')
          .values({ name: 'Rule', tpin: String(tpin++), origin: 'self', partner_id: null })
          .returning('id')
          .executeTakeFirstOrThrow();
        for (const branch of branches) {
          await db
            .insertInto('devices')
            .values({ tenant_id: tenant.id, branch, device_serial: `SN-${branch}`, vsdc_base_url: 'http://127.0.0.1:1' })
            .execute();
        }
        const inJs =
          pickBranch(
            branches.map((branch) => ({ branch })),
            undefined,
          )?.branch ?? null;
        const { rows } = await sql<{ branch: string | null }>`select ${defaultBranchSql(sql`${tenant.id}::int`)} as branch`.execute(db);
        assert.equal(rows[0]!.branch, inJs, `devices ${JSON.stringify(branches)}`);
        checked++;
      }),
      { numRuns: 40 },
    );
    assert.equal(checked, 40);
  });

  test('X-Branch names a branch: that one, or branch_not_found when the merchant has none by that id', () => {
    const devices = [{ branch: '000' }, { branch: '001' }];
    assert.equal(pickBranch(devices, '001')?.branch, '001');
    assert.throws(() => pickBranch(devices, '002'), { code: 'branch_not_found' });
  });
});
