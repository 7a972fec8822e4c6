// What rows waiting for an authority share (customers, items, compositions, branch users, customs
// lines, purchases, pulls): how long a sender holds a row, and what an answer means for the row's
// columns (the wait after no answer is backoff.ts's).
import { sql } from 'kysely';
import type { Config } from '../../../platform/config.ts';
import { backoffMs } from '../../../platform/workers/backoff.ts';
import { fromNow } from '../../../platform/workers/lease-sql.ts';
import type { Sent } from '../../../authorities/port/index.ts';

/** Longer than any VSDC call can take, so a lease only runs out when its holder died (whole seconds, at least a minute). */
export function vsdcLeaseMs(config: Pick<Config, 'vsdcTimeoutMs'>): number {
  return Math.max(60, Math.ceil((config.vsdcTimeoutMs * 3) / 1000)) * 1000;
}

/** A VSDC write's answer as a waiting row records it. */
export type VsdcSendOutcome =
  | { kind: 'accepted'; code: string }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'unreachable'; detail: string; retryInMs: number };

/** Reads an authority port's write answer for a row that had `retryAttempts` unreachable attempts before this one. */
export function sentOutcomeOf(config: Pick<Config, 'filingRetryMs'>, outcome: Sent, retryAttempts: number): VsdcSendOutcome {
  switch (outcome.kind) {
    case 'accepted':
      return { kind: 'accepted', code: outcome.code };
    case 'rejected':
      return { kind: 'refused', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return {
        kind: 'unreachable',
        detail: `${outcome.reason}: ${outcome.detail}`,
        retryInMs: backoffMs(config.filingRetryMs, retryAttempts + 1),
      };
  }
}

/** The retry columns (RetryColumns) after the VSDC did not answer: one more unreachable attempt, the next one `retryInMs` from now. */
export function unansweredColumns(unreachable: { detail: string; retryInMs: number }) {
  return {
    retry_attempts: sql<number>`retry_attempts + 1`,
    next_attempt_at: fromNow(unreachable.retryInMs),
    last_unreachable: unreachable.detail.slice(0, 1000),
  };
}

/** The retry columns after an answer (or a change that starts the row afresh): no unreachable attempts. */
export const ANSWERED_COLUMNS = { retry_attempts: 0, last_unreachable: null } as const;

/**
 * The columns of a registration row (`state` pending → registered | failed, with a `revision`
 * bumped by every change: item compositions, branch users) after a write's answer about
 * revision `revision`. The answer settles only the revision it was about: one about older data
 * leaves the row pending, due at once, so the current data goes next.
 */
export function revisionedAnswerColumns(revision: number, outcome: VsdcSendOutcome) {
  const current = sql<boolean>`revision = ${revision}`;
  const dueUnlessCurrent = sql<Date | null>`case when ${current} then null else now() end`;
  switch (outcome.kind) {
    case 'accepted':
      return {
        state: sql<'registered' | 'pending'>`case when ${current} then 'registered' else 'pending' end`,
        registered_at: sql<Date | null>`case when ${current} then now() else null end`,
        result_code: sql<string | null>`case when ${current} then ${outcome.code} else null end`,
        result_message: null,
        next_attempt_at: dueUnlessCurrent,
        ...ANSWERED_COLUMNS,
      };
    case 'refused':
      return {
        state: sql<'failed' | 'pending'>`case when ${current} then 'failed' else 'pending' end`,
        result_code: sql<string | null>`case when ${current} then ${outcome.code} else null end`,
        result_message: sql<string | null>`case when ${current} then ${outcome.message} else null end`,
        next_attempt_at: dueUnlessCurrent,
        ...ANSWERED_COLUMNS,
      };
    case 'unreachable':
      return unansweredColumns(outcome);
  }
}

/**
 * The columns of an answer filed with the authority (a customs line's or a purchase's decision)
 * after its send: accepted or refused with the authority's code, or one more unreachable attempt.
 */
export function answerFilingColumns(outcome: VsdcSendOutcome) {
  switch (outcome.kind) {
    case 'accepted':
      return {
        filing_state: 'accepted' as const,
        filing_code: outcome.code,
        filing_message: null,
        filed_at: sql<Date>`now()`,
        next_attempt_at: null,
        ...ANSWERED_COLUMNS,
      };
    case 'refused':
      return {
        filing_state: 'failed' as const,
        filing_code: outcome.code,
        filing_message: outcome.message,
        next_attempt_at: null,
        ...ANSWERED_COLUMNS,
      };
    case 'unreachable':
      return unansweredColumns(outcome);
  }
}
