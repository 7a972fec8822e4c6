// What an authority's answer means, in the domain's words: a closed set of outcomes, each carrying
// the authority's own code and text verbatim where it gave them. Adapters never throw for an
// authority's answer (or its silence); they return one of these.
import type { UnreachableOutcome } from '../outcome.ts';

export type { UnreachableOutcome as Unreachable } from '../outcome.ts';
export { unreachableCause } from '../outcome.ts';

/** The authority refused: for good, as far as the gateway knows. */
export interface Rejected {
  kind: 'rejected';
  /** The authority's result code (or `'400'` when its unit refused the body itself). */
  code: string;
  message: string;
}

/** A write: accepted (with the authority's code), refused, or no answer. */
export type Sent = { kind: 'accepted'; code: string } | Rejected | UnreachableOutcome;

/**
 * A read of what changed since a cursor: the records and the cursor the next read starts from
 * (opaque to the domain: the adapter's, e.g. ZRA's `resultDt`), or nothing new.
 */
export type Pulled<T> =
  { kind: 'ok'; records: T[]; cursor: string | null } | { kind: 'empty'; cursor: string | null } | Rejected | UnreachableOutcome;
