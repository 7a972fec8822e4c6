// Reconciliation with the authority.
// - reconciliation_runs: one job per branch and date range; its lease (one process at a time),
//   its backoff while the VSDC does not answer, and its progress counters.
// - reconciliation_results: the documents a run checks, listed when the run starts (outcome
//   null: not checked yet) and each checked once: (run_id, sale_id) is the key.
export const up = [
  `create table reconciliation_runs (
     id bigint generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     device_id integer not null references devices(id),
     branch text not null,
     date_from text not null,
     date_to text not null,
     pending_after_sec integer not null,
     status text not null default 'queued' check (status in ('queued', 'running', 'completed')),
     requested_by text not null check (requested_by in ('merchant', 'partner', 'admin', 'cli')),
     total integer not null default 0,
     checked integer not null default 0,
     matches integer not null default 0,
     mismatches integer not null default 0,
     unknown integer not null default 0,
     adopted integer not null default 0,
     not_filed integer not null default 0,
     lease_owner text,
     lease_until timestamptz,
     next_attempt_at timestamptz not null default now(),
     retry_delay_ms integer,
     last_error text,
     created_at timestamptz not null default now(),
     started_at timestamptz,
     listed_at timestamptz,
     finished_at timestamptz,
     updated_at timestamptz not null default now()
   )`,
  `create index reconciliation_runs_tenant on reconciliation_runs (tenant_id, id desc)`,
  `create index reconciliation_runs_waiting on reconciliation_runs (next_attempt_at) where status <> 'completed'`,
  `create unique index reconciliation_runs_one_open_per_branch on reconciliation_runs (device_id) where status <> 'completed'`,
  `create table reconciliation_results (
     run_id bigint not null references reconciliation_runs(id) on delete cascade,
     sale_id bigint not null references sales(id),
     invoice_no bigint not null,
     outcome text check (outcome in ('match', 'mismatch', 'unknown', 'adopted', 'not_filed')),
     differences text,
     checked_at timestamptz,
     primary key (run_id, sale_id)
   )`,
  `create index reconciliation_results_todo on reconciliation_results (run_id, invoice_no) where outcome is null`,
  `create index reconciliation_results_outcome on reconciliation_results (run_id, outcome, invoice_no)`,
];
