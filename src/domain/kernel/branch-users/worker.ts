import type { AppContext } from '../context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { BRANCH_USER_BATCH, fileDueBranchUsers } from './service.ts';

/** Files the branch users queued by a change (saveBrancheUser) and retries those the VSDC did not answer. */
export function branchUserWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'branch-users.file',
    pollMs: options.pollMs ?? 1_000,
    batchSize: BRANCH_USER_BATCH,
    log: ctx.log,
    round: () => fileDueBranchUsers(ctx),
  });
}
