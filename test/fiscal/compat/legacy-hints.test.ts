// Issue 34 item 10: /zm/api tells a caller what it should have sent. A missing or refused X-SdcId
// names the SDC ids the key files through (its own merchant's only) and GET /zm/api/Branches; a
// body in the modern shape of POST /api/v1/sales is told this route speaks the legacy dialect,
// while every legacy body (ours, the product's, in any casing) is still fiscalised.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer } from '../../helpers/app.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, startHarness, type Harness } from '../../helpers/harness.ts';
import { modernFieldsOf } from '../../../src/domain/fiscal/compat/field-names.ts';
import {
  assertWrappedFailure,
  invoiceBody,
  mintKey,
  nextNumber,
  postInvoice,
  realBody,
  recased,
  sdcIdOf,
  zmGet,
  type Till,
} from './helpers.ts';

/** The body an integrator sends to POST /api/v1/sales (docs/sales.md). */
const modernBody = (clientInvoiceNo: string) => ({
  items: [{ name: 'Maize meal 25kg', classificationCode: CLASS_CODE, quantity: 2, price: 185, vatCategory: 'A' }],
  paymentMethod: '01',
  clientInvoiceNo,
});

describe(`compat surface: hints for a till that sends the wrong X-SdcId or a modern body (${engineName})`, () => {
  let h: Harness;
  let sdc000: string;
  let sdc001: string;
  let foreignSdcId: string;
  let branchKey: string;
  let tenantKey: string;
  let wrappedKey: string;

  before(async () => {
    h = await startHarness({ branches: ['000', '001'], config: { saleWaitMs: 1_000 } });
    sdc000 = await sdcIdOf(h, h.merchant, '000');
    sdc001 = await sdcIdOf(h, h.merchant, '001');
    branchKey = (await mintKey(h, h.merchant, { branch: '000' })).key;
    tenantKey = (await mintKey(h, h.merchant)).key;
    wrappedKey = (await mintKey(h, h.merchant, { dialect: 'wrapped' })).key;
    const other = await h.addMerchant({ branches: ['000'] });
    foreignSdcId = await sdcIdOf(h, other, '000');
  });
  after(() => h.close());

  const refusal = async (till: Till): Promise<string> => {
    const res = await zmGet(h, '/zm/api/TaxCodes', till);
    assert.equal(res.statusCode, 401, res.body);
    const { error } = res.json() as { error: { code: string; message: string } };
    assert.equal(error.code, 'unauthenticated');
    assert.match(error.message, /GET \/zm\/api\/Branches/, error.message);
    return error.message;
  };
  const salesCount = async () =>
    Number(
      (
        await h.ctx.db
          .selectFrom('sales')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', h.merchant.tenantId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('no X-SdcId: the 401 names the SDC ids the key files through (a branch key its own; a tenant key its initialised branches)', async () => {
    const tenant = await refusal({ key: tenantKey, sdcId: undefined });
    assert.match(tenant, /X-SdcId \(or Terminal-Id\) is required/);
    assert.ok(tenant.includes(`${sdc000} or ${sdc001}`), tenant);

    const branch = await refusal({ key: branchKey, sdcId: undefined });
    assert.ok(branch.includes(`Send X-SdcId: ${sdc000},`), branch);
    assert.ok(!branch.includes(sdc001), `a branch key is told only its own branch: ${branch}`);

    // The same answer on the invoice route, before any body is read.
    const filing = await postInvoice(h, { key: branchKey, sdcId: undefined }, invoiceBody(nextNumber('HINT')));
    assert.equal(filing.statusCode, 401, filing.body);
    assert.equal(filing.json().error.message, branch);
  });

  test("another merchant's SDC id: the key's own SDC ids, never the other merchant's; wrapped for a wrapped key", async () => {
    const tenant = await refusal({ key: tenantKey, sdcId: foreignSdcId });
    assert.match(tenant, /may not file through the branch X-SdcId \(or Terminal-Id\) names/);
    assert.ok(tenant.includes(sdc000) && tenant.includes(sdc001), tenant);
    assert.ok(!tenant.includes(foreignSdcId), tenant);

    const branch = await refusal({ key: branchKey, sdcId: sdc001 });
    assert.ok(branch.includes(sdc000) && !branch.includes(sdc001), branch);

    const wrapped = assertWrappedFailure(await zmGet(h, '/zm/api/TaxCodes', { key: wrappedKey, sdcId: foreignSdcId }), 401);
    assert.deepEqual(wrapped.error, { code: 'unauthenticated', message: tenant });
  });

  test('a key with no initialised branch is told so, and where to look', async () => {
    const merchant = await h.addMerchant({ branches: ['000'], initialize: false });
    const key = (await mintKey(h, merchant)).key;
    const message = await refusal({ key, sdcId: sdc000 });
    assert.match(message, /no initialised branch/);
    assert.ok(!message.includes(sdc000), message);
  });

  test('a modern body (POST /api/v1/sales) is a 422 saying this route speaks the legacy dialect; nothing is stored', async () => {
    const before = await salesCount();
    for (const [label, key] of [
      ['bare', tenantKey],
      ['wrapped', wrappedKey],
    ] as const) {
      const res = await postInvoice(h, { key, sdcId: sdc000 }, modernBody(nextNumber('MODERN')));
      const body = label === 'wrapped' ? assertWrappedFailure(res, 422) : (assert.equal(res.statusCode, 422, res.body), res.json());
      const errors = body.errors as Record<string, string[]>;
      assert.deepEqual(Object.keys(errors), ['body'], res.body);
      const message = errors.body![0]!;
      assert.equal(body.message, message);
      for (const part of [
        'legacy till dialect (docs/compat.md)',
        'POST /api/v1/sales',
        'clientInvoiceNo',
        'items[].classificationCode',
        'items[].price',
        'ClientInvoiceNumber',
      ]) {
        assert.ok(message.includes(part), `${label}: "${part}" in ${message}`);
      }
    }
    assert.equal(await salesCount(), before, 'nothing was stored');

    // A modern client with its tenant token is told the same before its body is read.
    const withToken = await h.t.inject({
      method: 'POST',
      url: '/zm/api/Invoice',
      headers: { ...bearer(h.merchant.token), 'x-sdcid': sdc000 },
      payload: modernBody(nextNumber('MODERN')),
    });
    assert.equal(withToken.statusCode, 401, withToken.body);
    assert.match(withToken.json().error.message, /legacy till dialect \(docs\/compat\.md\).*POST \/api\/v1\/sales/);
    const tokenAsKey = await h.t.inject({
      method: 'GET',
      url: '/zm/api/TaxCodes',
      headers: { 'x-api-key': h.merchant.token, 'x-sdcid': sdc000 },
    });
    assert.equal(tokenAsKey.statusCode, 401, tokenAsKey.body);
    assert.match(tokenAsKey.json().error.message, /not a tenant token.*POST \/api\/v1\/sales/);
  });

  test('legacy bodies are never taken for modern ones, and still fiscalise', async () => {
    const ours = invoiceBody(nextNumber('LEGACY'));
    const product = realBody(nextNumber('LEGACY'), sdc000);
    const oursCamel = recased(invoiceBody(nextNumber('LEGACY')), 'camelCase'); // clientInvoiceNumber, items, itemName, quantity, unitPrice
    const productLower = recased(realBody(nextNumber('LEGACY'), sdc000), 'lower case');
    for (const body of [ours, product, oursCamel, productLower, recased(ours, 'lower case'), recased(product, 'PascalCase')]) {
      assert.deepEqual(modernFieldsOf(body), [], JSON.stringify(body));
    }
    // A legacy body with a mistake keeps the legacy errors, even with a modern-looking line name.
    assert.deepEqual(
      modernFieldsOf({ ...ours, Items: [{ name: 'x', ItemClassificationCode: CLASS_CODE, Quantity: 1, UnitPrice: 1 }] }),
      [],
    );
    assert.deepEqual(
      modernFieldsOf({ items: [{ quantity: 1, rrp: 2 }], taxInclusive: true }),
      [],
      'names both dialects share prove nothing',
    );

    for (const body of [ours, product, oursCamel, productLower]) {
      const res = await postInvoice(h, { key: tenantKey, sdcId: sdc000 }, body);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().BranchId, '000');
    }
  });
});
