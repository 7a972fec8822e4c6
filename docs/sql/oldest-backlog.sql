-- branchesByOldestBacklog (src/domain/fiscal/sales/backlog.ts, built by oldestBacklogReadSql)
-- The fleet's backlog walk by age (the fiscal gauges, the console's backlog views): the pending documents oldest first, a read at a time, each branch kept where it is first met. A read's size is a literal (100 at least, four times what is wanted, four times more at each following read).
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: the first read (the fiscal gauges: every branch)
      with walk as materialized (
        select s.device_id, s.tenant_id, s.created_at, s.id, row_number() over (order by s.created_at, s.id) as position from sales s
        where s.status = 'pending'
        order by s.created_at, s.id limit 400)
      select (select count(*) from walk)::int as read,
        (select json_build_array(w.created_at::text, w.id) from walk w order by w.position desc limit 1) as last,
        coalesce((select json_agg(m.device_id order by m.first)
                  from (select w.device_id, min(w.position) as first from walk w  group by w.device_id) m), '[]') as devices;

-- Form: a following read, after the last document read
      with walk as materialized (
        select s.device_id, s.tenant_id, s.created_at, s.id, row_number() over (order by s.created_at, s.id) as position from sales s
        where s.status = 'pending' and (s.created_at, s.id) > ($1::timestamptz, $2::bigint)
        order by s.created_at, s.id limit 1600)
      select (select count(*) from walk)::int as read,
        (select json_build_array(w.created_at::text, w.id) from walk w order by w.position desc limit 1) as last,
        coalesce((select json_agg(m.device_id order by m.first)
                  from (select w.device_id, min(w.position) as first from walk w  group by w.device_id) m), '[]') as devices;

-- Form: the console's first read in a partner's scope
      with walk as materialized (
        select s.device_id, s.tenant_id, s.created_at, s.id, row_number() over (order by s.created_at, s.id) as position from sales s
        where s.status = 'pending'
        order by s.created_at, s.id limit 100)
      select (select count(*) from walk)::int as read,
        (select json_build_array(w.created_at::text, w.id) from walk w order by w.position desc limit 1) as last,
        coalesce((select json_agg(m.device_id order by m.first)
                  from (select w.device_id, min(w.position) as first from walk w where (select p.partner_id from tenants p where p.id = "w"."tenant_id") = $1 group by w.device_id) m), '[]') as devices;
