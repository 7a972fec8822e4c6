// `mail.send`: claims due mails of the outbox (store.ts) with a lease, a few at a time, and hands
// them to the SMTP server (platform/mail/mailer.ts). A failed attempt is tried again with the
// backoff rule for up to 24 hours (outbox.ts nextAttempt); a mail whose link stops working first,
// or whose recipient the server refuses for good, is given up. Woken by queued mails (notifier),
// and by a poll for retries, other processes' mails and leases that ran out. It also deletes
// finished mails after 30 days.
import type { AppContext } from '../context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { workerLoop } from '../../../platform/workers/loop.ts';
import { MAIL_FAILURE_REASONS, smtpFailureOf, type SmtpFailure } from '../../../platform/mail/mailer.ts';
import { linkTooLate, MAIL_CHANNEL, nextAttempt, sealedFor } from './outbox.ts';
import { claimDueMails, deleteFinishedMails, recordGivenUp, recordRetry, recordSent, type ClaimedMail } from './store.ts';

const MAIL_WORKER_NAME = 'mail.send';

/** Mails in attempts at once in one process. */
const IN_FLIGHT = 4;
/** Longer than any send can take (platform/mail/mailer.ts SEND_TIMEOUTS): a claim is never taken over while its attempt runs. */
const LEASE_MS = 120_000;
const POLL_MS = 2_000;
/** On stop, the mails being sent get this long; one still unanswered is cut and comes back after its lease. */
const STOP_GRACE_MS = 5_000;
const DAY_MS = 86_400_000;
/** Finished mails (without their text) say who was mailed what, and when; then they go. */
const RETENTION_MS = 30 * DAY_MS;
const PRUNE_EVERY_MS = 3_600_000;

const GIVEN_UP_REASONS = ['link_expired', 'retry_window', 'refused', 'unreadable'] as const;
type GivenUpReason = (typeof GIVEN_UP_REASONS)[number];

const GIVEN_UP_WORDS: Record<GivenUpReason, string> = {
  link_expired: 'its link stops working before it could be sent',
  retry_window: 'not sent within 24 hours',
  refused: 'the SMTP server refused its recipient',
  unreadable: 'its text does not open with this SECRET_KEY',
};

interface MailWorkerOptions {
  pollIntervalMs?: number;
  /** Replaces STOP_GRACE_MS. */
  stopGraceMs?: number;
}

export function mailWorker(ctx: AppContext, options: MailWorkerOptions = {}): Worker {
  const loop = workerLoop({ name: MAIL_WORKER_NAME, log: ctx.log, stopGraceMs: options.stopGraceMs ?? STOP_GRACE_MS });
  // Every reason's series exists from the start: a counter first seen at 1 has no increase to alert on.
  for (const reason of MAIL_FAILURE_REASONS) ctx.metrics.mailFailures.inc({ reason }, 0);
  for (const reason of GIVEN_UP_REASONS) ctx.metrics.mailGivenUp.inc({ reason }, 0);

  const fill = loop.pass({ run: claimDue, failure: 'claiming mails failed' });
  const prune = loop.pass({
    run: async () => void (await deleteFinishedMails(ctx.db, new Date(ctx.clock.now().getTime() - RETENTION_MS))),
    everyMs: PRUNE_EVERY_MS,
    failure: 'deleting finished mails failed',
    skipWhileRunning: true,
  });

  async function claimDue(): Promise<void> {
    while (!loop.stopped) {
      const free = IN_FLIGHT - loop.inHand;
      if (free <= 0) return;
      const claims = await claimDueMails(ctx.db, { now: ctx.clock.now(), limit: free, leaseMs: LEASE_MS });
      for (const mail of claims) {
        void loop
          .hold(
            attempt(mail).catch((err: unknown) =>
              loop.log.error({ err, mailId: mail.id }, 'a mail attempt failed to record (its lease runs out, then it is tried again)'),
            ),
            mail.id,
          )
          .then(() => fill.run());
      }
      if (claims.length < free) return;
    }
  }

  async function attempt(mail: ClaimedMail): Promise<void> {
    if (linkTooLate(mail, ctx.clock.now()))
      return giveUp(mail, 'link_expired', `given up: its link stops working at ${mail.linkExpiresAt!.toISOString()}`, false);
    const text = mail.bodySealed === null ? undefined : ctx.secretBox.tryOpen(mail.bodySealed, sealedFor(mail.recipient));
    if (text === undefined) return giveUp(mail, 'unreadable', 'given up: its text does not open with this SECRET_KEY', false);
    let failure: SmtpFailure | undefined;
    if (!ctx.mailer.sends)
      failure = { reason: 'not_configured', words: 'SMTP_URL is not set', permanent: false, detail: 'SMTP_URL is not set' };
    else {
      try {
        if (!(await unlessCut(ctx.mailer.send(mail.recipient, mail.subject, text)))) {
          loop.countCut(); // nothing recorded: the lease runs out and another process sends it
          return;
        }
      } catch (err) {
        failure = smtpFailureOf(err);
      }
    }
    const now = ctx.clock.now();
    if (!failure) {
      ctx.metrics.mailSent.inc({ kind: mail.kind });
      ctx.mailer.sendingWorks();
      await recordSent(ctx.db, mail, now);
      return;
    }
    ctx.metrics.mailFailures.inc({ reason: failure.reason });
    if (failure.permanent) return giveUp(mail, 'refused', `given up: ${failure.detail}`, true);
    if (failure.reason !== 'not_configured') ctx.mailer.sendingFailed(failure);
    const next = nextAttempt(mail, mail.attempts + 1, now);
    if ('givenUp' in next) return giveUp(mail, next.givenUp, `given up after ${mail.attempts + 1} attempts: ${failure.detail}`, true);
    await recordRetry(ctx.db, mail, { now, error: failure.detail, retryAt: next.retryAt });
  }

  /** The work's outcome (true), or false once the stop's grace has run out first (nodemailer cannot be aborted). */
  function unlessCut(work: Promise<void>): Promise<boolean> {
    if (loop.cut.aborted) return work.then(() => true);
    return new Promise((resolve, reject) => {
      const cut = () => resolve(false);
      loop.cut.addEventListener('abort', cut, { once: true });
      work
        .then(
          () => resolve(true),
          (err: unknown) => reject(err),
        )
        .finally(() => loop.cut.removeEventListener('abort', cut));
    });
  }

  async function giveUp(mail: ClaimedMail, reason: GivenUpReason, error: string, attempted: boolean): Promise<void> {
    if (!(await recordGivenUp(ctx.db, mail, { now: ctx.clock.now(), error, attempted }))) return;
    ctx.metrics.mailGivenUp.inc({ reason });
    // Never the recipient nor the text: the row (mail_outbox, by id) has the recipient and the last error.
    loop.log.error(
      { mailId: mail.id, kind: mail.kind, attempts: mail.attempts + (attempted ? 1 : 0), reason },
      `a mail was given up: ${GIVEN_UP_WORDS[reason]}`,
    );
  }

  return loop.worker(() => {
    loop.listen(ctx.database.notifier.listen(MAIL_CHANNEL, () => fill.run()));
    loop.every(options.pollIntervalMs ?? POLL_MS, () => fill.run());
    fill.run();
    prune.run();
  });
}
