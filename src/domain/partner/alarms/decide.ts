// When a branch's backlog deserves an alarm: pure rules, no database.

type AlarmDecision = { kind: 'none' } | { kind: 'backlog'; thresholdSec: number } | { kind: 'recovered' };

interface BranchBacklogState {
  /** The highest threshold fired in the open episode; null when no episode is open. */
  openThresholdSec: number | null;
  /** Whether a document that was pending when the last alarm fired is still pending. */
  episodeStillPending: boolean;
  /** Age of the branch's oldest pending document; null when nothing is pending. */
  oldestAgeSec: number | null;
}

/** The highest threshold the age has reached, if any. */
function thresholdReached(ageSec: number | null, thresholdsSec: readonly number[]): number | undefined {
  if (ageSec === null) return undefined;
  let reached: number | undefined;
  for (const threshold of thresholdsSec) if (ageSec >= threshold) reached = threshold;
  return reached;
}

/**
 * Each threshold fires at most once per episode, and only the highest one reached: a worker
 * that was down while the age crossed two thresholds sends one alarm, not a burst. The episode
 * ends when every document that was pending at the last alarm has been filed or refused.
 */
export function decideAlarm(state: BranchBacklogState, thresholdsSec: readonly number[]): AlarmDecision {
  if (state.openThresholdSec !== null && !state.episodeStillPending) return { kind: 'recovered' };
  const reached = thresholdReached(state.oldestAgeSec, thresholdsSec);
  if (reached === undefined) return { kind: 'none' };
  if (state.openThresholdSec !== null && reached <= state.openThresholdSec) return { kind: 'none' };
  return { kind: 'backlog', thresholdSec: reached };
}
