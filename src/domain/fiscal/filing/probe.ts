// While branches wait out a backoff, their VSDCs are probed with a select call (the code tables
// since now: a small answer) every VSDC_PROBE_MS. An answer of any kind makes every backed-off
// branch at that address due at once, so a backlog starts filing within one probe interval of
// the VSDC's return however long the outage was. A probe never files anything.
import { formatVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { claimProbes, wakeAddress } from './store.ts';

/** Probes the addresses due a probe; returns the branches whose VSDC answered (now due). */
export async function probeBackedOffVsdcs(ctx: AppContext, signal: AbortSignal): Promise<number[]> {
  const targets = await claimProbes(ctx.db, ctx.config.vsdcProbeMs);
  const woken = await Promise.all(
    targets.map(async (target) => {
      const answer = await ctx.vsdc.selectCodes(
        { baseUrl: target.baseUrl, tpin: target.tpin, bhfId: target.branch },
        { lastReqDt: formatVsdcDateTime(ctx.clock.now()) },
        { signal },
      );
      return answer.kind === 'unreachable' ? [] : wakeAddress(ctx.db, target.baseUrl);
    }),
  );
  return woken.flat();
}
