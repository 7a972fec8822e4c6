// While branches wait out a backoff, their VSDCs are probed with a small call that files nothing
// (the adapter's `filing.probe`) every VSDC_PROBE_MS. An answer of any kind makes every backed-off
// branch at that address due at once, so a backlog starts filing within one probe interval of
// the VSDC's return however long the outage was. A probe never files anything.
import type { AppContext } from '../../kernel/context.ts';
import { claimProbes, wakeAddress } from './queue.ts';

/** Probes the addresses due a probe; returns the branches whose VSDC answered (now due). */
export async function probeBackedOffVsdcs(ctx: AppContext, signal: AbortSignal): Promise<number[]> {
  const targets = await claimProbes(ctx.db, ctx.secretBox, ctx.config.vsdcProbeMs);
  const woken = await Promise.all(
    targets.map(async (target) => {
      const answer = await ctx.authorities.of(target.profile).filing.probe(target, ctx.clock.now(), { signal });
      return answer.kind === 'unreachable' ? [] : wakeAddress(ctx.db, target.baseUrl);
    }),
  );
  return woken.flat();
}
