// `node --import tsx bench/handover-cost.ts`: the CPU one computation of the bench's sale costs
// (computeSale of its two stored lines, ZRA and KRA), the work the filer's hand-over of the
// request's ComputedSale saves. CPU time from process.cpuUsage, so a busy machine's waiting is
// not counted; the median of 7 runs. Set beside the gateway's CPU per sale of `sale-path`.
import { computeSale } from '../src/authorities/zra-vsdc/tax.ts';
import { computeKraSale } from '../src/authorities/kra-etims/tax.ts';
import type { SaleLineInput } from '../src/authorities/port/amounts.ts';

/** The bench's sale (bench/lib/seed.ts SALE_BODY) as its lines come back from the database. */
const LINES: SaleLineInput[] = [
  { name: 'Roller mealie meal 25kg', classificationCode: '50221200', quantity: '2.0000', price: '185.0000', vatCategory: 'A' },
  { name: 'Fresh bread', classificationCode: '50221200', quantity: '3.0000', price: '24.5000', vatCategory: 'D' },
];
const KENYAN_LINES: SaleLineInput[] = LINES.map((l) => ({ ...l, vatCategory: l.vatCategory === 'A' ? 'B' : 'D' }));
const CALLS = 20_000;

function microsecondsPerCall(run: () => unknown): number {
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const before = process.cpuUsage();
    for (let n = 0; n < CALLS; n++) run();
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / CALLS);
  }
  return runs.sort((a, b) => a - b)[3]!;
}

for (let n = 0; n < CALLS; n++) computeSale(LINES, true); // warm-up (JIT)
const zra = microsecondsPerCall(() => computeSale(LINES, true));
const kra = microsecondsPerCall(() => computeKraSale(KENYAN_LINES, true));
process.stdout.write(
  `computeSale of the bench's sale: ZRA ${zra.toFixed(1)} µs, KRA ${kra.toFixed(1)} µs of CPU a call (median of 7 × ${CALLS})\n`,
);
