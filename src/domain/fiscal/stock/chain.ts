// Sends one branch's stock chain under its lease through its authority's StockPort: each unsent
// movement in sarNo order, first the movement, then its levels (the absolute quantities after
// it). A movement accepted whose levels were not is resumed at its levels. A refusal fails that
// movement and the branch goes on; no answer defers the branch (backoff). No database
// transaction is open across a call to the authority.
import type { AppContext } from '../../kernel/context.ts';
import { nextBackoffMs } from '../../../platform/workers/backoff.ts';
import {
  deferChainBranch,
  nextUnsent,
  recordChainStep,
  releaseChainBranch,
  type ChainStep,
  type ClaimedChainBranch,
} from './chain-store.ts';

type ChainDrain = { kind: 'done' } | { kind: 'deferred'; retryInMs: number } | { kind: 'lease_lost' } | { kind: 'stopped' };

interface ChainSenderOptions {
  owner: string;
  leaseMs: number;
  /** No new call once aborted. */
  stopping: AbortSignal;
  /** Cuts calls in flight (the stop's grace is over). */
  cut: AbortSignal;
}

/** Sends the claimed branch's unsent movements in order until none is left, the authority does not answer, or the stop. */
export async function drainChain(ctx: AppContext, branch: ClaimedChainBranch, options: ChainSenderOptions): Promise<ChainDrain> {
  const { owner, leaseMs } = options;
  const { stock } = ctx.authorities.of(branch.device.profile);
  const defer = async (outcome: { reason: string; detail: string }): Promise<ChainDrain> => {
    const delayMs = branch.retryDelayMs === null ? ctx.config.filingRetryMs : nextBackoffMs(branch.retryDelayMs);
    await deferChainBranch(ctx.db, branch.deviceId, owner, delayMs, `${outcome.reason}: ${outcome.detail}`);
    return { kind: 'deferred', retryInMs: delayMs };
  };
  for (;;) {
    if (options.stopping.aborted) {
      await releaseChainBranch(ctx.db, branch.deviceId, owner);
      return { kind: 'stopped' };
    }
    const unsent = await nextUnsent(ctx.db, branch.deviceId);
    if (!unsent) {
      await releaseChainBranch(ctx.db, branch.deviceId, owner);
      return { kind: 'done' };
    }
    let step: ChainStep | undefined;
    if (unsent.state === 'pending') {
      const outcome = await stock.sendMovement(branch.device, unsent.movement, { signal: options.cut });
      if (outcome.kind === 'unreachable') return defer(outcome);
      step = outcome.kind === 'accepted' ? { kind: 'items_sent' } : { kind: 'failed', code: outcome.code, message: outcome.message };
      if (!(await recordChainStep(ctx.db, branch.deviceId, unsent.id, owner, leaseMs, step))) return { kind: 'lease_lost' };
      if (step.kind === 'failed') continue;
    }
    const outcome = await stock.sendLevels(branch.device, unsent.movement, { signal: options.cut });
    if (outcome.kind === 'unreachable') return defer(outcome);
    step =
      outcome.kind === 'accepted'
        ? { kind: 'sent', code: outcome.code }
        : { kind: 'failed', code: outcome.code, message: `${outcome.call}: ${outcome.message}` };
    if (!(await recordChainStep(ctx.db, branch.deviceId, unsent.id, owner, leaseMs, step))) return { kind: 'lease_lost' };
  }
}
