// Property, end to end: a random sale (with discounted lines and MTV lines), random partial
// refunds, then the cancellation, all over HTTP through the gateway, filed to the real simulator. Every note is accepted by the simulator,
// the credits of each line add up to exactly the line, and together never more than the sale.
// A handful of runs (each is a dozen requests); credit-allocation.test.ts runs many in-process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { lineSupplyAmount, VAT_CATEGORY_CODES } from '../../../src/authorities/zra-vsdc/tax.ts';
import { engineName } from '../../helpers/db.ts';
import { saleBody, startHarness, type Harness } from '../../helpers/harness.ts';

/** Quantities and prices in units of 0.0001, so the generator's arithmetic is exact. */
const UNIT = 10_000;

const lineArb = fc
  .record({
    quantityUnits: fc.oneof(
      fc.integer({ min: 1, max: 12 }).map((n) => n * UNIT),
      fc.integer({ min: 1, max: 20 }).map((n) => n * (UNIT / 2)),
      fc.integer({ min: 1, max: 500_000 }),
    ),
    priceUnits: fc.oneof(
      fc.integer({ min: 1, max: 1_000_000 }).map((n) => n * 100),
      fc.integer({ min: 1, max: 10_000_000 }),
      fc.integer({ min: 1, max: 5_000 }),
    ),
    vatCategory: fc.constantFrom(...VAT_CATEGORY_CODES.filter((c) => c !== 'C1')),
    // The share of the line (in 1/1000) taken off as a discount, and an MTV line's RRP as a share (in 1/100) of its price.
    discountShare: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 })),
    rrpShare: fc.integer({ min: 0, max: 300 }),
  })
  .filter((l) => lineSupplyAmount(l.quantityUnits / UNIT, l.priceUnits / UNIT) > 0);

/** The sale line a generated line stands for: discounted, and with an RRP when MTV. */
function saleLine(
  l: { quantityUnits: number; priceUnits: number; vatCategory: string; discountShare: number; rrpShare: number },
  i: number,
) {
  const quantity = l.quantityUnits / UNIT;
  const price = l.priceUnits / UNIT;
  const discount = new Decimal(lineSupplyAmount(quantity, price))
    .times(l.discountShare)
    .div(1000)
    .toDecimalPlaces(2, Decimal.ROUND_FLOOR)
    .toNumber();
  return {
    name: `Item ${i + 1}`,
    quantity,
    price,
    vatCategory: l.vatCategory,
    ...(discount > 0 ? { discount } : {}),
    ...(l.vatCategory === 'B' ? { rrp: new Decimal(price).times(l.rrpShare).div(100).toDecimalPlaces(4).toNumber() } : {}),
  };
}

const scenarioArb = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 3 }),
  taxInclusive: fc.boolean(),
  // Each refund names lines (index mod the line count) and the share (in 1/1000) of what is left on them.
  refunds: fc.array(
    fc.array(fc.record({ line: fc.nat({ max: 2 }), share: fc.integer({ min: 1, max: 999 }) }), { minLength: 1, maxLength: 2 }),
    { minLength: 1, maxLength: 3 },
  ),
});

describe(`partial refunds then a cancellation, over HTTP to the simulator (${engineName})`, () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { saleWaitMs: 3_000 } });
  });
  after(() => h.close());

  test('every note is uploaded; each line is credited exactly; never more than the sale', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ lines, taxInclusive, refunds }) => {
        // A zero-rated LPO (C2) line needs the buyer's LPO number.
        const lpo = lines.some((l) => l.vatCategory === 'C2') ? { lpoNumber: 'LPO-NOTES' } : {};
        const res = await h.post('/api/v1/sales', saleBody({ taxInclusive, ...lpo }, lines.map(saleLine)));
        assert.equal(res.statusCode, 201, res.body);
        const sale = res.json().data;
        assert.equal(sale.status, 'uploaded', sale.lastError);

        const left = lines.map((l) => l.quantityUnits);
        const notes: {
          id: number;
          items: { originalLine: number; quantity: number; amount: number; discount: number; net: number; vat: number }[];
          totals: { total: number };
        }[] = [];
        const credit = async (body: Record<string, unknown>): Promise<void> => {
          const answer = await h.post(`/api/v1/sales/${sale.id}/credit-note`, body);
          assert.equal(answer.statusCode, 201, `${JSON.stringify(body)}: ${answer.body}`);
          const note = answer.json().data;
          assert.equal(note.status, 'uploaded', `${JSON.stringify(body)}: ${note.lastError}`);
          notes.push(note);
        };
        for (const refund of refunds) {
          const items = new Map<number, number>();
          for (const { line, share } of refund) {
            const index = line % lines.length;
            const units = Math.floor((left[index]! * share) / 1000);
            if (units > 0 && !items.has(index)) items.set(index, units);
          }
          if (items.size === 0) continue;
          await credit({ reasonCode: '06', items: [...items].map(([index, units]) => ({ line: index + 1, quantity: units / UNIT })) });
          for (const [index, units] of items) left[index]! -= units;
        }
        await credit({ reasonCode: '01' });
        const again = await h.post(`/api/v1/sales/${sale.id}/credit-note`, { reasonCode: '01' });
        assert.equal(again.json().error?.code, 'nothing_left_to_credit', again.body);

        for (const line of sale.items) {
          const taken = notes.flatMap((n) => n.items.filter((i) => i.originalLine === line.line));
          const sum = (pick: (i: (typeof taken)[number]) => number) =>
            taken.reduce((acc, i) => acc.plus(String(pick(i))), new Decimal(0)).toNumber();
          assert.deepEqual(
            [sum((i) => i.quantity), sum((i) => i.amount), sum((i) => i.discount), sum((i) => i.net), sum((i) => i.vat)],
            [line.quantity, line.amount, line.discount, line.net, line.vat],
            `line ${line.line}`,
          );
        }
        const total = notes.reduce((acc, n) => acc.plus(String(n.totals.total)), new Decimal(0));
        assert.equal(total.toFixed(2), new Decimal(String(sale.totals.total)).toFixed(2));
        // The simulator filed every note against the sale (its own checks: 931/934/935).
        const filed = h.received(h.merchant).filter((d) => d.rcptTyCd === 'R' && d.orgInvcNo === sale.fiscal.receiptNo);
        assert.equal(filed.filter((d) => d.resultCd === '000').length, notes.length);
      }),
      { numRuns: 6 },
    );
  });
});
