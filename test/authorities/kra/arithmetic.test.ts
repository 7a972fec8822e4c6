// KRA's arithmetic (research §4.2): the golden facts Odoo filed to the live sandbox, every letter
// with tax-inclusive and -exclusive prices and discounts, rates refreshed from the code table,
// credit lines as allocated, and what KRA has no use for (an RRP, a letter it does not publish).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SaleAmountsError, type SaleLineInput } from '../../../src/authorities/port/amounts.ts';
import { computeKraSale, kraLineGross } from '../../../src/authorities/kra-etims/tax.ts';
import { authorityProfile, createAuthorities } from '../../../src/authorities/index.ts';

const line = (over: Partial<SaleLineInput>): SaleLineInput => ({
  name: 'Item',
  classificationCode: '5059690800',
  quantity: 1,
  price: 1,
  vatCategory: 'B',
  ...over,
});

describe('KRA line arithmetic', () => {
  test('prc 1.00 qty 1 dcRt 10 B, tax-exclusive: dcAmt 0.10, taxblAmt 0.90, taxAmt 0.14, totAmt 1.04', () => {
    const sale = computeKraSale([line({ price: '1.00', discount: '0.10' })], false);
    const l = sale.lines[0]!;
    assert.deepEqual(
      {
        splyAmt: l.supplyAmount,
        dcRt: l.discountRate,
        dcAmt: l.discountAmount,
        taxblAmt: l.taxableAmount,
        taxAmt: l.vatAmount,
        totAmt: l.total,
      },
      { splyAmt: 1, dcRt: 10, dcAmt: 0.1, taxblAmt: 0.9, taxAmt: 0.14, totAmt: 1.04 },
    );
    assert.deepEqual(sale.totals, { net: 0.9, vat: 0.14, total: 1.04, discount: 0.1 });
  });

  test('116.00 B tax-inclusive: the base is backed out, 100.00 + 16.00', () => {
    const l = computeKraSale([line({ price: '116.00' })], true).lines[0]!;
    assert.deepEqual([l.taxableAmount, l.vatAmount, l.total], [100, 16, 116]);
  });

  test('every letter, inclusive and exclusive, with a discount: the buckets are the sums per letter', () => {
    const lines = ['A', 'B', 'C', 'D', 'E'].map((vatCategory, i) =>
      line({ vatCategory, quantity: 3, price: '33.33', discount: i === 1 ? '9.99' : null }),
    );
    const exclusive = computeKraSale(lines, false);
    assert.deepEqual(
      exclusive.byCategory.map((c) => [c.code, c.rate, c.taxable, c.vat]),
      [
        ['A', 0, 99.99, 0],
        ['B', 16, 90, 14.4],
        ['C', 0, 99.99, 0],
        ['D', 0, 99.99, 0],
        ['E', 8, 99.99, 8],
      ],
    );
    assert.deepEqual(exclusive.totals, { net: 489.96, vat: 22.4, total: 512.36, discount: 9.99 });
    const inclusive = computeKraSale(lines, true);
    assert.deepEqual(
      inclusive.byCategory.map((c) => [c.code, c.taxable, c.vat]),
      // B: 90.00 / 1.16 = 77.586… → 77.59, tax 12.41; E: 99.99 / 1.08 = 92.583… → 92.58, tax 7.41
      [
        ['A', 99.99, 0],
        ['B', 77.59, 12.41],
        ['C', 99.99, 0],
        ['D', 99.99, 0],
        ['E', 92.58, 7.41],
      ],
    );
    assert.equal(inclusive.totals.total, 489.96);
    for (const l of inclusive.lines)
      assert.equal(Math.round((l.taxableAmount + l.vatAmount) * 100), Math.round(l.total * 100), 'totAmt = taxblAmt + taxAmt');
  });

  test('half up at the cent, without float drift', () => {
    // 0.3125 × 0.16 = 0.05 exactly at 2 places; 10.05 × 0.16 = 1.608 → 1.61; 1.005 × 1 → 1.01 (float would give 1.00)
    assert.equal(computeKraSale([line({ price: '10.05' })], false).lines[0]!.vatAmount, 1.61);
    assert.equal(kraLineGross('1', '1.005'), 1.01);
    assert.equal(kraLineGross('3', '0.1'), 0.3);
  });

  test('rates refreshed from the code table replace the published ones', () => {
    const sale = computeKraSale([line({ price: 100 }), line({ vatCategory: 'E', price: 100 })], false, { B: 14, E: 10 });
    assert.deepEqual(
      sale.lines.map((l) => [l.rate, l.vatAmount]),
      [
        [14, 14],
        [10, 10],
      ],
    );
    assert.equal(sale.byCategory.find((c) => c.code === 'B')!.rate, 14);
    // An insane refreshed value is ignored.
    assert.equal(computeKraSale([line({ price: 100 })], false, { B: -1 }).lines[0]!.vatAmount, 16);
  });

  test('a credit line files its allocated share as given, and refuses one that does not add up', () => {
    const credit = computeKraSale([line({ allocated: { amount: '58.00', discount: '0', net: '50.00', vat: '8.00' } })], true);
    assert.deepEqual([credit.lines[0]!.taxableAmount, credit.lines[0]!.vatAmount, credit.totals.total], [50, 8, 58]);
    assert.throws(() => computeKraSale([line({ allocated: { amount: '58.00', net: '50.00', vat: '7.00' } })], true), SaleAmountsError);
  });

  test('refuses what KRA has no use for', () => {
    assert.throws(() => computeKraSale([line({ vatCategory: 'C1' })], false), /unknown tax type "C1": KRA's are A, B, C, D, E/);
    assert.throws(() => computeKraSale([line({ rrp: 2 })], false), /no minimum taxable value/);
    assert.throws(() => computeKraSale([line({ price: '1', discount: '2' })], false), /exceeds/);
    assert.throws(() => computeKraSale([], false), SaleAmountsError);
  });

  test('the registry hands the same arithmetic out for both KRA profiles', async () => {
    const authorities = createAuthorities({ transport: {} });
    try {
      for (const id of ['kra-oscu', 'kra-vscu'] as const) {
        assert.equal(authorities.of(id).arithmetic.computeSale([line({ price: '116.00' })], true).totals.vat, 16);
        assert.equal(authorities.of(id).arithmetic.lineGross(2, '0.125'), 0.25);
        assert.equal(authorityProfile(id).defaultTaxCategory, 'B');
      }
    } finally {
      await authorities.close();
    }
  });
});
