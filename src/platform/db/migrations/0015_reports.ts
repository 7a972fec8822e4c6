// Daily reports (the Z report, a snapshot that never changes once taken), the
// merchant's timezone (its days), and the index that reads a branch's or a merchant's documents
// by the time they occurred (reports and exports).
export const up = [
  `alter table tenants add column timezone text not null default 'Africa/Lusaka'`,
  `create table daily_reports (
     device_id integer not null references devices(id),
     day text not null check (day ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
     tenant_id integer not null references tenants(id),
     branch text not null,
     report text not null,
     closed_at timestamptz not null default now(),
     closed_by text not null,
     primary key (device_id, day)
   )`,
  `create index sales_tenant_occurred on sales (tenant_id, occurred_at, id)`,
];
