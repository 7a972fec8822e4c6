import { distance } from 'fastest-levenshtein';

// "Did you mean …?" for a name the caller misspelt: a body field, a query parameter, a route.

/** The most edits a name may be away from a known one and still be taken for a slip of it. */
const MOST_EDITS = 3;

/** How many edits a name of this length may take: one in three characters, at least one. */
const editsAllowed = (length: number) => Math.min(MOST_EDITS, Math.max(1, Math.floor(length / 3)));

/** How many edits `name` is from `known` (letter case aside) when that is few enough to be a slip; else undefined. */
export function editsIfSlip(name: string, known: string): number | undefined {
  const allowed = editsAllowed(Math.max(name.length, known.length));
  if (Math.abs(name.length - known.length) > allowed) return undefined; // a long path segment costs nothing
  const edits = distance(name.toLowerCase(), known.toLowerCase());
  return edits <= allowed ? edits : undefined;
}

/**
 * The known name closest to `name` (letter case aside) when it is close enough to be a typo of it
 * (`custmerTpin` → `customerTpin`, `stauts` → `status`); undefined when none is. Ties go to the
 * first known name.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    if (candidate === name) continue;
    const edits = editsIfSlip(name, candidate);
    if (edits !== undefined && (!best || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}

/** `a, b and c`: the names a caller may send. */
export function namesInWords(names: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}
