// Till logins for the legacy getactive call. Usernames are unique per merchant among live
// logins, compared without case; getactive finds a login by username, then checks the TPIN.
export const up = [
  `create table till_logins (
     id integer generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     device_id integer not null references devices(id),
     username text not null,
     password_hash text not null,
     dialect text not null default 'bare' check (dialect in ('bare', 'wrapped')),
     api_key_id integer references api_keys(id),
     created_at timestamptz not null default now(),
     last_login_at timestamptz,
     deleted_at timestamptz
   )`,
  `create unique index till_logins_tenant_username on till_logins (tenant_id, lower(username)) where deleted_at is null`,
  `create index till_logins_username on till_logins (lower(username)) where deleted_at is null`,
];
