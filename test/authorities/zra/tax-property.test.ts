// Property: whatever sale the gateway builds, the simulator's independent arithmetic accepts it,
// sent through the real HTTP client. And one cent too much anywhere is refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CLASSIFICATION_CODES } from '@fiscal-gateway/simulator';
import { buildZraSaleBody, type ZraSaleDocument } from '../../../src/authorities/zra-vsdc/sales-body.ts';
import { computeSale, lineSupplyAmount, VAT_CATEGORY_CODES, type SaleLineInput } from '../../../src/authorities/zra-vsdc/tax.ts';
import { startWorld, type World } from './helpers.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(async () => {
  await world.close();
});

const lineArb: fc.Arbitrary<SaleLineInput> = fc
  .record({
    name: fc.constantFrom('Mealie meal', 'Cooking oil', 'Kapenta', 'Airtime', 'Cement 50kg', 'Consulting hour'),
    classificationCode: fc.constantFrom(...CLASSIFICATION_CODES),
    // Up to 3 decimals, 0.001 … 1000.
    quantity: fc.integer({ min: 1, max: 1_000_000 }).map((thousandths) => thousandths / 1000),
    // 2 decimals, 0.01 … 100 000.
    price: fc.integer({ min: 1, max: 10_000_000 }).map((cents) => cents / 100),
    vatCategory: fc.constantFrom(...VAT_CATEGORY_CODES),
    // The share (in 1/1000) of the line taken off as a discount; 0 most of the time.
    discountShare: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1000 })),
    // MTV lines: the RRP as a share (in 1/100) of the price, below and above it.
    rrpShare: fc.integer({ min: 0, max: 300 }),
  })
  .map(({ discountShare, rrpShare, ...line }) => {
    const gross = lineSupplyAmount(line.quantity, line.price);
    const discount = Math.floor((gross * discountShare * 100) / 1000) / 100;
    return {
      ...line,
      discount: discount > 0 ? discount : null,
      rrp: line.vatCategory === 'B' ? Math.round(line.price * rrpShare) / 100 : null,
    };
  });

const saleArb = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 8 }),
  taxInclusive: fc.boolean(),
  paymentMethod: fc.constantFrom('01', '02', '03', '04', '05', '06', '07', '08' as const),
});

let invoiceNo = 0;
function document(input: {
  lines: SaleLineInput[];
  taxInclusive: boolean;
  paymentMethod: ZraSaleDocument['paymentMethod'];
}): ZraSaleDocument {
  invoiceNo += 1;
  return {
    tpin: world.target.tpin,
    bhfId: world.target.bhfId,
    invoiceNo,
    receiptType: 'S',
    customer: { tpin: null, name: 'Walk-in customer' },
    paymentMethod: input.paymentMethod,
    occurredAt: new Date(),
    taxInclusive: input.taxInclusive,
    destinationCountryCode: input.lines.some((l) => l.vatCategory === 'C1') ? 'ZA' : null,
    currency: 'ZMW',
    lines: input.lines,
  };
}

test('totals always add up: total = Σ line totals (net + vat but for MTV below its RRP), and the categories sum to the totals', () => {
  fc.assert(
    fc.property(saleArb, ({ lines, taxInclusive }) => {
      const { totals, byCategory, lines: computed } = computeSale(lines, taxInclusive);
      const cents = (n: number): number => Math.round(n * 100);
      assert.equal(
        cents(totals.total),
        computed.reduce((sum, l) => sum + cents(l.total), 0),
      );
      assert.equal(
        cents(totals.discount),
        computed.reduce((sum, l) => sum + cents(l.discountAmount), 0),
      );
      assert.equal(
        cents(totals.net),
        byCategory.reduce((sum, c) => sum + cents(c.taxable), 0),
      );
      assert.equal(
        cents(totals.vat),
        byCategory.reduce((sum, c) => sum + cents(c.vat), 0),
      );
      for (const line of computed) {
        assert.equal(cents(line.lineAmount), cents(line.grossAmount) - cents(line.discountAmount));
        assert.equal(cents(line.total), cents(line.lineAmount) + (taxInclusive ? 0 : cents(line.vatAmount)));
        const belowRrp = line.rrp !== null && line.rrp * line.quantity > line.lineAmount;
        if (!belowRrp) assert.equal(cents(line.total), cents(line.taxableAmount) + cents(line.vatAmount));
        else assert.ok(cents(line.total) <= cents(line.taxableAmount) + cents(line.vatAmount));
        if (line.rate === 0) assert.equal(line.vatAmount, 0);
        assert.ok(Number.isInteger(Math.round(line.vatAmount * 100)) && /^\d+(\.\d{1,2})?$/.test(String(line.vatAmount)));
      }
    }),
    { numRuns: 1_000 },
  );
});

test('the simulator accepts every generated sale', async () => {
  await fc.assert(
    fc.asyncProperty(saleArb, async (input) => {
      const outcome = await world.client.saveSales(world.target, buildZraSaleBody(document(input)));
      assert.equal(outcome.kind, 'ok', JSON.stringify(outcome));
    }),
    { numRuns: 200 },
  );
  assert.ok(world.sim.control.documents(world.target.tpin, world.target.bhfId, { filedOnly: true }).length >= 200);
});

test('the simulator refuses a sale with one amount off by more than a cent', async () => {
  await fc.assert(
    fc.asyncProperty(
      saleArb,
      fc.nat(),
      fc.constantFrom('vatAmt', 'vatTaxblAmt', 'splyAmt', 'totAmt', 'dcAmt'),
      async (input, pick, field) => {
        const body = buildZraSaleBody(document(input));
        const index = pick % body.itemList.length;
        const line = body.itemList[index]!;
        const broken = { ...line, [field]: Math.round((line[field] + 0.05) * 100) / 100 };
        const outcome = await world.client.saveSales(world.target, {
          ...body,
          itemList: body.itemList.map((l, i) => (i === index ? broken : l)),
        });
        assert.equal(outcome.kind === 'rejected' && outcome.code, '910', JSON.stringify(outcome));
        assert.match(outcome.kind === 'rejected' ? outcome.message : '', /^Wrong Amount computation at /);
      },
    ),
    { numRuns: 100 },
  );
});
