-- findTenantTokens (src/credentials/tenant-token-lookup.ts, built by findTenantTokensSql)
-- The twin of find-one-tenant-token.sql: the lookups arriving together (TenantTokenLookups) in one statement, each bucket counted once for its requests. Only with PostgreSQL's table rate-limit store.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: PostgreSQL's table rate-limit store
/* prepared */
    with wanted as (select * from unnest($1::text[], $2::text[]) with ordinality as w(hash, month, n)),
    found as (
      select w.n, k.id, k.abilities, k.token_hash, k.training, t.id as t_id, t.partner_id as t_partner_id, t.name as t_name, t.tpin as t_tpin, t.plan as t_plan,
    t.subscription as t_subscription, t.status as t_status, t.monthly_quota as t_monthly_quota,
    t.rate_limit_per_minute as t_rate_limit_per_minute, t.offline_policy as t_offline_policy, t.authority as t_authority, t.timezone as t_timezone,
    coalesce((select u.documents from tenant_usage u where u.tenant_id = t.id and u.month = w.month), 0) as t_documents
      from wanted w join tenant_tokens k on k.token_hash = w.hash and k.revoked_at is null join tenants t on t.id = k.tenant_id
    ),
    clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms),
    counted as (
      insert into rate_limits as r (key, points, expire)
      select asked.key, asked.points, clock.ms + $3::bigint from (select $4::text || found.t_id || $5::text as key, count(*)::int as points from found where found.t_subscription = 'active' and found.t_status = 'active'
  and (found.t_monthly_quota is null or found.t_documents < found.t_monthly_quota) group by 1) asked cross join clock
      order by asked.key
      on conflict (key) do update set
        points = case when r.expire <= excluded.expire - $6::bigint then excluded.points else r.points + excluded.points end,
        expire = case when r.expire <= excluded.expire - $7::bigint then excluded.expire else r.expire end
      returning key, points, expire
    ),
    touched as (
      update "tenant_tokens" c set last_used_at = $8::timestamptz
      from found
      where c.id = found.id and (c.last_used_at is null or c.last_used_at <= $9::timestamptz)
    )
    select found.*, $10::text || found.t_id || $11::text as rl_key, counted.key is not null as rl_counted, counted.points as rl_points, counted.expire as rl_expire, clock.ms as rl_now
    from found cross join clock left join counted on counted.key = $12::text || found.t_id || $13::text and found.t_subscription = 'active' and found.t_status = 'active'
  and (found.t_monthly_quota is null or found.t_documents < found.t_monthly_quota);
