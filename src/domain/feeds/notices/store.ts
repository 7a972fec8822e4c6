import { sql, type Kysely, type Selectable } from 'kysely';
import type { Notifier } from '../../../platform/db/notifier.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { AuthorityFeed, AuthorityNoticesTable } from '../../../platform/db/tables/authority.ts';
import { PER_PAGE, offsetOf } from '../../../platform/http/pagination.ts';
import type { DeviceTarget } from '../../../authorities/zra-vsdc/client.ts';
import { claimDueRows, fromNow, released } from '../../../platform/workers/lease-sql.ts';
import { fullBackfillDue } from '../../../platform/workers/backfill.ts';
import { enqueueEvent, NOTICE_EVENT } from '../../kernel/outbox/events.ts';
import { type ReceivedBranch, upsertBranches, pullDevice, initializedSql } from '../../kernel/devices/store.ts';

export type NoticeRow = Selectable<AuthorityNoticesTable>;

// ---- the pulls ----

export interface ClaimedAuthorityPull {
  id: number;
  tenantId: number;
  feed: AuthorityFeed;
  lastReqDt: string | null;
  failures: number;
  /** The tenant's device the pull goes through: headquarters (000) when initialised, else its oldest initialised one. */
  target: DeviceTarget;
}

/**
 * Leases up to `limit` tenant feeds whose next pull is due, first giving every tenant with an
 * initialised device its rows (every tenant on the process's first round and hourly, else the
 * tenants of recently initialised devices: backfill.ts). SKIP LOCKED plus the lease: two
 * processes never pull one feed.
 */
export async function claimDueAuthorityPulls(db: Kysely<DB>, leaseMs: number, limit: number): Promise<ClaimedAuthorityPull[]> {
  await sql`
    insert into authority_pulls (tenant_id, feed)
    select distinct d.tenant_id, f.feed from devices d cross join (values ('notices'), ('branches')) as f(feed)
    where ${initializedSql('d', !fullBackfillDue(db, 'authority_pulls'))}
      and not exists (select 1 from authority_pulls p where p.tenant_id = d.tenant_id and p.feed = f.feed)
    on conflict (tenant_id, feed) do nothing`.execute(db);
  const result = await sql<{ id: number; tenant_id: number; feed: AuthorityFeed; last_req_dt: string | null; failures: number; vsdc_base_url: string; branch: string; tpin: string }>`
    ${claimDueRows('authority_pulls', { waiting: sql`exists (select 1 from devices d where d.tenant_id = r.tenant_id and d.initialized)`, leaseMs, limit })}
    select claimed.id, claimed.tenant_id, claimed.feed, claimed.last_req_dt, claimed.failures, device.vsdc_base_url, device.branch, t.tpin
    from claimed
    join tenants t on t.id = claimed.tenant_id
    join lateral (${pullDevice('claimed.tenant_id')}) device on true`.execute(db);
  return result.rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    feed: r.feed,
    lastReqDt: r.last_req_dt,
    failures: r.failures,
    target: { baseUrl: r.vsdc_base_url, tpin: r.tpin, bhfId: r.branch },
  }));
}

/** The pull answered: start the next one from `resultDt` (kept when the VSDC sent none) in `intervalMs`. */
async function completePull(db: Kysely<DB>, pullId: number, resultDt: string | null, intervalMs: number): Promise<void> {
  await db
    .updateTable('authority_pulls')
    .set({
      last_req_dt: resultDt ?? sql<string | null>`last_req_dt`,
      next_pull_at: fromNow(intervalMs),
      ...released('authority_pulls'),
      failures: 0,
      last_pulled_at: sql<Date>`now()`,
      last_error: null,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', pullId)
    .execute();
}

/** The pull got no usable answer: try again after `retryInMs`, keep `lastReqDt`. */
export async function deferAuthorityPull(db: Kysely<DB>, pullId: number, retryInMs: number, error: string): Promise<void> {
  await db
    .updateTable('authority_pulls')
    .set({
      next_pull_at: fromNow(retryInMs),
      ...released('authority_pulls'),
      failures: sql<number>`failures + 1`,
      last_error: error.slice(0, 1000),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', pullId)
    .execute();
}

// ---- notices ----

/** A notice as the gateway keeps it; `notice` is the raw JSON as received. */
export type ReceivedNotice = Omit<NoticeRow, 'id' | 'tenant_id' | 'received_at' | 'notice'> & { notice: unknown };

/** The tenant's partner and names, for the event's `data.tenant`. */
interface EventTenant {
  id: number;
  name: string;
  tpin: string;
  partner_id: number | null;
}

/**
 * Stores the notices not held yet (by `notice_no`), with an `authority.notice` event for each new
 * one, and moves the pull on to `resultDt`, in one transaction. Returns how many were new.
 */
export async function saveNoticesPull(
  db: Kysely<DB>,
  notifier: Notifier,
  pull: Pick<ClaimedAuthorityPull, 'id' | 'tenantId'>,
  notices: ReceivedNotice[],
  resultDt: string | null,
  intervalMs: number,
  eventData: (row: NoticeRow, tenant: EventTenant) => Record<string, unknown>,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let added: NoticeRow[] = [];
    if (notices.length > 0) {
      added = await trx
        .insertInto('authority_notices')
        .values(notices.map((n) => ({ ...n, notice: JSON.stringify(n.notice), tenant_id: pull.tenantId })))
        .onConflict((oc) => oc.columns(['tenant_id', 'notice_no']).doNothing())
        .returningAll()
        .execute();
    }
    if (added.length > 0) {
      const tenant = await trx.selectFrom('tenants').select(['id', 'name', 'tpin', 'partner_id']).where('id', '=', pull.tenantId).executeTakeFirstOrThrow();
      for (const row of added.sort((a, b) => a.notice_no - b.notice_no)) {
        await enqueueEvent(trx, { type: NOTICE_EVENT, partnerId: tenant.partner_id, tenantId: tenant.id, data: eventData(row, tenant) }, notifier);
      }
    }
    await completePull(trx, pull.id, resultDt, intervalMs);
    return added.length;
  });
}

export async function listNotices(db: Kysely<DB>, tenantId: number, page: number): Promise<{ rows: NoticeRow[]; total: number }> {
  const query = db.selectFrom('authority_notices').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy(sql`registered_at desc nulls last`)
      .orderBy('notice_no', 'desc')
      .limit(PER_PAGE)
      .offset(offsetOf(page))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

// ---- branches ----

/** Records the branches and moves the pull on to `resultDt`, in one transaction. */
export async function saveBranchesPull(db: Kysely<DB>, pull: Pick<ClaimedAuthorityPull, 'id' | 'tenantId'>, branches: ReceivedBranch[], resultDt: string | null, intervalMs: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await upsertBranches(trx, pull.tenantId, branches);
    await completePull(trx, pull.id, resultDt, intervalMs);
  });
}
