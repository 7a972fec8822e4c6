// The principals an RVAT agent sells for (selectPrincipals).
// - principals: one row per tenant and the authority's principal id (`id`, kept as text), as the
//   VSDC last reported it; a later report replaces the row, an identical one changes nothing.
//   Pulled through every initialised branch, stored per tenant (the authority answers per
//   taxpayer; branches that report the same principal share its row).
// - principal_pulls: per initialised branch, where its pull stands (as import_pulls).
export const up = [
  `create table principals (
     tenant_id integer not null references tenants(id),
     principal_id text not null,
     tpin text,
     name text,
     address text,
     email text,
     tel text,
     account_no text,
     principal jsonb not null,
     received_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     primary key (tenant_id, principal_id)
   )`,
  `create table principal_pulls (
     device_id integer primary key references devices(id),
     last_req_dt text,
     next_pull_at timestamptz not null default now(),
     lease_until timestamptz,
     failures integer not null default 0,
     last_pulled_at timestamptz,
     last_error text,
     updated_at timestamptz not null default now()
   )`,
];
