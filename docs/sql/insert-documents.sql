-- insertDocuments (src/domain/fiscal/sales/document-insert.ts, built by insertDocumentsSql)
-- The twin of insert-one-document.sql: the documents stored at the same moment (the sales group commit, DOCUMENT_INSERTS), each as the one-document statement would, in one statement; they travel as one JSON parameter.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: both engines (the notification channel is a parameter: null on the embedded database)
/* prepared */
    with input as (
      select * from jsonb_to_recordset($1::jsonb) as i(n integer, device_id integer, branch_header text,
        kind_units text, shared_units text, refuse_when_down boolean, month text, lines jsonb, tenant_id integer, tpin text, type text, sales_type text, reference text, request_hash text, client_invoice_no text, customer_name text, customer_tpin text, customer_address text, payment_method text, tax_inclusive boolean, destination_country_code text, occurred_at timestamptz, currency text, exchange_rate numeric, lpo_number text, principal_id text, net numeric, vat numeric, total numeric, original_sale_id bigint, original_receipt_no bigint, original_invoice_no bigint, original_sdc_id text, reason_code text, filing_details text, issued_by_type text, issued_by_id bigint)
    ),
    target as (
      -- Each document's device by key: a lateral with a limit is not flattened into a join, whose
      -- generic plan (the JSON's rows estimated at 100) hashes every device once a fleet has some
      -- thousands of them (a seq scan of 10,000 devices per statement).
      select i.n, d.id, d.branch, d.protocol
      from input i cross join lateral (
        select d.id, d.branch, d.protocol from devices d
        where i.device_id is not null and d.id = i.device_id and d.tenant_id = i.tenant_id and d.initialized
        union all
        select d.id, d.branch, d.protocol from devices d
        where i.device_id is null and d.tenant_id = i.tenant_id and d.initialized
          and d.branch = coalesce(i.branch_header, (select coalesce(max(rule_d.branch) filter (where rule_d.branch in ('000', '00')), case when count(*) = 1 then max(rule_d.branch) end) from devices rule_d where rule_d.tenant_id = "i"."tenant_id"))
        limit 1
      ) d
    ),
    -- A training or proforma document: only the units (protocols) in kind_units file it, and those
    -- in shared_units number it from the normal sequence (a normal document: null, every unit, its own).
    state as (
      select target.n, target.id, target.branch, target.protocol,
        i.kind_units is null or target.protocol = any(string_to_array(i.kind_units, ',')) as kind_ok,
        case when target.protocol = any(string_to_array(coalesce(i.shared_units, ''), ',')) then 'normal' else i.sales_type end as sequence,
        exists (
          select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
        ) as down
      from target join input i on i.n = target.n
    ),
    taking as (
      select state.n, state.id, i.sales_type, state.sequence, row_number() over (partition by state.id, state.sequence order by state.n) as k
      from state join input i on i.n = state.n
      where state.kind_ok and not (state.down and i.refuse_when_down)
    ),
    wanted as (
      select id,
        count(*) filter (where sequence = 'normal')::int as normal,
        count(*) filter (where sequence = 'training')::int as training,
        count(*) filter (where sequence = 'proforma')::int as proforma
      from taking group by id
    ),
    locked as (select d.id from devices d where d.id in (select id from wanted) order by d.id for update),
    counter as (
      update devices d set next_invoice_no = d.next_invoice_no + wanted.normal,
        next_training_no = d.next_training_no + wanted.training,
        next_proforma_no = d.next_proforma_no + wanted.proforma
      from wanted
      where d.id = wanted.id and d.id in (select id from locked)
      returning d.id, d.branch, d.next_invoice_no - wanted.normal as first_normal,
        d.next_training_no - wanted.training as first_training, d.next_proforma_no - wanted.proforma as first_proforma
    ),
    placed as (
      select taking.n, taking.id as device_id, counter.branch, taking.sales_type,
        case taking.sequence when 'training' then counter.first_training when 'proforma' then counter.first_proforma
          else counter.first_normal end + taking.k - 1 as invoice_no
      from taking join counter on counter.id = taking.id
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, tenant_id, tpin, type, sales_type, reference, request_hash, client_invoice_no, customer_name, customer_tpin, customer_address, payment_method, tax_inclusive, destination_country_code, occurred_at, currency, exchange_rate, lpo_number, principal_id, net, vat, total, original_sale_id, original_receipt_no, original_invoice_no, original_sdc_id, reason_code, filing_details, issued_by_type, issued_by_id)
      select placed.device_id, placed.branch, placed.invoice_no, i.tenant_id, i.tpin, i.type, i.sales_type, i.reference, i.request_hash, i.client_invoice_no, i.customer_name, i.customer_tpin, coalesce(i.customer_address, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = i.tenant_id and c.tpin = i.customer_tpin)), i.payment_method, i.tax_inclusive, i.destination_country_code, i.occurred_at, i.currency, i.exchange_rate, i.lpo_number, i.principal_id, i.net, i.vat, i.total, i.original_sale_id, i.original_receipt_no, i.original_invoice_no, i.original_sdc_id, i.reason_code, i.filing_details, i.issued_by_type, i.issued_by_id
      from placed join input i on i.n = placed.n
      -- A branch's documents take their ids in arrival order: its filing order (filing/pending-documents.ts).
      order by placed.device_id, placed.n
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category, l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document
      join placed on placed.device_id = document.device_id and placed.sales_type = document.sales_type and placed.invoice_no = document.invoice_no
      join input i on i.n = placed.n
      cross join jsonb_to_recordset(i.lines) as l(line integer, name text, classification_code text, item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric, discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select i.tenant_id, i.month, count(*) from placed join input i on i.n = placed.n
      where i.sales_type = 'normal'
      group by i.tenant_id, i.month
      order by i.tenant_id, i.month
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + excluded.documents
    )
    select i.n, state.branch as target_branch, state.protocol as target_protocol, state.kind_ok, state.down as branch_down,
      document.*, case when "document"."issued_by_type" = 'admin' then 'operator' else case "document"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "document"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "document"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "document"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "document"."issued_by_id")
    when 'fiscalisation_key' then (select $2 || named_f.last4 from api_keys named_f where named_f.id = "document"."issued_by_id")
  end end as issued_by_name,
      (select count(pg_notify($3::text, woken.device_id::text || $4::text))
        from (select distinct device_id from document where $5::text is not null) woken) as notified
    from input i
    left join state on state.n = i.n
    left join placed on placed.n = i.n
    left join document on document.device_id = placed.device_id and document.sales_type = placed.sales_type and document.invoice_no = placed.invoice_no
    order by i.n;
