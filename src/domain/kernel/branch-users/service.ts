// Filing branch users with their branch's VSDC (`saveBrancheUser` `{userId, userNm, adrs, useYn,
// regr*/modr*}`): the rows the store queued with each change, sent by the `branch-users.file`
// worker, retried with backoff while the VSDC does not answer. A refusal is `failed` with the
// authority's code and message until a later change queues the row again. No password is ever
// sent: the gateway holds none in plain, and the VSDC does not sign anyone in.
import type { AppContext } from '../context.ts';
import { sendOutcomeOf, vsdcLeaseMs } from '../authority-rows/answers.ts';
import { GATEWAY_REGISTRANT_FIELDS } from '../../../authorities/zra-vsdc/registrant.ts';
import { claimDueBranchUsers, recordBranchUserOutcome, type ClaimedBranchUser } from './store.ts';

export const BRANCH_USER_BATCH = 20;

/** One attempt to file a leased row; records the answer. */
async function sendBranchUser(ctx: AppContext, row: ClaimedBranchUser): Promise<void> {
  const outcome = await ctx.vsdc.saveBrancheUser(row.target, {
    userId: row.userId,
    userNm: row.userName,
    adrs: null,
    useYn: row.useYn,
    ...GATEWAY_REGISTRANT_FIELDS,
  });
  await recordBranchUserOutcome(ctx.db, row.id, row.revision, sendOutcomeOf(ctx.config, outcome, row.retryAttempts));
}

/** One background round: files the rows whose time has come. Returns how many it handled. */
export async function fileDueBranchUsers(ctx: AppContext): Promise<number> {
  const due = await claimDueBranchUsers(ctx.db, vsdcLeaseMs(ctx.config), BRANCH_USER_BATCH);
  await Promise.all(due.map((row) => sendBranchUser(ctx, row)));
  return due.length;
}
