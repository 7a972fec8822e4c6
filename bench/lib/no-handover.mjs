// Preloaded (`node --import`) into a benchmarked gateway to measure it without the in-process
// hand-over of a sale's computed amounts (SaleSignals.storingRequestWaits → computedFor): the
// filer then builds the authority's body from the stored document, computing the amounts again,
// as it does for every document filed by a process other than the storing one. A bench-only
// switch, not a setting: it wraps the context member's factory in the gateway's compiled tree
// (dist/, the process's working directory), which the gateway then imports as the same module.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const signals = await import(pathToFileURL(join(process.cwd(), 'dist/domain/fiscal/signals/sale-signals.js')).href);
const create = signals.SALE_SIGNALS.create;
let told = false;
signals.SALE_SIGNALS.create = (ctx) => {
  const made = create(ctx);
  made.computedFor = () => {
    if (!told) {
      told = true;
      process.stderr.write('bench: the computed sale is not handed over; the filer computes it from the stored document\n');
    }
    return undefined;
  };
  return made;
};
