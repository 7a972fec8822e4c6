import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { CatalogedRoute } from '../../src/http/auth.ts';
import { registerDevice } from '../../src/modules/provisioning/devices.ts';
import { mintApiKey } from '../../src/modules/provisioning/tenant-credentials.ts';
import { engineName } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { markInitialised } from '../helpers/credentials.ts';
import { mutations, sample } from '../helpers/schema-sample.ts';

// Every route that takes a body is sent malformed JSON, wrong content types, non-objects,
// wrong types, huge strings, unknown and missing fields, with a valid credential so that
// validation really runs. Every answer must be a 4xx (or a 2xx) in one of the spec's shapes.

function assertWellFormed(res: LightMyRequestResponse, label: string): void {
  assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
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

describe(`bad input never yields a 5xx (${engineName})`, () => {
  let t: TestApp;
  let headersFor: (route: CatalogedRoute) => Record<string, string>;
  let tenantId: number;

  before(async () => {
    t = await startTestApp();
    const m = await seedMerchant(t.ctx);
    tenantId = m.tenant.id;
    const device = await registerDevice(t.ctx.db, { type: 'cli' }, m.tenantRow, { deviceSerial: 'FUZZ', branch: '000', vsdcBaseUrl: 'http://127.0.0.1:9/vsdc' });
    await markInitialised(t.ctx, device.id, 'SDC-FUZZ-0001');
    const wrapped = await mintApiKey(t.ctx.db, { type: 'cli' }, m.tenantRow, { dialect: 'wrapped' });
    headersFor = (route): Record<string, string> => {
      switch (route.auth.surface) {
        case 'partner':
          return bearer(m.partner.secret);
        case 'merchant':
          return bearer(m.token);
        case 'compat':
          return { 'x-api-key': route.url.includes('Invoice') ? wrapped.key : m.apiKey, 'x-sdcid': 'SDC-FUZZ-0001' };
        case 'admin':
          return bearer(TEST_ADMIN_TOKEN);
        default:
          return {};
      }
    };
  });
  after(() => t.close());

  const urlOf = (route: CatalogedRoute) => route.url.replace(':tenant', String(tenantId)).replace(':branch', '000').replace(/:[A-Za-z]+/g, '1');

  test('every body-taking route survives the fixed corpus and random JSON', async () => {
    const routes = t.app.routeCatalog.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    assert.ok(routes.length > 5);
    for (const route of routes) {
      const send = (payload: string | undefined, contentType = 'application/json') =>
        t.inject({ method: route.method as 'POST', url: urlOf(route), headers: { ...headersFor(route), ...(contentType ? { 'content-type': contentType } : {}) }, payload });
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
      for (const [what, payload, type] of raw) assertWellFormed(await send(payload, type), `${label} ${what}`);
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
