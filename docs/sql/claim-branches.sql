-- claimBranches (src/domain/fiscal/filing/queue.ts, built by claimBranchesSql)
-- The filing claim: the leases of the ready branches taken (their queue rows made on first use), in the same statement where to file each and its first pending documents.
-- Written by `npm run sql` (scripts/sql.ts) from the code; edit the builder, not this file.

-- Form: both engines
/* prepared */
    with claim as (
      insert into filing_queues (device_id, "lease_owner", "lease_until", next_attempt_at)
      select wanted.id, $1, now() + make_interval(secs => $2), now()
      from unnest($3::int[]) with ordinality as wanted(id, n)
      where not exists (select 1 from filing_queues held where held.device_id = wanted.id and not ((("held"."lease_until" is null or "held"."lease_until" <= now()) or ("held"."lease_owner" = $4)) and ("held"."next_attempt_at" <= now())))
      order by wanted.n
      on conflict (device_id) do update set "lease_owner" = "excluded"."lease_owner", "lease_until" = "excluded"."lease_until", updated_at = now()
      where (("filing_queues"."lease_until" is null or "filing_queues"."lease_until" <= now()) or ("filing_queues"."lease_owner" = $5)) and ("filing_queues"."next_attempt_at" <= now())
      returning device_id, retry_delay_ms
    )
    select claim.device_id, claim.retry_delay_ms, d.vsdc_base_url, d.branch, d.sdc_id, d.mrc_no, t.id as tenant_id, t.partner_id, t.authority, d.protocol, "d"."id" as device_key_id, "d"."unit_key_sealed" as device_unit_key_sealed, "d"."api_credential_sealed" as device_api_credential_sealed, "d"."production" as device_production,
      coalesce((
    select json_agg(p order by p.id) from (
      select s.*, case when "s"."issued_by_type" = 'admin' then 'operator' else case "s"."issued_by_type"
    when 'partner_key' then (select named_k.name || ' (' || named_p.name || ')' from partner_keys named_k join partners named_p on named_p.id = named_k.partner_id where named_k.id = "s"."issued_by_id")
    when 'till_login' then (select named_l.username from till_logins named_l where named_l.id = "s"."issued_by_id")
    when 'tenant_token' then (select named_t.name from tenant_tokens named_t where named_t.id = "s"."issued_by_id")
    when 'user' then (select named_u.email from users named_u where named_u.id = "s"."issued_by_id")
    when 'fiscalisation_key' then (select $6 || named_f.last4 from api_keys named_f where named_f.id = "s"."issued_by_id")
  end end as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = claim.device_id and s.status = 'pending' and s.id > $7
      order by s.id
      limit $8) p), '[]'::json) as batch
    from claim join devices d on d.id = claim.device_id join tenants t on t.id = d.tenant_id;
