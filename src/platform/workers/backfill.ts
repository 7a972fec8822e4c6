// A worker that gives rows of its own to every initialised branch (or tenant) before claiming
// them: reading the whole fleet on every poll costs as much as the fleet is large.
// So a process reads every branch once (its first round, and again every FULL_BACKFILL_MS as a
// safety net), and between those only the branches initialised within RECENT_INITIALISATION_MS
// (an index range: 0033's devices_recently_initialized).

/** Every branch again at least this often, per process and table. */
const FULL_BACKFILL_MS = 3_600_000;

/** "Recently initialised": far longer than any poll interval, so no branch falls between two rounds. */
export const RECENT_INITIALISATION_MS = 10 * 60_000;

const lastFull = new WeakMap<object, Map<string, number>>();

/**
 * Whether this round of `key`'s backfill reads every branch (true once per `owner`, e.g. the
 * process's database handle, then every `everyMs`), recording it when it does.
 */
export function fullBackfillDue(owner: object, key: string, everyMs = FULL_BACKFILL_MS, now = Date.now()): boolean {
  let byKey = lastFull.get(owner);
  if (!byKey) lastFull.set(owner, (byKey = new Map()));
  const last = byKey.get(key);
  if (last !== undefined && now - last < everyMs) return false;
  byKey.set(key, now);
  return true;
}
