// test-runtime: long (scripts/run-tests.mjs starts it first)
// The merchants' mail through the outbox (issue 45 §5): an SMTP blip does not eat verification,
// reset and invitation mails. A real SMTP server (smtp-server) that is down, then back on the same
// port; the mail.send worker on the application's clock; the metrics on GET /metrics; the log
// lines of the context's logger; and real processes for the crash and the start's check.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Selectable } from 'kysely';
import { mailWorker } from '../../../src/domain/kernel/mail/worker.ts';
import { claimDueMails, recordSent } from '../../../src/domain/kernel/mail/store.ts';
import { openDatabase } from '../../../src/platform/db/database.ts';
import type { MailTables } from '../../../src/platform/db/tables/mail.ts';
import { createLogger } from '../../../src/platform/observability/log.ts';
import { startWorkers, type RunningWorkers } from '../../../src/platform/workers/index.ts';
import {
  ManualClock,
  TEST_ADMIN_TOKEN,
  TEST_SECRET_KEY,
  bearer,
  seedMerchant,
  startTestApp,
  uniqueTpin,
  type TestApp,
} from '../../helpers/app.ts';
import { seedSignedInUser } from '../../helpers/accounts.ts';
import { createTestDatabase, embeddedTemplate, engineName, onPostgres } from '../../helpers/db.ts';
import { eventually } from '../../helpers/poll.ts';
import { baseEnv, spawnGateway } from '../../helpers/process.ts';
import { linkToken, startTestSmtp, type TestSmtp } from '../../helpers/smtp.ts';

const PASSWORD = 'correct horse battery staple';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
type MailRow = Selectable<MailTables['mail_outbox']>;
type LogLine = { level: number; msg: string; [field: string]: unknown };

let counter = 0;
const freshEmail = () => `mail${++counter}.${process.pid}.${Date.now()}@example.com`;

/** A port where no SMTP server listens now (one listened there a moment ago: it can come back). */
async function downSmtpPort(): Promise<number> {
  const smtp = await startTestSmtp();
  await smtp.close();
  return Number(new URL(smtp.url).port);
}

interface Gateway {
  t: TestApp;
  clock: ManualClock;
  lines: () => LogLine[];
  workers: RunningWorkers;
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<{ statusCode: number; body: string }>;
  /** The recipient's rows, oldest first. */
  rows(recipient: string): Promise<MailRow[]>;
  /** One series of GET /metrics (`name{labels}`), or undefined. */
  metric(series: string): Promise<number | undefined>;
  close(): Promise<void>;
}

/** A gateway whose mail goes to SMTP_URL on `port`, with `workers` mail.send workers polling every 20 ms. */
async function gatewayMailingTo(port: number, workers = 1): Promise<Gateway> {
  const clock = new ManualClock();
  const written: string[] = [];
  const t = await startTestApp({
    clock,
    log: createLogger('info', { write: (line: string) => void written.push(line) }),
    config: { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Gateway <gateway@example.com>', publicUrl: 'https://gateway.example.com' },
  });
  const running = startWorkers(
    t.ctx,
    Array.from({ length: workers }, () => (ctx: typeof t.ctx) => mailWorker(ctx, { pollIntervalMs: 20 })),
  );
  return {
    t,
    clock,
    workers: running,
    lines: () => written.map((line) => JSON.parse(line) as LogLine),
    post: (url, body, headers = {}) => t.inject({ method: 'POST', url, payload: body as object, headers }),
    rows: (recipient) => t.ctx.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', recipient).orderBy('id').execute(),
    async metric(series) {
      const scraped = await t.inject({ method: 'GET', url: '/metrics', headers: bearer(TEST_ADMIN_TOKEN) });
      assert.equal(scraped.statusCode, 200);
      const line = scraped.body.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
    async close() {
      await running.stop();
      await t.close();
    },
  };
}

/** Polls the recipient's rows until `check` holds for them. */
function rowsWhen(g: Gateway, recipient: string, check: (rows: MailRow[]) => boolean, what: string): Promise<MailRow[]> {
  return eventually(async () => {
    const rows = await g.rows(recipient);
    return rows.length > 0 && check(rows) ? rows : undefined;
  }, what);
}

/** The gauges are read at most every 10 s of the clock: move it on, then poll the scrape. */
async function gaugeIs(g: Gateway, series: string, value: number): Promise<void> {
  g.clock.advance(11_000);
  await eventually(async () => (await g.metric(series)) === value, `${series} ${value}`);
}

describe(`the mail outbox (${engineName})`, () => {
  test('an SMTP server down at first: the mail waits and is retried, then sent once it is back, once; one warn line, one recovery line; the metrics move', async () => {
    const port = await downSmtpPort();
    const g = await gatewayMailingTo(port, 2);
    let smtp: TestSmtp | undefined;
    try {
      const email = freshEmail();
      const signup = await g.post('/api/v1/account/signup', {
        merchantName: 'Kabwe Hardware',
        tpin: uniqueTpin(),
        email,
        password: PASSWORD,
      });
      assert.equal(signup.statusCode, 202, signup.body);

      const [waiting] = await rowsWhen(g, email, ([r]) => r!.attempts === 1, 'the first attempt to fail');
      assert.equal(waiting!.status, 'pending');
      assert.match(String(waiting!.last_error), /ECONNREFUSED/);
      assert.equal(waiting!.next_attempt_at!.getTime() - waiting!.created_at.getTime(), 15_000, 'tried again 15 s later');
      // The link is a credential: sealed at rest, bound to its recipient.
      assert.doesNotMatch(String(waiting!.body_sealed), /token|gateway\.example\.com/);
      assert.match(
        g.t.ctx.secretBox.open(waiting!.body_sealed!, `mail:${email}`),
        /https:\/\/gateway\.example\.com\/console\/account\/verify#token=/,
      );
      assert.equal(g.t.ctx.secretBox.tryOpen(waiting!.body_sealed!, 'mail:someone-else@example.com'), undefined);
      assert.equal(await g.metric('fiscal_gateway_mail_failures_total{reason="unreachable"}'), 1);
      await gaugeIs(g, 'fiscal_gateway_mail_outbox{status="pending"}', 1);
      assert.ok((await g.metric('fiscal_gateway_mail_outbox_oldest_age_seconds'))! >= 11, 'the waiting mail ages');

      g.clock.advance(4_000); // 15 s after the first attempt
      await rowsWhen(g, email, ([r]) => r!.attempts === 2, 'the second attempt to fail');

      smtp = await startTestSmtp({ port });
      g.clock.advance(30_000);
      const mail = await smtp.mailTo(email, 'Confirm your email');
      const [sent] = await rowsWhen(g, email, ([r]) => r!.status === 'sent', 'the mail recorded sent');
      assert.deepEqual(
        [sent!.attempts, sent!.body_sealed, sent!.next_attempt_at, sent!.lease_owner],
        [3, null, null, null],
        'its text erased once sent',
      );
      assert.equal(smtp.mails.filter((m) => m.to === email).length, 1, 'sent once, by one of the two workers');
      assert.equal((await g.post('/api/v1/account/verify', { token: linkToken(mail) })).statusCode, 200, 'its link works');

      assert.equal(await g.metric('fiscal_gateway_mail_sent_total{kind="verify_email"}'), 1);
      assert.equal(await g.metric('fiscal_gateway_mail_failures_total{reason="unreachable"}'), 2);
      assert.equal(
        await g.metric('fiscal_gateway_mail_given_up_total{reason="retry_window"}'),
        0,
        'every reason is a series from the start',
      );
      await gaugeIs(g, 'fiscal_gateway_mail_outbox{status="pending"}', 0);
      assert.equal(await g.metric('fiscal_gateway_mail_outbox_oldest_age_seconds'), 0);

      const lines = g.lines();
      const warned = lines.filter((l) => l.level === 40);
      assert.deepEqual(
        warned.map((l) => [l.msg, l.worker, l.reason]),
        [[`SMTP_URL 127.0.0.1:${port}: connection refused; mails are kept in the outbox and retried`, undefined, 'unreachable']],
        'one warn line for two failed attempts',
      );
      const recovered = lines.filter((l) => /works again/.test(l.msg));
      assert.deepEqual(
        recovered.map((l) => [l.level, l.msg, l.failedAttempts]),
        [[30, `SMTP_URL 127.0.0.1:${port} works again: the mails waiting in the outbox are being sent`, 2]],
      );
      assert.equal(lines.filter((l) => l.level >= 50).length, 0);
      assert.ok(!JSON.stringify(lines).includes(linkToken(mail)), 'the link is never logged');
    } finally {
      await g.close();
      await smtp?.close();
    }
  });

  test('a lease: a mail claimed and in its attempt is not claimed again until the lease runs out, and a lost lease records nothing', async () => {
    const port = await downSmtpPort();
    const g = await gatewayMailingTo(port, 0);
    try {
      const email = freshEmail();
      assert.equal(
        (await g.post('/api/v1/account/signup', { merchantName: 'Ndola Stores', tpin: uniqueTpin(), email, password: PASSWORD }))
          .statusCode,
        202,
      );
      const { db } = g.t.ctx;
      const first = await claimDueMails(db, { now: g.clock.now(), limit: 10, leaseMs: 120_000 });
      assert.deepEqual(
        first.map((m) => m.recipient),
        [email],
      );
      assert.deepEqual(
        await claimDueMails(db, { now: g.clock.now(), limit: 10, leaseMs: 120_000 }),
        [],
        'held: another pass or process takes nothing',
      );
      g.clock.advance(120_000);
      const second = await claimDueMails(db, { now: g.clock.now(), limit: 10, leaseMs: 120_000 });
      assert.deepEqual(
        second.map((m) => m.id),
        first.map((m) => m.id),
        "a crashed holder's mail comes back when its lease runs out",
      );
      assert.equal(await recordSent(db, first[0]!, g.clock.now()), false, 'the first holder lost it: its outcome is not recorded');
      assert.equal(await recordSent(db, second[0]!, g.clock.now()), true);
      assert.deepEqual(
        (await g.rows(email)).map((r) => [r.status, r.attempts]),
        [['sent', 1]],
      );
    } finally {
      await g.close();
    }
  });

  test('many mails and two workers: each mail is sent exactly once', async () => {
    const smtp = await startTestSmtp();
    const g = await gatewayMailingTo(Number(new URL(smtp.url).port), 2);
    try {
      const merchant = await seedMerchant(g.t.ctx);
      const emails = Array.from({ length: 24 }, () => freshEmail());
      for (const email of emails)
        assert.equal(
          (await g.post(`/api/v1/tenants/${merchant.tenant.id}/invitations`, { email }, bearer(merchant.partner.secret))).statusCode,
          201,
        );
      for (const email of emails) await rowsWhen(g, email, ([r]) => r!.status === 'sent', `the invitation to ${email} sent`);
      for (const email of emails) assert.equal(smtp.mails.filter((m) => m.to === email).length, 1, email);
      assert.equal(await g.metric('fiscal_gateway_mail_sent_total{kind="invitation"}'), emails.length);
    } finally {
      await g.close();
      await smtp.close();
    }
  });

  test('given up: a reset mail whose link would arrive dead, a mail still failing after 24 hours, a recipient the server refuses; each counted, one error line each', async () => {
    const port = await downSmtpPort();
    const g = await gatewayMailingTo(port);
    let smtp: TestSmtp | undefined;
    try {
      const merchant = await seedMerchant(g.t.ctx);
      const user = await seedSignedInUser(g.t.ctx, merchant.tenant.id);
      // A password change (a mail without a link), then a reset link (1 hour).
      assert.equal(
        (
          await g.post(
            '/api/v1/account/password',
            { currentPassword: 'a long enough password', newPassword: 'another long passphrase' },
            user.headers,
          )
        ).statusCode,
        200,
      );
      assert.equal((await g.post('/api/v1/account/password-reset', { email: user.email })).statusCode, 202);
      await rowsWhen(g, user.email, (rows) => rows.length === 2 && rows.every((r) => r.attempts === 1), 'both mails tried once');

      g.clock.advance(50 * MINUTE); // the reset link has 10 minutes left: too late to be of use
      const afterLink = await rowsWhen(g, user.email, ([, reset]) => reset!.status === 'failed', 'the reset mail given up');
      assert.match(String(afterLink[1]!.last_error), /its link stops working at/);
      assert.equal(afterLink[1]!.body_sealed, null, 'its text erased');
      assert.equal(afterLink[0]!.status, 'pending', 'the mail without a link is still tried');

      g.clock.advance(24 * HOUR);
      const [changed] = await rowsWhen(g, user.email, ([c]) => c!.status === 'failed', 'the other mail given up after 24 hours');
      assert.match(String(changed!.last_error), /^given up after \d+ attempts: .*ECONNREFUSED/);

      // The server is back, but refuses this recipient: given up at the first attempt.
      smtp = await startTestSmtp({ port, refuse: /^refused-/ });
      const refused = `refused-${freshEmail()}`;
      assert.equal(
        (await g.post(`/api/v1/tenants/${merchant.tenant.id}/invitations`, { email: refused }, bearer(merchant.partner.secret))).statusCode,
        201,
      );
      const [gone] = await rowsWhen(g, refused, ([r]) => r!.status === 'failed', 'the refused mail given up');
      assert.equal(gone!.attempts, 1);
      assert.match(String(gone!.last_error), /550/);

      assert.equal(await g.metric('fiscal_gateway_mail_given_up_total{reason="link_expired"}'), 1);
      assert.equal(await g.metric('fiscal_gateway_mail_given_up_total{reason="retry_window"}'), 1);
      assert.equal(await g.metric('fiscal_gateway_mail_given_up_total{reason="refused"}'), 1);
      assert.equal(await g.metric('fiscal_gateway_mail_failures_total{reason="refused"}'), 1);
      await gaugeIs(g, 'fiscal_gateway_mail_outbox{status="failed"}', 3);
      const givenUp = g.lines().filter((l) => /^a mail was given up/.test(l.msg));
      assert.deepEqual(
        givenUp.map((l) => [l.level, l.reason, l.kind]),
        [
          [50, 'link_expired', 'password_reset'],
          [50, 'retry_window', 'password_changed'],
          [50, 'refused', 'invitation'],
        ],
      );
      assert.ok(!JSON.stringify(givenUp).includes('@'), 'no address in the log');
      assert.equal(g.lines().filter((l) => l.level === 40).length, 1, 'a refused recipient is not the server failing');
    } finally {
      await g.close();
      await smtp?.close();
    }
  });

  test('a new link voids the one waiting in the outbox: only the mail with the working link is sent', async () => {
    const port = await downSmtpPort();
    const g = await gatewayMailingTo(port);
    let smtp: TestSmtp | undefined;
    try {
      const email = freshEmail();
      assert.equal(
        (await g.post('/api/v1/account/signup', { merchantName: 'Kitwe Mart', tpin: uniqueTpin(), email, password: PASSWORD })).statusCode,
        202,
      );
      await rowsWhen(g, email, ([r]) => r!.attempts === 1, 'the first attempt to fail');
      assert.equal((await g.post('/api/v1/account/verify/resend', { email })).statusCode, 202);
      const rows = await g.rows(email);
      assert.deepEqual(
        rows.map((r) => [r.status, r.body_sealed === null]),
        [
          ['cancelled', true],
          ['pending', false],
        ],
      );

      smtp = await startTestSmtp({ port });
      // An attempt made while the server was still down may be recorded only after the clock
      // moved: whenever the new mail waits for a later attempt, the clock is taken to it.
      await rowsWhen(
        g,
        email,
        ([, second]) => {
          const due = second!.next_attempt_at;
          if (second!.status === 'pending' && due !== null && new Date(due).getTime() > g.clock.now().getTime())
            g.clock.advance(new Date(due).getTime() - g.clock.now().getTime());
          return second!.status === 'sent';
        },
        'the new mail sent',
      );
      const mailed = smtp.mails.filter((m) => m.to === email);
      assert.equal(mailed.length, 1);
      assert.equal((await g.post('/api/v1/account/verify', { token: linkToken(mailed[0]!) })).statusCode, 200);
    } finally {
      await g.close();
      await smtp?.close();
    }
  });

  test('a stop cuts a send the server holds up after its grace: nothing is recorded, the mail comes back after its lease', async () => {
    // A server that accepts connections and never greets.
    const held = new Set<Socket>();
    const silent = createServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const clock = new ManualClock();
    const t = await startTestApp({ clock, config: { smtpUrl: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}` } });
    const running = startWorkers(t.ctx, [(ctx) => mailWorker(ctx, { pollIntervalMs: 20, stopGraceMs: 50 })]);
    try {
      const email = freshEmail();
      assert.equal(
        (
          await t.inject({
            method: 'POST',
            url: '/api/v1/account/signup',
            payload: { merchantName: 'Solwezi Mining Supplies', tpin: uniqueTpin(), email, password: PASSWORD },
          })
        ).statusCode,
        202,
      );
      await eventually(
        async () =>
          (await t.ctx.db.selectFrom('mail_outbox').select('lease_owner').where('recipient', '=', email).executeTakeFirst())?.lease_owner,
        'the mail claimed',
      );
      assert.deepEqual(await running.stop(), { 'mail.send': { inHand: 1, cut: 1 } });
      const row = await t.ctx.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).executeTakeFirstOrThrow();
      assert.deepEqual([row.status, row.attempts, row.last_error], ['pending', 0, null], 'nothing recorded');
      assert.ok(row.lease_until!.getTime() > clock.now().getTime(), 'still leased: it comes back when the lease runs out');
    } finally {
      await running.stop();
      await t.close();
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });

  test('in development without SMTP_URL the mail goes to the development outbox, not the table', async () => {
    const t = await startTestApp();
    try {
      const email = freshEmail();
      assert.equal(
        (
          await t.inject({
            method: 'POST',
            url: '/api/v1/account/signup',
            payload: { merchantName: 'Mongu Traders', tpin: uniqueTpin(), email, password: PASSWORD },
          })
        ).statusCode,
        202,
      );
      const outbox = await t.inject({ method: 'GET', url: '/api/v1/dev/outbox', headers: bearer(TEST_ADMIN_TOKEN) });
      const mail = (outbox.json().data as Array<{ to: string; kind: string; link: string }>).find((m) => m.to === email);
      assert.equal(mail?.kind, 'verify_email');
      assert.match(mail!.link, /\/console\/account\/verify#token=/);
      assert.deepEqual(await t.ctx.db.selectFrom('mail_outbox').select('id').where('recipient', '=', email).execute(), []);
    } finally {
      await t.close();
    }
  });

  test('a serve killed (SIGKILL) right after the 202 loses no mail; each start checks SMTP_URL after its ready line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-mail-'));
    const dataDir = join(dir, 'data');
    const testDb = onPostgres ? await createTestDatabase() : undefined;
    if (!testDb) await (await openDatabase({ dataDir, loadDataDir: await embeddedTemplate() })).close();
    const port = await downSmtpPort();
    const env = baseEnv({
      GATEWAY_ENV: 'production',
      SECRET_KEY: TEST_SECRET_KEY,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATA_DIR: dataDir,
      DATABASE_URL: testDb?.url,
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'Gateway <gateway@example.com>',
      PUBLIC_URL: 'https://gateway.example',
    });
    const logLines = (output: string) =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as LogLine);
    let smtp: TestSmtp | undefined;
    const api = await spawnGateway(env, ['--api-only']);
    try {
      const warned = await eventually(() => logLines(api.output()).find((l) => l.level === 40), 'the start check');
      assert.equal(warned.msg, `SMTP_URL 127.0.0.1:${port}: connection refused; mails are kept in the outbox and retried`);
      const lines = logLines(api.output());
      assert.ok(
        lines.findIndex((l) => l.msg === 'ready') < lines.indexOf(lines.find((l) => l.level === 40)!),
        'the check does not hold the start up',
      );

      const email = freshEmail();
      const signup = await fetch(`${api.url}/api/v1/account/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ merchantName: 'Chipata Supplies', tpin: uniqueTpin(), email, password: PASSWORD }),
      });
      assert.equal(signup.status, 202);
      await api.kill('SIGKILL');

      smtp = await startTestSmtp({ port });
      const workers = await spawnGateway(env, ['--workers-only']);
      try {
        const mail = await smtp.mailTo(email, 'Confirm your email');
        assert.match(mail.text, /https:\/\/gateway\.example\/console\/account\/verify#token=/);
        await eventually(
          () => logLines(workers.output()).some((l) => l.level === 30 && l.msg === `SMTP_URL 127.0.0.1:${port} answers`),
          'the start check answered',
        );
        assert.ok(!(api.output() + workers.output()).includes(linkToken(mail)), 'the link is never logged');
      } finally {
        assert.equal(await workers.kill('SIGTERM'), 0);
      }
    } finally {
      await api.kill('SIGKILL');
      await smtp?.close();
      await testDb?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
