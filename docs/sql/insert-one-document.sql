-- insertOneDocument (src/domain/fiscal/sales/document-insert.ts, built by insertOneDocumentSql)
-- A document stored as `pending` in one statement: its branch's device (for a training or proforma document, refused when the device's unit files no such document), the next number of its sequence (its kind's own, or the normal one where the unit numbers every kind from it), the document and its lines, the month's quota; whether the branch is down. A lone document, or one in a caller's transaction.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: PostgreSQL, the branch named by X-Branch: the filers are notified at commit
/* prepared */
    with target as (select id, branch, protocol from devices where tenant_id = $1 and initialized and branch = $2::text),
    state as (
      select target.id, target.branch, target.protocol, true as kind_ok, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set "next_invoice_no" = "next_invoice_no" + 1
      where id = (select id from state where state.kind_ok and not (state.down and $3::boolean))
      returning id, branch, "next_invoice_no" - 1 as invoice_no
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, tenant_id, tpin, type, sales_type, reference, request_hash, client_invoice_no, customer_name, customer_tpin, customer_address, payment_method, tax_inclusive, destination_country_code, occurred_at, currency, exchange_rate, lpo_number, principal_id, net, vat, total, original_sale_id, original_receipt_no, original_invoice_no, original_sdc_id, reason_code, filing_details, issued_by_type, issued_by_id)
      select counter.id, counter.branch, counter.invoice_no, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13::text, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = $14::integer and c.tpin = $15::text)), $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34
      from counter
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category, l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document cross join jsonb_to_recordset($35::jsonb) as l(line integer, name text, classification_code text, item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric, discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select $36, $37, 1 from document where document.sales_type = 'normal'
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, case when "document"."issued_by_type" = 'admin' then 'operator' else case "document"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "document"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "document"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "document"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "document"."issued_by_id")
    when 'fiscalisation_key' then (select $38 || named_f.last4 from api_keys named_f where named_f.id = "document"."issued_by_id")
  end end as issued_by_name, state.branch as target_branch, state.protocol as target_protocol,
      state.kind_ok, state.down as branch_down , case when document.id is not null then pg_notify($39, document.device_id::text || $40::text) end as notified
    from state left join document on true;

-- Form: the embedded database, the branch named by X-Branch: no notification (the filers are woken in the process)
/* prepared */
    with target as (select id, branch, protocol from devices where tenant_id = $1 and initialized and branch = $2::text),
    state as (
      select target.id, target.branch, target.protocol, true as kind_ok, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set "next_invoice_no" = "next_invoice_no" + 1
      where id = (select id from state where state.kind_ok and not (state.down and $3::boolean))
      returning id, branch, "next_invoice_no" - 1 as invoice_no
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, tenant_id, tpin, type, sales_type, reference, request_hash, client_invoice_no, customer_name, customer_tpin, customer_address, payment_method, tax_inclusive, destination_country_code, occurred_at, currency, exchange_rate, lpo_number, principal_id, net, vat, total, original_sale_id, original_receipt_no, original_invoice_no, original_sdc_id, reason_code, filing_details, issued_by_type, issued_by_id)
      select counter.id, counter.branch, counter.invoice_no, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13::text, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = $14::integer and c.tpin = $15::text)), $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34
      from counter
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category, l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document cross join jsonb_to_recordset($35::jsonb) as l(line integer, name text, classification_code text, item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric, discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select $36, $37, 1 from document where document.sales_type = 'normal'
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, case when "document"."issued_by_type" = 'admin' then 'operator' else case "document"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "document"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "document"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "document"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "document"."issued_by_id")
    when 'fiscalisation_key' then (select $38 || named_f.last4 from api_keys named_f where named_f.id = "document"."issued_by_id")
  end end as issued_by_name, state.branch as target_branch, state.protocol as target_protocol,
      state.kind_ok, state.down as branch_down
    from state left join document on true;

-- Form: PostgreSQL, no X-Branch: the branch rule in SQL (kernel/devices/branch-rule.ts defaultBranchSql)
/* prepared */
    with target as (select id, branch, protocol from devices where tenant_id = $1 and initialized and branch = (select coalesce(max(rule_d.branch) filter (where rule_d.branch in ('000', '00')), case when count(*) = 1 then max(rule_d.branch) end) from devices rule_d where rule_d.tenant_id = $2)),
    state as (
      select target.id, target.branch, target.protocol, true as kind_ok, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set "next_invoice_no" = "next_invoice_no" + 1
      where id = (select id from state where state.kind_ok and not (state.down and $3::boolean))
      returning id, branch, "next_invoice_no" - 1 as invoice_no
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, tenant_id, tpin, type, sales_type, reference, request_hash, client_invoice_no, customer_name, customer_tpin, customer_address, payment_method, tax_inclusive, destination_country_code, occurred_at, currency, exchange_rate, lpo_number, principal_id, net, vat, total, original_sale_id, original_receipt_no, original_invoice_no, original_sdc_id, reason_code, filing_details, issued_by_type, issued_by_id)
      select counter.id, counter.branch, counter.invoice_no, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13::text, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = $14::integer and c.tpin = $15::text)), $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34
      from counter
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category, l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document cross join jsonb_to_recordset($35::jsonb) as l(line integer, name text, classification_code text, item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric, discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select $36, $37, 1 from document where document.sales_type = 'normal'
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, case when "document"."issued_by_type" = 'admin' then 'operator' else case "document"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "document"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "document"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "document"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "document"."issued_by_id")
    when 'fiscalisation_key' then (select $38 || named_f.last4 from api_keys named_f where named_f.id = "document"."issued_by_id")
  end end as issued_by_name, state.branch as target_branch, state.protocol as target_protocol,
      state.kind_ok, state.down as branch_down , case when document.id is not null then pg_notify($39, document.device_id::text || $40::text) end as notified
    from state left join document on true;

-- Form: PostgreSQL, a known device (a note on its original's branch)
/* prepared */
    with target as (select id, branch, protocol from devices where id = $1 and tenant_id = $2 and initialized),
    state as (
      select target.id, target.branch, target.protocol, true as kind_ok, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set "next_invoice_no" = "next_invoice_no" + 1
      where id = (select id from state where state.kind_ok and not (state.down and $3::boolean))
      returning id, branch, "next_invoice_no" - 1 as invoice_no
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, tenant_id, tpin, type, sales_type, reference, request_hash, client_invoice_no, customer_name, customer_tpin, customer_address, payment_method, tax_inclusive, destination_country_code, occurred_at, currency, exchange_rate, lpo_number, principal_id, net, vat, total, original_sale_id, original_receipt_no, original_invoice_no, original_sdc_id, reason_code, filing_details, issued_by_type, issued_by_id)
      select counter.id, counter.branch, counter.invoice_no, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13::text, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = $14::integer and c.tpin = $15::text)), $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34
      from counter
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category, l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document cross join jsonb_to_recordset($35::jsonb) as l(line integer, name text, classification_code text, item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric, discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select $36, $37, 1 from document where document.sales_type = 'normal'
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, case when "document"."issued_by_type" = 'admin' then 'operator' else case "document"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "document"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "document"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "document"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "document"."issued_by_id")
    when 'fiscalisation_key' then (select $38 || named_f.last4 from api_keys named_f where named_f.id = "document"."issued_by_id")
  end end as issued_by_name, state.branch as target_branch, state.protocol as target_protocol,
      state.kind_ok, state.down as branch_down , case when document.id is not null then pg_notify($39, document.device_id::text || $40::text) end as notified
    from state left join document on true;

-- Form: PostgreSQL, a KRA merchant's training document: only a unit that files training documents takes it (VSCU), numbered from the normal sequence where the unit's kinds share one
/* prepared */
    with target as (select id, branch, protocol from devices where tenant_id = $1 and initialized and branch = $2::text),
    state as (
      select target.id, target.branch, target.protocol, target.protocol = any(string_to_array($3::text, ',')) as kind_ok, exists (
        select 1 from filing_queues q where q.device_id = target.id and q.retry_delay_ms is not null
      ) as down
      from target
    ),
    counter as (
      update devices set next_invoice_no = next_invoice_no + (protocol = any(string_to_array($4::text, ',')))::int, "next_training_no" = "next_training_no" + (not protocol = any(string_to_array($5::text, ',')))::int
      where id = (select id from state where state.kind_ok and not (state.down and $6::boolean))
      returning id, branch, case when protocol = any(string_to_array($7::text, ',')) then next_invoice_no else "next_training_no" end - 1 as invoice_no
    ),
    document as (
      insert into sales (device_id, branch, invoice_no, tenant_id, tpin, type, sales_type, reference, request_hash, client_invoice_no, customer_name, customer_tpin, customer_address, payment_method, tax_inclusive, destination_country_code, occurred_at, currency, exchange_rate, lpo_number, principal_id, net, vat, total, original_sale_id, original_receipt_no, original_invoice_no, original_sdc_id, reason_code, filing_details, issued_by_type, issued_by_id)
      select counter.id, counter.branch, counter.invoice_no, $8, $9, $10, $11, $12, $13, $14, $15, $16, coalesce($17::text, (select coalesce(c.address, c.verified_address) from customers c where c.tenant_id = $18::integer and c.tpin = $19::text)), $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38
      from counter
      returning *
    ),
    document_lines as (
      insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, rrp, amount, discount, supply, net, vat, total, original_line)
      select document.id, l.line, l.name, l.classification_code, l.item_code, l.quantity, l.price, l.vat_category, l.vat_rate, l.rrp, l.amount, l.discount, l.supply, l.net, l.vat, l.total, l.original_line
      from document cross join jsonb_to_recordset($39::jsonb) as l(line integer, name text, classification_code text, item_code text, quantity numeric, price numeric, vat_category text, vat_rate numeric, rrp numeric, amount numeric, discount numeric, supply numeric, net numeric, vat numeric, total numeric, original_line integer)
    ),
    usage as (
      insert into tenant_usage (tenant_id, month, documents)
      select $40, $41, 1 from document where document.sales_type = 'normal'
      on conflict (tenant_id, month) do update set documents = tenant_usage.documents + 1
    )
    select document.*, case when "document"."issued_by_type" = 'admin' then 'operator' else case "document"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "document"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "document"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "document"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "document"."issued_by_id")
    when 'fiscalisation_key' then (select $42 || named_f.last4 from api_keys named_f where named_f.id = "document"."issued_by_id")
  end end as issued_by_name, state.branch as target_branch, state.protocol as target_protocol,
      state.kind_ok, state.down as branch_down , case when document.id is not null then pg_notify($43, document.device_id::text || $44::text) end as notified
    from state left join document on true;
