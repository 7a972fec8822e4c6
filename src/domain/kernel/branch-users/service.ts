// Filing branch users with their branch's authority (its BranchUsersPort): the rows the store
// queued with each change, sent by the `branch-users.file` worker, retried with backoff while the
// authority does not answer. A refusal is `failed` with the authority's code and message until a
// later change queues the row again.
import type { AppContext } from '../context.ts';
import { sentOutcomeOf, vsdcLeaseMs } from '../authority-rows/answers.ts';
import { claimDueBranchUsers, recordBranchUserOutcome, type ClaimedBranchUser } from './store.ts';

export const BRANCH_USER_BATCH = 20;

/** One attempt to file a leased row; records the answer. */
async function sendBranchUser(ctx: AppContext, row: ClaimedBranchUser): Promise<void> {
  const outcome = await ctx.authorities
    .of(row.device.profile)
    .branchUsers.register(row.device, { id: row.userId, name: row.userName, active: row.useYn === 'Y' });
  await recordBranchUserOutcome(ctx.db, row.id, row.revision, sentOutcomeOf(ctx.config, outcome, row.retryAttempts));
}

/** One background round: files the rows whose time has come. Returns how many it handled. */
export async function fileDueBranchUsers(ctx: AppContext): Promise<number> {
  const due = await claimDueBranchUsers(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), BRANCH_USER_BATCH);
  await Promise.all(due.map((row) => sendBranchUser(ctx, row)));
  return due.length;
}
