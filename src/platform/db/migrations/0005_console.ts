// Backlog alarms: one row per branch that has ever been looked at, remembering the last age
// threshold fired in the current backlog episode (null between episodes). Plus the indexes the
// console's reads need: failed documents per branch, and documents by creation time (charts).
export const up = [
  `create table backlog_alarms (
     device_id integer primary key references devices(id),
     threshold_sec integer,
     episode_started_at timestamptz,
     watermark_sale_id bigint,
     fired_at timestamptz,
     updated_at timestamptz not null default now()
   )`,
  `create index backlog_alarms_open on backlog_alarms (device_id) where threshold_sec is not null`,
  `create index sales_created on sales (created_at)`,
  `create index sales_failed on sales (device_id, id desc) where status = 'failed'`,
];
