// The delivery queue is the deliveries table. Workers claim due rows with a lease
// (`locked_until` + `lease_token`) under FOR UPDATE SKIP LOCKED, so any number of processes
// share it, a row is never attempted by two workers at once, and a crashed worker's claim
// simply expires.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { scheduledBackoffMs } from '../../../platform/workers/backoff.ts';
import { heldBy, isDue, isFree, isHeld, leasedSql, released, releasedSql } from '../../../platform/workers/lease-sql.ts';

const DELIVERIES = 'webhook_deliveries';

interface ClaimLimits {
  /** Rows to claim at most (free slots of this worker). */
  batch: number;
  /** In-flight attempts per endpoint, counted across every worker holding a live lease. */
  perEndpoint: number;
  leaseMs: number;
}

export interface ClaimedDelivery {
  id: number;
  leaseToken: string;
  /** The resend counter at claim time: a resend meanwhile discards this attempt's result. */
  resends: number;
  attempts: number;
  endpointId: number;
  partnerId: number;
  url: string;
  secretCiphertext: string;
  eventId: string;
  eventType: string;
  body: string;
}

/**
 * Claims up to `batch` due deliveries of enabled endpoints, never more than `perEndpoint`
 * leased at once for one endpoint, oldest due first. Disabled endpoints' deliveries wait.
 */
export async function claimDueDeliveries(db: Kysely<DB>, now: Date, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  if (limits.batch <= 0) return [];
  const leaseToken = randomUUID();
  const claimed = await sql<{
    id: number;
    resends: number;
    attempts: number;
    endpoint_id: number;
    event_id: string;
    partner_id: number;
    url: string;
    secret_ciphertext: string;
    type: string;
    body: string;
  }>`${prepared}
    with due as (
      select d.id, d.endpoint_id, d.next_attempt_at,
             row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as rank
      from webhook_endpoints e
      cross join lateral (
        select id, endpoint_id, next_attempt_at from webhook_deliveries d
        where d.endpoint_id = e.id and d.status = 'pending' and ${isDue(DELIVERIES, 'd', now)} and ${isFree(DELIVERIES, 'd', now)}
        order by d.next_attempt_at, d.id
        limit ${limits.perEndpoint}::int
      ) d
      where e.status = 'enabled'
    ),
    free as (
      select u.endpoint_id,
             ${limits.perEndpoint}::int - (
               select count(*) from webhook_deliveries x
               where x.endpoint_id = u.endpoint_id and ${isHeld(DELIVERIES, 'x', now)}
             )::int as slots
      from (select distinct endpoint_id from due) u
    ),
    candidates as (
      select due.id, due.next_attempt_at from due join free on free.endpoint_id = due.endpoint_id
      where due.rank <= free.slots
    ),
    claimable as (
      select d.id from webhook_deliveries d
      join candidates c on c.id = d.id
      where d.status = 'pending' and ${isFree(DELIVERIES, 'd', now)}
      order by c.next_attempt_at, d.id
      limit ${limits.batch}::int
      for update of d skip locked
    ),
    leased as (
      update webhook_deliveries d
      set ${leasedSql(DELIVERIES, { holder: leaseToken, ms: limits.leaseMs, now })}
      from claimable
      where d.id = claimable.id
      returning d.id, d.resends, d.attempts, d.endpoint_id, d.event_id
    )
    select l.id, l.resends, l.attempts, l.endpoint_id, l.event_id, e.partner_id, e.url, e.secret_ciphertext, ev.type, ev.body
    from leased l
    join webhook_endpoints e on e.id = l.endpoint_id
    join webhook_events ev on ev.id = l.event_id
  `.execute(db);
  return claimed.rows.map((row) => ({
    id: Number(row.id),
    leaseToken,
    resends: row.resends,
    attempts: row.attempts,
    endpointId: row.endpoint_id,
    partnerId: row.partner_id,
    url: row.url,
    secretCiphertext: row.secret_ciphertext,
    eventId: row.event_id,
    eventType: row.type,
    body: row.body,
  }));
}

export type AttemptOutcome =
  | { kind: 'delivered'; responseStatus: number }
  /** `terminal`: refused by the address guard or the URL rules; no retries. */
  | { kind: 'failed'; responseStatus: number | null; error: string; terminal: boolean };

export interface RetryPolicy {
  /** Delays after the 1st, 2nd, … failed attempt; attempts in total = delays + 1. */
  delaysSec: readonly number[];
  /** Consecutive failed deliveries that disable an endpoint. */
  disableAfter: number;
  /** Up to this fraction is added to each delay, so retries after an outage spread out. */
  jitter: number;
}

/** What happened to the row; `retryAt` when another attempt was scheduled. */
type RecordResult = { status: 'delivered' | 'failed' | 'discarded' } | { status: 'retry_scheduled'; retryAt: Date };

/**
 * Writes an attempt's outcome, if this worker still holds the lease: the delivery row and the
 * endpoint's failure streak in one transaction. A resend during the attempt discards it.
 * Successful attempts normally go through a `DeliveredRecorder` first (many in one statement);
 * this is the general path.
 */
export async function recordAttempt(
  db: Kysely<DB>,
  claim: ClaimedDelivery,
  outcome: AttemptOutcome,
  now: Date,
  policy: RetryPolicy,
  random: () => number = Math.random,
): Promise<RecordResult> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'resends'])
      .where('id', '=', claim.id)
      .where(heldBy(DELIVERIES, claim.leaseToken))
      .forUpdate()
      .executeTakeFirst();
    if (!row) return { status: 'discarded' }; // lease expired and taken over, or endpoint deleted
    const release = released(DELIVERIES);
    if (row.resends !== claim.resends) {
      await trx.updateTable('webhook_deliveries').set(release).where('id', '=', claim.id).execute();
      return { status: 'discarded' };
    }

    const attempts = row.attempts + 1;
    const base = { ...release, attempts, last_attempt_at: now, response_status: outcome.responseStatus };
    if (outcome.kind === 'delivered') {
      await trx
        .updateTable('webhook_deliveries')
        .set({ ...base, status: 'delivered', error: null, next_attempt_at: null, delivered_at: now })
        .where('id', '=', claim.id)
        .execute();
      await recordEndpointOutcome(trx, claim.endpointId, 'delivered', now, policy.disableAfter);
      return { status: 'delivered' };
    }

    const retryInMs = outcome.terminal ? undefined : scheduledBackoffMs(policy.delaysSec, attempts, policy.jitter, random);
    if (retryInMs === undefined) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ ...base, status: 'failed', error: outcome.error, next_attempt_at: null })
        .where('id', '=', claim.id)
        .execute();
      await recordEndpointOutcome(trx, claim.endpointId, 'delivery_failed', now, policy.disableAfter);
      return { status: 'failed' };
    }
    const retryAt = new Date(now.getTime() + retryInMs);
    await trx
      .updateTable('webhook_deliveries')
      .set({ ...base, status: 'pending', error: outcome.error, next_attempt_at: retryAt })
      .where('id', '=', claim.id)
      .execute();
    await recordEndpointOutcome(trx, claim.endpointId, 'attempt_failed', now, policy.disableAfter);
    return { status: 'retry_scheduled', retryAt };
  });
}

/** Records an attempt's outcome on the endpoint: a success ends the streak, a failed delivery extends it. */
async function recordEndpointOutcome(
  db: Kysely<DB>,
  endpointId: number,
  outcome: 'delivered' | 'attempt_failed' | 'delivery_failed',
  now: Date,
  disableAfter: number,
): Promise<void> {
  if (outcome === 'delivered') {
    await db
      .updateTable('webhook_endpoints')
      .set({ failure_streak: 0 })
      .where('id', '=', endpointId)
      .where('failure_streak', '>', 0)
      .execute();
    return;
  }
  if (outcome === 'attempt_failed') {
    await db.updateTable('webhook_endpoints').set({ last_failure_at: now }).where('id', '=', endpointId).execute();
    return;
  }
  await db
    .updateTable('webhook_endpoints')
    .set({
      last_failure_at: now,
      failure_streak: sql`failure_streak + 1`,
      status: sql`case when failure_streak + 1 >= ${disableAfter} then 'disabled' else status end`,
      disabled_at: sql`case when status = 'enabled' and failure_streak + 1 >= ${disableAfter} then ${now}::timestamptz else disabled_at end`,
      updated_at: now,
    })
    .where('id', '=', endpointId)
    .execute();
}

interface DeliveredAttempt {
  claim: ClaimedDelivery;
  responseStatus: number;
  at: Date;
}

/**
 * The common case, for many attempts in one statement: delivered, lease still ours, no resend
 * meanwhile; each endpoint's failure streak ends. Returns the ids recorded; an attempt whose row
 * did not match (lease lost, resent, endpoint deleted) is left to `recordAttempt` to decide.
 */
async function recordDelivered(db: Kysely<DB>, attempts: readonly DeliveredAttempt[]): Promise<Set<number>> {
  if (attempts.length === 0) return new Set();
  const result = await sql<{ id: number }>`${prepared}
    with attempt as (
      select * from unnest(${attempts.map((a) => a.claim.id)}::bigint[], ${attempts.map((a) => a.claim.leaseToken)}::text[],
        ${attempts.map((a) => a.claim.resends)}::int[], ${attempts.map((a) => a.responseStatus)}::int[], ${attempts.map((a) => a.at.toISOString())}::timestamptz[])
        as a(id, lease_token, resends, response_status, at)
    ),
    done as (
      update webhook_deliveries d
      set status = 'delivered', attempts = d.attempts + 1, last_attempt_at = a.at, delivered_at = a.at,
          response_status = a.response_status, error = null, next_attempt_at = null, ${releasedSql(DELIVERIES)}
      from attempt a
      where d.id = a.id and ${heldBy(DELIVERIES, sql.ref<string>('a.lease_token'), 'd')} and d.resends = a.resends
      returning d.id, d.endpoint_id
    ),
    streak_ended as (
      update webhook_endpoints set failure_streak = 0
      where id in (select endpoint_id from done) and failure_streak > 0
      returning id
    )
    select id from done`.execute(db);
  return new Set(result.rows.map((r) => Number(r.id)));
}

/**
 * Records successful attempts in groups: while one statement is in flight, the attempts that
 * finish meanwhile wait and go together in the next. Under load that is one statement for many
 * deliveries; alone, an attempt is recorded at once.
 */
export class DeliveredRecorder {
  private waiting: Array<{ attempt: DeliveredAttempt; done: (recorded: boolean) => void; failed: (err: unknown) => void }> = [];
  private flushing = false;

  constructor(private readonly db: Kysely<DB>) {}

  /** True when recorded; false when the row did not match (use the general path). */
  record(attempt: DeliveredAttempt): Promise<boolean> {
    return new Promise((done, failed) => {
      this.waiting.push({ attempt, done, failed });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.waiting.length > 0) {
      const group = this.waiting;
      this.waiting = [];
      try {
        const recorded = await recordDelivered(
          this.db,
          group.map((w) => w.attempt),
        );
        for (const w of group) w.done(recorded.has(w.attempt.claim.id));
      } catch (err) {
        for (const w of group) w.failed(err);
      }
    }
    this.flushing = false;
  }
}
