// A merchant's offline policy (queue sales while the VSDC is unreachable, or refuse
// them), and when a backed-off branch's VSDC was last probed (one probe per interval, whichever
// process takes it).
export const up = [
  `alter table tenants add column offline_policy text not null default 'queue' check (offline_policy in ('queue', 'refuse'))`,
  `alter table filing_queues add column probed_at timestamptz`,
];
