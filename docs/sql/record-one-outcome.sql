-- recordOneOutcome (src/domain/fiscal/filing/outcome-store.ts, built by recordOneOutcomeSql)
-- A filing's outcome in one statement: the still-pending document moved to it, its webhook event and deliveries, the branch's lease renewed and backoff cleared, and the branch's next documents read (none left: the branch given back).
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: the filer on PostgreSQL when the request that stored the document may wait in another process: the outcome is notified at commit
/* prepared */
    with next as (select coalesce((
    select json_agg(p order by p.id) from (
      select s.*, case when "s"."issued_by_type" = 'admin' then 'operator' else case "s"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "s"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "s"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "s"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "s"."issued_by_id")
    when 'fiscalisation_key' then (select $1 || named_f.last4 from api_keys named_f where named_f.id = "s"."issued_by_id")
  end end as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = $2 and s.status = 'pending' and s.id > $3
      order by s.id
      limit $4) p), '[]'::json) as batch),
    lease as (
      update filing_queues set "lease_until" = case when json_array_length((select batch from next)) = 0 then null else now() + make_interval(secs => $5) end,
    "lease_owner" = case when json_array_length((select batch from next)) = 0 then null else "filing_queues"."lease_owner" end, retry_delay_ms = null, last_error = null, updated_at = now()
      where device_id = $6 and $7::text is not null and ("lease_owner" = $8::text)
      returning device_id
    ),
    outcome as (
      update sales set status = $9, result_code = $10, last_error = $11, receipt_no = $12, total_receipt_no = $13, internal_data = $14, receipt_signature = $15, sdc_id = $16, mrc_no = $17, qr_code_url = $18, published_at = $19, updated_at = $20
      where id = $21 and status = 'pending'
      returning id
    ),
    event as (
      insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
      select $22::text, $23::text, $24::int, $25::int, $26::text, $27::timestamptz from outcome
      returning id, type, partner_id, created_at
    ),
    deliveries as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select event.id, e.id, event.created_at, event.created_at
      from event join webhook_endpoints e on e.partner_id = event.partner_id and e.status = 'enabled' and event.type = any(e.events)
      returning event_id, endpoint_id
    )
    select exists (select 1 from outcome) as recorded, exists (select 1 from lease) as lease_held,
      (select count(*) from deliveries)::int as deliveries, (select batch from next) as next_batch , (select pg_notify($28, $29::text) from outcome) as outcome_notice, (select pg_notify('webhooks', '') where exists (select 1 from deliveries)) as deliveries_notice;

-- Form: the filer on the embedded database (and on PostgreSQL when the storing request waits in this process)
/* prepared */
    with next as (select coalesce((
    select json_agg(p order by p.id) from (
      select s.*, case when "s"."issued_by_type" = 'admin' then 'operator' else case "s"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "s"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "s"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "s"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "s"."issued_by_id")
    when 'fiscalisation_key' then (select $1 || named_f.last4 from api_keys named_f where named_f.id = "s"."issued_by_id")
  end end as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = $2 and s.status = 'pending' and s.id > $3
      order by s.id
      limit $4) p), '[]'::json) as batch),
    lease as (
      update filing_queues set "lease_until" = case when json_array_length((select batch from next)) = 0 then null else now() + make_interval(secs => $5) end,
    "lease_owner" = case when json_array_length((select batch from next)) = 0 then null else "filing_queues"."lease_owner" end, retry_delay_ms = null, last_error = null, updated_at = now()
      where device_id = $6 and $7::text is not null and ("lease_owner" = $8::text)
      returning device_id
    ),
    outcome as (
      update sales set status = $9, result_code = $10, last_error = $11, receipt_no = $12, total_receipt_no = $13, internal_data = $14, receipt_signature = $15, sdc_id = $16, mrc_no = $17, qr_code_url = $18, published_at = $19, updated_at = $20
      where id = $21 and status = 'pending'
      returning id
    ),
    event as (
      insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
      select $22::text, $23::text, $24::int, $25::int, $26::text, $27::timestamptz from outcome
      returning id, type, partner_id, created_at
    ),
    deliveries as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select event.id, e.id, event.created_at, event.created_at
      from event join webhook_endpoints e on e.partner_id = event.partner_id and e.status = 'enabled' and event.type = any(e.events)
      returning event_id, endpoint_id
    )
    select exists (select 1 from outcome) as recorded, exists (select 1 from lease) as lease_held,
      (select count(*) from deliveries)::int as deliveries, (select batch from next) as next_batch;

-- Form: reconciliation adopting a filed document: no lease, no next documents
/* prepared */
    with next as (select '[]'::json as batch),
    lease as (
      update filing_queues set "lease_until" = case when false then null else now() + make_interval(secs => $1) end,
    "lease_owner" = case when false then null else "filing_queues"."lease_owner" end, retry_delay_ms = null, last_error = null, updated_at = now()
      where device_id = $2 and $3::text is not null and ("lease_owner" = $4::text)
      returning device_id
    ),
    outcome as (
      update sales set status = $5, result_code = $6, last_error = $7, receipt_no = $8, total_receipt_no = $9, internal_data = $10, receipt_signature = $11, sdc_id = $12, mrc_no = $13, qr_code_url = $14, published_at = $15, updated_at = $16
      where id = $17 and status = 'pending'
      returning id
    ),
    event as (
      insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
      select $18::text, $19::text, $20::int, $21::int, $22::text, $23::timestamptz from outcome
      returning id, type, partner_id, created_at
    ),
    deliveries as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select event.id, e.id, event.created_at, event.created_at
      from event join webhook_endpoints e on e.partner_id = event.partner_id and e.status = 'enabled' and event.type = any(e.events)
      returning event_id, endpoint_id
    )
    select exists (select 1 from outcome) as recorded, exists (select 1 from lease) as lease_held,
      (select count(*) from deliveries)::int as deliveries, (select batch from next) as next_batch;
