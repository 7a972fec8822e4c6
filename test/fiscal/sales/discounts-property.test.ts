// Discounts and MTV against the simulator's own arithmetic (sales-check.ts), in-process and many
// runs: any sale with discounted lines (tax-inclusive or exclusive, MTV lines below or above
// their RRP) is accepted; partial credits of its lines and the final cancellation are accepted
// too, each credit takes its share of the line's discount, and the credits of a line add up to
// exactly the line; a debit note with discounted lines is accepted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import {
  allocateCredit,
  CreditAllocationError,
  NOTHING_CREDITED,
  type CreditableLine,
  type CreditedSoFar,
  type CreditLine,
} from '../../../src/domain/fiscal/sales/credit-allocation.ts';
import { authorityProfile } from '../../../src/authorities/index.ts';
import {
  computeSale,
  lineSupplyAmount,
  VAT_CATEGORY_CODES,
  type ComputedLine,
  type SaleLineInput,
  type VatCategoryCode,
} from '../../../src/authorities/zra-vsdc/tax.ts';
import { CLASS_CODE } from '../../helpers/harness.ts';
import { inProcessVsdc } from '../../helpers/in-process-vsdc.ts';

const TOLERANCE = authorityProfile('zra-vsdc').amountTolerance;

const D = (value: number | string | null | undefined): Decimal => new Decimal(String(value ?? 0));

/** Quantities and prices in units of 0.0001, so the generator's arithmetic is exact. */
const UNIT = 10_000;

interface GeneratedLine {
  quantityUnits: number;
  priceUnits: number;
  vatCategory: VatCategoryCode;
  /** Share of the line's amount taken off, in 1/1000 (0: no discount). */
  discountShare: number;
  /** MTV lines: the RRP as a share of the price, in 1/100 (below and above it). */
  rrpShare: number;
}

const lineArb: fc.Arbitrary<GeneratedLine> = fc
  .record({
    quantityUnits: fc.oneof(
      fc.integer({ min: 1, max: 20 }).map((n) => n * UNIT),
      fc.integer({ min: 1, max: 40 }).map((n) => n * (UNIT / 2)),
      fc.integer({ min: 1, max: 10_000_000 }),
    ),
    priceUnits: fc.oneof(
      fc.integer({ min: 1, max: 10_000_000 }).map((n) => n * 100),
      fc.integer({ min: 1, max: 100_000_000 }),
      fc.integer({ min: 1, max: 20_000 }),
    ),
    // MTV more often than its share of the categories, since it has its own arithmetic.
    vatCategory: fc.oneof(fc.constantFrom(...VAT_CATEGORY_CODES.filter((c) => c !== 'C1')), fc.constant<VatCategoryCode>('B')),
    discountShare: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(0, 1, 999, 1000)),
    rrpShare: fc.integer({ min: 0, max: 300 }),
  })
  .filter((l) => lineSupplyAmount(l.quantityUnits / UNIT, l.priceUnits / UNIT) > 0);

function input(l: GeneratedLine, i: number): SaleLineInput {
  const quantity = l.quantityUnits / UNIT;
  const price = l.priceUnits / UNIT;
  const gross = D(lineSupplyAmount(quantity, price));
  const discount = gross.times(l.discountShare).div(1000).toDecimalPlaces(2, Decimal.ROUND_FLOOR);
  return {
    name: `Item ${i + 1}`,
    classificationCode: CLASS_CODE,
    quantity,
    price,
    vatCategory: l.vatCategory,
    discount: discount.isZero() ? null : discount.toNumber(),
    rrp: l.vatCategory === 'B' ? D(price).times(l.rrpShare).div(100).toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toNumber() : null,
  };
}

function creditable(line: ComputedLine): CreditableLine {
  return {
    quantity: line.quantity,
    price: line.price,
    amount: line.grossAmount,
    discount: line.discountAmount,
    rrp: line.rrp,
    supply: line.rrp === null ? null : line.supplyAmount,
    net: line.taxableAmount,
    vat: line.vatAmount,
    rate: line.rate,
  };
}

function plus(so: CreditedSoFar, credit: CreditLine): CreditedSoFar {
  return {
    quantity: D(so.quantity).plus(credit.quantity).toString(),
    amount: D(so.amount).plus(credit.amount).toFixed(2),
    discount: D(so.discount).plus(credit.discount).toFixed(2),
    supply: D(so.supply)
      .plus(credit.supply ?? credit.amount)
      .toFixed(2),
    net: D(so.net).plus(credit.net).toFixed(2),
    vat: D(so.vat).plus(credit.vat).toFixed(2),
  };
}

const scenarioArb = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 5 }),
  taxInclusive: fc.boolean(),
  // Each partial credit names lines (index mod the line count) and the share (in 1/1000) of what is left on them.
  steps: fc.array(
    fc.array(fc.record({ line: fc.nat({ max: 4 }), share: fc.integer({ min: 1, max: 1000 }) }), { minLength: 1, maxLength: 3 }),
    { maxLength: 5 },
  ),
});

/** Partial credits allocated, and those refused (MTV lines at their RRP's edge only). */
const attempted = { count: 0 };
const refused = { count: 0 };

describe('discounts and MTV against the simulator (property)', () => {
  test('every sale is accepted; its credits (partial, then the cancellation) too, each with its share of the discount; they add up to exactly the sale', () => {
    fc.assert(
      fc.property(scenarioArb, ({ lines: generated, taxInclusive, steps }) => {
        const vsdc = inProcessVsdc();
        const inputs = generated.map(input);
        const sale = computeSale(inputs, taxInclusive);
        const filed = vsdc.save({ receiptType: 'S', taxInclusive, lines: inputs });
        assert.equal(filed.resultCd, '000', `${filed.resultMsg}: ${JSON.stringify(inputs)}`);
        const receiptNo = (filed.data as { rcptNo: number }).rcptNo;

        const credited: CreditedSoFar[] = sale.lines.map(() => NOTHING_CREDITED);
        const leftUnits = generated.map((l) => l.quantityUnits);
        let notesTotal = D(0);
        const creditNote = (wanted: { index: number; units: number }[], cancellation: boolean): void => {
          const noteLines = wanted.flatMap(({ index, units }): SaleLineInput[] => {
            const line = sale.lines[index]!;
            let credit: CreditLine;
            try {
              credit = allocateCredit(creditable(line), credited[index]!, String(units / UNIT), taxInclusive, TOLERANCE);
            } catch (err) {
              // Only a partial credit of an MTV line sold within cents of its RRP may be refused
              // (the service answers 422 and stores nothing); the cancellation never is.
              assert.ok(
                err instanceof CreditAllocationError && err.reason === 'arithmetic' && line.rrp !== null && !cancellation,
                String(err),
              );
              refused.count += 1;
              return [];
            }
            attempted.count += 1;
            assert.equal(credit.priceAdjusted, false, 'a credit following the rule keeps the sale price');
            // Proportional: its discount is the quantity's share of the line's, within rounding.
            const proportional = D(line.discountAmount)
              .times(units / UNIT)
              .div(line.quantity);
            assert.ok(
              D(credit.discount).minus(proportional).abs().lte('0.02'),
              `discount ${credit.discount} for ${proportional.toString()}`,
            );
            credited[index] = plus(credited[index]!, credit);
            leftUnits[index]! -= units;
            return [
              {
                ...inputs[index]!,
                quantity: credit.quantity,
                price: credit.price,
                allocated: { amount: credit.amount, discount: credit.discount, supply: credit.supply, net: credit.net, vat: credit.vat },
              },
            ];
          });
          if (noteLines.length === 0) return;
          const note = computeSale(noteLines, taxInclusive);
          notesTotal = notesTotal.plus(note.totals.total);
          const reply = vsdc.save({
            receiptType: 'R',
            originalReceiptNo: receiptNo,
            originalSdcId: vsdc.sdcId,
            reasonCode: '03',
            taxInclusive,
            lines: noteLines,
          });
          assert.equal(reply.resultCd, '000', `${reply.resultMsg}: ${JSON.stringify(noteLines)}`);
        };

        for (const step of steps) {
          const wanted = new Map<number, number>();
          for (const { line, share } of step) {
            const index = line % generated.length;
            const units = Math.floor((leftUnits[index]! * share) / 1000);
            if (units > 0 && !wanted.has(index)) wanted.set(index, units);
          }
          if (wanted.size > 0)
            creditNote(
              [...wanted].map(([index, units]) => ({ index, units })),
              false,
            );
        }
        const rest = leftUnits.flatMap((units, index) => (units > 0 ? [{ index, units }] : []));
        if (rest.length > 0) creditNote(rest, true);

        sale.lines.forEach((line, i) => {
          const sums = credited[i]!;
          assert.deepEqual(
            [D(sums.quantity).toString(), sums.amount, sums.discount, sums.supply, sums.net, sums.vat],
            [
              D(line.quantity).toString(),
              ...[line.grossAmount, line.discountAmount, line.supplyAmount, line.taxableAmount, line.vatAmount].map((n) => n.toFixed(2)),
            ],
            `line ${i + 1}`,
          );
        });
        assert.equal(notesTotal.toFixed(2), sale.totals.total.toFixed(2), 'the notes add up to the sale');
      }),
      { numRuns: 500 },
    );
    // Refusals are a corner (0 in 39 266 partial credits over 6 000 runs when this was written).
    assert.ok(refused.count * 100 <= attempted.count, `${refused.count} partial credits refused of ${attempted.count + refused.count}`);
  });

  test('a debit note with discounted lines is accepted against its sale', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 3 }),
        fc.array(lineArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (saleLines, debitLines, taxInclusive) => {
          const vsdc = inProcessVsdc();
          const filed = vsdc.save({ receiptType: 'S', taxInclusive, lines: saleLines.map(input) });
          assert.equal(filed.resultCd, '000', filed.resultMsg);
          const lines = debitLines.map(input);
          const reply = vsdc.save({
            receiptType: 'D',
            originalReceiptNo: (filed.data as { rcptNo: number }).rcptNo,
            originalSdcId: vsdc.sdcId,
            reasonCode: '02',
            taxInclusive,
            lines,
          });
          assert.equal(reply.resultCd, '000', `${reply.resultMsg}: ${JSON.stringify(lines)}`);
        },
      ),
      { numRuns: 200 },
    );
  });
});
