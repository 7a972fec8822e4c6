import type { VsdcClient } from './zra-vsdc/client.ts';
import type { Metrics } from '../platform/observability/metrics.ts';

/** Wraps every VSDC call with its latency and outcome class; the client itself stays plain. */
export function instrumentVsdcClient(client: VsdcClient, metrics: Metrics): VsdcClient {
  const wrapped = { ...client } as Record<string, unknown>;
  for (const name of Object.keys(client) as Array<keyof VsdcClient>) {
    const original = client[name];
    if (typeof original !== 'function' || name === 'close') continue;
    wrapped[name] = async (...args: unknown[]) => {
      const stop = metrics.vsdcDuration.startTimer({ endpoint: name });
      try {
        const outcome = (await (original as (...a: unknown[]) => Promise<{ kind: string }>).apply(client, args)) as { kind: string };
        metrics.vsdcCalls.inc({ endpoint: name, outcome: outcome.kind });
        return outcome;
      } catch (err) {
        metrics.vsdcCalls.inc({ endpoint: name, outcome: 'error' });
        throw err;
      } finally {
        stop();
      }
    };
  }
  return wrapped as unknown as VsdcClient;
}
