-- findFiscalisationKey (src/credentials/key-lookup.ts, built by findFiscalisationKeySql)
-- A fiscalisation key's holder (every request of a till on /zm/api) with its merchant's account standing, its `last_used_at` stamped at most once a minute.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: the memory or Redis rate-limit store (the embedded database): the request is counted outside the statement
/* prepared */ with found as (select k.id, k.device_id, k.dialect, k.key_hash, k.training, k.till_login_id, t.id as t_id, t.partner_id as t_partner_id, t.name as t_name, t.tpin as t_tpin, t.plan as t_plan,
    t.subscription as t_subscription, t.status as t_status, t.monthly_quota as t_monthly_quota,
    t.rate_limit_per_minute as t_rate_limit_per_minute, t.offline_policy as t_offline_policy, t.authority as t_authority, t.timezone as t_timezone,
    coalesce((select u.documents from tenant_usage u where u.tenant_id = t.id and u.month = $1), 0) as t_documents
    from api_keys k join tenants t on t.id = k.tenant_id
    where k.key_hash = $2 and k.revoked_at is null), touched as (
      update "api_keys" c set last_used_at = $3::timestamptz
      from found
      where c.id = found.id and (c.last_used_at is null or c.last_used_at <= $4::timestamptz)
    ) select * from found;

-- Form: PostgreSQL's table rate-limit store: the request counted against the merchant's till bucket in the same statement
/* prepared */
    with found as (select k.id, k.device_id, k.dialect, k.key_hash, k.training, k.till_login_id, t.id as t_id, t.partner_id as t_partner_id, t.name as t_name, t.tpin as t_tpin, t.plan as t_plan,
    t.subscription as t_subscription, t.status as t_status, t.monthly_quota as t_monthly_quota,
    t.rate_limit_per_minute as t_rate_limit_per_minute, t.offline_policy as t_offline_policy, t.authority as t_authority, t.timezone as t_timezone,
    coalesce((select u.documents from tenant_usage u where u.tenant_id = t.id and u.month = $1), 0) as t_documents
    from api_keys k join tenants t on t.id = k.tenant_id
    where k.key_hash = $2 and k.revoked_at is null), clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms),
    counted as (
      insert into rate_limits as r (key, points, expire)
      select asked.key, asked.points, clock.ms + $3::bigint from (select $4::text || found.t_id || $5::text as key, 1 as points from found where found.t_subscription = 'active' and found.t_status = 'active'
  and (found.t_monthly_quota is null or found.t_documents < found.t_monthly_quota)) asked cross join clock
      order by asked.key
      on conflict (key) do update set
        points = case when r.expire <= excluded.expire - $6::bigint then excluded.points else r.points + excluded.points end,
        expire = case when r.expire <= excluded.expire - $7::bigint then excluded.expire else r.expire end
      returning key, points, expire
    ), touched as (
      update "api_keys" c set last_used_at = $8::timestamptz
      from found
      where c.id = found.id and (c.last_used_at is null or c.last_used_at <= $9::timestamptz)
    )
    select found.*, counted.points as rl_points, counted.expire as rl_expire, clock.ms as rl_now
    from found cross join clock left join counted on true;
