// When to try again after a failed attempt: the one place that says how long a row waits. The
// wait is always stored on the row (its next attempt time, and its failure count or current
// wait), so any process picks the row up when its time comes.

/** The longest wait between two attempts at an unreachable VSDC. */
export const MAX_RETRY_DELAY_MS = 300_000;

/** The wait after the `failures`-th consecutive failure: `firstMs`, doubling, up to MAX_RETRY_DELAY_MS. */
export function backoffMs(firstMs: number, failures: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, firstMs * 2 ** Math.max(0, failures - 1));
}

/** The wait after one more failure, for a row that stores its current wait rather than its failures. */
export function nextBackoffMs(delayMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, delayMs * 2);
}

/**
 * A configured schedule (webhook deliveries): the wait after the `failures`-th failure is
 * `delaysSec[failures - 1]`, stretched by up to `jitter` of itself so retries after an outage
 * spread out; undefined once the schedule is exhausted (no further attempt).
 */
export function scheduledBackoffMs(
  delaysSec: readonly number[],
  failures: number,
  jitter: number,
  random: () => number,
): number | undefined {
  if (failures < 1 || failures > delaysSec.length) return undefined;
  return delaysSec[failures - 1]! * 1000 * (1 + jitter * random());
}
