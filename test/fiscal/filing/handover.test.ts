// The filer builds the saveSales body from the stored row and lines alone. What must hold: the
// bytes the VSDC receives while the storing request waits are exactly the body built from the
// stored document — what a retry, a restart or another process files. The VSDC here
// sits behind a recording proxy (a real socket in front of the real simulator), and the sales
// are random: discounts with 4 decimals, MTV lines below and above their RRP, every category,
// prices with or without VAT.
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { fiscalDocument } from '../../../src/domain/fiscal/filing/filer.ts';
import { findSale, linesOf } from '../../../src/domain/fiscal/sales/store.ts';
import { buildSaveSalesBody } from '../../../src/authorities/zra-vsdc/sales-body.ts';
import { VAT_CATEGORY_CODES } from '../../../src/authorities/zra-vsdc/tax.ts';
import { engineName } from '../../helpers/db.ts';
import { CLASS_CODE, startHarness, type Harness } from '../../helpers/harness.ts';

/** Forwards every call to `target` and keeps the raw saveSales bodies, by invoice number. */
async function recordingProxy(target: string): Promise<{ url: string; bodies: Map<string, string>; server: Server }> {
  const bodies = new Map<string, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.endsWith('/trnsSales/saveSales'))
        bodies.set(String((JSON.parse(body.toString('utf8')) as { cisInvcNo: string }).cisInvcNo), body.toString('utf8'));
      const upstream = new URL(target.replace(/\/$/, '') + req.url!.slice(proxyPrefix.length));
      const forwarded = request(
        upstream,
        { method: req.method, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (reply) => {
          res.writeHead(reply.statusCode ?? 502, { 'content-type': reply.headers['content-type'] ?? 'application/json' });
          reply.pipe(res);
        },
      );
      forwarded.on('error', () => res.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${proxyPrefix}`, bodies, server };
}
const proxyPrefix = '/vsdc';

const lineArb = fc
  .record({
    quantity: fc.oneof(
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 1, max: 200_000 }).map((n) => n / 10_000),
    ),
    price: fc.oneof(
      fc.integer({ min: 1, max: 100_000 }).map((n) => n / 100),
      fc.integer({ min: 1, max: 5_000_000 }).map((n) => n / 10_000),
    ),
    vatCategory: fc.constantFrom(...VAT_CATEGORY_CODES.filter((c) => c !== 'C1')),
    // Share of the line's amount taken off, in 1/10,000, so the discount often has 4 decimals.
    discountShare: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9_000 })),
    rrpShare: fc.integer({ min: 50, max: 200 }),
  })
  .map((l) => {
    const gross = Math.round(l.quantity * l.price * 100) / 100;
    const discount = Math.floor(gross * l.discountShare) / 10_000;
    return {
      name: 'Handed-over item',
      classificationCode: CLASS_CODE,
      quantity: l.quantity,
      price: l.price,
      vatCategory: l.vatCategory,
      ...(discount > 0 ? { discount } : {}),
      ...(l.vatCategory === 'B' ? { rrp: Math.round(l.price * l.rrpShare) / 100 } : {}),
    };
  })
  .filter((l) => Math.round(l.quantity * l.price * 100) > 0);

describe(`the filer's body from the request's computed amounts (${engineName})`, () => {
  let h: Harness;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  before(async () => {
    h = await startHarness();
    proxy = await recordingProxy(h.sim.url);
    await h.registerBranch(h.merchant, '001', { vsdcBaseUrl: proxy.url });
  });
  after(async () => {
    await h.close();
    await new Promise((resolve) => proxy.server.close(resolve));
  });

  test('is byte for byte the body built from the stored document, for any sale', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (items, taxInclusive) => {
        // A zero-rated LPO (C2) line needs the buyer's LPO number.
        const lpo = items.some((l) => l.vatCategory === 'C2') ? { lpoNumber: 'LPO-HANDOVER' } : {};
        const res = await h.post('/api/v1/sales', { items, taxInclusive, ...lpo }, { 'x-branch': '001' });
        assert.equal(res.statusCode, 201, res.body);
        const sale = res.json().data;
        assert.equal(sale.status, 'uploaded', `${sale.lastError}: ${JSON.stringify(items)}`);
        const row = (await findSale(h.ctx.db, h.merchant.tenantId, sale.id))!;
        const lines = (await linesOf(h.ctx.db, [sale.id])).get(sale.id)!;
        const fromStore = JSON.stringify(
          buildSaveSalesBody({ profile: 'zra-vsdc', baseUrl: '', tpin: row.tpin, branch: row.branch }, fiscalDocument({ row, lines })),
        );
        assert.equal(
          proxy.bodies.get(String(sale.invoiceNo)),
          fromStore,
          `sent body differs from the stored document's: ${JSON.stringify(items)}`,
        );
      }),
      { numRuns: 40 },
    );
  });
});
