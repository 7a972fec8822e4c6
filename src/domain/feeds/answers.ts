// The merchant's answers filed with the authority (a customs line's, a purchase's): what the
// adapter's outcome means for the answer's row.
import type { Sent } from '../../authorities/port/index.ts';
import type { Config } from '../../platform/config.ts';
import { backoffMs } from '../../platform/workers/backoff.ts';
import type { VsdcSendOutcome } from '../kernel/authority-rows/answers.ts';

/** Reads a send's outcome for a row that had `retryAttempts` unreachable attempts before this one. */
export function answerOutcomeOf(config: Pick<Config, 'filingRetryMs'>, sent: Sent, retryAttempts: number): VsdcSendOutcome {
  switch (sent.kind) {
    case 'accepted':
      return { kind: 'accepted', code: sent.code };
    case 'rejected':
      return { kind: 'refused', code: sent.code, message: sent.message };
    case 'unreachable':
      return {
        kind: 'unreachable',
        detail: `${sent.reason}: ${sent.detail}`,
        retryInMs: backoffMs(config.filingRetryMs, retryAttempts + 1),
      };
  }
}
