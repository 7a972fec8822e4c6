// One pass of the backlog alarms: each branch is decided under its alarm row's lock, and the
// event is stored in the same transaction as the row that remembers it was fired, so that any
// number of processes evaluating at once fire each alarm exactly once.
import type { AppContext } from '../../kernel/context.ts';
import { BACKLOG_EVENT, RECOVERED_EVENT, enqueueEvent } from '../../kernel/outbox/events.ts';
import { decideAlarm } from './decide.ts';
import {
  alarmBranch,
  branchesToEvaluate,
  claimAlarmRow,
  closeEpisode,
  openEpisode,
  pendingStats,
  type AlarmBranch,
  type AlarmRow,
  type PendingStats,
} from './store.ts';
import { iso } from '../../../platform/lib/time.ts';

const BRANCHES_PER_PASS = 1_000;

interface PassResult {
  backlog: number;
  recovered: number;
}

const secondsBetween = (from: Date, to: Date) => Math.max(0, Math.floor((to.getTime() - from.getTime()) / 1000));

function branchPayload(branch: AlarmBranch) {
  return {
    tenantId: branch.tenantId,
    tenantName: branch.tenantName,
    tpin: branch.tpin,
    branch: branch.branch,
    branchName: branch.branchName,
    deviceSerial: branch.deviceSerial,
    sdcId: branch.sdcId,
  };
}

function backlogPayload(branch: AlarmBranch, stats: PendingStats, thresholdSec: number, thresholdsSec: readonly number[], now: Date) {
  const oldest = stats.oldestPendingAt!;
  return {
    branch: branchPayload(branch),
    backlog: {
      pending: stats.pending,
      oldestPendingAt: oldest.toISOString(),
      oldestPendingAgeSeconds: secondsBetween(oldest, now),
      thresholdSeconds: thresholdSec,
      nextThresholdSeconds: thresholdsSec.find((t) => t > thresholdSec) ?? null,
      lastError: branch.lastError,
      nextAttemptAt: iso(branch.nextAttemptAt),
    },
  };
}

function recoveredPayload(branch: AlarmBranch, row: AlarmRow, stats: PendingStats, now: Date) {
  return {
    branch: branchPayload(branch),
    backlog: {
      pending: stats.pending,
      lastThresholdSeconds: row.threshold_sec,
      episodeStartedAt: iso(row.episode_started_at),
      recoveredAt: now.toISOString(),
    },
  };
}

/** Decides one branch; 'skipped' when another process holds it at this moment. */
async function evaluateBranch(ctx: AppContext, deviceId: number, now: Date): Promise<'skipped' | 'none' | 'backlog' | 'recovered'> {
  const thresholds = ctx.config.backlogAlarmAgesSec;
  return ctx.db.transaction().execute(async (trx) => {
    const row = await claimAlarmRow(trx, deviceId);
    if (!row) return 'skipped';
    const stats = await pendingStats(trx, deviceId, row.watermark_sale_id);
    const decision = decideAlarm(
      {
        openThresholdSec: row.threshold_sec,
        episodeStillPending: stats.watermarkPending,
        oldestAgeSec: stats.oldestPendingAt ? secondsBetween(stats.oldestPendingAt, now) : null,
      },
      thresholds,
    );
    if (decision.kind === 'none') return 'none';
    const branch = await alarmBranch(trx, deviceId);
    if (!branch) return 'none';
    const notifier = ctx.database.notifier;
    if (decision.kind === 'recovered') {
      await enqueueEvent(
        trx,
        {
          type: RECOVERED_EVENT,
          partnerId: branch.partnerId,
          tenantId: branch.tenantId,
          data: recoveredPayload(branch, row, stats, now),
          created: now,
        },
        notifier,
      );
      await closeEpisode(trx, deviceId, now);
      return 'recovered';
    }
    const data = backlogPayload(branch, stats, decision.thresholdSec, thresholds, now);
    await enqueueEvent(trx, { type: BACKLOG_EVENT, partnerId: branch.partnerId, tenantId: branch.tenantId, data, created: now }, notifier);
    await openEpisode(trx, deviceId, {
      thresholdSec: decision.thresholdSec,
      episodeStartedAt: row.episode_started_at ?? stats.oldestPendingAt!,
      watermarkSaleId: stats.newestPendingId!,
      firedAt: now,
    });
    return 'backlog';
  });
}

/** Looks at every branch that may need an alarm now; returns what was fired. */
export async function evaluateBacklogAlarms(ctx: AppContext, now: Date = ctx.clock.now()): Promise<PassResult> {
  const thresholds = ctx.config.backlogAlarmAgesSec;
  const result: PassResult = { backlog: 0, recovered: 0 };
  if (thresholds.length === 0) return result;
  const cutoff = new Date(now.getTime() - thresholds[0]! * 1000);
  for (const deviceId of await branchesToEvaluate(ctx.db, cutoff, BRANCHES_PER_PASS)) {
    const outcome = await evaluateBranch(ctx, deviceId, now);
    if (outcome === 'backlog') result.backlog++;
    if (outcome === 'recovered') result.recovered++;
  }
  return result;
}
