// Rate-limit windows last a minute and are counted on every request: the table skips the
// write-ahead log, so counting a request costs no WAL write and its commit no disk flush
// (measured: an unlogged update costs well under half a logged one; docs/decisions.md). A crash empties the table, which
// only restarts the current windows.
export const up = [`alter table rate_limits set unlogged`];
