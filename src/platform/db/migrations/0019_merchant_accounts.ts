// Merchant accounts (docs/merchants.md).
// - tenants.origin: 'partner' (provisioned by a partner, partner_id set) or 'self' (signed up by
//   the merchant; partner_id null, so no partner listing or lookup ever finds it).
// - users: people of one merchant; email unique whatever its case (lower(email)).
// - user_sessions: id = SHA-256 of the cookie's random token; the CSRF token is derived from the
//   session token, so nothing more is stored for it.
// - user_tokens: one-time links (verify an email, reset a password, accept an invitation), stored
//   as the SHA-256 of the link's token.
// - signin_failures: failed sign-ins of the last minutes, counted per account and per address.
export const up = [
  `alter table tenants add column origin text not null default 'partner' check (origin in ('partner', 'self'))`,
  `update tenants set origin = 'self' where partner_id is null`,
  `alter table tenants add constraint tenants_origin_partner check ((origin = 'self') = (partner_id is null))`,
  `create table users (
     id serial primary key,
     tenant_id integer not null references tenants(id),
     email text not null,
     password_hash text not null,
     role text not null check (role in ('owner', 'admin', 'viewer')),
     email_verified_at timestamptz,
     password_changed_at timestamptz,
     removed_at timestamptz,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now()
   )`,
  `create unique index users_email on users(lower(email)) where removed_at is null`,
  `create index users_tenant on users(tenant_id, id)`,
  `create table user_sessions (
     id text primary key,
     user_id integer not null references users(id),
     created_at timestamptz not null,
     last_seen_at timestamptz not null,
     expires_at timestamptz not null,
     revoked_at timestamptz,
     ip text,
     user_agent text
   )`,
  `create index user_sessions_user on user_sessions(user_id) where revoked_at is null`,
  `create table user_tokens (
     id serial primary key,
     token_hash text not null unique,
     kind text not null check (kind in ('verify', 'reset', 'invitation')),
     tenant_id integer not null references tenants(id),
     user_id integer references users(id),
     email text not null,
     role text check (role in ('owner', 'admin', 'viewer')),
     created_by text,
     created_at timestamptz not null,
     expires_at timestamptz not null,
     used_at timestamptz
   )`,
  `create index user_tokens_tenant on user_tokens(tenant_id, kind)`,
  `create table signin_failures (
     id serial primary key,
     email text not null,
     ip text not null,
     created_at timestamptz not null
   )`,
  `create index signin_failures_email on signin_failures(email, created_at)`,
  `create index signin_failures_ip on signin_failures(ip, created_at)`,
];
