// One table for where every pulled feed stands: feed_pulls replaces import_pulls, purchase_pulls,
// principal_pulls and stock_ledger_pulls (a row per initialised branch) and authority_pulls (a row
// per tenant and feed: notices, branches). A row is a branch's (`device_id` set) or, for the
// tenant feeds, the tenant's (`device_id` null); its cursor (`last_req_dt`), next pull, lease
// and failures as before. `answered_sar_no` is the stock ledger's (0029). Rows are copied over.
export const up = [
  `create table feed_pulls (
     id serial primary key,
     feed text not null check (feed in ('imports', 'purchases', 'principals', 'stock-ledger', 'notices', 'branches')),
     tenant_id integer not null references tenants(id),
     device_id integer references devices(id),
     last_req_dt text,
     next_pull_at timestamptz not null default now(),
     lease_until timestamptz,
     failures integer not null default 0,
     last_pulled_at timestamptz,
     last_error text,
     answered_sar_no integer,
     updated_at timestamptz not null default now(),
     check ((device_id is null) = (feed in ('notices', 'branches')))
   )`,
  `create unique index feed_pulls_branch on feed_pulls (feed, device_id) where device_id is not null`,
  `create unique index feed_pulls_tenant on feed_pulls (feed, tenant_id) where device_id is null`,
  `create index feed_pulls_due on feed_pulls (feed, next_pull_at)`,
  ...(
    [
      ['imports', 'import_pulls'],
      ['purchases', 'purchase_pulls'],
      ['principals', 'principal_pulls'],
    ] as const
  ).map(
    ([
      feed,
      table,
    ]) => `insert into feed_pulls (feed, tenant_id, device_id, last_req_dt, next_pull_at, lease_until, failures, last_pulled_at, last_error, updated_at)
     select '${feed}', d.tenant_id, p.device_id, p.last_req_dt, p.next_pull_at, p.lease_until, p.failures, p.last_pulled_at, p.last_error, p.updated_at
     from ${table} p join devices d on d.id = p.device_id order by p.device_id`,
  ),
  `insert into feed_pulls (feed, tenant_id, device_id, last_req_dt, next_pull_at, lease_until, failures, last_pulled_at, last_error, answered_sar_no, updated_at)
   select 'stock-ledger', d.tenant_id, p.device_id, p.last_req_dt, p.next_pull_at, p.lease_until, p.failures, p.last_pulled_at, p.last_error, p.answered_sar_no, p.updated_at
   from stock_ledger_pulls p join devices d on d.id = p.device_id order by p.device_id`,
  `insert into feed_pulls (feed, tenant_id, device_id, last_req_dt, next_pull_at, lease_until, failures, last_pulled_at, last_error, updated_at)
   select feed, tenant_id, null, last_req_dt, next_pull_at, lease_until, failures, last_pulled_at, last_error, updated_at
   from authority_pulls order by id`,
  `drop table import_pulls`,
  `drop table purchase_pulls`,
  `drop table principal_pulls`,
  `drop table stock_ledger_pulls`,
  `drop table authority_pulls`,
];
