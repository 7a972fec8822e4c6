// The fuzz walk of the route catalogue (test/platform/fuzz.test.ts in process, fuzz-sockets.test.ts
// over real sockets): the fixture, what every answer must look like, which routes were reached, and
// the suites themselves, run by both files through the transport each one names.
//
// Every route of the catalogue is fuzzed with its right credential and no rate limit in the way,
// so that parsing, validation and the handler really run: every route that takes a body is sent
// malformed JSON, wrong content types, non-objects, wrong types, huge strings, a 100 KB key, 20,000
// keys, text that is not valid Unicode, unknown and missing fields and random JSON, through every
// credential it takes (a merchant route: a tenant token, and the console's session cookie with its
// X-CSRF-Token); every route is sent hostile query strings and headers (the second describe). Every
// answer must be a 4xx (or a 2xx) in one of the spec's shapes, at a status the operation's OpenAPI
// document declares, and must come from past the credential check: an answer the auth hook gave
// (401, 402, 403, 429) means the fuzz did not reach the route, and fails the suite. So does a route
// of the catalogue that no answer reached.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import type { CatalogedRoute } from '../../src/domain/kernel/http-access/auth.ts';
import { errorsOfRoute } from '../../src/domain/kernel/http-access/route-errors.ts';
import { errorStatusesOf } from '../../src/app/openapi-errors.ts';
import { ERROR_CODES, type ErrorCode } from '../../src/platform/errors/codes.ts';
import { saveSync } from '../../src/domain/kernel/catalogue/store.ts';
import { MERCHANT_AUTHORITIES } from '../../src/domain/kernel/devices/authorities.ts';
import { registerDevice } from '../../src/domain/kernel/devices/service.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { mintApiKey } from '../../src/domain/kernel/tenants/credentials-service.ts';
import { seedSignedInUser, seedSignedInUsers } from './accounts.ts';
import { engineName } from './db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from './app.ts';
import { markInitialised } from './credentials.ts';
import { operationsOf, servedDocument } from './openapi.ts';
import { mutations, nestedObjectPaths, sample, valuePaths, withKeyAt, withValueAt } from './schema-sample.ts';

/** An answer, whichever way it travelled. */
export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- an answer's JSON, read by the checks
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** How requests reach the app: injected in process, or over a real socket to the listening app. */
export type TransportKind = 'in process' | 'over sockets';

interface Transport {
  send(sent: Sent): Promise<Answer>;
  close(): Promise<void>;
}

function injected(t: TestApp): Transport {
  return {
    send: ({ method, url, headers, payload }) =>
      t.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) }),
    close: async () => {},
  };
}

/** A real HTTP client (undici) on kept connections to the app listening on a port of its own. */
async function overSockets(t: TestApp): Promise<Transport> {
  const origin = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  const agent = new Agent({ connections: 4 });
  return {
    async send({ method, url, headers, payload }) {
      // A client error (a reset while sending, EPIPE) rejects here and fails the walk.
      const res = await request(`${origin}${url}`, {
        method: method as 'GET',
        headers,
        ...(payload !== undefined ? { body: payload } : {}),
        dispatcher: agent,
      });
      const body = await res.body.text();
      return { statusCode: res.statusCode, headers: res.headers, body, json: () => JSON.parse(body) };
    },
    close: () => agent.close(),
  };
}

// A live read asks the branch's VSDC while it answers (GET /api/v1/item-reconciliation); the
// fixture's device points at a VSDC that never runs, so such a route may answer the 5xx it
// declares for that (503 vsdc_unreachable), still in the coded shape — never any other 5xx.
const VSDC_ANSWERS = new Set(['vsdc_unreachable', 'vsdc_refused']);
const declaresVsdcAnswer = (res: Answer, route: CatalogedRoute | undefined) =>
  route !== undefined && res.statusCode >= 500 && VSDC_ANSWERS.has(res.json()?.error?.code) && route.errors.includes(res.json().error.code);

/**
 * A 2xx or 3xx, or an error in one of the spec's shapes (docs/errors.md): a coded error with a code
 * of the table at its status and, for a route, among the codes the operation documents; the field
 * validation shape as a 422; the plain shape as a 404; the wrapped compat dialect at its own status.
 * For a route of the OpenAPI document (`documented`), a status its operation declares.
 */
function assertWellFormed(res: Answer, label: string, route?: CatalogedRoute, documented?: ReadonlySet<CatalogedRoute>): void {
  assert.ok(res.statusCode < 500 || declaresVsdcAnswer(res, route), `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode < 400) return;
  const body = res.json();
  const what = `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`;
  if (route && documented?.has(route))
    assert.ok(errorStatusesOf(route).has(res.statusCode), `${what}: the OpenAPI document declares no ${res.statusCode} for this operation`);
  if (typeof body?.error?.code === 'string') {
    const code = body.error.code as ErrorCode;
    assert.equal(typeof body.error.message, 'string', what);
    assert.equal(ERROR_CODES[code]?.status, res.statusCode, `${what}: not the status of ${code} in the error table`);
    if (route) assert.ok(errorsOfRoute(route).has(code), `${what}: ${code} is not among the codes the operation documents`);
  } else if (body?.success === false) {
    assert.ok(
      route === undefined || route.auth.surface === 'compat' || route.auth.surface === 'till_login',
      `${what}: the wrapped shape off the compat surface`,
    );
    assert.equal(body.httpCode, res.statusCode, `${what}: httpCode is not the status`);
  } else if (typeof body?.errors === 'object' && body.errors !== null) {
    assert.equal(res.statusCode, 422, `${what}: the field validation shape is a 422`);
    assert.equal(typeof body.message, 'string', what);
    for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>)) {
      assert.ok(Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'), `${what}: errors.${field}`);
    }
  } else {
    assert.ok(typeof body?.message === 'string' && Object.keys(body).length === 1, `${what}: unexpected error shape`);
    assert.equal(res.statusCode, 404, `${what}: the plain shape is a 404`);
  }
}

/** A 422 (bare or wrapped) whose errors name `field` with a sentence matching `sentence`. */
function assertNamesField(res: Answer, field: string, sentence: RegExp, label: string): void {
  assert.equal(res.statusCode, 422, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const errors = (res.json() as { errors?: Record<string, string[]> }).errors ?? {};
  assert.ok(Object.hasOwn(errors, field), `${label}: no error for ${field} in ${res.body.slice(0, 300)}`);
  assert.match(errors[field]![0]!, sentence, label);
}

/** The auth hook's refusals (the credential, the account's standing, the role, the rate limit): the request never got past it. */
const CREDENTIAL_REFUSALS = new Set([
  'unauthenticated',
  'api_key_expired',
  'subscription_blocked',
  'quota_exhausted',
  'partner_suspended',
  'missing_scope',
  'csrf_token_invalid',
  'role_insufficient',
  'missing_ability',
  'tenant_suspended',
  'rate_limited',
]);
/** The surfaces whose credential the fixture sends in a header or the session cookie. */
const CREDENTIAL_SURFACES = new Set(['merchant', 'partner', 'account', 'compat', 'admin']);
/** Of those, the ones that count an accepted credential against a rate limit (and say so in X-RateLimit-Limit). */
const COUNTED_SURFACES = new Set(['merchant', 'partner', 'account', 'compat']);

type Probe = 'body' | 'query';
const routeName = (route: CatalogedRoute) => `${route.method} ${route.url}`;

/** The routes each probe reached (an answer from past the credential check), and the 429s among all answers. */
class Reach {
  private readonly reached = new Map<string, Set<Probe>>();
  answers = 0;
  throttled = 0;

  /** Fails at once on an answer the auth hook gave; records the route as reached by `probe`. */
  record(route: CatalogedRoute, probe: Probe, res: Answer, label: string): void {
    this.answers += 1;
    if (res.statusCode === 429) this.throttled += 1;
    const code: unknown = res.statusCode >= 400 ? res.json()?.error?.code : undefined;
    assert.notEqual(code, 'rate_limited', `${label}: the rate limit was in the way: ${res.body.slice(0, 200)}`);
    if (CREDENTIAL_SURFACES.has(route.auth.surface)) {
      const refused = res.statusCode === 401 || (typeof code === 'string' && CREDENTIAL_REFUSALS.has(code));
      assert.ok(
        !refused,
        `${label}: the fixture's ${route.auth.surface} credential did not get through: ${res.statusCode} ${res.body.slice(0, 200)}`,
      );
    }
    if (COUNTED_SURFACES.has(route.auth.surface)) {
      assert.ok(
        res.headers['x-ratelimit-limit'] !== undefined,
        `${label}: answered before the credential was accepted: ${res.statusCode} ${res.body.slice(0, 200)}`,
      );
    }
    const name = routeName(route);
    if (!this.reached.has(name)) this.reached.set(name, new Set());
    this.reached.get(name)!.add(probe);
  }

  /** The routes of `routes` that `probe` never reached. */
  missing(routes: readonly CatalogedRoute[], probe: Probe): string[] {
    return routes.filter((route) => !this.reached.get(routeName(route))?.has(probe)).map(routeName);
  }

  assertHardlyThrottled(label: string): void {
    assert.ok(this.answers > 0, `${label}: no answers`);
    // The only 429 that may come is signin_throttled: a public sign-in failing again and again.
    assert.ok(this.throttled / this.answers < 0.01, `${label}: ${this.throttled} of ${this.answers} answers were 429`);
  }
}

type Credential = (route: CatalogedRoute) => Record<string, string>;

interface Fixture {
  t: TestApp;
  /** The routes that are operations of the OpenAPI document (not /docs' pages, /healthz, /metrics). */
  documented: ReadonlySet<CatalogedRoute>;
  send(sent: Sent): Promise<Answer>;
  headersFor: Credential;
  /** A merchant owner's session (cookie and X-CSRF-Token): the merchant surface takes it too. */
  session: Credential;
  urlOf: (route: CatalogedRoute) => string;
  close(): Promise<void>;
}

/** An id no row holds: a DELETE of a token, key, user or endpoint there is its handler's 404. */
const NO_SUCH_ID = '999999';

/** Routes that end the session they are sent with: each request gets a fresh user's session. */
const endsSessions = (route: CatalogedRoute) => route.url.includes('/signout') || route.url === '/api/v1/account/password';

/**
 * An app, a merchant with an initialised branch, and each surface's credential for a route. The
 * merchant and its partner have no rate limit (a test-only configuration for the partner's), so
 * that every request of the walk reaches its route.
 */
async function startFixture(transport: TransportKind): Promise<Fixture> {
  // No filer runs here: a stored sale answers at once rather than after SALE_WAIT_MS.
  const t = await startTestApp({ config: { partnerRateLimitPerMinute: 1_000_000, saleWaitMs: 0 } });
  const m = await seedMerchant(t.ctx);
  const tenantId = m.tenant.id;
  await updateTenantAccount(t.ctx.db, { type: 'cli' }, tenantId, { rateLimitPerMinute: 1_000_000 });
  // Without one (each authority's), the catalogue's routes answer 503 catalogue_unavailable (no VSDC here to fetch it from).
  for (const authority of MERCHANT_AUTHORITIES) {
    await saveSync(
      t.ctx.db,
      authority,
      [{ code: '50221200', name: 'Processed cereals', level: 3, taxType: null, majorTarget: false, inUse: true }],
      null,
    );
  }
  const device = await registerDevice(t.ctx.db, { type: 'cli' }, m.tenantRow, {
    deviceSerial: 'FUZZ',
    branch: '000',
    vsdcBaseUrl: 'http://127.0.0.1:9/vsdc',
  });
  await markInitialised(t.ctx, device.id, 'SDC-FUZZ-0001');
  const wrapped = await mintApiKey(t.ctx.db, { type: 'cli' }, m.tenantRow, { dialect: 'wrapped' });
  // Stock kept, so that adjustments and stock-moving documents reach their rules.
  await t.ctx.db.updateTable('tenants').set({ stock_tracking: true }).where('id', '=', tenantId).execute();
  // A sale the authority accepted (for its notes and receipt) and one it refused (to reissue or resolve).
  const documents: number[] = [];
  for (let i = 0; i < 2; i += 1) {
    const example = sample(t.app.routeCatalog.find((r) => r.method === 'POST' && r.url === '/api/v1/sales')!.bodySchema);
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/sales',
      headers: { ...bearer(m.token), 'content-type': 'application/json' },
      payload: JSON.stringify(example),
    });
    assert.equal(res.statusCode, 201, res.body);
    documents.push(res.json().data.id);
  }
  const [uploaded, refused] = documents as [number, number];
  await t.ctx.db
    .updateTable('sales')
    .set({
      status: 'uploaded',
      result_code: '000',
      receipt_no: 1,
      sdc_id: 'SDC-FUZZ-0001',
      mrc_no: 'WIS00000001',
      internal_data: 'FUZZ',
      receipt_signature: 'FUZZ',
      published_at: new Date(),
    })
    .where('id', '=', uploaded)
    .execute();
  await t.ctx.db
    .updateTable('sales')
    .set({ status: 'failed', result_code: '913', last_error: 'Refused for the fuzz' })
    .where('id', '=', refused)
    .execute();
  // The operator's routes that change a merchant or a partner (suspend, block, rate-limit: what a
  // random body may ask) act on a merchant of another partner, never on the walk's own.
  const other = await seedMerchant(t.ctx);
  const user = await seedSignedInUser(t.ctx, tenantId);
  // Signing out, and changing the password, end sessions: those routes get a fresh user's session each time.
  const spare = await seedSignedInUsers(t.ctx, tenantId, 400);
  const sessionFor: Credential = (route) =>
    endsSessions(route) ? (spare.pop() ?? assert.fail('out of spare sessions')).headers : user.headers;
  const headersFor: Credential = (route) => {
    switch (route.auth.surface) {
      case 'partner':
        return bearer(m.partner.secret);
      case 'merchant':
        return bearer(m.token);
      case 'compat':
        return { 'x-api-key': route.url.includes('Invoice') ? wrapped.key : m.apiKey, 'x-sdcid': 'SDC-FUZZ-0001' };
      case 'admin':
        return bearer(TEST_ADMIN_TOKEN);
      case 'account':
        return sessionFor(route);
      default:
        return {};
    }
  };
  const idOf = (url: string) => {
    if (url.startsWith('/admin/v1/tenants/:id')) return String(other.tenant.id);
    if (url.startsWith('/admin/v1/partners/:id')) return String(other.partner.partnerId);
    return NO_SUCH_ID;
  };
  const urlOf = (route: CatalogedRoute) =>
    route.url
      .replace(':tenant', String(tenantId))
      .replace(':branch', '000')
      .replace(':id', idOf(route.url))
      .replace(':sale', String(/\/(reissue|resolve)$/.test(route.url) ? refused : uploaded))
      .replace(/:[A-Za-z]+/g, '1')
      .replace('*', 'fuzz');
  const way = transport === 'in process' ? injected(t) : await overSockets(t);
  return {
    t,
    documented: new Set(operationsOf(await servedDocument(t.app), t.app).map((op) => op.route)),
    send: (sent) => way.send(sent),
    headersFor,
    session: sessionFor,
    urlOf,
    async close() {
      await way.close();
      await t.close();
    },
  };
}

const isRead = (route: CatalogedRoute) => route.method === 'GET';
const takesBody = (route: CatalogedRoute) => ['POST', 'PUT', 'PATCH'].includes(route.method) && route.bodySchema !== undefined;

/** A key of 100 KB; an object of 20,000 keys (issue 45: a session-cookie route reset the connection for these). */
const LONG_KEY = JSON.stringify({ ['k'.repeat(100_000)]: 1 });
const MANY_KEYS = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key${i}`, i])));
/** Half of an emoji (a till that truncates UTF-16 text), as JSON.stringify writes it: `\ud83d`. */
const HALF_EMOJI = 'Sugar \ud83d';
const NOT_UNICODE = /^The \S+ field is not valid (Unicode|UTF-8) text: /;

export interface FuzzOptions {
  /** Random JSON bodies per body-taking route, and random values in its example. */
  randomBodiesPerRoute: number;
  /**
   * One schema mutation in this many is sent, each route starting at another one, so that the
   * walk still sends every kind of mutation somewhere (1: all of them).
   */
  mutationsSentOneIn: number;
}

/** The body fuzz: every body-taking route, through every credential it takes. */
function describeBodyFuzz(transport: TransportKind, options: FuzzOptions): void {
  describe(`bad input never yields a 5xx (${transport}, ${engineName})`, () => {
    let f: Fixture;
    const reach = new Reach();

    before(async () => {
      f = await startFixture(transport);
    });
    after(() => f.close());

    test('every body-taking route gets the fixed corpus, schema mutations and random JSON, past its credential', async () => {
      const routes = f.t.app.routeCatalog.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
      assert.ok(routes.length > 5);
      for (const [index, route] of routes.entries()) {
        const label = `${route.method} ${route.url}`;
        const send = async (
          what: string,
          payload: string | Buffer | undefined,
          contentType = 'application/json',
          credential = f.headersFor,
        ) => {
          const headers = { ...credential(route), ...(contentType ? { 'content-type': contentType } : {}) };
          const res = await f.send({ method: route.method, url: f.urlOf(route), headers, payload });
          assertWellFormed(res, `${label} ${what}`, route, f.documented);
          reach.record(route, 'body', res, `${label} ${what}`);
          return res;
        };
        const raw: Array<[string, string | Buffer | undefined, string?]> = [
          ['malformed json', '{"a":'],
          ['trailing garbage', '{}}'],
          ['prototype pollution', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'],
          ['json array', '[1,2,3]'],
          ['json string', '"hello"'],
          ['json null', 'null'],
          ['json number', '42'],
          ['empty body', ''],
          ['deep nesting', '['.repeat(5000) + ']'.repeat(5000)],
          ['text/plain', 'hello', 'text/plain'],
          ['form body', 'a=1&b=2', 'application/x-www-form-urlencoded'],
          ['xml', '<a/>', 'application/xml'],
          ['oversized', JSON.stringify({ blob: 'x'.repeat(1_200_000) })],
          ['unknown fields only', JSON.stringify({ zzz: 1, yyy: [true] })],
          ['a 100 KB key', LONG_KEY],
          ['20,000 keys', MANY_KEYS],
        ];
        // Text that is not valid Unicode, refused while the body is parsed: a 422 naming the field, whatever the route.
        const notUnicode: Array<[string, string | Buffer, string]> = [
          ['a lone surrogate', JSON.stringify({ name: HALF_EMOJI }), 'name'],
          ['a lone surrogate in a key', JSON.stringify({ ['na\ud800me']: 1 }), 'na\\ud800me'],
          [
            'bytes that are not UTF-8',
            Buffer.concat([Buffer.from('{"name":"Mwape '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
            'name',
          ],
        ];
        // A merchant route also takes the console's session: the same corpus through it.
        const credentials = route.auth.surface === 'merchant' ? [f.headersFor, f.session] : [f.headersFor];
        for (const credential of credentials) {
          for (const [what, payload, type] of raw) {
            const res = await send(what, payload, type, credential);
            if (type !== undefined)
              assert.equal(
                res.json().error?.code,
                'unsupported_media_type',
                `${label} ${what}: 415, not ${res.statusCode} ${res.body.slice(0, 200)}`,
              );
          }
          for (const [what, payload, field] of notUnicode)
            assertNamesField(await send(what, payload, undefined, credential), field, NOT_UNICODE, `${label} ${what}`);
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);

        if (!route.bodySchema) continue;
        const valid = sample(route.bodySchema) as Record<string, unknown>;
        await send('its example', JSON.stringify(valid));
        await send('unknown field', JSON.stringify({ ...valid, unknownField: 'refused' }));
        let mutation = index;
        for (const m of mutations(route.bodySchema))
          if (mutation++ % options.mutationsSentOneIn === 0) await send(m.label, JSON.stringify(m.body));
        const paths = valuePaths(valid);
        // Every text of the example cut in the middle of an emoji: the 422 names it.
        for (const path of paths.filter(
          (p) => typeof p.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], valid) === 'string',
        )) {
          const field = path.join('.');
          assertNamesField(
            await send(`${field} half an emoji`, JSON.stringify(withValueAt(valid, path, HALF_EMOJI))),
            field,
            NOT_UNICODE,
            `${label} ${field}`,
          );
        }
        // Random JSON, and the route's example with one value (at any depth) random: the first is
        // refused by validation, the second often gets past it, into the handler.
        await fc.assert(
          fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (body) => {
            await send('random', JSON.stringify(body));
          }),
          { numRuns: options.randomBodiesPerRoute },
        );
        if (paths.length === 0) continue;
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...paths), fc.jsonValue({ maxDepth: 3 }), async (path, value) => {
            await send(`example with ${path.join('.')} random`, JSON.stringify(withValueAt(valid, path, value)));
          }),
          { numRuns: options.randomBodiesPerRoute },
        );
      }
      assert.deepEqual(reach.missing(f.t.app.routeCatalog.filter(takesBody), 'body'), [], 'body-taking routes the fuzz never reached');
      reach.assertHardlyThrottled('body fuzz');
    });
  });
}

// Names that, used as a key of a plain object, find a member of Object.prototype instead of
// nothing: `"toString": 1` in a body was a 500 on eight routes (issue 15, point 3). A body may
// not use them as keys at any depth (a 422 naming the field); as query-string keys or values,
// header names or values, they are just text.
const HOSTILE_NAMES = [...new Set(['__proto__', 'constructor', 'prototype', ...Object.getOwnPropertyNames(Object.prototype)])];
/** The prefixes under which a query parameter the route does not list is a 422 (platform/http/validation.ts). */
const STRICT_QUERY = /^\/(api|admin)\/v1\//;
/** Headers that carry the credential: a hostile value there is only ever a 401. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-sdcid', 'terminal-id']);

type PropertySchema = {
  type?: unknown;
  pattern?: unknown;
  format?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  anyOf?: Array<{ const?: unknown }>;
  default?: unknown;
};
const propertiesOf = (schema: unknown) => (schema as { properties?: Record<string, PropertySchema> } | undefined)?.properties ?? {};
const propertyNames = (schema: unknown) => Object.keys(propertiesOf(schema));
/** Query parameters that take any text: a name sent there gets past validation, into the route. */
const freeTextNames = (schema: unknown) =>
  Object.entries(propertiesOf(schema))
    .filter(([, p]) => p.type === 'string' && p.pattern === undefined && p.format === undefined)
    .map(([name]) => name);

/** Query values at the edges: of numbers, of dates that fit YYYY-MM-DD but are no day, of text. */
const QUERY_EDGE_VALUES = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '2147483648',
  '1e308',
  'NaN',
  'true',
  'null',
  '0000-00-00',
  '0000-01-01',
  '2026-02-30',
  '2026-13-45',
  '9999-12-31',
  '9999-99-99',
  '1970-01-01T00:00:00Z',
  'x'.repeat(5000),
  '\u0000',
  '%',
  "' or 1=1 --",
  '\u202e\ud83d\ude00',
];
/** Percent-escapes that decode to no text: a byte that is not UTF-8, an encoded lone surrogate, a sequence cut short. Sent as written. */
const UNDECODABLE_QUERY_VALUES = ['%FF', '%ED%A0%80', '%E2%82'];
/** The values a query parameter's schema names: its examples, its enum or consts, its default. */
const namedValues = (p: PropertySchema): string[] =>
  [...(p.examples ?? []), ...(p.enum ?? []), ...(p.anyOf ?? []).map((x) => x.const), p.default]
    .filter((v) => v !== undefined && v !== null)
    .map(String);
/** A value for each query parameter a route requires and does not default: its example. */
function requiredQuery(schema: unknown): Record<string, string> {
  const required = (schema as { required?: string[] } | undefined)?.required ?? [];
  const props = propertiesOf(schema);
  return Object.fromEntries(
    required
      .filter((name) => props[name]?.default === undefined)
      .map((name) => [name, namedValues(props[name]!)[0] ?? String(sample(props[name]))]),
  );
}

/** The query, key and header walk: every route of the catalogue. */
function describeNameFuzz(transport: TransportKind): void {
  describe(`keys named like Object.prototype properties (${transport}, ${engineName})`, () => {
    let f: Fixture;
    const reach = new Reach();

    before(async () => {
      f = await startFixture(transport);
    });
    after(() => f.close());

    const send = (route: CatalogedRoute, options: { query?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
      f.send({
        method: route.method,
        url: f.urlOf(route) + (options.query ? `?${options.query}` : ''),
        headers: {
          ...f.headersFor(route),
          ...options.headers,
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
      });

    test('in a body, at the top level and in every nested object, they are a 422 naming the field', async () => {
      const routes = f.t.app.routeCatalog.filter((r) => r.bodySchema);
      assert.ok(routes.length > 5);
      for (const route of routes) {
        const valid = sample(route.bodySchema);
        assert.ok(valid && typeof valid === 'object' && !Array.isArray(valid), `${route.url}: body sample is not an object`);
        // Refused while parsing, before the route runs: no request here changes anything.
        for (const path of [[], ...nestedObjectPaths(valid)]) {
          for (const name of HOSTILE_NAMES) {
            const field = [...path, name].join('.');
            const label = `${route.method} ${route.url} ${field}`;
            const res = await send(route, { body: withKeyAt(valid, path, name) });
            reach.record(route, 'body', res, label);
            assertWellFormed(res, label);
            assertNamesField(res, field, /is not accepted/, label);
          }
        }
      }
      assert.deepEqual(reach.missing(routes, 'body'), []);
    });

    test('every query parameter of every read, alone with the required ones, takes edge values without a 5xx', async () => {
      const reads = f.t.app.routeCatalog.filter((r) => isRead(r) && propertyNames(r.querySchema).length > 0);
      assert.ok(reads.length > 20);
      for (const route of reads) {
        const base = requiredQuery(route.querySchema);
        for (const [name, schema] of Object.entries(propertiesOf(route.querySchema))) {
          const queries = [...new Set([...namedValues(schema), ...QUERY_EDGE_VALUES])].map((value) =>
            new URLSearchParams({ ...base, [name]: value }).toString(),
          );
          const prefix = new URLSearchParams(base).toString();
          // The parameter twice: a list where one value is meant.
          queries.push(`${prefix}&${encodeURIComponent(name)}=1&${encodeURIComponent(name)}=2`);
          for (const value of UNDECODABLE_QUERY_VALUES) queries.push(`${prefix}&${encodeURIComponent(name)}=${value}`);
          for (const query of queries) {
            const label = `${route.method} ${route.url}?${query.slice(0, 80)}`;
            const res = await send(route, { query });
            assertWellFormed(res, label, route, f.documented);
            reach.record(route, 'query', res, label);
          }
        }
      }
      assert.deepEqual(reach.missing(reads, 'query'), []);
    });

    test('as query-string keys and values and as header names and values, they never yield a 5xx; every route of the catalogue is reached', async () => {
      const enc = encodeURIComponent;
      const tried = new Set<string>();
      for (const route of f.t.app.routeCatalog) {
        const label = `${route.method} ${route.url}`;
        const reads = isRead(route);
        const valueHeaders = propertyNames(route.headersSchema).filter((h) => !CREDENTIAL_HEADERS.has(h));
        const probe = async (what: string, options: Parameters<typeof send>[1]) => {
          const res = await send(route, options);
          assertWellFormed(res, `${label} ${what}`, route, f.documented);
          reach.record(route, 'query', res, `${label} ${what}`);
          return res;
        };
        for (const name of HOSTILE_NAMES) {
          // The name as a parameter the route does not list (a 422 on /api/v1 and /admin/v1, before
          // any handler runs, whatever the method) and as the value of every one it lists.
          const query = [`${enc(name)}=${enc(name)}`, ...propertyNames(route.querySchema).map((q) => `${enc(q)}=${enc(name)}`)].join('&');
          const res = await probe(`query and header name ${name}`, { query, headers: { [name]: name } });
          if (STRICT_QUERY.test(route.url))
            assert.equal(res.statusCode, 422, `${label} query name ${name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          // Every parameter above was the name, so one with a type or a list of values refused it
          // (422): once more with only the free-text ones, which reach the route.
          const freeText = freeTextNames(route.querySchema);
          if (reads && freeText.length > 0) {
            await probe(`free-text query values ${name}`, { query: freeText.map((q) => `${enc(q)}=${enc(name)}`).join('&') });
          }
          // Header values reach the route with a body it takes (a sale, an item: the fixture's to keep).
          if (valueHeaders.length > 0) {
            const headers = Object.fromEntries(valueHeaders.map((h) => [h, name]));
            await probe(`header values ${name}`, { headers, ...(route.bodySchema ? { body: sample(route.bodySchema) } : {}) });
          }
          // Credentials named like the names: a 401, once per surface.
          if (reads && !tried.has(`${route.auth.surface} ${name}`) && route.auth.surface !== 'public') {
            tried.add(`${route.auth.surface} ${name}`);
            const res = await f.send({
              method: 'GET',
              url: f.urlOf(route),
              headers: { authorization: `Bearer ${name}`, 'x-api-key': name, 'x-sdcid': name, 'terminal-id': name },
            });
            assertWellFormed(res, `${label} credentials ${name}`);
            assert.ok(res.statusCode >= 400, `${label} credentials ${name}: ${res.statusCode}`);
            // A session cookie named like the names (taken by the merchant and account surfaces): a 401.
            const cookie = await f.send({
              method: 'GET',
              url: f.urlOf(route),
              headers: { cookie: `fg_session=${encodeURIComponent(name)}; ${name}=${name}` },
            });
            assertWellFormed(cookie, `${label} session cookie ${name}`);
            assert.ok(cookie.statusCode >= 400, `${label} session cookie ${name}: ${cookie.statusCode}`);
          }
        }
        // A valid compat key with a branch named like the names.
        if (route.auth.surface === 'compat' && reads) {
          for (const name of HOSTILE_NAMES) {
            const res = await send(route, { headers: { 'x-sdcid': name } });
            assertWellFormed(res, `${label} x-sdcid ${name}`);
          }
        }
      }
      assert.deepEqual(reach.missing(f.t.app.routeCatalog, 'query'), [], 'routes of the catalogue the fuzz never reached');
      reach.assertHardlyThrottled('query and header fuzz');
    });
  });
}

/** Both walks of the route catalogue, through `transport`. */
export function describeFuzz(transport: TransportKind, options: FuzzOptions): void {
  describeBodyFuzz(transport, options);
  describeNameFuzz(transport);
}
