// Webhook endpoints, events (body bytes stored once) and deliveries (the delivery queue itself).
export const up = [
  `create table webhook_endpoints (
     id integer generated always as identity primary key,
     partner_id integer not null references partners(id),
     url text not null,
     description text not null default '',
     events text[] not null,
     status text not null default 'enabled' check (status in ('enabled', 'disabled')),
     secret_ciphertext text not null,
     failure_streak integer not null default 0,
     last_failure_at timestamptz,
     disabled_at timestamptz,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now()
   )`,
  `create index webhook_endpoints_partner on webhook_endpoints(partner_id, id)`,
  `create table webhook_events (
     id text primary key,
     type text not null,
     partner_id integer references partners(id),
     tenant_id integer not null references tenants(id),
     body text not null,
     created_at timestamptz not null
   )`,
  `create index webhook_events_created on webhook_events(created_at)`,
  `create table webhook_deliveries (
     id bigint generated always as identity primary key,
     event_id text not null references webhook_events(id) on delete cascade,
     endpoint_id integer not null references webhook_endpoints(id) on delete cascade,
     status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
     attempts integer not null default 0,
     next_attempt_at timestamptz,
     locked_until timestamptz,
     lease_token text,
     resends integer not null default 0,
     response_status integer,
     error text,
     last_attempt_at timestamptz,
     delivered_at timestamptz,
     created_at timestamptz not null
   )`,
  `create index webhook_deliveries_due on webhook_deliveries(endpoint_id, next_attempt_at) where status = 'pending'`,
  `create index webhook_deliveries_leased on webhook_deliveries(endpoint_id) where locked_until is not null`,
  `create index webhook_deliveries_endpoint on webhook_deliveries(endpoint_id, id desc)`,
  `create index webhook_deliveries_event on webhook_deliveries(event_id)`,
  `create index webhook_deliveries_created on webhook_deliveries(created_at)`,
];
