-- branchesReady (src/domain/fiscal/filing/queue.ts, built by branchesReadySql)
-- The fleet's backlog walk of the filers: the branches with a pending document (BRANCHES_WITH_BACKLOG_CTE, src/domain/fiscal/sales/backlog.ts, a loose index scan: one row per branch), kept when nobody else leases them and their backoff has passed.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: both engines
    with recursive backlog(device_id) as (
      (select device_id from sales where status = 'pending' order by device_id limit 1)
      union all
      select (select s.device_id from sales s where s.status = 'pending' and s.device_id > b.device_id order by s.device_id limit 1)
      from backlog b where b.device_id is not null
    )
    select b.device_id from backlog b
    where b.device_id is not null
      and coalesce((select (("q"."lease_until" is null or "q"."lease_until" <= now()) or ("q"."lease_owner" = $1)) and ("q"."next_attempt_at" <= now()) from filing_queues q where q.device_id = b.device_id), true)
    limit $2;
