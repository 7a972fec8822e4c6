// Property: whatever document KRA's arithmetic computes, it holds as KRA checks a sale (research
// §4.2), re-derived here in whole cents with BigInt, independently of decimal.js: splyAmt =
// prc × qty, taxblAmt + taxAmt = totAmt = splyAmt − dcAmt (inclusive) or taxblAmt = splyAmt − dcAmt
// (exclusive), taxAmt within a cent of taxblAmt × rate, each letter's bucket the sum of its lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SaleLineInput } from '../../../src/authorities/port/amounts.ts';
import { computeKraSale } from '../../../src/authorities/kra-etims/tax.ts';
import { buildKraSaleBody } from '../../../src/authorities/kra-etims/sales-body.ts';
import { KRA_SETTINGS } from '../../../src/authorities/kra-etims/settings.ts';
import { kraSale } from './helpers.ts';

const RATE: Record<string, bigint> = { A: 0n, B: 16n, C: 0n, D: 0n, E: 8n };
const cents = (n: number): bigint => BigInt(Math.round(n * 100));
/** round half up of a / b for non-negative bigints. */
const divRound = (a: bigint, b: bigint): bigint => (2n * a + b) / (2n * b);

const lineArb: fc.Arbitrary<SaleLineInput> = fc
  .record({
    quantity: fc.integer({ min: 1, max: 100_000 }).map((thousandths) => thousandths / 1000),
    price: fc.integer({ min: 1, max: 10_000_000 }).map((c) => c / 100),
    vatCategory: fc.constantFrom('A', 'B', 'C', 'D', 'E'),
    discountShare: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1000 })),
  })
  .map(({ quantity, price, vatCategory, discountShare }) => {
    const gross = Math.round(quantity * price * 100) / 100;
    const discount = Math.floor(gross * discountShare) / 1000;
    return {
      name: 'Item',
      classificationCode: '5059690800',
      quantity,
      price,
      vatCategory,
      discount: discount > 0 ? Number(discount.toFixed(2)) : null,
    };
  });

test('KRA arithmetic: every line and bucket adds up as KRA checks it', () => {
  fc.assert(
    fc.property(fc.array(lineArb, { minLength: 1, maxLength: 8 }), fc.boolean(), (lines, taxInclusive) => {
      const sale = computeKraSale(lines, taxInclusive);
      const buckets = new Map<string, { taxable: bigint; tax: bigint }>();
      sale.lines.forEach((line, i) => {
        const input = lines[i]!;
        // splyAmt: qty (thousandths) × prc (cents), rounded half up to the cent.
        const supply = divRound(BigInt(Math.round(Number(input.quantity) * 1000)) * cents(Number(input.price)), 1000n);
        assert.equal(cents(line.supplyAmount), supply, 'splyAmt = round2(prc × qty)');
        const base = supply - cents(line.discountAmount);
        const [taxable, tax, total] = [cents(line.taxableAmount), cents(line.vatAmount), cents(line.total)];
        const rate = RATE[line.vatCategory]!;
        assert.equal(taxable + tax, total, 'totAmt = taxblAmt + taxAmt');
        if (taxInclusive) {
          assert.equal(total, base, 'inclusive: the line costs splyAmt − dcAmt');
          assert.equal(taxable, divRound(base * 100n, 100n + rate), 'taxblAmt = round2(base ÷ (1 + rate))');
        } else {
          assert.equal(taxable, base, 'exclusive: taxblAmt = splyAmt − dcAmt');
          assert.equal(tax, divRound(taxable * rate, 100n), 'taxAmt = round2(taxblAmt × rate)');
        }
        const exact = taxable * rate;
        assert.ok(tax * 100n - exact <= 100n && exact - tax * 100n <= 100n, 'taxAmt within a cent of taxblAmt × rate');
        const bucket = buckets.get(line.vatCategory) ?? { taxable: 0n, tax: 0n };
        buckets.set(line.vatCategory, { taxable: bucket.taxable + taxable, tax: bucket.tax + tax });
      });
      const body = buildKraSaleBody('oscu', KRA_SETTINGS.oscu, kraSale({ lines, taxInclusive }));
      let totTaxable = 0n;
      let totTax = 0n;
      for (const letter of Object.keys(RATE)) {
        const b = buckets.get(letter) ?? { taxable: 0n, tax: 0n };
        assert.equal(cents(body[`taxblAmt${letter}`] as number), b.taxable, `taxblAmt${letter}`);
        assert.equal(cents(body[`taxAmt${letter}`] as number), b.tax, `taxAmt${letter}`);
        assert.equal(body[`taxRt${letter}`], Number(RATE[letter]));
        totTaxable += b.taxable;
        totTax += b.tax;
      }
      assert.deepEqual(
        [cents(body.totTaxblAmt as number), cents(body.totTaxAmt as number), cents(body.totAmt as number)],
        [totTaxable, totTax, totTaxable + totTax],
      );
    }),
    { numRuns: 500 },
  );
});
