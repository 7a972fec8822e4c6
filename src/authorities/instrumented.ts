import type { Metrics } from '../platform/observability/metrics.ts';

/**
 * Wraps every call of an authority's client (each method answering an outcome `{ kind }`) with
 * its latency and outcome class, by the method's name; the client itself stays plain.
 */
export function instrumentClient<C extends object>(client: C, metrics: Metrics): C {
  const wrapped = { ...client } as Record<string, unknown>;
  for (const name of Object.keys(client)) {
    const original = (client as Record<string, unknown>)[name];
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
  return wrapped as C;
}
