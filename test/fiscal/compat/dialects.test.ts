import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { engineName } from '../../helpers/db.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/poll.ts';
import {
  assertWrappedFailure,
  invoiceBody,
  mintKey,
  nextNumber,
  postInvoice,
  sdcIdOf,
  tillHeaders,
  unwrap,
  zmGet,
  type Till,
} from './helpers.ts';

describe(`compat surface: bare and wrapped dialects (${engineName})`, () => {
  let h: Harness;
  let bare: Till;
  let wrapped: Till;
  let wrappedTenantKey: Till;

  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 1_000 } });
    const sdcId = await sdcIdOf(h, h.merchant);
    bare = { key: (await mintKey(h, h.merchant, { branch: '000' })).key, sdcId };
    wrapped = { key: (await mintKey(h, h.merchant, { branch: '000', dialect: 'wrapped' })).key, sdcId };
    wrappedTenantKey = { key: (await mintKey(h, h.merchant, { dialect: 'wrapped' })).key, sdcId };
  });
  after(() => h.close());

  const send = (till: Till, payload: string, contentType = 'application/json') =>
    h.t.inject({ method: 'POST', url: '/zm/api/Invoice', headers: tillHeaders(till, { 'content-type': contentType }), payload });

  test('every success is {success: true, message: "OK", data: <the bare payload>} with the same status', async () => {
    for (const url of ['/zm/api/TaxCodes', '/zm/api/Branches']) {
      const plain = await zmGet(h, url, bare);
      const enveloped = await zmGet(h, url, wrapped);
      assert.equal(enveloped.statusCode, plain.statusCode);
      assert.deepEqual(unwrap(enveloped), plain.json(), url);
    }
    const tenantBranches = await zmGet(h, '/zm/api/Branches', { key: wrappedTenantKey.key, sdcId: undefined });
    assert.equal((unwrap(tenantBranches) as unknown[]).length, 1);

    const number = nextNumber('WRAP');
    const created = await postInvoice(h, wrapped, invoiceBody(number));
    assert.equal(created.statusCode, 201, created.body);
    const invoice = unwrap(created) as { InvoiceNumber: number; ClientInvoiceNumber: string };
    assert.equal(invoice.ClientInvoiceNumber, number);
    const uploaded = await eventually(async () => {
      const res = await zmGet(h, `/zm/api/Invoice/${number}`, wrapped);
      const data = unwrap(res) as { Status: string };
      return data.Status === 'uploaded' ? data : undefined;
    }, 'uploaded');
    assert.deepEqual(unwrap(await zmGet(h, `/zm/api/Signature/${invoice.InvoiceNumber}`, wrapped)), uploaded);
    // The same invoice, bare, through the bare key of the same branch.
    assert.deepEqual((await zmGet(h, `/zm/api/Invoice/${number}`, bare)).json(), uploaded);

    const replay = await postInvoice(h, wrapped, invoiceBody(number));
    assert.equal(replay.statusCode, 201);
    assert.deepEqual(unwrap(replay), uploaded);
  });

  test('every failure keeps its status and every field of the bare error, plus success: false and httpCode', async () => {
    const cases: Array<[string, (till: Till) => Promise<LightMyRequestResponse>, number]> = [
      [
        'validation',
        (till) =>
          postInvoice(h, till, {
            ReceiptTypeCode: 'S',
            Items: [{ ItemName: 'x', ItemClassificationCode: '50221200', Quantity: 1, UnitPrice: 'ten' }],
          }),
        422,
      ],
      ['receipt type', (till) => postInvoice(h, till, invoiceBody(nextNumber(), { ReceiptTypeCode: 'C' })), 422],
      ['sales rule', (till) => postInvoice(h, till, invoiceBody(nextNumber(), {}, [{ Quantity: 1.00001 }])), 422],
      ['coded 422', (till) => postInvoice(h, till, invoiceBody(nextNumber(), {}, [{ ItemClassificationCode: '99999999' }])), 422],
      ['malformed JSON', (till) => send(till, '{"ClientInvoiceNumber":'), 400],
      ['media type', (till) => send(till, 'ClientInvoiceNumber=1', 'application/x-www-form-urlencoded'), 415],
      ['too large', (till) => send(till, JSON.stringify({ blob: 'x'.repeat(1_100_000) })), 413],
      ['unknown invoice', (till) => zmGet(h, '/zm/api/Invoice/NOPE', till), 404],
      ['unknown invoice number', (till) => zmGet(h, '/zm/api/Signature/424242', till), 404],
      ['impossible invoice number', (till) => zmGet(h, '/zm/api/Signature/abc', till), 404],
    ];
    for (const [what, call, status] of cases) {
      const plain = await call(bare);
      assert.equal(plain.statusCode, status, `${what}: ${plain.body}`);
      assert.equal(plain.json().success, undefined, `${what}: bare errors carry no envelope`);
      const body = assertWrappedFailure(await call(wrapped), status);
      const { success: _success, httpCode: _httpCode, ...rest } = body;
      assert.deepEqual(rest, plain.json(), `${what}: every field of the bare error`);
    }
  });

  test('a key that could be read answers its 401 wrapped; one that could not is bare', async () => {
    const otherBranch = await zmGet(h, '/zm/api/TaxCodes', { key: wrapped.key, sdcId: 'SDC-NOT-MINE' });
    assert.equal(assertWrappedFailure(otherBranch, 401).error !== undefined, true);
    const noSdcId = await zmGet(h, '/zm/api/TaxCodes', { key: wrapped.key, sdcId: undefined });
    assertWrappedFailure(noSdcId, 401);

    const revoked = await mintKey(h, h.merchant, { branch: '000', dialect: 'wrapped' });
    const del = await h.t.inject({
      method: 'DELETE',
      url: `/api/v1/tenants/${h.merchant.tenantId}/api-keys/${revoked.id}`,
      headers: { authorization: `Bearer ${h.merchant.partnerSecret}` },
    });
    assert.equal(del.statusCode, 200);
    for (const key of [revoked.key, 'pk_garbage', '']) {
      const res = await zmGet(h, '/zm/api/TaxCodes', { key, sdcId: wrapped.sdcId });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(Object.keys(res.json()), ['error'], `bare for ${key.slice(0, 8)}`);
    }
  });

  test("the envelope is the compat surface's only: partner and merchant answers are unchanged", async () => {
    const partner = await h.t.inject({
      method: 'GET',
      url: `/api/v1/tenants/${h.merchant.tenantId}/api-keys`,
      headers: { authorization: `Bearer ${h.merchant.partnerSecret}`, 'x-api-key': wrapped.key },
    });
    assert.equal(partner.statusCode, 200);
    assert.ok(Array.isArray(partner.json().data));
    const merchant = await h.t.inject({
      method: 'GET',
      url: '/api/v1/sales/999999',
      headers: { authorization: `Bearer ${h.merchant.token}`, 'x-api-key': wrapped.key },
    });
    assert.equal(merchant.statusCode, 404);
    assert.equal(merchant.json().success, undefined);
  });
});
