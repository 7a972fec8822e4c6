// The merchants' mail outbox: a mail is stored in the transaction of what causes it (a sign-up, a
// new link, an invitation), so the mail exists exactly when the change does and a crash after the
// answer loses nothing; the `mail.send` worker (worker.ts) sends it. How long a mail is tried, and
// when a mail whose link no longer works is not sent, is said here.
//
// The text carries a one-time link, a credential: it is stored sealed with SECRET_KEY (the secret
// box, bound to the recipient), erased once the mail is sent or given up, and never logged.
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { MailMessage } from '../../../platform/mail/templates.ts';
import { backoffMs } from '../../../platform/workers/backoff.ts';
import type { AppContext } from '../context.ts';
import { insertMail } from './store.ts';

/** The notifier channel the `mail.send` workers listen on. */
export const MAIL_CHANNEL = 'fg_mail';

const MINUTE_MS = 60_000;
/** A mail the SMTP server does not take is tried again for this long after it was written, then given up. */
const MAIL_RETRY_WINDOW_MS = 24 * 60 * MINUTE_MS;
/** The wait after the first failed attempt; it doubles up to backoff.ts's MAX_RETRY_DELAY_MS (5 minutes). */
const FIRST_RETRY_MS = 15_000;
/** A mail whose link stops working within this long is not sent: it would arrive dead, or nearly. */
const LINK_MARGIN_MS = 10 * MINUTE_MS;

/** The text's associated data: a sealed text opens only on a row of the same recipient. */
export const sealedFor = (recipient: string) => `mail:${recipient}`;

/**
 * Stores `message` for `to` in the caller's transaction and wakes the workers (on PostgreSQL at
 * commit). `topic` names the link it carries (`linkTopic`), so voiding that link cancels it while
 * it waits. In development without SMTP_URL the mail goes to the development outbox instead; in
 * production without SMTP_URL it is dropped with a warning (the start warns about it too).
 */
export async function queueMail(
  trx: Kysely<DB>,
  ctx: Pick<AppContext, 'mailer' | 'secretBox' | 'clock' | 'database'>,
  to: string,
  message: MailMessage,
  topic: string | null = null,
): Promise<void> {
  if (!ctx.mailer.sends) {
    if (ctx.mailer.usesOutbox) ctx.mailer.keep(to, message);
    else ctx.mailer.drop(message);
    return;
  }
  await insertMail(trx, {
    kind: message.kind,
    recipient: to,
    subject: message.subject,
    bodySealed: ctx.secretBox.seal(message.text, sealedFor(to)),
    topic,
    linkExpiresAt: message.linkExpiresAt,
    now: ctx.clock.now(),
  });
  await ctx.database.notifier.notify(trx as Kysely<unknown>, MAIL_CHANNEL);
}

/** The topic of a user's links of one kind, `verify:42`: voiding them cancels their mails (store.ts cancelWaitingMails). */
export const linkTopic = (kind: string, userId: number) => `${kind}:${userId}`;

interface MailTimes {
  createdAt: Date;
  linkExpiresAt: Date | null;
}

/** The last moment a mail may be sent: its retry window's end, or LINK_MARGIN_MS before its link dies. */
function sendBy(mail: MailTimes): { at: number; why: 'link_expired' | 'retry_window' } {
  const window = mail.createdAt.getTime() + MAIL_RETRY_WINDOW_MS;
  const link = mail.linkExpiresAt ? mail.linkExpiresAt.getTime() - LINK_MARGIN_MS : Infinity;
  return link <= window ? { at: link, why: 'link_expired' } : { at: window, why: 'retry_window' };
}

/** Whether the mail's link stops working too soon for the mail to be of use: then it is not sent. */
export function linkTooLate(mail: MailTimes, now: Date): boolean {
  return mail.linkExpiresAt !== null && now.getTime() >= mail.linkExpiresAt.getTime() - LINK_MARGIN_MS;
}

/**
 * After the `attempts`-th failed attempt: when to try again, or, when that would be past the
 * mail's last moment, why it is given up.
 */
export function nextAttempt(
  mail: MailTimes,
  attempts: number,
  now: Date,
): { retryAt: Date } | { givenUp: 'link_expired' | 'retry_window' } {
  const at = now.getTime() + backoffMs(FIRST_RETRY_MS, attempts);
  const last = sendBy(mail);
  return at > last.at ? { givenUp: last.why } : { retryAt: new Date(at) };
}
