// What every KRA port shares: a write's and a read's answer in the port's outcomes (reading what
// KRA sends in pulled data is the family's: ../received.ts).
import type { CallOptions } from '../port/device.ts';
import type { Pulled, Sent } from '../port/outcomes.ts';
import type { KraOutcome } from './client.ts';

export function sentOf(outcome: KraOutcome): Sent {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'accepted', code: outcome.resultCd };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
    default:
      return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
  }
}

/** A read's answer as a pull: the records `read` finds in its data, and its `resultDt` as the next cursor. */
export function pulledOf<R>(outcome: KraOutcome, read: (data: unknown) => R[]): Pulled<R> {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'ok', records: read(outcome.data), cursor: outcome.resultDt };
    case 'empty':
      return { kind: 'empty', cursor: outcome.resultDt };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
    default:
      return { kind: 'rejected', code: outcome.resultCd, message: outcome.resultMsg };
  }
}

/** Only the caller's signal goes on (a port's options may carry more). */
export const signalOf = (options: CallOptions | undefined): CallOptions => (options?.signal ? { signal: options.signal } : {});
