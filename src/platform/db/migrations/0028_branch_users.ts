// Branch users (saveBrancheUser). The people who issue documents at a branch
// are registered with its VSDC: one row per initialised branch and subject, the subject being a
// console user (`users`: every branch of its merchant) or a till login (its one branch). A row
// carries what is filed (`vsdc_user_id` `U<users.id>` / `T<till_logins.id>`, `user_name`,
// `use_yn` Y while active, N once removed), where its filing stands and the retry columns and
// lease of items (RetryColumns). A change re-queues the row; `revision` tells an answer about
// older data from one about the current data.
export const up = [
  `create table branch_users (
     id bigint generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     device_id integer not null references devices(id),
     user_id integer references users(id),
     till_login_id integer references till_logins(id),
     vsdc_user_id text not null check (length(vsdc_user_id) between 1 and 20),
     user_name text not null check (length(user_name) between 1 and 60),
     use_yn text not null check (use_yn in ('Y', 'N')),
     state text not null check (state in ('pending', 'registered', 'failed')),
     result_code text,
     result_message text,
     revision integer not null default 1,
     registered_at timestamptz,
     retry_attempts integer not null default 0,
     next_attempt_at timestamptz,
     lease_until timestamptz,
     last_unreachable text,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     unique (device_id, vsdc_user_id),
     check ((user_id is null) <> (till_login_id is null))
   )`,
  `create index branch_users_due on branch_users (next_attempt_at) where state = 'pending'`,
  `create index branch_users_user on branch_users (user_id) where user_id is not null`,
  `create index branch_users_till_login on branch_users (till_login_id) where till_login_id is not null`,
];
