// A national fleet (100,000 merchants, 200,000 branches): what the workers' polls and
// the console's views read is an index range, not every branch.
//   devices_recently_initialized   the backfills of the pull tables, stock_branches and
//                                  authority_pulls read the branches initialised in the last
//                                  minutes (platform/workers/backfill.ts), not every branch;
//   <pull table>_due               the branch pulls claim due rows oldest first: an index range
//                                  that stops at now() (authority_pulls has had one since 0014);
//   filing_queues_backed_off       the filer's probes read the branches in backoff, not every queue.
export const up = [
  `create index devices_recently_initialized on devices(initialized_at) where initialized`,
  `create index import_pulls_due on import_pulls(next_pull_at)`,
  `create index purchase_pulls_due on purchase_pulls(next_pull_at)`,
  `create index principal_pulls_due on principal_pulls(next_pull_at)`,
  `create index stock_ledger_pulls_due on stock_ledger_pulls(next_pull_at)`,
  `create index filing_queues_backed_off on filing_queues(device_id) where retry_delay_ms is not null`,
];
