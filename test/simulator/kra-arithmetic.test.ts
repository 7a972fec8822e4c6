// Property: a KRA sale built by the rules of research §4.2 (exclusive or backed-out inclusive
// prices, discounts, every letter, half-up to 2 decimals) passes the simulator's exported check;
// a line's tax five cents off, or a header bucket off by more than its tolerance, does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkKraSaleArithmetic, kraTaxRate } from '@fiscal-gateway/simulator';
import { saleBody, type LineSpec } from './kra-helpers.ts';

const lineArb: fc.Arbitrary<LineSpec> = fc.record({
  letter: fc.constantFrom('A', 'B', 'C', 'D', 'E'),
  prc: fc.integer({ min: 1, max: 1_000_000 }).map((c) => c / 100),
  qty: fc.integer({ min: 1, max: 100_000 }).map((m) => m / 1000),
  dcRt: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 5000 }).map((b) => b / 100),
  ),
  inclusive: fc.boolean(),
});

test("the rates are KRA's: A 0, B 16, C 0, D 0, E 8", () => {
  assert.deepEqual(['A', 'B', 'C', 'D', 'E'].map(kraTaxRate), [0, 16, 0, 0, 8]);
});

test('a sale built by the rules passes; a line or a bucket off does not', () => {
  fc.assert(
    fc.property(fc.array(lineArb, { minLength: 1, maxLength: 12 }), fc.nat(), (lines, pick) => {
      const body = saleBody(1, lines);
      assert.equal(checkKraSaleArithmetic(body), null, JSON.stringify(lines));
      const i = pick % lines.length;
      const offLine = saleBody(1, lines);
      offLine.itemList[i].taxAmt += 0.05;
      assert.notEqual(checkKraSaleArithmetic(offLine), null);
      const letter = lines[i]!.letter;
      const offBucket = saleBody(1, lines);
      offBucket[`taxblAmt${letter}`] += 0.01 * lines.length + 0.02;
      assert.equal(checkKraSaleArithmetic(offBucket)?.field, `taxblAmt${letter}`);
    }),
    { numRuns: 300 },
  );
});
