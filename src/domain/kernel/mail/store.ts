// All SQL of the mail outbox (table mail_outbox). Rows are claimed with a lease (`lease_until` +
// `lease_owner`) under FOR UPDATE SKIP LOCKED, so any number of processes share the queue, a mail
// is never in two attempts at once, and a crashed worker's claim runs out. Times are the
// application clock's (its tests drive a clock).
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { heldBy, isDue, isFree, leasedSql, released } from '../../../platform/workers/lease-sql.ts';

const OUTBOX = 'mail_outbox';

interface NewMail {
  kind: string;
  recipient: string;
  subject: string;
  bodySealed: string;
  topic: string | null;
  linkExpiresAt: Date | null;
  now: Date;
}

export async function insertMail(db: Kysely<DB>, mail: NewMail): Promise<number> {
  const row = await db
    .insertInto('mail_outbox')
    .values({
      kind: mail.kind,
      recipient: mail.recipient,
      subject: mail.subject,
      body_sealed: mail.bodySealed,
      topic: mail.topic,
      link_expires_at: mail.linkExpiresAt,
      created_at: mail.now,
      next_attempt_at: mail.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Mails of `topic` still waiting are not sent any more (their link was voided); answers how many. */
export async function cancelWaitingMails(db: Kysely<DB>, topic: string, now: Date): Promise<number> {
  const result = await db
    .updateTable('mail_outbox')
    .set({
      status: 'cancelled',
      finished_at: now,
      body_sealed: null,
      next_attempt_at: null,
      last_error: 'not sent: its link was voided by a newer one',
    })
    .where('topic', '=', topic)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface ClaimedMail {
  id: number;
  leaseOwner: string;
  kind: string;
  recipient: string;
  subject: string;
  bodySealed: string | null;
  attempts: number;
  createdAt: Date;
  linkExpiresAt: Date | null;
}

/** Up to `limit` due mails nobody holds, oldest due first, leased to a new owner for `leaseMs`. */
export async function claimDueMails(db: Kysely<DB>, claim: { now: Date; limit: number; leaseMs: number }): Promise<ClaimedMail[]> {
  const owner = randomUUID();
  const { now } = claim;
  const result = await sql<{
    id: number;
    kind: string;
    recipient: string;
    subject: string;
    body_sealed: string | null;
    attempts: number;
    created_at: Date;
    link_expires_at: Date | null;
  }>`
    with due as (
      select id from mail_outbox
      where status = 'pending' and ${isDue(OUTBOX, undefined, now)} and ${isFree(OUTBOX, undefined, now)}
      order by next_attempt_at, id
      limit ${claim.limit}::int
      for update skip locked
    )
    update mail_outbox m set ${leasedSql(OUTBOX, { holder: owner, ms: claim.leaseMs, now })}
    from due where m.id = due.id
    returning m.id, m.kind, m.recipient, m.subject, m.body_sealed, m.attempts, m.created_at, m.link_expires_at`.execute(db);
  return result.rows
    .map((r) => ({
      id: Number(r.id),
      leaseOwner: owner,
      kind: r.kind,
      recipient: r.recipient,
      subject: r.subject,
      bodySealed: r.body_sealed,
      attempts: r.attempts,
      createdAt: new Date(r.created_at),
      linkExpiresAt: r.link_expires_at ? new Date(r.link_expires_at) : null,
    }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Sent: recorded by the lease's owner whatever became of the row meanwhile (a mail cancelled while
 * it was being sent was sent all the same). False when the lease was lost to another claim.
 */
export async function recordSent(db: Kysely<DB>, mail: ClaimedMail, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('mail_outbox')
    .set({
      ...released(OUTBOX),
      status: 'sent',
      attempts: mail.attempts + 1,
      last_attempt_at: now,
      finished_at: now,
      body_sealed: null,
      next_attempt_at: null,
      last_error: null,
    })
    .where('id', '=', mail.id)
    .where(heldBy(OUTBOX, mail.leaseOwner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A failed attempt, tried again at `retryAt`; false when the lease was lost or the mail cancelled meanwhile. */
export async function recordRetry(
  db: Kysely<DB>,
  mail: ClaimedMail,
  failed: { now: Date; error: string; retryAt: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('mail_outbox')
    .set({
      ...released(OUTBOX),
      attempts: mail.attempts + 1,
      last_attempt_at: failed.now,
      last_error: failed.error,
      next_attempt_at: failed.retryAt,
    })
    .where('id', '=', mail.id)
    .where('status', '=', 'pending')
    .where(heldBy(OUTBOX, mail.leaseOwner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Given up, never sent (`attempted`: this claim made an attempt); its text is erased. False as recordRetry. */
export async function recordGivenUp(
  db: Kysely<DB>,
  mail: ClaimedMail,
  given: { now: Date; error: string; attempted: boolean },
): Promise<boolean> {
  const result = await db
    .updateTable('mail_outbox')
    .set({
      ...released(OUTBOX),
      status: 'failed',
      attempts: mail.attempts + (given.attempted ? 1 : 0),
      ...(given.attempted ? { last_attempt_at: given.now } : {}),
      last_error: given.error,
      finished_at: given.now,
      body_sealed: null,
      next_attempt_at: null,
    })
    .where('id', '=', mail.id)
    .where('status', '=', 'pending')
    .where(heldBy(OUTBOX, mail.leaseOwner))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes finished mails (sent, given up, cancelled) that finished before `before`, a batch at a time; answers how many. */
export async function deleteFinishedMails(db: Kysely<DB>, before: Date, batch = 10_000): Promise<number> {
  const result = await sql`
    delete from mail_outbox where id in (
      select id from mail_outbox where status <> 'pending' and finished_at < ${before}::timestamptz limit ${batch}::int
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface OutboxState {
  pending: number;
  failed: number;
  /** When the oldest waiting mail was written; null when none waits. */
  oldestPending: Date | null;
}

/** The gauges' read: three lookups of partial indexes (waiting mails are few, given-up ones are kept 30 days). */
export async function outboxState(db: Kysely<DB>): Promise<OutboxState> {
  const row = (
    await sql<{ pending: number; failed: number; oldest: Date | null }>`
      select (select count(*) from mail_outbox where status = 'pending')::int as pending,
        (select count(*) from mail_outbox where status = 'failed')::int as failed,
        (select min(created_at) from mail_outbox where status = 'pending') as oldest`.execute(db)
  ).rows[0];
  return { pending: row?.pending ?? 0, failed: row?.failed ?? 0, oldestPending: row?.oldest ? new Date(row.oldest) : null };
}
