// What every ZRA port shares about a call: the device as the client's target, the cursor of a read
// "since", and a write's or a read's answer in the port's outcomes.
import { VSDC_EPOCH, formatVsdcDateTime, parseVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import type { SelectOutcome, WriteOutcome } from '../outcome.ts';
import type { AuthorityDevice } from '../port/device.ts';
import type { Pulled, Sent } from '../port/outcomes.ts';
import type { DeviceTarget } from './client.ts';

export const targetOf = (device: AuthorityDevice): DeviceTarget => ({ baseUrl: device.baseUrl, tpin: device.tpin, bhfId: device.branch });

/**
 * The `lastReqDt` a read since `cursor` (an earlier answer's `resultDt`) asks with: one second
 * before it, so that a VSDC answering "changed strictly after" still returns a change made in that
 * same second (what comes twice, the domain's keyed stores replace or skip). Null: the epoch;
 * text that is no date is sent as it is.
 */
export function lastReqDtOf(cursor: string | null): string {
  if (cursor === null) return VSDC_EPOCH;
  const at = parseVsdcDateTime(cursor);
  if (at === null || at.getTime() <= parseVsdcDateTime(VSDC_EPOCH)!.getTime()) return cursor;
  return formatVsdcDateTime(new Date(at.getTime() - 1000));
}

export function sentOf(outcome: WriteOutcome): Sent {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'accepted', code: outcome.resultCd };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
  }
}

/** A select's answer as a pull: the records `read` finds in its data, and its `resultDt` as the next cursor. */
export function pulledOf<T, R>(outcome: SelectOutcome<T>, read: (data: T) => R[]): Pulled<R> {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'ok', records: read(outcome.data), cursor: outcome.resultDt };
    case 'empty':
      return { kind: 'empty', cursor: outcome.resultDt };
    case 'rejected':
      return { kind: 'rejected', code: outcome.code, message: outcome.message };
    case 'unreachable':
      return outcome;
  }
}
