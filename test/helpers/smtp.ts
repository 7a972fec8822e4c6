// A real SMTP server in the test process (smtp-server): it collects what the gateway sends
// through nodemailer, so tests read the links from the delivered mail.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { eventually } from './poll.ts';

export interface DeliveredMail {
  to: string;
  subject: string;
  /** The decoded text (quoted-printable undone). */
  text: string;
}

export interface TestSmtp {
  url: string;
  mails: DeliveredMail[];
  /** Waits for the `nth` (1-based) mail to `to` whose subject contains `subject`. */
  mailTo(to: string, subject: string, nth?: number): Promise<DeliveredMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  return Buffer.from(
    text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

function parse(raw: string, to: string): DeliveredMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? '';
  const qp = /^Content-Transfer-Encoding: quoted-printable/im.test(head);
  const base64 = /^Content-Transfer-Encoding: base64/im.test(head);
  const text = qp ? decodeQuotedPrintable(body) : base64 ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { to, subject, text };
}

/**
 * `port`: where to listen (default: a free port); a server closed and started again on its port is
 * an SMTP server coming back. `refuse`: recipients it answers 550 (no such mailbox).
 */
export async function startTestSmtp(options: { port?: number; refuse?: RegExp } = {}): Promise<TestSmtp> {
  const mails: DeliveredMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!options.refuse?.test(address.address)) return callback();
      callback(Object.assign(new Error('5.1.1 No such mailbox here'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        for (const rcpt of session.envelope.rcptTo) mails.push(parse(Buffer.concat(chunks).toString('latin1'), rcpt.address.toLowerCase()));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      // A client that drops its connection is an `error` of the server: not the test's failure.
      server.on('error', () => {});
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    mailTo: (to, subject, nth = 1) =>
      eventually(
        () => mails.filter((m) => m.to === to.toLowerCase() && m.subject.includes(subject))[nth - 1],
        `mail ${nth} "${subject}" to ${to}`,
        10_000,
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the one-time link in a mail (`…#token=<token>`). */
export function linkToken(mail: DeliveredMail): string {
  const token = /#token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no link in the mail: ${mail.text}`);
  return token;
}
