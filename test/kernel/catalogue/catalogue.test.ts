import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CLASSIFICATION_CATALOGUE } from '@fiscal-gateway/simulator';
import { classificationCatalogue, syncCatalogue } from '../../../src/domain/kernel/catalogue/service.ts';
import { saveSync } from '../../../src/domain/kernel/catalogue/store.ts';
import { eventually } from '../../helpers/poll.ts';
import { engineName } from '../../helpers/db.ts';
import { bearer, seedMerchant, startTestApp } from '../../helpers/app.ts';
import { CLASS_CODE, expectCoded, expectInvalid, expectStatus, startHarness, type Harness } from '../../helpers/harness.ts';

const DOWNLOAD = '/docs/item-classes.csv.gz';

describe(`classification catalogue (${engineName})`, () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({ workers: false, catalogue: false });
  });
  after(() => h.close());

  const download = (headers: Record<string, string> = {}) => h.t.inject({ method: 'GET', url: DOWNLOAD, headers });

  test("merchants page through the authority's codes and search by code prefix and name", async () => {
    const m = h.as(h.merchant);
    const page1 = expectStatus(await m.get('/api/v1/item-classes'), 200);
    const entries = CLASSIFICATION_CATALOGUE.length;
    assert.ok(entries > 500);
    assert.deepEqual(page1.meta, { page: 1, perPage: 20, total: entries, lastPage: Math.ceil(entries / 20) });
    assert.equal(page1.data.length, 20);
    const codes = page1.data.map((c: { code: string }) => c.code);
    assert.deepEqual(codes, [...codes].sort(), 'ordered by code');

    const byPrefix = expectStatus(await m.get('/api/v1/item-classes?code=5022'), 200);
    assert.ok(byPrefix.data.length > 0 && byPrefix.data.every((c: { code: string }) => c.code.startsWith('5022')));
    const cereals = byPrefix.data.find((c: { code: string }) => c.code === CLASS_CODE);
    assert.deepEqual(cereals, { code: CLASS_CODE, name: 'Processed cereals', level: 3, taxType: null, majorTarget: false, inUse: true });
    const byName = expectStatus(await m.get('/api/v1/item-classes?name=PROCESSED%20CEREAL'), 200);
    assert.ok(byName.data.some((c: { code: string }) => c.code === CLASS_CODE));
    assert.equal(expectStatus(await m.get('/api/v1/item-classes?name=no%20such%20thing'), 200).meta.total, 0);
    assert.equal(expectStatus(await m.get('/api/v1/item-classes?page=999'), 200).data.length, 0);
    expectInvalid(await m.get('/api/v1/item-classes?code=50%25'), 'code');
  });

  test('the CSV download needs no credential and holds the whole catalogue', async () => {
    const res = await download();
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/gzip');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="item-classes.csv.gz"');
    assert.equal(res.headers['cache-control'], 'public, max-age=3600');
    assert.equal(res.headers['content-encoding'], undefined, 'the bytes are the .gz file itself');
    assert.match(String(res.headers.etag), /^"[^"]+"$/);

    const text = gunzipSync(res.rawPayload).toString('utf8');
    assert.ok(text.startsWith('code,name,level,taxType,majorTarget,inUse\r\n'));
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
    assert.equal(rows.length, CLASSIFICATION_CATALOGUE.length);
    assert.deepEqual(
      rows.find((r) => r.code === CLASS_CODE),
      { code: CLASS_CODE, name: 'Processed cereals', level: '3', taxType: '', majorTarget: 'N', inUse: 'Y' },
    );
    assert.deepEqual(new Set(rows.map((r) => r.code)), new Set(CLASSIFICATION_CATALOGUE.map((c) => c.itemClsCd)));
  });

  test('conditional requests: 304 on a matching ETag, a new ETag when a sync stores something', async () => {
    const first = await download();
    const etag = String(first.headers.etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"stale", ${etag}`, '*']) {
      const res = await download({ 'if-none-match': ifNoneMatch });
      assert.equal(res.statusCode, 304, ifNoneMatch);
      assert.equal(res.rawPayload.length, 0);
      assert.equal(res.headers.etag, etag);
      assert.equal(res.headers['cache-control'], 'public, max-age=3600');
    }
    assert.equal((await download({ 'if-none-match': '"stale"' })).statusCode, 200);

    await saveSync(
      h.t.ctx.db,
      'zra',
      [{ code: '99999901', name: 'Added, with a "quote"', level: 4, taxType: 'B', majorTarget: true, inUse: true }],
      '20991231000000',
    );
    const changed = await download({ 'if-none-match': etag });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
    const rows = parse(gunzipSync(changed.rawPayload), { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.find((r) => r.code === '99999901'),
      { code: '99999901', name: 'Added, with a "quote"', level: '4', taxType: 'B', majorTarget: 'Y', inUse: 'Y' },
    );
    assert.equal((await download({ 'if-none-match': String(changed.headers.etag) })).statusCode, 304);
  });

  test('the item-classes list needs a token with invoices:read; the download none', async () => {
    assert.equal((await h.t.inject({ method: 'GET', url: '/api/v1/item-classes' })).statusCode, 401);
    assert.equal((await h.t.inject({ method: 'GET', url: DOWNLOAD, headers: bearer('tt_garbage') })).statusCode, 200);
  });

  test('every endpoint of this issue is documented with its request and response schemas', async () => {
    const doc = expectStatus(await h.t.inject({ method: 'GET', url: '/docs/openapi.json' }), 200);
    const operations: Array<[string, string, boolean]> = [
      ['/api/v1/customers', 'get', false],
      ['/api/v1/customers', 'post', true],
      ['/api/v1/customers/{customer}', 'get', false],
      ['/api/v1/items', 'get', false],
      ['/api/v1/items', 'post', true],
      ['/api/v1/items/{item}', 'get', false],
      ['/api/v1/items/{item}', 'patch', true],
      ['/api/v1/items/{item}/release', 'post', false],
      ['/api/v1/import-items', 'get', false],
      ['/api/v1/import-items/{importItem}', 'get', false],
      ['/api/v1/import-items/{importItem}/approve', 'post', true],
      ['/api/v1/import-items/{importItem}/reject', 'post', true],
      ['/api/v1/item-classes', 'get', false],
      [DOWNLOAD, 'get', false],
    ];
    for (const [path, method, hasBody] of operations) {
      const operation = doc.paths?.[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
      const success = operation.responses['200'] ?? operation.responses['201'];
      assert.ok(success?.content, `${method.toUpperCase()} ${path} documents its response`);
      if (hasBody)
        assert.ok(operation.requestBody?.content?.['application/json']?.schema, `${method.toUpperCase()} ${path} documents its body`);
    }
    assert.equal(doc.paths['/api/v1/import-items'].post, undefined, 'no endpoint creates an import item');
  });
});

describe(`classification catalogue never fetched (${engineName})`, () => {
  test('503 catalogue_unavailable while no VSDC can provide it', async () => {
    const t = await startTestApp();
    try {
      const m = await seedMerchant(t.ctx);
      expectCoded(await t.inject({ method: 'GET', url: '/api/v1/item-classes', headers: bearer(m.token) }), 503, 'catalogue_unavailable');
      expectCoded(await t.inject({ method: 'GET', url: DOWNLOAD }), 503, 'catalogue_unavailable');
    } finally {
      await t.close();
    }
  });
});

describe(`a new gateway's first day is an outage day (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ catalogue: false, workers: false, config: { saleWaitMs: 0 } });
  });
  after(() => h.close());

  test('sales are accepted and queued before the catalogue was ever fetched; their codes are checked before filing', async () => {
    await h.sim.stopListening();
    const good = await h.post('/api/v1/sales', { items: [{ name: 'Bread', classificationCode: CLASS_CODE, quantity: 1, price: 10 }] });
    expectStatus(good, 201);
    assert.equal(good.json().data.status, 'pending');
    const unknownCode = await h.post('/api/v1/sales', {
      items: [{ name: 'Mystery', classificationCode: '99999999', quantity: 1, price: 5 }],
    });
    expectStatus(unknownCode, 201);
    assert.equal(unknownCode.json().data.status, 'pending');
    // A route that cannot do without the catalogue still says so.
    expectCoded(await h.get('/api/v1/item-classes'), 503, 'catalogue_unavailable');

    // The VSDC is back; the catalogue worker fetches the catalogue (here, before the filer runs).
    await h.sim.startListening();
    assert.equal((await syncCatalogue(h.ctx)).kind, 'synced');
    classificationCatalogue(h.ctx).invalidate();
    h.startWorkers();
    const settled = async (id: number) => {
      const sale = (await h.get(`/api/v1/sales/${id}`)).json().data as { status: string; lastError: string | null };
      return sale.status === 'pending' ? undefined : sale;
    };
    const filed = await eventually(() => settled(good.json().data.id), 'the good sale filed');
    assert.equal(filed.status, 'uploaded');
    const refused = await eventually(() => settled(unknownCode.json().data.id), 'the unknown code judged');
    assert.equal(refused.status, 'failed');
    assert.match(
      refused.lastError ?? '',
      /Not in the authority's classification catalogue: line 1 classificationCode 99999999 \(checked before filing/,
    );
    assert.deepEqual(
      h.received(h.merchant).map((d) => d.cisInvcNo),
      [String(good.json().data.invoiceNo)],
      'only the good sale reached the VSDC',
    );
  });
});
