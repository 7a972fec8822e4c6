import { Gauge } from 'prom-client';
import { noneWhileDatabaseAway, readInBackground } from '../../../platform/observability/read-in-background.ts';
import type { ContextMember } from '../context.ts';
import { outboxState } from './store.ts';

// The outbox as the database holds it, so every process reports the same: read as the fiscal
// gauges are (fiscal/filing/gauges.ts), at most once per CACHE_MS and, after the first scrape, in
// the background. The oldest mail's age is computed at each scrape from when it was written.
const CACHE_MS = 10_000;

/** The mail outbox's gauges on the context's registry. */
export const MAIL_GAUGES: ContextMember<void> = {
  name: 'the mail gauges',
  create: (ctx) => {
    const now = () => ctx.clock.now().getTime();
    const state = noneWhileDatabaseAway(readInBackground(() => outboxState(ctx.db), CACHE_MS, now, 'forget'));
    const registers = [ctx.metrics.registry];
    new Gauge({
      name: 'fiscal_gateway_mail_outbox',
      help: "Merchants' mails waiting to be sent (pending) and given up in the last 30 days (failed)",
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        const current = await state();
        if (!current) return;
        this.set({ status: 'pending' }, current.pending);
        this.set({ status: 'failed' }, current.failed);
      },
    });
    new Gauge({
      name: 'fiscal_gateway_mail_outbox_oldest_age_seconds',
      help: "Age of the oldest merchant's mail waiting to be sent (0 when none waits): alert on it",
      registers,
      async collect() {
        this.reset();
        const current = await state();
        if (current) this.set(current.oldestPending ? Math.max(0, now() - current.oldestPending.getTime()) / 1000 : 0);
      },
    });
  },
};
