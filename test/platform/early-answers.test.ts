// An answer given before the body is read (no or a wrong credential, an exhausted rate limit, a
// body over the limit) reaches a client that is still sending: over a raw socket that writes its
// body in chunks and reads nothing until it has written it all, as a simple client does, every
// body-taking route answers, and the client's writes never meet a reset (EPIPE, ECONNRESET).
// test-database: embedded only (scripts/run-tests.mjs): HTTP framing, before any query runs.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { CatalogedRoute } from '../../src/domain/kernel/access/auth.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { registerEarlyAnswers } from '../../src/platform/http/early-answers.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { seedSignedInUser } from '../helpers/accounts.ts';
import { engineName } from '../helpers/db.ts';

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
function sendRaw(port: number, method: string, path: string, headers: Record<string, string>, body: Buffer, options: { endAfterBody?: boolean } = {}): Promise<Sent> {
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
      resolve({ ...(received ? { statusLine: received.split('\r\n')[0] } : {}), ...(error ? { error } : {}), ...(connection ? { connection } : {}), closedByServer: !clientEnded });
    });
    socket.on('connect', async () => {
      const head = Object.entries({ host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(body.length), ...headers })
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

describe(`early answers reach a client still sending (${engineName})`, () => {
  let t: TestApp;
  let port: number;
  let routes: CatalogedRoute[];
  let right: (route: CatalogedRoute) => Record<string, string>;
  let limited: Record<string, string>;
  let urlOf: (route: CatalogedRoute) => string;

  before(async () => {
    t = await startTestApp();
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
    const m = await seedMerchant(t.ctx);
    const user = await seedSignedInUser(t.ctx, m.tenant.id);
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
    urlOf = (route) => route.url.replace(':tenant', String(m.tenant.id)).replace(':branch', '000').replace(/:[A-Za-z]+/g, '1');
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
      for (const [what, headers, body] of cases) {
        const sent = await sendRaw(port, route.method, urlOf(route), headers, body);
        const label = `${route.method} ${route.url}, ${what}`;
        assert.equal(sent.error, undefined, `${label}: the client met ${sent.error} (answer: ${sent.statusLine})`);
        const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(sent.statusLine ?? '')?.[1]);
        assert.ok(status >= 400 && status < 500, `${label}: ${sent.statusLine ?? 'no answer'}`);
        assert.notEqual(sent.connection?.toLowerCase(), 'close', `${label}: the server closes the connection after its answer (${sent.statusLine})`);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
    // Each kind of early answer was met: refused credentials, a body over the limit, a rate limit.
    for (const status of [401, 413, 429]) assert.ok(statuses.has(status), `some ${status}: ${JSON.stringify([...statuses])}`);
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
      const sent = await sendRaw(lingering, 'POST', '/refused', { 'content-length': String(100_000_000) }, Buffer.alloc(1_000_000, 'a'), { endAfterBody: false });
      assert.match(sent.statusLine ?? '', /^HTTP\/1\.1 401 /);
      assert.equal(sent.closedByServer, true);
    } finally {
      await app.close();
    }
  });
});
