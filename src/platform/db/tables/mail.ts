import type { Generated } from 'kysely';
import type { NullableTimestamp, RequiredTimestamp } from './columns.ts';

/** sent; failed: given up (never sent); cancelled: its link was voided before it was sent. */
type MailStatus = 'pending' | 'sent' | 'failed' | 'cancelled';

/** The merchants' mail waiting to be sent, and for 30 days what became of it (src/domain/kernel/mail/). */
interface MailOutboxTable {
  id: Generated<number>;
  /** The template (`verify_email`, `password_reset`, …). */
  kind: string;
  recipient: string;
  subject: string;
  /** The text, sealed with SECRET_KEY (it carries a one-time link); null once finished. */
  body_sealed: string | null;
  /** Mails of one link (`verify:<user>`, `reset:<user>`): voiding the link cancels those still waiting. */
  topic: string | null;
  /** When the link the mail carries stops working; a mail is not sent past it. */
  link_expires_at: NullableTimestamp;
  status: Generated<MailStatus>;
  attempts: Generated<number>;
  /** When the next attempt is due; null once finished. */
  next_attempt_at: NullableTimestamp;
  lease_until: NullableTimestamp;
  lease_owner: string | null;
  last_error: string | null;
  last_attempt_at: NullableTimestamp;
  created_at: RequiredTimestamp;
  /** Sent, given up or cancelled. */
  finished_at: NullableTimestamp;
}

export interface MailTables {
  mail_outbox: MailOutboxTable;
}
