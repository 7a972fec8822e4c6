// The pull of every feed (customs lines, purchases, principals, the stock ledger per initialised
// branch; notices and branches per tenant): one row per branch or tenant and feed in feed_pulls
// says where the pull stands (the previous answer's cursor, the next pull's time, failures) and
// who runs it now (a lease). Claimed with lease-sql's vocabulary, so any number of processes
// share the pulls; a row is pulled by one at a time. The template claims the due rows, reads a
// page through the authority's adapter, stores it in one transaction with the feed's `store`
// and finishes the pull itself in that transaction; a read with no usable answer defers it.
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { deviceSecrets, sealedDeviceColumns, type SealedDeviceColumns } from '../../kernel/authority-rows/devices.ts';
import { sql, type Kysely } from 'kysely';
import { profileOf } from '../../../authorities/index.ts';
import type { AuthorityDevice, FeedRead, FiscalAuthority, Pulled } from '../../../authorities/port/index.ts';
import type { Config } from '../../../platform/config.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { BranchFeed, FeedName, TenantFeed } from '../../../platform/db/tables/feeds.ts';
import { backoffMs } from '../../../platform/workers/backoff.ts';
import { fullBackfillDue } from '../../../platform/workers/backfill.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { claimDueRows, fromNow, releasedSql } from '../../../platform/workers/lease-sql.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import type { AppContext } from '../../kernel/context.ts';
import { initializedSql, pullDevice } from '../../kernel/devices/store.ts';

const TENANT_FEEDS: readonly TenantFeed[] = ['notices', 'branches'];

export interface ClaimedPull {
  /** The feed_pulls row. */
  id: number;
  feed: FeedName;
  tenantId: number;
  /** The branch's device (a branch feed); null for a tenant feed. */
  deviceId: number | null;
  /** The previous answer's cursor; null before the first answer. */
  cursor: string | null;
  failures: number;
  /** The device the pull goes through: the branch's, or the tenant's pull device (kernel/devices). */
  device: AuthorityDevice;
}

/** A claimed pull of a branch feed. */
export type ClaimedBranchPull = ClaimedPull & { deviceId: number };

/** A feed: which read of the adapter it is, and how a page of it is stored. */
export interface Feed<T, Stored = void, Pull extends ClaimedPull = ClaimedPull, Before = undefined> {
  name: FeedName;
  read: (authority: FiscalAuthority) => FeedRead<T>;
  /** Read just before the page is asked for; handed to `store`. */
  before?: (db: Kysely<DB>, pull: Pull) => Promise<Before>;
  /** Stores a page (empty when nothing changed) in the pull's transaction; the template finishes the pull after it. */
  store: (trx: Kysely<DB>, pull: Pull, records: T[], before: Before) => Promise<Stored>;
  /** After the transaction committed (e.g. a log line). */
  stored?: (pull: Pull, result: Stored) => void;
}

/** A feed pulled per initialised branch. */
export type BranchFeedOf<T, Stored = void, Before = undefined> = Feed<T, Stored, ClaimedBranchPull, Before> & { name: BranchFeed };

interface PullRow {
  id: number;
  feed: FeedName;
  tenant_id: number;
  device_id: number | null;
  last_req_dt: string | null;
  failures: number;
  vsdc_base_url: string;
  branch: string;
  tpin: string;
  authority: string;
  protocol: string;
  sdc_id: string | null;
  mrc_no: string | null;
}

function claimedOf(r: PullRow & SealedDeviceColumns, box: SecretBox): ClaimedPull {
  return {
    id: r.id,
    feed: r.feed,
    tenantId: r.tenant_id,
    deviceId: r.device_id,
    cursor: r.last_req_dt,
    failures: r.failures,
    device: {
      profile: profileOf(r.authority, r.protocol),
      baseUrl: r.vsdc_base_url,
      tpin: r.tpin,
      branch: r.branch,
      sdcId: r.sdc_id,
      mrcNo: r.mrc_no,
      ...deviceSecrets(box, r),
    },
  };
}

/**
 * Leases up to `limit` initialised branches whose pull of `feed` is due, first giving every
 * initialised branch its row (every branch on the process's first round and hourly, else those
 * initialised recently: backfill.ts). SKIP LOCKED plus the lease: two processes never pull one
 * branch's feed. The due rows are an index range (feed_pulls_due), not every branch.
 */
export async function claimDueBranchPulls(
  db: Kysely<DB>,
  box: SecretBox,
  feed: BranchFeed,
  leaseMs: number,
  limit: number,
): Promise<ClaimedBranchPull[]> {
  await sql`
    insert into feed_pulls (feed, tenant_id, device_id)
    select ${feed}, d.tenant_id, d.id from devices d
    where ${initializedSql('d', !fullBackfillDue(db, `feed_pulls:${feed}`))}
      and not exists (select 1 from feed_pulls p where p.feed = ${feed} and p.device_id = d.id)
    on conflict (feed, device_id) where device_id is not null do nothing`.execute(db);
  const result = await sql<PullRow & SealedDeviceColumns>`
    ${claimDueRows('feed_pulls', { waiting: sql`r.feed = ${feed} and d.initialized`, join: sql`join devices d on d.id = r.device_id`, leaseMs, limit })}
    select claimed.id, claimed.feed, claimed.tenant_id, claimed.device_id, claimed.last_req_dt, claimed.failures,
      d.vsdc_base_url, d.branch, d.protocol, d.sdc_id, d.mrc_no, t.tpin, t.authority, ${sealedDeviceColumns('d')}
    from claimed
    join devices d on d.id = claimed.device_id
    join tenants t on t.id = claimed.tenant_id`.execute(db);
  return result.rows.map((r) => claimedOf(r, box) as ClaimedBranchPull);
}

/**
 * Leases up to `limit` tenant feeds whose next pull is due, first giving every tenant with an
 * initialised device its rows (as claimDueBranchPulls). Each goes through the tenant's pull
 * device: headquarters when initialised, else its oldest initialised one.
 */
export async function claimDueTenantPulls(db: Kysely<DB>, box: SecretBox, leaseMs: number, limit: number): Promise<ClaimedPull[]> {
  const feeds = sql.join(TENANT_FEEDS.map((f) => sql`(${f}::text)`));
  await sql`
    insert into feed_pulls (feed, tenant_id)
    select distinct f.feed, d.tenant_id from devices d cross join (values ${feeds}) as f(feed)
    where ${initializedSql('d', !fullBackfillDue(db, 'feed_pulls:tenant'))}
      and not exists (select 1 from feed_pulls p where p.tenant_id = d.tenant_id and p.feed = f.feed and p.device_id is null)
    on conflict (feed, tenant_id) where device_id is null do nothing`.execute(db);
  const result = await sql<PullRow & SealedDeviceColumns>`
    ${claimDueRows('feed_pulls', {
      waiting: sql`r.device_id is null and r.feed in (${sql.join([...TENANT_FEEDS])}) and exists (select 1 from devices d where d.tenant_id = r.tenant_id and d.initialized)`,
      leaseMs,
      limit,
    })}
    select claimed.id, claimed.feed, claimed.tenant_id, claimed.device_id, claimed.last_req_dt, claimed.failures,
      pd.vsdc_base_url, pd.branch, pd.protocol, pd.sdc_id, pd.mrc_no, t.tpin, t.authority, ${sealedDeviceColumns('pd')}
    from claimed
    join tenants t on t.id = claimed.tenant_id
    join lateral (${pullDevice('claimed.tenant_id')}) device on true
    join devices pd on pd.tenant_id = claimed.tenant_id and pd.branch = device.branch`.execute(db);
  return result.rows.map((r) => claimedOf(r, box));
}

/** The pull got its answer: the cursor moves on (kept when the answer has none), the next pull is `intervalMs` away, the lease is released. */
async function finishPull(db: Kysely<DB>, pullId: number, cursor: string | null, intervalMs: number): Promise<void> {
  await sql`
    update feed_pulls set
      last_req_dt = coalesce(${cursor}::text, last_req_dt),
      next_pull_at = ${fromNow(intervalMs)},
      ${releasedSql('feed_pulls')},
      failures = 0,
      last_pulled_at = now(),
      last_error = null,
      updated_at = now()
    where id = ${pullId}`.execute(db);
}

/** The pull got no usable answer: try again after `retryInMs`, keep the cursor. */
async function deferPull(db: Kysely<DB>, pullId: number, retryInMs: number, error: string): Promise<void> {
  await sql`
    update feed_pulls set
      next_pull_at = ${fromNow(retryInMs)},
      ${releasedSql('feed_pulls')},
      failures = failures + 1,
      last_error = ${error.slice(0, 1000)},
      updated_at = now()
    where id = ${pullId}`.execute(db);
}

/** What an unusable answer means: a refusal waits the whole interval; no answer is retried sooner, with backoff (never later than the interval). */
function deferralOf(
  config: Pick<Config, 'filingRetryMs'>,
  outcome: Exclude<Pulled<unknown>, { kind: 'ok' | 'empty' }>,
  intervalMs: number,
  failures: number,
): { retryInMs: number; error: string } {
  if (outcome.kind === 'rejected') return { retryInMs: intervalMs, error: `${outcome.code} ${outcome.message}` };
  return { retryInMs: Math.min(intervalMs, backoffMs(config.filingRetryMs, failures + 1)), error: `${outcome.reason}: ${outcome.detail}` };
}

/** One pull of a leased row: a page since its cursor, stored and the pull finished in one transaction; or deferred. */
export async function pullOnce<T, Stored, Pull extends ClaimedPull, Before>(
  ctx: AppContext,
  feed: Feed<T, Stored, Pull, Before>,
  pull: Pull,
  intervalMs: number,
): Promise<void> {
  const before = (feed.before ? await feed.before(ctx.db, pull) : undefined) as Before;
  const outcome = await feed.read(ctx.authorities.of(pull.device.profile))(pull.device, pull.cursor);
  if (outcome.kind !== 'ok' && outcome.kind !== 'empty') {
    const { retryInMs, error } = deferralOf(ctx.config, outcome, intervalMs, pull.failures);
    return deferPull(ctx.db, pull.id, retryInMs, error);
  }
  const records = outcome.kind === 'ok' ? outcome.records : [];
  const result = await ctx.db.transaction().execute(async (trx) => {
    const stored = await feed.store(trx, pull, records, before);
    await finishPull(trx, pull.id, outcome.cursor, intervalMs);
    return stored;
  });
  feed.stored?.(pull, result);
}

/** Rows one round of a feed's pull leases at most. */
export const PULL_BATCH = 20;

/** A newly initialised branch (or tenant) is pulled within this long, whatever the feed's interval. */
const MAX_PULL_POLL_MS = 10_000;

/** One round of a branch feed's pull: every initialised branch whose pull is due. Returns how many. */
export async function pullDueBranches<T, Stored, Before>(
  ctx: AppContext,
  feed: BranchFeedOf<T, Stored, Before>,
  intervalMs: number,
): Promise<number> {
  const due = await claimDueBranchPulls(ctx.db, ctx.secretBox, feed.name, vsdcLeaseMs(ctx.config), PULL_BATCH);
  await Promise.all(due.map((pull) => pullOnce(ctx, feed, pull, intervalMs)));
  return due.length;
}

/** The worker of a feed pulled every `intervalMs` (`round`: one round of its pull). */
export function pullWorker(ctx: AppContext, name: string, intervalMs: number, round: (intervalMs: number) => Promise<number>): Worker {
  return pollingWorker({
    name,
    pollMs: Math.min(intervalMs, MAX_PULL_POLL_MS),
    batchSize: PULL_BATCH,
    log: ctx.log,
    round: () => round(intervalMs),
  });
}
