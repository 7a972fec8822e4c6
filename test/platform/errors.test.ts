import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineName } from '../helpers/db.ts';
import { TEST_ADMIN_TOKEN, bearer, seedPartner, startTestApp, type TestApp } from '../helpers/app.ts';

describe(`error shapes (${engineName})`, () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await startTestApp();
    key = (await seedPartner(t.ctx)).secret;
  });
  after(() => t.close());

  const post = (payload: string | undefined, contentType = 'application/json') =>
    t.inject({ method: 'POST', url: '/api/v1/tenants', headers: { ...bearer(key), 'content-type': contentType }, payload });

  test('schema failures are 422 {message, errors: {field: [...]}} naming every field', async () => {
    const res = await post(JSON.stringify({ tpin: '12', plan: 'platinum', email: 'nope' }));
    assert.equal(res.statusCode, 422);
    const body = res.json();
    assert.equal(typeof body.message, 'string');
    assert.deepEqual(Object.keys(body.errors).sort(), ['email', 'name', 'plan', 'tpin']);
    assert.deepEqual(body.errors.name, ['The name field is required.']);
  });

  test('a number is never coerced from a string in a body', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/partner/keys',
      headers: bearer(key),
      payload: { name: 1, scopes: 'tenants:read' },
    });
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.name && res.json().errors.scopes);
  });

  test('malformed JSON is a coded 400; a wrong content type 415; an oversized body 413', async () => {
    const bad = await post('{"name":');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.code, 'invalid_json');
    const media = await post('name=x', 'application/x-www-form-urlencoded');
    assert.equal(media.statusCode, 415);
    assert.equal(media.json().error.code, 'unsupported_media_type');
    const text = await post('{"name":"x"}', 'text/plain');
    assert.equal(text.statusCode, 415, 'text/plain is not JSON either (it was a 422 about the body)');
    assert.equal(text.json().error.code, 'unsupported_media_type');
    const big = await post(JSON.stringify({ name: 'x'.repeat(1_100_000) }));
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().error.code, 'payload_too_large');
  });

  test('an empty JSON body counts as no body', async () => {
    const res = await post('');
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.body);
  });

  test('NUL characters are refused with the field named, in bodies and query strings', async () => {
    const res = await post(JSON.stringify({ name: 'a\u0000b', tpin: '1234567890' }));
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.name);
    const q = await t.inject({ method: 'GET', url: '/api/v1/tenants?page=%00', headers: bearer(key) });
    assert.equal(q.statusCode, 422);
  });

  test('a body of 20,000 unknown keys names the first 20 and counts the rest; a 100 KB key is named by its end: the answer stays small', async () => {
    const tenant = await post(JSON.stringify({ name: 'Mwila Stores', tpin: '1002345670' }));
    assert.equal(tenant.statusCode, 201, tenant.body);
    // A body that refuses unknown fields.
    const patch = (payload: string) =>
      t.inject({
        method: 'PATCH',
        url: `/api/v1/tenants/${tenant.json().data.id}`,
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload,
      });
    const many = await patch(JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`key${i}`, i]))));
    assert.equal(many.statusCode, 422);
    const body = many.json();
    assert.equal(Object.keys(body.errors).length, 20, many.body.slice(0, 500));
    assert.deepEqual(body.errors.key0, [
      'The key0 field is not accepted by this endpoint: remove it (the reference at /docs lists the fields).',
    ]);
    assert.match(body.message, /^The key0 field is not accepted .* \(and 19999 more fields with errors; errors names the first 20\)$/);
    assert.ok(many.body.length < 5_000, `${many.body.length} bytes`);

    const long = await patch(JSON.stringify({ ['k'.repeat(100_000) + 'end']: 1 }));
    assert.equal(long.statusCode, 422);
    const [field] = Object.keys(long.json().errors) as [string];
    assert.equal(field, `…${'k'.repeat(196)}end`);
    assert.ok(long.body.length < 2_000, `${long.body.length} bytes`);
  });

  test('a path id that cannot exist is a plain 404', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/tenants/abc', headers: bearer(key) });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(Object.keys(res.json()), ['message']);
    const huge = await t.inject({ method: 'GET', url: '/api/v1/tenants/99999999999999999999', headers: bearer(key) });
    assert.equal(huge.statusCode, 404);
  });

  test('a bad page number is a 422 naming page', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/tenants?page=0', headers: bearer(key) });
    assert.equal(res.statusCode, 422);
    assert.ok(res.json().errors.page);
  });

  test('a body that is not JSON says where it broke, what was there and what was expected', async () => {
    const missingValue = await post('{\n  "name": "Mwila Stores",\n  "tpin": }');
    assert.equal(missingValue.statusCode, 400);
    assert.deepEqual(missingValue.json(), {
      error: {
        code: 'invalid_json',
        message: "The request body is not valid JSON: unexpected '}' at line 3, column 11; expected a value.",
      },
    });
    const cut = await post('{"name":');
    assert.equal(cut.json().error.message, 'The request body is not valid JSON: the body ends at line 1, column 9; expected a value.');
    const singleQuotes = await post("{'name': 'x'}");
    assert.match(
      singleQuotes.json().error.message,
      /unexpected 'name' at line 1, column 2; expected strings and property names in double quotes/,
    );
    const trailingComma = await post('{"name": "x",}');
    assert.match(trailingComma.json().error.message, /unexpected '}' at line 1, column 14; expected a property name in double quotes/);
    const lineBreak = await post('{"name": "Mwila\nStores"}');
    assert.match(lineBreak.json().error.message, /a line break inside a string at line 1, column 16/);
  });

  test('a known path asked with a method it does not take is a 405 with Allow naming the methods it takes', async () => {
    const res = await t.inject({ method: 'DELETE', url: '/api/v1/tenants', headers: bearer(key) });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, HEAD, POST');
    assert.deepEqual(res.json(), {
      error: {
        code: 'method_not_allowed',
        message: '/api/v1/tenants does not take DELETE: use GET or POST (the Allow header lists the methods it takes).',
      },
    });
    const withId = await t.inject({ method: 'PUT', url: '/api/v1/tenants/5', headers: bearer(key) });
    assert.equal(withId.statusCode, 405, 'a path with a parameter is matched as the router matches it');
    assert.equal(withId.headers.allow, 'GET, HEAD, PATCH');
    const operator = await t.inject({ method: 'POST', url: '/admin/v1/audit', headers: bearer(TEST_ADMIN_TOKEN) });
    assert.equal(operator.statusCode, 405);
    assert.equal(operator.headers.allow, 'GET, HEAD');
    const legacy = await t.inject({ method: 'POST', url: '/zm/api/Branches' });
    assert.equal(legacy.statusCode, 404, 'the legacy till dialect keeps its plain 404');
    assert.deepEqual(Object.keys(legacy.json()), ['message']);
  });

  test('an unknown route names the closest route when the path is a slip of one', async () => {
    const typo = await t.inject({ method: 'GET', url: '/api/v1/tenant', headers: bearer(key) });
    assert.equal(typo.statusCode, 404);
    assert.deepEqual(typo.json(), { message: 'The route GET /api/v1/tenant does not exist. Did you mean GET /api/v1/tenants?' });
    const inside = await t.inject({ method: 'POST', url: '/api/v1/tenants/5/devics', headers: bearer(key) });
    assert.equal(
      inside.json().message,
      'The route POST /api/v1/tenants/5/devics does not exist. Did you mean POST /api/v1/tenants/{tenant}/devices?',
    );
    const nothingClose = await t.inject({ method: 'GET', url: '/api/v1/completely-else', headers: bearer(key) });
    assert.equal(
      nothingClose.json().message,
      'The route GET /api/v1/completely-else does not exist. The reference at /docs lists the routes.',
    );
  });

  test('an unknown query parameter is a 422 naming it, the one meant and those the operation takes', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/partner/documents?stauts=failed', headers: bearer(key) });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json().errors, {
      stauts: [
        'The stauts query parameter is not accepted by this endpoint: did you mean status? It takes page, status, resolved, tenant and branch.',
      ],
    });
    const unrelated = await t.inject({ method: 'GET', url: '/api/v1/tenants?page=1&cursor=abc', headers: bearer(key) });
    assert.equal(unrelated.statusCode, 422);
    assert.deepEqual(unrelated.json().errors, { cursor: ['The cursor query parameter is not accepted by this endpoint. It takes page.'] });
    const none = await t.inject({ method: 'GET', url: '/api/v1/partner/keys?verbose=1', headers: bearer(key) });
    assert.equal(none.statusCode, 422);
    assert.deepEqual(none.json().errors, {
      verbose: ['The verbose query parameter is not accepted: this endpoint takes no query parameters.'],
    });
    const known = await t.inject({ method: 'GET', url: '/api/v1/partner/documents?status=failed&page=1', headers: bearer(key) });
    assert.equal(known.statusCode, 200);
  });

  test('an unknown body field names the field meant when it is close', async () => {
    const created = await post(JSON.stringify({ name: 'Mwila Stores', tpin: '1002345678' }));
    assert.equal(created.statusCode, 201);
    const res = await t.inject({
      method: 'PATCH',
      url: `/api/v1/tenants/${created.json().data.id}`,
      headers: bearer(key),
      payload: { timezon: 'Africa/Lusaka', colour: 'blue' },
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json().errors, {
      timezon: ['The timezon field is not accepted by this endpoint: did you mean timezone?'],
      colour: ['The colour field is not accepted by this endpoint: remove it (the reference at /docs lists the fields).'],
    });
  });
});

describe('requests the HTTP parser refuses', () => {
  test('a malformed request line or header still gets a coded JSON body', async () => {
    const t = await startTestApp();
    try {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = new URL(address);
      const { connect } = await import('node:net');
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write('POST /api/v1/tenants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n(sign in)\r\n\r\n'),
        );
        let data = '';
        socket.on('data', (d) => (data += d));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      assert.match(raw, /^HTTP\/1\.1 400/);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'bad_request');
    } finally {
      await t.close();
    }
  });
});
