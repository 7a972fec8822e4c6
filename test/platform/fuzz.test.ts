// test-database: embedded only (scripts/run-tests.mjs): the embedded database is PostgreSQL too (the same parser, types and errors), so bad input reaches SQL the same way on both; what the engines differ in (pools, processes, concurrency) this suite does not exercise.
// test-runtime: long (scripts/run-tests.mjs starts it first)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { CatalogedRoute } from '../../src/domain/kernel/access/auth.ts';
import { saveSync } from '../../src/domain/kernel/catalogue/store.ts';
import { registerDevice } from '../../src/domain/kernel/devices/service.ts';
import { updateTenantAccount } from '../../src/domain/partner/provisioning/partners-service.ts';
import { mintApiKey } from '../../src/domain/kernel/tenants/credentials-service.ts';
import { seedSignedInUser, seedSignedInUsers } from '../helpers/accounts.ts';
import { engineName } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { markInitialised } from '../helpers/credentials.ts';
import { mutations, nestedObjectPaths, sample, withKeyAt } from '../helpers/schema-sample.ts';

// Every route that takes a body is sent malformed JSON, wrong content types, non-objects,
// wrong types, huge strings, unknown and missing fields, with a valid credential so that
// validation really runs. Every answer must be a 4xx (or a 2xx) in one of the spec's shapes.

// A live read asks the branch's VSDC while it answers (GET /api/v1/item-reconciliation); the
// fixture's device points at a VSDC that never runs, so such a route may answer the 5xx it
// declares for that (503 vsdc_unreachable), still in the coded shape — never any other 5xx.
const VSDC_ANSWERS = new Set(['vsdc_unreachable', 'vsdc_refused']);
const declaresVsdcAnswer = (res: LightMyRequestResponse, route: CatalogedRoute | undefined) =>
  route !== undefined && res.statusCode >= 500 && VSDC_ANSWERS.has(res.json()?.error?.code) && route.errors.includes(res.json().error.code);

function assertWellFormed(res: LightMyRequestResponse, label: string, route?: CatalogedRoute): void {
  assert.ok(res.statusCode < 500 || declaresVsdcAnswer(res, route), `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 400) {
    const body = res.json();
    const coded = typeof body?.error?.code === 'string' && typeof body.error.message === 'string';
    const validation = typeof body?.message === 'string' && typeof body.errors === 'object';
    const plain = typeof body?.message === 'string' && Object.keys(body).length === 1;
    const wrapped = body?.success === false && typeof body.httpCode === 'number';
    assert.ok(coded || validation || plain || wrapped, `${label}: unexpected error shape ${res.body.slice(0, 300)}`);
    if (res.statusCode === 422 && validation) {
      for (const [field, messages] of Object.entries(body.errors as Record<string, unknown>)) {
        assert.ok(Array.isArray(messages) && messages.every((m) => typeof m === 'string'), `${label}: errors.${field}`);
      }
    }
  }
}

interface Fixture {
  t: TestApp;
  tenantId: number;
  headersFor: (route: CatalogedRoute) => Record<string, string>;
  /** The merchant owner's session (cookie and X-CSRF-Token): the merchant surface takes it too. */
  session: Record<string, string>;
  urlOf: (route: CatalogedRoute) => string;
}

/** An app, a merchant with an initialised branch, and each surface's credential for a route. */
async function startFixture(options: { unlimited?: boolean; catalogue?: boolean } = {}): Promise<Fixture> {
  const t = await startTestApp();
  const m = await seedMerchant(t.ctx);
  const tenantId = m.tenant.id;
  // Enough for a request per route and name; the partner limit (1200 a minute) is fixed.
  if (options.unlimited) await updateTenantAccount(t.ctx.db, { type: 'cli' }, tenantId, { rateLimitPerMinute: 1_000_000 });
  // Without one, the catalogue's routes answer 503 catalogue_unavailable (no VSDC here to fetch it from).
  if (options.catalogue) await saveSync(t.ctx.db, [{ code: '50221200', name: 'Processed cereals', level: 3, taxType: null, majorTarget: false, inUse: true }], null);
  const device = await registerDevice(t.ctx.db, { type: 'cli' }, m.tenantRow, { deviceSerial: 'FUZZ', branch: '000', vsdcBaseUrl: 'http://127.0.0.1:9/vsdc' });
  await markInitialised(t.ctx, device.id, 'SDC-FUZZ-0001');
  const wrapped = await mintApiKey(t.ctx.db, { type: 'cli' }, m.tenantRow, { dialect: 'wrapped' });
  const user = await seedSignedInUser(t.ctx, tenantId);
  // Signing out ends the session it is sent with: those routes get a fresh user's session each time.
  const spare = await seedSignedInUsers(t.ctx, tenantId, 300);
  const headersFor = (route: CatalogedRoute): Record<string, string> => {
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
        return route.url.includes('/signout') ? (spare.pop() ?? user).headers : user.headers;
      default:
        return {};
    }
  };
  const urlOf = (route: CatalogedRoute) => route.url.replace(':tenant', String(tenantId)).replace(':branch', '000').replace(/:[A-Za-z]+/g, '1');
  return { t, tenantId, headersFor, session: user.headers, urlOf };
}

describe(`bad input never yields a 5xx (${engineName})`, () => {
  let t: TestApp;
  let headersFor: Fixture['headersFor'];
  let session: Fixture['session'];
  let urlOf: Fixture['urlOf'];

  before(async () => {
    ({ t, headersFor, session, urlOf } = await startFixture());
  });
  after(() => t.close());

  test('every body-taking route survives the fixed corpus and random JSON', async () => {
    const routes = t.app.routeCatalog.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    assert.ok(routes.length > 5);
    for (const route of routes) {
      const send = (payload: string | undefined, contentType = 'application/json', credential = headersFor(route)) =>
        t.inject({ method: route.method as 'POST', url: urlOf(route), headers: { ...credential, ...(contentType ? { 'content-type': contentType } : {}) }, payload });
      const label = `${route.method} ${route.url}`;
      const raw: Array<[string, string | undefined, string?]> = [
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
      ];
      // A merchant route also takes the console's session: the same corpus through it.
      const credentials = route.auth.surface === 'merchant' ? [headersFor(route), session] : [headersFor(route)];
      for (const credential of credentials) {
        for (const [what, payload, type] of raw) {
          const res = await send(payload, type, credential);
          assertWellFormed(res, `${label} ${what}`);
          // (This suite's merchant keeps its plan's rate limit: a 429 may come first.)
          if (type !== undefined && res.statusCode !== 429) assert.equal(res.json().error?.code, 'unsupported_media_type', `${label} ${what}: 415, not ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined);

      if (route.bodySchema) {
        const valid = sample(route.bodySchema) as Record<string, unknown>;
        assertWellFormed(await send(JSON.stringify({ ...valid, unknownField: 'ignored' })), `${label} unknown field`);
        for (const m of mutations(route.bodySchema)) assertWellFormed(await send(JSON.stringify(m.body)), `${label} ${m.label}`);
      }
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (body) => {
          assertWellFormed(await send(JSON.stringify(body)), `${label} random`);
        }),
        { numRuns: 25 },
      );
    }
  });
});

// Names that, used as a key of a plain object, find a member of Object.prototype instead of
// nothing: `"toString": 1` in a body was a 500 on eight routes (issue 15, point 3). A body may
// not use them as keys at any depth (a 422 naming the field); as query-string keys or values,
// header names or values, they are just text.
const HOSTILE_NAMES = [...new Set(['__proto__', 'constructor', 'prototype', ...Object.getOwnPropertyNames(Object.prototype)])];
/** Headers that carry the credential: a hostile value there is only ever a 401. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-sdcid', 'terminal-id']);

type PropertySchema = { type?: unknown; pattern?: unknown; format?: unknown };
const propertiesOf = (schema: unknown) => (schema as { properties?: Record<string, PropertySchema> } | undefined)?.properties ?? {};
const propertyNames = (schema: unknown) => Object.keys(propertiesOf(schema));
/** Query parameters that take any text: a name sent there gets past validation, into the route. */
const freeTextNames = (schema: unknown) =>
  Object.entries(propertiesOf(schema))
    .filter(([, p]) => p.type === 'string' && p.pattern === undefined && p.format === undefined)
    .map(([name]) => name);

function assertRefusesKey(res: LightMyRequestResponse, field: string, label: string): void {
  assert.equal(res.statusCode, 422, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  assertWellFormed(res, label);
  const errors = (res.json() as { errors?: Record<string, string[]> }).errors ?? {};
  assert.ok(Object.hasOwn(errors, field), `${label}: no error for ${field} in ${res.body.slice(0, 300)}`);
  assert.match(errors[field]![0]!, /is not accepted/, label);
}

describe(`keys named like Object.prototype properties (${engineName})`, () => {
  let f: Fixture;

  before(async () => {
    f = await startFixture({ unlimited: true, catalogue: true });
  });
  after(() => f.t.close());

  const send = (route: CatalogedRoute, options: { query?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
    f.t.inject({
      method: route.method as 'GET',
      url: f.urlOf(route) + (options.query ? `?${options.query}` : ''),
      headers: { ...f.headersFor(route), ...options.headers, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
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
          assertRefusesKey(await send(route, { body: withKeyAt(valid, path, name) }), field, `${route.method} ${route.url} ${field}`);
        }
      }
    }
  });

  test('as query-string keys and values and as header names and values, they never yield a 5xx', async () => {
    const enc = encodeURIComponent;
    const tried = new Set<string>();
    for (const route of f.t.app.routeCatalog) {
      const label = `${route.method} ${route.url}`;
      const reads = route.method === 'GET';
      const valueHeaders = propertyNames(route.headersSchema).filter((h) => !CREDENTIAL_HEADERS.has(h));
      for (const name of HOSTILE_NAMES) {
        // A route that is not a read also gets a body the parser refuses, so that it changes nothing
        // (DELETE /tokens/1 would revoke the credential the rest of the test uses).
        const body = reads ? undefined : { [name]: 1 };
        const query = [`${enc(name)}=${enc(name)}`, ...propertyNames(route.querySchema).map((q) => `${enc(q)}=${enc(name)}`)].join('&');
        const res = await send(route, { query, headers: { [name]: name }, ...(body ? { body } : {}) });
        if (reads) assertWellFormed(res, `${label} query and header name ${name}`, route);
        else assertRefusesKey(res, name, `${label} query and header name ${name}`);
        // Every parameter above was the name, so one with a type or a list of values refused it
        // (422): once more with only the free-text ones, which reach the route.
        const freeText = freeTextNames(route.querySchema);
        if (reads && freeText.length > 0) {
          const textQuery = [`${enc(name)}=${enc(name)}`, ...freeText.map((q) => `${enc(q)}=${enc(name)}`)].join('&');
          assertWellFormed(await send(route, { query: textQuery }), `${label} free-text query values ${name}`, route);
        }

        if (valueHeaders.length > 0) {
          const headers = Object.fromEntries(valueHeaders.map((h) => [h, name]));
          assertWellFormed(await send(route, { headers, ...(body ? { body } : {}) }), `${label} header values ${name}`, route);
        }
        // Credentials named like the names: a 401, once per surface.
        if (reads && !tried.has(`${route.auth.surface} ${name}`) && route.auth.surface !== 'public') {
          tried.add(`${route.auth.surface} ${name}`);
          const res = await f.t.inject({
            method: 'GET',
            url: f.urlOf(route),
            headers: { authorization: `Bearer ${name}`, 'x-api-key': name, 'x-sdcid': name, 'terminal-id': name },
          });
          assertWellFormed(res, `${label} credentials ${name}`);
          assert.ok(res.statusCode >= 400, `${label} credentials ${name}: ${res.statusCode}`);
          // A session cookie named like the names (taken by the merchant and account surfaces): a 401.
          const cookie = await f.t.inject({ method: 'GET', url: f.urlOf(route), headers: { cookie: `fg_session=${encodeURIComponent(name)}; ${name}=${name}` } });
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
  });
});
