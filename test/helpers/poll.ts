// The one way tests wait for something to happen: poll a check until it answers, never sleep a
// fixed time and hope.

/**
 * Calls `check` until it returns a value that is neither `undefined` nor `false`, and returns
 * that value. A check that throws is retried too (its last error is reported on time-out), so an
 * assertion inside a check reads as "until this holds".
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
