// The shared rules of issue 16 in their one home: the retry backoff, and the tenant-standing
// rule whose JavaScript and SQL forms must agree.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ApiError } from '../../src/platform/errors/errors.ts';
import {
  assertTenantBillable,
  assertTenantInGoodStanding,
  inGoodStandingSql,
  type AccountStanding,
} from '../../src/credentials/standing.ts';
import { backoffMs, MAX_RETRY_DELAY_MS, nextBackoffMs, scheduledBackoffMs } from '../../src/platform/workers/backoff.ts';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/db.ts';

describe('retry backoff', () => {
  test('doubles from the first wait, up to one cap', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => backoffMs(5_000, n)),
      [5_000, 10_000, 20_000, 40_000, 80_000],
    );
    assert.equal(backoffMs(5_000, 0), 5_000);
    assert.equal(backoffMs(5_000, 30), MAX_RETRY_DELAY_MS);
    assert.equal(MAX_RETRY_DELAY_MS, 300_000);
  });

  test('a row that stores its current wait steps the same way as one that counts its failures', () => {
    for (const first of [1, 250, 5_000, 300_000]) {
      let stored = first;
      for (let failures = 1; failures < 25; failures++) {
        assert.equal(stored, backoffMs(first, failures));
        stored = nextBackoffMs(stored);
      }
    }
  });

  test('a configured schedule is followed, stretched by the jitter, and then exhausted', () => {
    const delays = [60, 300, 1800];
    assert.equal(
      scheduledBackoffMs(delays, 1, 0.2, () => 0),
      60_000,
    );
    assert.equal(
      scheduledBackoffMs(delays, 2, 0.2, () => 0.5),
      330_000,
    );
    assert.equal(
      scheduledBackoffMs(delays, 3, 0, () => 1),
      1_800_000,
    );
    let drawn = 0;
    assert.equal(
      scheduledBackoffMs(delays, 4, 0.2, () => ++drawn),
      undefined,
    );
    assert.equal(drawn, 0, 'no random draw for an exhausted schedule');
  });
});

describe(`the tenant-standing rule, in JavaScript and in SQL (${engineName})`, () => {
  let testDb: TestDatabase;
  before(async () => {
    testDb = await createTestDatabase({ poolSize: 1 });
  });
  after(() => testDb.close());

  const accounts: AccountStanding[] = [];
  for (const subscription of ['active', 'blocked'] as const) {
    for (const status of ['active', 'suspended'] as const) {
      for (const monthlyQuota of [null, 0, 5]) {
        for (const documentsThisMonth of [0, 4, 5, 6]) accounts.push({ subscription, status, monthlyQuota, documentsThisMonth });
      }
    }
  }

  const refusal = (check: () => void): string | undefined => {
    try {
      check();
      return undefined;
    } catch (err) {
      assert.ok(err instanceof ApiError);
      return `${err.status} ${err.code}`;
    }
  };

  test('refuses in order: a blocked subscription (402), an exhausted quota (402), a suspension (403)', () => {
    const base: AccountStanding = { subscription: 'active', status: 'active', monthlyQuota: null, documentsThisMonth: 0 };
    assert.equal(
      refusal(() => assertTenantInGoodStanding(base)),
      undefined,
    );
    assert.equal(
      refusal(() => assertTenantInGoodStanding({ ...base, subscription: 'blocked', status: 'suspended', monthlyQuota: 0 })),
      '402 subscription_blocked',
    );
    assert.equal(
      refusal(() => assertTenantInGoodStanding({ ...base, status: 'suspended', monthlyQuota: 3, documentsThisMonth: 3 })),
      '402 quota_exhausted',
    );
    assert.equal(
      refusal(() => assertTenantInGoodStanding({ ...base, status: 'suspended' })),
      '403 tenant_suspended',
    );
    // Partner changes to a merchant: only the 402s.
    const suspended: AccountStanding = { ...base, status: 'suspended' };
    assert.equal(
      refusal(() => assertTenantBillable(suspended)),
      undefined,
    );
  });

  test('the SQL predicate is true exactly for the accounts the check lets through', async () => {
    const rows = sql.join(
      accounts.map(
        (a, i) => sql`(${i}::int, ${a.subscription}::text, ${a.status}::text, ${a.monthlyQuota}::int, ${a.documentsThisMonth}::int)`,
      ),
    );
    const predicate = inGoodStandingSql({
      subscription: sql`a.subscription`,
      status: sql`a.status`,
      monthlyQuota: sql`a.quota`,
      documents: sql`a.documents`,
    });
    const { rows: verdicts } = await sql<{ i: number; ok: boolean }>`
      select a.i, (${predicate}) as ok from (values ${rows}) as a(i, subscription, status, quota, documents) order by a.i`.execute(
      testDb.database.db,
    );
    assert.equal(verdicts.length, accounts.length);
    for (const { i, ok } of verdicts) {
      assert.equal(ok, refusal(() => assertTenantInGoodStanding(accounts[i]!)) === undefined, JSON.stringify(accounts[i]));
    }
  });
});
