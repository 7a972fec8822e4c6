// A national fleet: the console's backlog views stay flat at 200,000 branches.
//
// partner_branch_counts keeps how many branches each partner's merchants have (partner_id 0: the
// self-serve merchants, who have none), so a view's total is one row, not a count of the fleet. A
// statement-level trigger adds each INSERT's devices by partner in one update (a row trigger would
// update the same counter once per device of a bulk insert). Devices are never deleted and a
// merchant never changes partner; the DELETE trigger keeps the count true should a maintenance
// script remove devices.
//
// partner_failed_sales lists each partner's refused (`failed`) documents and
// partner_failed_documents counts them, for the documents views' default answer (a page is a
// range of the list, the total one row): row triggers whose WHEN is true only when a document
// enters or leaves `failed` (a refusal, a resolution) keep both, so the sale path's writes —
// inserted pending, then uploaded — queue no trigger at all. A merchant never changes partner.
//
// sales_pending_age is the pending documents by age: a backlog page reads the oldest pending
// documents until it has met its branches, not every pending document of the fleet.
export const up = [
  `create table partner_branch_counts (
    partner_id integer primary key,
    branches bigint not null
  )`,
  `create function count_branches_added() returns trigger language plpgsql as $$
  begin
    insert into partner_branch_counts (partner_id, branches)
      select coalesce(t.partner_id, 0), count(*) from added d join tenants t on t.id = d.tenant_id group by 1
      on conflict (partner_id) do update set branches = partner_branch_counts.branches + excluded.branches;
    return null;
  end $$`,
  `create function count_branches_removed() returns trigger language plpgsql as $$
  begin
    update partner_branch_counts c set branches = c.branches - r.n
      from (select coalesce(t.partner_id, 0) as partner_id, count(*) as n from removed d join tenants t on t.id = d.tenant_id group by 1) r
      where c.partner_id = r.partner_id;
    return null;
  end $$`,
  `create trigger devices_counted_added after insert on devices referencing new table as added for each statement execute function count_branches_added()`,
  `create trigger devices_counted_removed after delete on devices referencing old table as removed for each statement execute function count_branches_removed()`,
  `insert into partner_branch_counts (partner_id, branches)
    select coalesce(t.partner_id, 0), count(*) from devices d join tenants t on t.id = d.tenant_id group by 1`,
  `create table partner_failed_documents (
    partner_id integer primary key,
    documents bigint not null
  )`,
  `create table partner_failed_sales (
    partner_id integer not null,
    sale_id bigint not null,
    primary key (partner_id, sale_id)
  )`,
  `create function count_failed_documents() returns trigger language plpgsql as $$
  declare
    partner integer := coalesce((select t.partner_id from tenants t where t.id = new.tenant_id), 0);
    changed integer;
  begin
    if new.status = 'failed' then
      insert into partner_failed_sales (partner_id, sale_id) values (partner, new.id) on conflict do nothing;
    else
      delete from partner_failed_sales where partner_id = partner and sale_id = new.id;
    end if;
    -- The count moves with the list, so that the two never disagree.
    get diagnostics changed = row_count;
    if changed > 0 then
      insert into partner_failed_documents (partner_id, documents)
        values (partner, case when new.status = 'failed' then changed else -changed end)
        on conflict (partner_id) do update set documents = partner_failed_documents.documents + excluded.documents;
    end if;
    return null;
  end $$`,
  `create trigger sales_failed_counted_inserted after insert on sales for each row when (new.status = 'failed') execute function count_failed_documents()`,
  `create trigger sales_failed_counted_updated after update of status on sales for each row
    when ((old.status = 'failed') <> (new.status = 'failed')) execute function count_failed_documents()`,
  `insert into partner_failed_sales (partner_id, sale_id)
    select coalesce(t.partner_id, 0), s.id from sales s join tenants t on t.id = s.tenant_id where s.status = 'failed'`,
  `insert into partner_failed_documents (partner_id, documents)
    select partner_id, count(*) from partner_failed_sales group by 1`,
  `create index sales_pending_age on sales (created_at, id) where status = 'pending'`,
];
