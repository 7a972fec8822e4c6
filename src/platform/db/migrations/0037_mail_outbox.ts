// The merchants' mail goes through a durable outbox. A mail is stored in the
// transaction of what causes it (a sign-up, a new link, an invitation), so a crash after the
// answer loses nothing; the `mail.send` worker claims due mails with a lease and sends them,
// retrying with backoff for up to 24 hours (src/domain/kernel/mail/). The text carries a
// one-time link, a credential: it is sealed with SECRET_KEY and erased once the mail is sent or
// given up. Finished rows are kept 30 days (who was mailed what kind of mail, when), then deleted.
export const up = [
  `create table mail_outbox (
    id bigint generated always as identity primary key,
    kind text not null,
    recipient text not null,
    subject text not null,
    body_sealed text,
    topic text,
    link_expires_at timestamptz,
    status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'cancelled')),
    attempts integer not null default 0,
    next_attempt_at timestamptz,
    lease_until timestamptz,
    lease_owner text,
    last_error text,
    last_attempt_at timestamptz,
    created_at timestamptz not null,
    finished_at timestamptz,
    check ((status = 'pending') = (finished_at is null)),
    check (status = 'pending' or body_sealed is null)
  )`,
  `create index mail_outbox_due on mail_outbox (next_attempt_at) where status = 'pending'`,
  `create index mail_outbox_topic on mail_outbox (topic) where status = 'pending' and topic is not null`,
  `create index mail_outbox_failed on mail_outbox (finished_at) where status = 'failed'`,
  `create index mail_outbox_finished on mail_outbox (finished_at) where status <> 'pending'`,
];
