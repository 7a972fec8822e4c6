// Partners, tenants, devices, credentials, audit, usage and the rate-limit store.
export const up = [
  `create table partners (
     id integer generated always as identity primary key,
     name text not null,
     status text not null default 'active' check (status in ('active', 'suspended')),
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now()
   )`,
  `create table partner_keys (
     id integer generated always as identity primary key,
     partner_id integer not null references partners(id),
     name text not null,
     mode text not null check (mode in ('live', 'test')),
     scopes text[] not null,
     secret_hash text not null unique,
     secret_ciphertext text not null,
     last4 text not null,
     created_at timestamptz not null default now(),
     expires_at timestamptz,
     revoked_at timestamptz,
     rotated_to_id integer references partner_keys(id),
     last_used_at timestamptz
   )`,
  `create index partner_keys_partner on partner_keys(partner_id)`,
  `create table tenants (
     id integer generated always as identity primary key,
     partner_id integer references partners(id),
     name text not null,
     tpin text not null,
     email text,
     plan text check (plan in ('free_trial', 'starter', 'growth', 'enterprise')),
     subscription text not null default 'active' check (subscription in ('active', 'blocked')),
     status text not null default 'active' check (status in ('active', 'suspended')),
     monthly_quota integer check (monthly_quota >= 0),
     rate_limit_per_minute integer check (rate_limit_per_minute > 0),
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now()
   )`,
  `create index tenants_partner on tenants(partner_id, id)`,
  `create unique index tenants_partner_tpin on tenants(partner_id, tpin)`,
  `create table devices (
     id integer generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     branch text not null,
     device_serial text not null,
     vsdc_base_url text not null,
     initialized boolean not null default false,
     sdc_id text,
     mrc_no text,
     taxpayer_name text,
     branch_name text,
     last_sale_invc_no bigint,
     last_pchs_invc_no bigint,
     last_sale_rcpt_no bigint,
     next_invoice_no bigint not null default 1,
     initialized_at timestamptz,
     init_claimed_until timestamptz,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     unique (tenant_id, branch)
   )`,
  `create table tenant_tokens (
     id integer generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     name text not null,
     abilities text[] not null,
     token_hash text not null unique,
     last4 text not null,
     created_at timestamptz not null default now(),
     revoked_at timestamptz,
     last_used_at timestamptz
   )`,
  `create index tenant_tokens_tenant on tenant_tokens(tenant_id)`,
  `create table api_keys (
     id integer generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     device_id integer references devices(id),
     dialect text not null default 'bare' check (dialect in ('bare', 'wrapped')),
     key_hash text not null unique,
     last4 text not null,
     created_at timestamptz not null default now(),
     revoked_at timestamptz,
     last_used_at timestamptz
   )`,
  `create index api_keys_tenant on api_keys(tenant_id)`,
  `create table audit_log (
     id bigint generated always as identity primary key,
     actor_type text not null,
     actor_id text,
     partner_id integer,
     tenant_id integer,
     action text not null,
     target_type text,
     target_id text,
     details jsonb not null default '{}'::jsonb,
     created_at timestamptz not null default now()
   )`,
  `create index audit_log_partner on audit_log(partner_id, id)`,
  `create table tenant_usage (
     tenant_id integer not null references tenants(id),
     month text not null,
     documents integer not null default 0,
     primary key (tenant_id, month)
   )`,
  // The shape rate-limiter-flexible's PostgreSQL store expects (created here, not at run time).
  `create table rate_limits (
     key varchar(255) primary key,
     points integer not null default 0,
     expire bigint
   )`,
];
