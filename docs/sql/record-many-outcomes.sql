-- recordManyOutcomes (src/domain/fiscal/filing/outcome-store.ts, built by recordManyOutcomesSql)
-- The twin of record-one-outcome.sql: the outcomes of different branches recorded at the same moment (the outcomes group commit, FILING_OUTCOMES), in one statement; they travel as one JSON parameter.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: PostgreSQL, one of them notified: the deliveries are announced in the statement
/* prepared */
    with input as (
      select * from jsonb_to_recordset($1::jsonb) as i(n integer, sale_id bigint, device_id integer, owner text,
        lease_ms double precision, batch_size integer, after_id bigint, status text, result_code text, last_error text, receipt_no bigint, total_receipt_no integer, internal_data text, receipt_signature text, sdc_id text, mrc_no text, qr_code_url text, published_at timestamptz, updated_at timestamptz, event_id text, event_type text,
        partner_id integer, tenant_id integer, event_created timestamptz, event_body text, channel text, payload text)
    ),
    next as (
      select i.n, i.device_id, i.owner, i.lease_ms, i.batch_size,
        case when i.batch_size is null then '[]'::json
          else coalesce((
    select json_agg(p order by p.id) from (
      select s.*, case when "s"."issued_by_type" = 'admin' then 'operator' else case "s"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "s"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "s"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "s"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "s"."issued_by_id")
    when 'fiscalisation_key' then (select $2 || named_f.last4 from api_keys named_f where named_f.id = "s"."issued_by_id")
  end end as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = i.device_id and s.status = 'pending' and s.id > i.after_id
      order by s.id
      limit i.batch_size) p), '[]'::json) end as batch
      from input i
    ),
    lease as (
      update filing_queues set "lease_until" = case when (x.batch_size is not null and json_array_length(x.batch) = 0) then null else now() + make_interval(secs => x.lease_ms / 1000) end,
    "lease_owner" = case when (x.batch_size is not null and json_array_length(x.batch) = 0) then null else "filing_queues"."lease_owner" end, retry_delay_ms = null, last_error = null, updated_at = now()
      from next x
      where filing_queues.device_id = x.device_id and x.owner is not null and ("filing_queues"."lease_owner" = x.owner)
      returning filing_queues.device_id
    ),
    outcome as (
      update sales set status = i.status, result_code = i.result_code, last_error = i.last_error, receipt_no = i.receipt_no, total_receipt_no = i.total_receipt_no, internal_data = i.internal_data, receipt_signature = i.receipt_signature, sdc_id = i.sdc_id, mrc_no = i.mrc_no, qr_code_url = i.qr_code_url, published_at = i.published_at, updated_at = i.updated_at
      from input i
      where sales.id = i.sale_id and sales.status = 'pending'
      returning sales.id
    ),
    event as (
      insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
      select i.event_id::text, i.event_type::text, i.partner_id::int, i.tenant_id::int, i.event_body, i.event_created::timestamptz from input i join outcome on outcome.id = i.sale_id
      returning id, type, partner_id, created_at
    ),
    deliveries as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select event.id, e.id, event.created_at, event.created_at
      from event join webhook_endpoints e on e.partner_id = event.partner_id and e.status = 'enabled' and event.type = any(e.events)
      returning event_id, endpoint_id
    )
    select i.n, exists (select 1 from outcome where outcome.id = i.sale_id) as recorded,
      exists (select 1 from lease where lease.device_id = i.device_id) as lease_held,
      (select count(*) from deliveries where deliveries.event_id = i.event_id)::int as deliveries, x.batch as next_batch,
      case when i.channel is not null and exists (select 1 from outcome where outcome.id = i.sale_id) then pg_notify(i.channel, i.payload) end as outcome_notice
      , (select pg_notify('webhooks', '') where exists (select 1 from deliveries)) as deliveries_notice
    from input i join next x on x.n = i.n
    order by i.n;

-- Form: the embedded database (none notified)
/* prepared */
    with input as (
      select * from jsonb_to_recordset($1::jsonb) as i(n integer, sale_id bigint, device_id integer, owner text,
        lease_ms double precision, batch_size integer, after_id bigint, status text, result_code text, last_error text, receipt_no bigint, total_receipt_no integer, internal_data text, receipt_signature text, sdc_id text, mrc_no text, qr_code_url text, published_at timestamptz, updated_at timestamptz, event_id text, event_type text,
        partner_id integer, tenant_id integer, event_created timestamptz, event_body text, channel text, payload text)
    ),
    next as (
      select i.n, i.device_id, i.owner, i.lease_ms, i.batch_size,
        case when i.batch_size is null then '[]'::json
          else coalesce((
    select json_agg(p order by p.id) from (
      select s.*, case when "s"."issued_by_type" = 'admin' then 'operator' else case "s"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "s"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "s"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "s"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "s"."issued_by_id")
    when 'fiscalisation_key' then (select $2 || named_f.last4 from api_keys named_f where named_f.id = "s"."issued_by_id")
  end end as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = i.device_id and s.status = 'pending' and s.id > i.after_id
      order by s.id
      limit i.batch_size) p), '[]'::json) end as batch
      from input i
    ),
    lease as (
      update filing_queues set "lease_until" = case when (x.batch_size is not null and json_array_length(x.batch) = 0) then null else now() + make_interval(secs => x.lease_ms / 1000) end,
    "lease_owner" = case when (x.batch_size is not null and json_array_length(x.batch) = 0) then null else "filing_queues"."lease_owner" end, retry_delay_ms = null, last_error = null, updated_at = now()
      from next x
      where filing_queues.device_id = x.device_id and x.owner is not null and ("filing_queues"."lease_owner" = x.owner)
      returning filing_queues.device_id
    ),
    outcome as (
      update sales set status = i.status, result_code = i.result_code, last_error = i.last_error, receipt_no = i.receipt_no, total_receipt_no = i.total_receipt_no, internal_data = i.internal_data, receipt_signature = i.receipt_signature, sdc_id = i.sdc_id, mrc_no = i.mrc_no, qr_code_url = i.qr_code_url, published_at = i.published_at, updated_at = i.updated_at
      from input i
      where sales.id = i.sale_id and sales.status = 'pending'
      returning sales.id
    ),
    event as (
      insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
      select i.event_id::text, i.event_type::text, i.partner_id::int, i.tenant_id::int, i.event_body, i.event_created::timestamptz from input i join outcome on outcome.id = i.sale_id
      returning id, type, partner_id, created_at
    ),
    deliveries as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select event.id, e.id, event.created_at, event.created_at
      from event join webhook_endpoints e on e.partner_id = event.partner_id and e.status = 'enabled' and event.type = any(e.events)
      returning event_id, endpoint_id
    )
    select i.n, exists (select 1 from outcome where outcome.id = i.sale_id) as recorded,
      exists (select 1 from lease where lease.device_id = i.device_id) as lease_held,
      (select count(*) from deliveries where deliveries.event_id = i.event_id)::int as deliveries, x.batch as next_batch,
      case when i.channel is not null and exists (select 1 from outcome where outcome.id = i.sale_id) then pg_notify(i.channel, i.payload) end as outcome_notice

    from input i join next x on x.n = i.n
    order by i.n;
