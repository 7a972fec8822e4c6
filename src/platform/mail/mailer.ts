// The merchants' mail (sign-up, password reset, invitations): the way out of the process. With
// SMTP_URL, nodemailer sends what the `mail.send` worker hands it from the outbox table
// (src/domain/kernel/mail/), and this process's view of the SMTP server is kept here: one `warn`
// line when sending starts failing, one `info` line when it works again, never one per attempt;
// a start checks the server once, in the background. Without SMTP_URL, in development, each mail
// is logged with its link at info and kept in an outbox of the last 50 (GET /api/v1/dev/outbox),
// so `npm start` works with no mail server; in production without SMTP_URL a mail cannot be
// delivered: it is dropped with a warning that does not carry its link (a link in a production log
// would be a credential in the log), and a production start that serves the API warns once,
// naming SMTP_URL (src/app/server.ts mailWarning).
import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import type { Logger } from '../observability/log.ts';
import type { MailMessage } from './templates.ts';

interface OutboxMail {
  kind: MailMessage['kind'];
  to: string;
  from: string;
  subject: string;
  text: string;
  link: string | null;
  sentAt: string;
}

const OUTBOX_SIZE = 50;

/**
 * How long the SMTP server gets to accept a connection and greet, and to answer each command. A
 * send therefore ends within a minute or so, well inside the outbox's lease (kernel/mail).
 */
const SEND_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
/** The start's check: short, and in the background, so it never holds the start up. */
const CHECK_TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 5_000 };

/** Why an attempt failed, as a metric label: `fiscal_gateway_mail_failures_total{reason}`. */
export const MAIL_FAILURE_REASONS = ['unreachable', 'timeout', 'tls', 'auth', 'refused', 'unreadable', 'not_configured', 'other'] as const;
type MailFailureReason = (typeof MAIL_FAILURE_REASONS)[number];

export interface SmtpFailure {
  reason: MailFailureReason;
  /** For a log line, after `SMTP_URL host:port: `: "connection refused". Never the server's text (it may name the recipient). */
  words: string;
  /** The server refused this mail's recipient for good (a 5xx answer to RCPT TO): retrying cannot help. */
  permanent: boolean;
  /** The transport's message, for the outbox row (not for logs: it may name the recipient). */
  detail: string;
}

interface TransportError {
  code?: string;
  message?: string;
  responseCode?: number;
  command?: string;
}

/** What a nodemailer error means to the operator. */
export function smtpFailureOf(err: unknown): SmtpFailure {
  const e = (err ?? {}) as TransportError;
  const detail = String(e.message ?? err);
  const failure = (reason: MailFailureReason, words: string, permanent = false): SmtpFailure => ({ reason, words, permanent, detail });
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH')
    return failure('auth', 'authentication refused (check the user and password in SMTP_URL)');
  if (e.code === 'ETLS') return failure('tls', 'the TLS handshake failed');
  if (e.responseCode !== undefined && e.responseCode >= 400) {
    const permanent = e.responseCode >= 500 && e.code === 'EENVELOPE' && e.command === 'RCPT TO';
    return failure('refused', `the server refused the mail (${e.responseCode} to ${e.command ?? 'a command'})`, permanent);
  }
  if (e.code === 'ETIMEDOUT' || /ETIMEDOUT/.test(detail)) return failure('timeout', 'no answer in time');
  const system = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE)\b/.exec(detail)?.[1];
  if (system || e.code === 'ESOCKET' || e.code === 'ECONNECTION' || e.code === 'EDNS') {
    const words: Record<string, string> = {
      ECONNREFUSED: 'connection refused',
      ENOTFOUND: 'host not found',
      EAI_AGAIN: 'host not found (DNS did not answer)',
      ECONNRESET: 'connection reset',
      EHOSTUNREACH: 'host unreachable',
      ENETUNREACH: 'network unreachable',
      EPIPE: 'connection closed',
    };
    return failure('unreachable', (system && words[system]) ?? 'connection failed');
  }
  return failure('other', detail.split('\n')[0]!.slice(0, 200));
}

/** `host:port` of SMTP_URL: what log lines name (never its user or password). */
function smtpServerOf(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  return `${url.hostname}:${url.port || (secure ? 465 : 587)}`;
}

type Nodemailer = typeof import('nodemailer');
type SmtpTransportClass = typeof import('nodemailer/lib/smtp-transport/index.js');

export class Mailer {
  private readonly nodemailer: { create: (timeouts: typeof SEND_TIMEOUTS) => Transporter } | undefined;
  private readonly transport: Transporter | undefined;
  /** `host:port` of SMTP_URL. */
  readonly server: string | undefined;
  private readonly outbox: OutboxMail[] = [];
  /** Since when sending fails in this process, and how many attempts failed since. */
  private failing: { since: number; attempts: number } | undefined;
  private closed = false;

  constructor(
    private readonly config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'env'>,
    private readonly log: Logger,
  ) {
    const smtpUrl = config.smtpUrl;
    if (smtpUrl) {
      // nodemailer is loaded only with SMTP_URL (it adds to every start otherwise).
      const require = createRequire(import.meta.url);
      const nodemailer = require('nodemailer') as Nodemailer;
      const SmtpTransport = require('nodemailer/lib/smtp-transport') as SmtpTransportClass;
      // SMTP_URL's own options (`?connectionTimeout=…`) win over these.
      this.nodemailer = { create: (timeouts) => nodemailer.createTransport(new SmtpTransport({ ...timeouts, url: smtpUrl })) };
      this.transport = this.nodemailer.create(SEND_TIMEOUTS);
      this.server = smtpServerOf(smtpUrl);
    }
  }

  /** True when mails go to the development outbox instead of an SMTP server. */
  get usesOutbox(): boolean {
    return !this.transport && this.config.env === 'development';
  }

  /** True when mails are sent through SMTP_URL (so they wait in the outbox table until they are). */
  get sends(): boolean {
    return this.transport !== undefined;
  }

  /** Hands one mail to the SMTP server; rejects with the transport's error (`smtpFailureOf` reads it). */
  async send(to: string, subject: string, text: string): Promise<void> {
    if (!this.transport) throw new Error('SMTP_URL is not set');
    await this.transport.sendMail({ from: this.config.mailFrom, to, subject, text });
  }

  /** Development without SMTP_URL: the mail is logged with its link and kept in the outbox. */
  keep(to: string, message: MailMessage): void {
    const mail: OutboxMail = {
      kind: message.kind,
      to,
      from: this.config.mailFrom,
      subject: message.subject,
      text: message.text,
      link: message.link,
      sentAt: new Date().toISOString(),
    };
    this.outbox.push(mail);
    if (this.outbox.length > OUTBOX_SIZE) this.outbox.shift();
    this.log.info(
      { mail: message.kind, to, subject: message.subject, link: message.link },
      'development mail (no SMTP_URL): kept in the outbox, GET /api/v1/dev/outbox',
    );
  }

  /** Production without SMTP_URL: the mail cannot go anywhere. */
  drop(message: MailMessage): void {
    this.log.warn({ mail: message.kind }, 'a mail was not sent: SMTP_URL is not set (merchant accounts need it in production)');
  }

  /** The development outbox, newest first. */
  outboxMails(): OutboxMail[] {
    return [...this.outbox].reverse();
  }

  /** An attempt failed for a reason of the server's (not a refused recipient): the first one since sending worked says so. */
  sendingFailed(failure: SmtpFailure): void {
    if (this.failing) {
      this.failing.attempts++;
      return;
    }
    this.failing = { since: Date.now(), attempts: 1 };
    this.warnFailing(failure);
  }

  /** A mail was sent: if sending was failing, say once that it works again. */
  sendingWorks(): void {
    if (!this.failing) return;
    const { since, attempts } = this.failing;
    this.failing = undefined;
    this.log.info(
      { smtp: this.server, failedAttempts: attempts, failingMs: Date.now() - since },
      `SMTP_URL ${this.server} works again: the mails waiting in the outbox are being sent`,
    );
  }

  /**
   * The start's check of SMTP_URL (nodemailer `verify`: connect, greet, TLS, log in), with short
   * timeouts; called without waiting for it. Unreachable: one `warn` line, and sending counts as
   * failing until a mail goes out (so the first failed attempt does not say it again, and the
   * first mail sent says it works). Never stops the start.
   */
  async checkServer(): Promise<void> {
    if (!this.nodemailer || this.closed) return;
    const started = Date.now();
    const probe = this.nodemailer.create(CHECK_TIMEOUTS);
    try {
      await probe.verify();
      if (!this.closed) this.log.info({ smtp: this.server, ms: Date.now() - started }, `SMTP_URL ${this.server} answers`);
    } catch (err) {
      if (this.closed || this.failing) return;
      this.failing = { since: started, attempts: 0 };
      this.warnFailing(smtpFailureOf(err));
    } finally {
      probe.close();
    }
  }

  private warnFailing(failure: SmtpFailure): void {
    this.log.warn(
      { smtp: this.server, reason: failure.reason },
      `SMTP_URL ${this.server}: ${failure.words}; mails are kept in the outbox and retried`,
    );
  }

  close(): void {
    this.closed = true;
    this.transport?.close();
  }
}
