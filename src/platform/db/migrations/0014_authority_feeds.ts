// What the authority publishes to a taxpayer beyond its sales.
// - authority_pulls: one row per tenant and feed (`notices`, `branches`), pulled through one of
//   the tenant's initialised devices: the next `lastReqDt` (the previous answer's resultDt),
//   when the next pull is due, its lease and its failures. Rows are added by the pull itself for
//   every tenant with an initialised device.
// - authority_notices: the notices, once each per tenant (`notice_no`), as received.
// - authority_branches: the taxpayer's branches as `selectBranches` last reported them, one row
//   per tenant and bhfId (a later report replaces the row).
export const up = [
  `create table authority_pulls (
     id serial primary key,
     tenant_id integer not null references tenants(id),
     feed text not null check (feed in ('notices', 'branches')),
     last_req_dt text,
     next_pull_at timestamptz not null default now(),
     lease_until timestamptz,
     failures integer not null default 0,
     last_pulled_at timestamptz,
     last_error text,
     updated_at timestamptz not null default now(),
     unique (tenant_id, feed)
   )`,
  `create index authority_pulls_due on authority_pulls (next_pull_at)`,
  `create table authority_notices (
     id serial primary key,
     tenant_id integer not null references tenants(id),
     notice_no bigint not null,
     title text,
     content text,
     detail_url text,
     registered_by text,
     registered_at timestamptz,
     notice jsonb not null,
     received_at timestamptz not null default now(),
     unique (tenant_id, notice_no)
   )`,
  `create index authority_notices_newest on authority_notices (tenant_id, registered_at desc, notice_no desc)`,
  `create table authority_branches (
     tenant_id integer not null references tenants(id),
     branch text not null,
     name text,
     status_code text,
     opened_on text,
     province text,
     district text,
     sector text,
     location text,
     headquarters boolean not null,
     manager_name text,
     manager_phone text,
     manager_email text,
     branch_record jsonb not null,
     received_at timestamptz not null default now(),
     primary key (tenant_id, branch)
   )`,
];
