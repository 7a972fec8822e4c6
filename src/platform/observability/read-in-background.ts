// Gauges read from the database (the fiscal gauges, the mail outbox's): a scrape must not wait
// for a count, nor cost more than one read however often it comes, nor fail while the database
// is away.
import { isDatabaseUnavailable } from '../db/availability.ts';

/**
 * A value read at most once per `maxAgeMs`: only the first caller waits for the read; later
 * callers get the last value at once and, when it is older than `maxAgeMs`, start the next read in
 * the background. A first read that fails is forgotten (the next caller reads afresh). A background
 * read that fails either forgets the value too (`'forget'`: the next caller reads afresh and fails
 * as the database does, not with old figures) or keeps it and tries again at the next call
 * (`'keep'`).
 */
export function readInBackground<T>(
  read: () => Promise<T>,
  maxAgeMs: number,
  now: () => number,
  onFailure: 'forget' | 'keep',
): () => Promise<T> {
  let held: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!held) {
      const first = { at: now(), value: read() };
      held = first;
      first.value.catch(() => held === first && (held = undefined));
    } else if (now() - held.at > maxAgeMs) {
      const stale = held;
      stale.at = now();
      read().then(
        (value) => (held = { at: now(), value: Promise.resolve(value) }),
        () => {
          if (onFailure === 'keep') stale.at = 0;
          else if (held === stale) held = undefined;
        },
      );
    }
    return held.value;
  };
}

/**
 * The value, or undefined while the database is away: the scrape then answers without these
 * series (and with `fiscal_gateway_database_up` 0) rather than failing whole and hiding the
 * process's own figures with the outage.
 */
export function noneWhileDatabaseAway<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  return async () => {
    try {
      return await read();
    } catch (err) {
      if (isDatabaseUnavailable(err)) return undefined;
      throw err;
    }
  };
}
