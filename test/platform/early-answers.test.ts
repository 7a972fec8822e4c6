// An answer given before the body is read (no or a wrong credential, a session cookie that has
// ended or comes without its X-CSRF-Token, an exhausted rate limit, a body over the limit) reaches
// a client that is still sending: over a raw socket that writes its body in chunks and reads
// nothing until it has written it all, as a simple client does, every body-taking route answers,
// and the client's writes never meet a reset (EPIPE, ECONNRESET). On both databases: the session
// cookie's refusals come after a query, which on PostgreSQL crosses a socket (issue 45 §4).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { CatalogedRoute } from '../../src/domain/kernel/http-access/auth.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { registerEarlyAnswers } from '../../src/platform/http/early-answers.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { seedSignedInUser } from '../helpers/accounts.ts';
import { engineName } from '../helpers/db.ts';
import { eventually } from '../helpers/poll.ts';

interface Sent {
  /** The status line, or undefined when nothing came back. */
  statusLine?: string;
  /** A socket error the client met (a reset while it was still writing). */
  error?: string;
  /** Whether the server closed the connection before the client did. */
  closedByServer: boolean;
  /** The answer's Connection header. */
  connection?: string;
}

/** Sends `body` in 16 KiB chunks over a fresh connection and reads only once it is all written. */
function sendRaw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  options: { endAfterBody?: boolean } = {},
): Promise<Sent> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let error: string | undefined;
    let clientEnded = false;
    socket.pause();
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => {
      const connection = /\r\nconnection: *([^\r]*)/i.exec(received)?.[1];
      resolve({
        ...(received ? { statusLine: received.split('\r\n')[0] } : {}),
        ...(error ? { error } : {}),
        ...(connection ? { connection } : {}),
        closedByServer: !clientEnded,
      });
    });
    socket.on('connect', async () => {
      const head = Object.entries({
        host: '127.0.0.1',
        'content-type': 'application/json',
        'content-length': String(body.length),
        ...headers,
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n`);
      for (let offset = 0; offset < body.length && !socket.destroyed; offset += 16_384) {
        if (!socket.write(body.subarray(offset, offset + 16_384))) await new Promise((r) => socket.once('drain', r));
      }
      socket.resume();
      if (options.endAfterBody === false) return;
      // The answer is read, then the client closes its side.
      socket.once('data', () => {
        clientEnded = true;
        socket.end();
      });
    });
  });
}

/** Over the 1 MiB body limit. */
const LARGE = Buffer.from(JSON.stringify({ blob: 'x'.repeat(1_500_000) }));
/** Under the limit, one key after another. */
const KEY_FLOOD = Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i]))));
/** The shapes of issue 45: one key of 100 KB, an object of 20,000 keys. */
const LONG_KEY = Buffer.from(JSON.stringify({ ['k'.repeat(100_000)]: 1 }));
const MANY_KEYS = Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key${i}`, i]))));

describe(`early answers reach a client still sending (${engineName})`, () => {
  let t: TestApp;
  let port: number;
  let routes: CatalogedRoute[];
  let right: (route: CatalogedRoute) => Record<string, string>;
  let limited: Record<string, string>;
  let urlOf: (route: CatalogedRoute) => string;
  /** A session that was signed out, with its X-CSRF-Token; a live one without it; a viewer's. */
  let ended: Record<string, string>;
  let withoutCsrf: Record<string, string>;
  let viewer: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    const m = await seedMerchant(t.ctx);
    const user = await seedSignedInUser(t.ctx, m.tenant.id);
    const signedOut = await seedSignedInUser(t.ctx, m.tenant.id);
    assert.equal((await t.inject({ method: 'POST', url: '/api/v1/account/signout', headers: signedOut.headers })).statusCode, 200);
    ended = signedOut.headers;
    withoutCsrf = { cookie: user.headers.cookie };
    viewer = (await seedSignedInUser(t.ctx, m.tenant.id, 'viewer')).headers;
    right = (route) => {
      switch (route.auth.surface) {
        case 'partner':
          return bearer(m.partner.secret);
        case 'admin':
          return bearer(TEST_ADMIN_TOKEN);
        case 'account':
          return user.headers;
        case 'compat':
          return { 'x-api-key': m.apiKey };
        default:
          return bearer(m.token);
      }
    };
    // Another merchant whose limit of one request a minute is spent: every merchant route is a 429.
    const spent = await seedMerchant(t.ctx);
    await updateTenantAccount(t.ctx.db, { type: 'cli' }, spent.tenant.id, { rateLimitPerMinute: 1 });
    limited = bearer(spent.token);
    assert.notEqual((await t.inject({ method: 'GET', url: '/api/v1/sales', headers: limited })).statusCode, 429);
    assert.equal((await t.inject({ method: 'GET', url: '/api/v1/sales', headers: limited })).statusCode, 429);
    urlOf = (route) =>
      route.url
        .replace(':tenant', String(m.tenant.id))
        .replace(':branch', '000')
        .replace(/:[A-Za-z]+/g, '1');
    routes = t.app.routeCatalog.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));
  });
  after(() => t.close());

  test('every body-taking route answers a large or key-flooded body sent without, with a wrong or with a spent credential, or over the limit', async () => {
    assert.ok(routes.length > 40, `${routes.length} body-taking routes`);
    const statuses = new Map<number, number>();
    for (const route of routes) {
      const cases: Array<[string, Record<string, string>, Buffer]> = [
        ['no credential, large body', {}, LARGE],
        ['a wrong credential, key-flooded body', bearer('sk_live_not-a-key'), KEY_FLOOD],
        ['the right credential, over the body limit', right(route), LARGE],
      ];
      if (route.auth.surface === 'merchant') cases.push(['a spent rate limit, large body', limited, LARGE]);
      // The session cookie's refusals, on the two surfaces that take it.
      if (route.auth.surface === 'merchant' || route.auth.surface === 'account') {
        cases.push(
          ['a signed-out session, a 100 KB key', ended, LONG_KEY],
          ['a session without X-CSRF-Token, 20,000 keys', withoutCsrf, MANY_KEYS],
        );
        const needsMore = route.auth.surface === 'account' ? route.auth.role !== 'viewer' : route.auth.ability !== 'invoices:read';
        if (needsMore) cases.push(["a viewer's session, 20,000 keys", viewer, MANY_KEYS]);
      }
      for (const [what, headers, body] of cases) {
        const sent = await sendRaw(port, route.method, urlOf(route), headers, body);
        const label = `${route.method} ${route.url}, ${what}`;
        assert.equal(sent.error, undefined, `${label}: the client met ${sent.error} (answer: ${sent.statusLine})`);
        const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(sent.statusLine ?? '')?.[1]);
        assert.ok(status >= 400 && status < 500, `${label}: ${sent.statusLine ?? 'no answer'}`);
        assert.notEqual(
          sent.connection?.toLowerCase(),
          'close',
          `${label}: the server closes the connection after its answer (${sent.statusLine})`,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
    // Each kind of early answer was met: refused credentials, a refused session, a body over the limit, a rate limit.
    for (const status of [401, 403, 413, 429]) assert.ok(statuses.has(status), `some ${status}: ${JSON.stringify([...statuses])}`);
  });

  test('early answers one after another on one kept connection: each is answered, and nothing piles up on its socket', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const socket = connect(port, '127.0.0.1');
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      // More early answers than a socket's default listener limit (10).
      for (let i = 0; i < 15; i++) {
        received = '';
        socket.write(
          `POST /api/v1/account/tokens HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${LONG_KEY.length}\r\ncookie: ${ended.cookie}\r\n\r\n`,
        );
        socket.write(LONG_KEY);
        await eventually(() => (/\r\n\r\n\{.*\}$/s.test(received) ? received : undefined), 'the answer');
        assert.match(received, /^HTTP\/1\.1 401 /, `request ${i + 1}`);
      }
    } finally {
      socket.destroy();
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
      [],
    );
  });

  test('a body that keeps arriving after its answer is cut off once the linger has passed', async () => {
    const app = Fastify();
    registerEarlyAnswers(app, 200);
    app.post('/refused', async () => ({ never: 'reached' }));
    app.addHook('onRequest', async (request, reply) => {
      if (request.url === '/refused') await reply.code(401).send({ error: { code: 'unauthorized', message: 'no' } });
    });
    const lingering = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
    try {
      // Announces 100 MB, sends 1 MB and then nothing: the answer arrives, then the server closes.
      const sent = await sendRaw(lingering, 'POST', '/refused', { 'content-length': String(100_000_000) }, Buffer.alloc(1_000_000, 'a'), {
        endAfterBody: false,
      });
      assert.match(sent.statusLine ?? '', /^HTTP\/1\.1 401 /);
      assert.equal(sent.closedByServer, true);
    } finally {
      await app.close();
    }
  });
});
