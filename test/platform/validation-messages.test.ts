import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifySchema } from 'fastify';
import { ValidationError } from '../../src/platform/errors/errors.ts';
import { validatorCompiler, type HttpPart } from '../../src/platform/http/validation.ts';
import { bearer, seedMerchant, seedPartner, startTestApp, type TestApp } from '../helpers/app.ts';
import { engineName } from '../helpers/db.ts';
import { sample } from '../helpers/schema-sample.ts';

// What an integrator reads when a request is refused: one sentence per field that names the field
// and says what to send instead. Every schema of every route is walked with broken values.

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; anyOf?: Schema[]; items?: Schema };

const WRONG: unknown[] = [null, 12345, -1, 0.123456, true, 'x', '', [], [1], {}, 'not-a-date'];

/** The sample with the value at `path` replaced (or removed when `value` is undefined). */
function withValue(base: unknown, path: string[], value: unknown): unknown {
  const root = structuredClone(base) as Record<string, unknown>;
  let node: Record<string, unknown> = root;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!next || typeof next !== 'object') return undefined;
    node = next as Record<string, unknown>;
  }
  if (value === undefined) delete node[path[path.length - 1]!];
  else node[path[path.length - 1]!] = value;
  return root;
}

function* brokenValues(schema: unknown): Generator<{ label: string; value: unknown }> {
  const base = sample(schema);
  function* walk(s: Schema | undefined, path: string[], value: unknown): Generator<{ label: string; value: unknown }> {
    const props = s?.properties ?? s?.anyOf?.find((x) => x.properties)?.properties;
    if (!props || path.length > 3) return;
    for (const [key, child] of Object.entries(props)) {
      const at = [...path, key];
      for (const wrong of WRONG) {
        const broken = withValue(base, at, wrong);
        if (broken !== undefined) yield { label: `${at.join('.')}=${JSON.stringify(wrong)}`, value: broken };
      }
      const removed = withValue(base, at, undefined);
      if (removed !== undefined) yield { label: `${at.join('.')} removed`, value: removed };
      const childValue = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      if (Array.isArray(childValue) && child.items) yield* walk(child.items, [...at, '0'], childValue[0]);
      else yield* walk(child, at, childValue);
    }
  }
  yield* walk(schema as Schema, [], base);
}

/** A message that names its field and says what is expected. */
function assertClear(field: string, messages: string[], where: string): void {
  assert.equal(messages.length, 1, `${where}: one sentence for ${field}, got ${JSON.stringify(messages)}`);
  const message = messages[0]!;
  assert.ok(message.length > 0, `${where}: empty message for ${field}`);
  assert.ok(message.includes(field), `${where}: "${message}" does not name ${field}`);
  assert.match(message, /must |is required|is not accepted/, `${where}: "${message}" does not say what is expected`);
  assert.doesNotMatch(
    message,
    /must be \.|must be ,|format is invalid|field is invalid\.$|must be or |must be null\.$/,
    `${where}: "${message}"`,
  );
}

describe(`validation messages say what to send instead (${engineName})`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('every body, query string and header schema of every route, walked with broken values', () => {
    let checked = 0;
    for (const route of t.app.routeCatalog) {
      const parts: Array<[HttpPart, unknown]> = [
        ['body', route.bodySchema],
        ['querystring', route.querySchema],
        ['headers', route.headersSchema],
      ];
      for (const [part, schema] of parts) {
        if (!schema) continue;
        const validate = validatorCompiler({ schema: schema as FastifySchema, method: route.method, url: route.url, httpPart: part }) as (
          data: unknown,
        ) => { error?: unknown };
        for (const { label, value } of brokenValues(schema)) {
          const result = validate(value);
          if (!result.error) continue;
          assert.ok(result.error instanceof ValidationError);
          const where = `${route.method} ${route.url} ${part} ${label}`;
          const fields = Object.entries(result.error.errors);
          assert.ok(fields.length > 0, where);
          for (const [field, messages] of fields) assertClear(field, messages, where);
          assert.ok(result.error.message.startsWith(fields[0]![1][0]!), `${where}: the top message leads with the first field`);
          if (fields.length > 1)
            assert.match(result.error.message, new RegExp(`\\(and ${fields.length - 1} more fields? with errors\\)$`), where);
          checked++;
        }
      }
    }
    assert.ok(checked > 500, `checked ${checked} refusals`);
  });

  test('the messages an integrator meets first on POST /api/v1/sales', async () => {
    const partner = await seedPartner(t.ctx);
    const { token } = await seedMerchant(t.ctx, partner);
    const post = (payload: object, headers: Record<string, string> = {}) =>
      t.inject({ method: 'POST', url: '/api/v1/sales', headers: { ...bearer(token), ...headers }, payload });
    const line = { name: 'Bread', classificationCode: '50221200', quantity: 1, price: 10 };

    const res = await post({ items: [line], paymentMethod: '99', customer: { name: 'A', tpin: '12' }, occurredAt: 'yesterday' });
    assert.equal(res.statusCode, 422);
    const { message, errors } = res.json() as { message: string; errors: Record<string, string[]> };
    assert.deepEqual(errors.paymentMethod, ['The paymentMethod field must be one of 01, 02, 03, 04, 05, 06, 07 or 08.']);
    assert.deepEqual(errors['customer.tpin'], ['The customer.tpin field must be 10 digits, e.g. 1002623668, or null.']);
    assert.deepEqual(errors.occurredAt, [
      'The occurredAt field must be an ISO 8601 date-time with its time zone, e.g. 2026-11-24T09:30:00Z.',
    ]);
    assert.match(message, /^The \S+ field .* \(and 2 more fields with errors\)$/);

    const header = await post({ items: [line] }, { 'x-branch': '1' });
    assert.deepEqual(header.json().errors, {
      'X-Branch': [
        "The X-Branch field must be a branch id in the merchant's authority's form: 3 digits for ZRA (e.g. 000), 2 for KRA (e.g. 00).",
      ],
    });

    const category = await post({ items: [{ ...line, vatCategory: 'Z' }] });
    const [sentence] = category.json().errors['items.0.vatCategory'] as string[];
    assert.match(sentence!, /^The items\.0\.vatCategory field must be one of A, B, .* or [A-Z0-9]+\.$/);
  });
});
