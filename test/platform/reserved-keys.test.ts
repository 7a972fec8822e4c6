import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { pullDueBranches } from '../../src/domain/feeds/imports/service.ts';
import { engineName } from '../helpers/db.ts';
import { bearer } from '../helpers/app.ts';
import { invoiceBody, mintKey, nextNumber, sdcIdOf, zmPost } from '../fiscal/compat/helpers.ts';
import { CLASS_CODE, saleBody, startHarness, type Harness } from '../helpers/harness.ts';
import { eventually } from '../helpers/poll.ts';

// Issue 15, point 3: a body with an unknown field named like a built-in object method
// (`"toString": 1`) answered 500 internal_error on the eight routes whose bodies refuse unknown
// fields: the field's error was collected in a plain object, where `toString` already "existed".
// Such a key is now refused while the body is parsed, on every route: a 422 naming the field.

const HOUR_MS = 3_600_000;

function expectRefusedKey(res: LightMyRequestResponse, field: string, label: string): void {
  assert.equal(res.statusCode, 422, `${label}: ${res.body}`);
  const body = res.json();
  assert.equal(typeof body.message, 'string');
  assert.ok(Object.hasOwn(body.errors, field), `${label}: errors.${field} in ${res.body}`);
  assert.match(body.errors[field][0], new RegExp(`^The ${field.replace(/\./g, '\\.')} field is not accepted: .*Remove it`));
}

describe(`body keys named like Object.prototype properties (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 3_000 } });
  });
  after(() => h.close());

  const send = (method: 'POST' | 'PATCH', url: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.t.inject({
      method,
      url,
      headers: { ...bearer(h.merchant.token), 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
    });

  test('each of the eight routes answers 422 naming "toString", and succeeds with the same body without it', async () => {
    const sale = (await send('POST', '/api/v1/sales', saleBody({}, [{ quantity: 4 }]))).json().data;
    assert.equal(sale.status, 'uploaded', sale.lastError);
    const item = await send('POST', '/api/v1/items', { name: 'Cooking oil 20L', itemClsCd: CLASS_CODE });
    assert.equal(item.statusCode, 201, item.body);
    const itemCode = item.json().data.itemCode as string;
    // Customs lines at the authority, pulled now (the workers may have pulled this branch already).
    h.sim.control.feedImports(h.merchant.tpin, '000', [
      { itemNm: 'Rice 50kg', qty: 12 },
      { itemNm: 'Sugar 50kg', qty: 5 },
    ]);
    const devices = h.ctx.db.selectFrom('devices').select('id').where('tenant_id', '=', h.merchant.tenantId);
    await h.ctx.db
      .updateTable('feed_pulls')
      .set({ next_pull_at: new Date(0) })
      .where('feed', '=', 'imports')
      .where('device_id', 'in', devices)
      .execute();
    const lines = await eventually(async () => {
      await pullDueBranches(h.ctx, HOUR_MS);
      const data = (await h.get('/api/v1/import-items')).json().data as Array<{ id: number }>;
      return data.length === 2 ? data : undefined;
    }, 'the customs lines');

    const cases: Array<[method: 'POST' | 'PATCH', url: string, body: Record<string, unknown>, status: number]> = [
      ['POST', '/api/v1/sales', saleBody(), 201],
      [
        'POST',
        `/api/v1/sales/${sale.id}/debit-note`,
        { reasonCode: '01', items: [{ name: 'Delivery', classificationCode: CLASS_CODE, quantity: 1, price: 20 }] },
        201,
      ],
      ['POST', `/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '03', items: [{ line: 1, quantity: 1 }] }, 201],
      ['POST', '/api/v1/customers', { name: 'Mwape Banda' }, 201],
      ['POST', '/api/v1/items', { name: 'Sugar 50kg', itemClsCd: CLASS_CODE }, 201],
      ['PATCH', `/api/v1/items/${itemCode}`, { defaultPrice: 250 }, 200],
      ['POST', `/api/v1/import-items/${lines[0]!.id}/approve`, { itemCode }, 200],
      ['POST', `/api/v1/import-items/${lines[1]!.id}/reject`, { remark: 'Damaged' }, 200],
    ];
    for (const [method, url, body, status] of cases) {
      const label = `${method} ${url}`;
      expectRefusedKey(await send(method, url, { ...body, toString: 1 }), 'toString', label);
      const ok = await send(method, url, body);
      assert.equal(ok.statusCode, status, `${label} without the key: ${ok.body}`);
    }
  });

  test('the key is named wherever it is, __proto__ included; several are all named', async () => {
    const nested = await send('POST', '/api/v1/sales', {
      ...saleBody(),
      customer: { name: 'A', valueOf: 1 },
      items: [{ ...(saleBody().items as object[])[0], constructor: 'x' }],
    });
    assert.equal(nested.statusCode, 422, nested.body);
    assert.deepEqual(Object.keys(nested.json().errors), ['items.0.constructor', 'customer.valueOf']);

    // JSON.parse makes `__proto__` an own key like any other (an escaped spelling too); it is named, not "invalid JSON".
    const proto = await h.t.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { ...bearer(h.merchant.token), 'content-type': 'application/json' },
      payload: '{"name":"Mwape Banda","__pro\\u0074o__":{"polluted":true}}',
    });
    expectRefusedKey(proto, '__proto__', '__proto__');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);

    // On the compat surface too, where other unknown fields are ignored.
    const till = { key: (await mintKey(h, h.merchant)).key, sdcId: await sdcIdOf(h, h.merchant) };
    const legacy = invoiceBody(nextNumber());
    expectRefusedKey(await zmPost(h, '/zm/api/Invoice', till, { ...legacy, hasOwnProperty: 1 }), 'hasOwnProperty', 'compat');
    assert.equal(
      (await zmPost(h, '/zm/api/Invoice', till, { ...legacy, SomethingNew: 1 })).statusCode,
      201,
      'other unknown fields are ignored there',
    );
  });

  test('values named like them are ordinary bad values: a 422 for the field, never a 500', async () => {
    const payment = await send('POST', '/api/v1/sales', saleBody({ paymentMethod: 'constructor' }));
    assert.equal(payment.statusCode, 422, payment.body);
    assert.ok(payment.json().errors.paymentMethod);
    const vat = await send('POST', '/api/v1/sales', saleBody({}, [{ vatCategory: 'toString' }]));
    assert.equal(vat.statusCode, 422, vat.body);
    assert.ok(vat.json().errors['items.0.vatCategory']);
    const query = await h.get('/api/v1/import-items?decision=constructor');
    assert.equal(query.statusCode, 422, query.body);
    assert.ok(query.json().errors.decision);
    const header = await h.get('/api/v1/sales', { 'x-branch': '__proto__' });
    assert.equal(header.statusCode, 422, header.body);
    assert.ok(header.json().errors['X-Branch']);
    // An Idempotency-Key is any printable text: named like them, it is just a key.
    const first = await send('POST', '/api/v1/sales', saleBody(), { 'idempotency-key': 'constructor' });
    assert.equal(first.statusCode, 201, first.body);
    const again = await send('POST', '/api/v1/sales', saleBody(), { 'idempotency-key': 'constructor' });
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().data.id, first.json().data.id);
  });
});
