// The merchants' mail (sign-up, password reset, invitations). With SMTP_URL, nodemailer sends it.
// Without, in development, each mail is logged with its link at info and kept in an outbox of the
// last 50 (GET /api/v1/dev/outbox), so `npm start` works with no mail server; in production
// without SMTP_URL a mail cannot be delivered: it is dropped with a warning that does not carry
// its link (a link in a production log would be a credential in the log), and a production start
// that serves the API warns once, naming SMTP_URL (src/app/server.ts mailWarning).
import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import type { Logger } from '../observability/log.ts';
import type { MailMessage } from './templates.ts';

interface OutboxMail extends MailMessage {
  to: string;
  from: string;
  sentAt: string;
}

const OUTBOX_SIZE = 50;

export class Mailer {
  private readonly transport: Transporter | undefined;
  private readonly outbox: OutboxMail[] = [];

  constructor(
    private readonly config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'env'>,
    private readonly log: Logger,
  ) {
    // nodemailer is loaded only with SMTP_URL (it adds to every start otherwise).
    this.transport = config.smtpUrl ? (createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer')).createTransport(config.smtpUrl) : undefined;
  }

  /** True when mails go to the development outbox instead of an SMTP server. */
  get usesOutbox(): boolean {
    return !this.transport && this.config.env === 'development';
  }

  /**
   * Sends one mail. A failure is logged and swallowed: the caller's answer must not depend on
   * the mail server (it would tell whether an address has an account).
   */
  async send(to: string, message: MailMessage): Promise<void> {
    if (this.transport) {
      try {
        await this.transport.sendMail({ from: this.config.mailFrom, to, subject: message.subject, text: message.text });
      } catch (err) {
        this.log.error({ err, mail: message.kind }, 'a mail could not be sent through SMTP_URL');
      }
      return;
    }
    if (this.config.env !== 'development') {
      this.log.warn({ mail: message.kind }, 'a mail was not sent: SMTP_URL is not set (merchant accounts need it in production)');
      return;
    }
    const mail: OutboxMail = { ...message, to, from: this.config.mailFrom, sentAt: new Date().toISOString() };
    this.outbox.push(mail);
    if (this.outbox.length > OUTBOX_SIZE) this.outbox.shift();
    this.log.info({ mail: message.kind, to, subject: message.subject, link: message.link }, 'development mail (no SMTP_URL): kept in the outbox, GET /api/v1/dev/outbox');
  }

  /** The development outbox, newest first. */
  outboxMails(): OutboxMail[] {
    return [...this.outbox].reverse();
  }

  close(): void {
    this.transport?.close();
  }
}
