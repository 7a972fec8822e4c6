// test-database: embedded only (scripts/run-tests.mjs): the document is built from the routes, not the database.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { serializeOpenApi } from '../../src/app/api-reference.ts';
import type { RouteAuth } from '../../src/domain/kernel/http-access/auth.ts';
import { errorsOfRoute } from '../../src/domain/kernel/http-access/route-errors.ts';
import { ERROR_CODES } from '../../src/platform/errors/codes.ts';
import { TEST_ADMIN_TOKEN, bearer } from '../helpers/app.ts';
import { seedSignedInUser } from '../helpers/accounts.ts';
import { engineName } from '../helpers/db.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  ResponseChecker,
  operationsOf,
  requestExample,
  servedDocument,
  type DocumentedOperation,
  type OpenApiDocument,
} from '../helpers/openapi.ts';

// What a client generator and the reference page rely on: every operation is named, described,
// secured and answers only what it documents, in the documented shapes. The document itself is
// checked (valid OpenAPI 3.1) in app.test.ts; its request examples are sent in openapi-examples.test.ts.

const COMMITTED = new URL('../../docs/openapi.json', import.meta.url);

/** The security requirement each auth surface must declare (spec part 5). */
function expectedSecurity(auth: RouteAuth): Array<Record<string, string[]>> {
  switch (auth.surface) {
    case 'merchant': // a tenant token, or the console's session cookie
      return [{ tenantToken: [] }, { sessionCookie: [] }];
    case 'partner':
      return [{ partnerKey: [] }];
    case 'compat':
      return auth.branch === 'none' ? [{ fiscalisationKey: [] }] : [{ fiscalisationKey: [], sdcId: [] }];
    case 'admin':
      return [{ adminToken: [] }];
    case 'account':
      return [{ sessionCookie: [] }];
    case 'public':
    case 'till_login':
      return [];
  }
}

/** The error statuses every operation of a surface can answer (spec 4: 401, 402, 403, 429). */
const SURFACE_STATUSES: Record<RouteAuth['surface'], number[]> = {
  merchant: [401, 402, 403, 429],
  partner: [401, 402, 403, 429],
  compat: [401, 402, 403, 429],
  till_login: [401, 402, 403, 429],
  admin: [401],
  // 403 on writes (CSRF) and on routes for an owner or admin: expectedStatuses
  account: [401, 429],
  public: [],
};
const READS_A_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function expectedStatuses(op: DocumentedOperation): number[] {
  const statuses = [...SURFACE_STATUSES[op.route.auth.surface], 500];
  const auth = op.route.auth;
  if (auth.surface === 'account' && (op.method !== 'GET' || auth.role !== 'viewer')) statuses.push(403);
  if (READS_A_BODY.has(op.method)) statuses.push(400, 413, 415, 422);
  if (op.path.includes('{')) statuses.push(404);
  if (op.route.querySchema || op.route.headersSchema) statuses.push(422);
  return statuses;
}

const schemaRefs = (schema: unknown): string[] => JSON.stringify(schema).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];

describe(`the OpenAPI document (${engineName})`, () => {
  let h: Harness;
  let doc: OpenApiDocument;
  let ops: DocumentedOperation[];
  let credentials: Record<RouteAuth['surface'], Record<string, string>>;

  before(async () => {
    h = await startHarness({ workers: false, config: { saleWaitMs: 0 } });
    doc = await servedDocument(h.t.app);
    ops = operationsOf(doc, h.t.app);
    const minted = await h.t.inject({
      method: 'POST',
      url: `/api/v1/tenants/${h.merchant.tenantId}/api-keys`,
      headers: bearer(h.merchant.partnerSecret),
      payload: {},
    });
    assert.equal(minted.statusCode, 201, minted.body);
    const device = await h.ctx.db
      .selectFrom('devices')
      .select('sdc_id')
      .where('tenant_id', '=', h.merchant.tenantId)
      .executeTakeFirstOrThrow();
    credentials = {
      merchant: bearer(h.merchant.token),
      partner: bearer(h.merchant.partnerSecret),
      compat: { 'x-api-key': minted.json().data.key, 'x-sdcid': device.sdc_id! },
      admin: bearer(TEST_ADMIN_TOKEN),
      till_login: {},
      public: {},
      account: (await seedSignedInUser(h.ctx, h.merchant.tenantId)).headers,
    };
  });
  after(() => h.close());

  test('every operation has a unique camelCase operationId, a summary, tags, its security requirement, a 2xx and a request example', () => {
    assert.ok(ops.length >= 60, `${ops.length} operations`);
    const seen = new Set<string>();
    for (const { name, operation, route } of ops) {
      const id = operation.operationId;
      assert.match(id ?? '', /^[a-z][a-zA-Z0-9]*$/, `${name}: operationId ${id}`);
      assert.ok(!seen.has(id!), `${name}: operationId ${id} is used twice`);
      seen.add(id!);
      assert.ok(operation.summary?.trim(), `${name}: summary`);
      assert.ok(operation.tags && operation.tags.length > 0, `${name}: tags`);
      assert.deepEqual(operation.security, expectedSecurity(route.auth), `${name}: security for the ${route.auth.surface} surface`);
      assert.ok(
        Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status)),
        `${name}: a 2xx response`,
      );
      if (operation.requestBody) assert.ok(requestExample(operation) !== undefined, `${name}: an example request body`);
    }
    const schemes = doc.components.securitySchemes as Record<string, { type: string; in?: string; name?: string }>;
    assert.deepEqual(schemes.sdcId, { ...schemes.sdcId, type: 'apiKey', in: 'header', name: 'X-SdcId' });
    assert.deepEqual(schemes.fiscalisationKey, { ...schemes.fiscalisationKey, type: 'apiKey', in: 'header', name: 'X-Api-Key' });
  });

  test('every operation lists the error responses of its surface, its body and its path, in the shared error shapes', () => {
    for (const op of ops) {
      const documented = Object.keys(op.operation.responses).map(Number);
      for (const status of expectedStatuses(op))
        assert.ok(documented.includes(status), `${op.name} (${op.route.auth.surface}) does not list ${status}`);
      for (const [status, response] of Object.entries(op.operation.responses)) {
        if (Number(status) < 400) continue;
        const refs = schemaRefs(response.content?.['application/json']?.schema);
        assert.ok(refs.length > 0, `${op.name} ${status}: the body is a shared error shape`);
        for (const ref of refs) assert.ok(doc.components.schemas[ref.split('/').pop()!], `${op.name} ${status}: ${ref} exists`);
        if (status === '404' && op.path.includes('{'))
          assert.ok(refs.includes('#/components/schemas/NotFound'), `${op.name}: 404 is a plain not-found`);
        if (status === '422') assert.ok(refs.includes('#/components/schemas/ValidationError'), `${op.name}: 422 has the validation shape`);
        if (op.path.startsWith('/zm/') || op.path.startsWith('/api/ApiKey/')) {
          assert.ok(refs.includes('#/components/schemas/LegacyWrappedError'), `${op.name} ${status}: the wrapped dialect's envelope`);
        }
      }
    }
  });

  test('each coded error is listed, with its meaning, under its status on the operations whose declaration implies or lists it', () => {
    let listed = 0;
    for (const op of ops) {
      for (const code of errorsOfRoute(op.route)) {
        const entry = ERROR_CODES[code];
        assert.ok(
          op.operation.responses[entry.status]?.description.includes(`\`${code}\`: ${entry.meaning}`),
          `${op.name}: ${entry.status} lists ${code}`,
        );
        listed++;
      }
    }
    assert.ok(listed > ops.length * 3, `${listed} codes listed over ${ops.length} operations`);
  });

  test('what each operation answers — without a credential, with one, and to a body it refuses — is documented, in the documented shape', async () => {
    const checker = new ResponseChecker(doc);
    /** A value no resource has, of the parameter's type. */
    const absentPath = (op: DocumentedOperation) =>
      op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
        const type = op.operation.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema?.type;
        return type === 'integer' ? '999999' : 'ABSENT999';
      });
    const send = async (
      op: DocumentedOperation,
      what: string,
      headers: Record<string, string>,
      body?: { payload: string; type: string },
    ) => {
      const options: InjectOptions = {
        method: op.method as InjectOptions['method'],
        url: absentPath(op),
        headers: { ...headers, ...(body ? { 'content-type': body.type } : {}) },
      };
      if (body) options.payload = body.payload;
      checker.assertDocumented(op, await h.t.inject(options), what);
    };
    const json = (value: unknown) => ({ payload: JSON.stringify(value), type: 'application/json' });

    for (const op of ops) {
      const example = requestExample(op.operation);
      const exampleBody = example === undefined ? undefined : json(example);
      const credential = credentials[op.route.auth.surface];
      if (op.route.auth.surface !== 'public') {
        const res = await h.t.inject({
          method: op.method as InjectOptions['method'],
          url: absentPath(op),
          ...(exampleBody ? { payload: exampleBody.payload, headers: { 'content-type': exampleBody.type } } : {}),
        });
        assert.equal(res.statusCode, 401, `${op.name} without a credential: ${res.body}`);
        checker.assertDocumented(op, res, 'no credential');
      }
      // With the surface's credential, paths naming nothing and the example body: a 2xx, or a 404.
      await send(op, 'credential', credential, exampleBody);
      if (!READS_A_BODY.has(op.method)) continue;
      await send(op, 'malformed JSON', credential, { payload: '{"items": [', type: 'application/json' });
      await send(op, 'a text body', credential, { payload: 'hello', type: 'text/plain' });
      await send(op, 'a reserved key', credential, json({ constructor: 1 }));
      await send(op, 'a body over 1 MiB', credential, json({ padding: 'x'.repeat(1_100_000) }));
    }
  });

  test('docs/openapi.json is the document the code serves (run `npm run openapi` after changing the API)', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    const live = serializeOpenApi(doc);
    if (committed !== live) {
      const firstDifference = [...committed].findIndex((char, i) => char !== live[i]);
      const line = committed.slice(0, firstDifference).split('\n').length;
      assert.fail(`docs/openapi.json is out of date (first difference at line ${line}): run \`npm run openapi\` and commit the file.`);
    }
  });

  test('/docs over HTTP: titled "fiscal-gateway API", the page loads /docs/openapi.json, the other document URLs redirect there', async () => {
    await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(h.t.app.server.address() as AddressInfo).port}`;

    const page = await fetch(`${base}/docs`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<title>fiscal-gateway API<\/title>/);
    assert.doesNotMatch(html, /Swagger UI/);

    const script = await (await fetch(`${base}/docs/static/swagger-initializer.js`)).text();
    assert.match(script, /url: resolveUrl\('\.\/openapi\.json'\)/, 'the page reads the canonical document');
    assert.doesNotMatch(script, /resolveUrl\('\.\/json'\)/);

    for (const other of ['/docs/json', '/docs/yaml']) {
      const res = await fetch(`${base}${other}`, { redirect: 'manual' });
      assert.equal(res.status, 301, other);
      assert.equal(res.headers.get('location'), '/docs/openapi.json', other);
    }
    const canonical = await fetch(`${base}/docs/openapi.json`);
    assert.equal(canonical.status, 200);
    const served = (await canonical.json()) as OpenApiDocument;
    assert.equal(served.info.title, 'fiscal-gateway API');
    assert.deepEqual(served, doc);
  });
});
