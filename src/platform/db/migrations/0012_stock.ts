// Stock.
// - tenants.stock_tracking: whether the gateway keeps stock and sends the stock chain for the
//   merchant (default on: the authority expects the chain after every stock-affecting document).
// - stock_branches: one row per branch: its stock-movement counter (sarNo), the last invoice
//   number whose stock was booked (documents are booked in invoice order once filed), and the
//   lease and backoff of the branch's stock-chain queue. Branches that exist at the upgrade start
//   booking after their last document: history is not booked.
// - stock_movements / stock_movement_lines: every movement (a sale, a return, an adjustment, a
//   purchase) with its chain state; the queue is the unsent movements of a branch, in sarNo order.
// - stock_levels: quantity on hand per branch and item.
export const up = [
  `alter table tenants add column stock_tracking boolean not null default true`,
  `create table stock_branches (
     device_id integer primary key references devices(id),
     tenant_id integer not null references tenants(id),
     last_sar_no integer not null default 0,
     booked_invoice_no bigint not null default 0,
     lease_owner text,
     lease_until timestamptz,
     next_attempt_at timestamptz not null default now(),
     retry_delay_ms integer,
     last_error text,
     updated_at timestamptz not null default now()
   )`,
  `insert into stock_branches (device_id, tenant_id, booked_invoice_no) select id, tenant_id, next_invoice_no - 1 from devices`,
  `create table stock_movements (
     id bigint generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     device_id integer not null references devices(id),
     sar_no integer not null,
     sar_type_code text not null,
     source_kind text not null check (source_kind in ('sale', 'credit_note', 'debit_note', 'adjustment', 'purchase')),
     source_id bigint not null,
     counterparty_tpin text,
     counterparty_name text,
     counterparty_branch text,
     remark text,
     total_taxable numeric(18, 2) not null,
     total_tax numeric(18, 2) not null,
     total_amount numeric(18, 2) not null,
     state text not null default 'pending' check (state in ('pending', 'items_sent', 'sent', 'failed')),
     result_code text,
     result_message text,
     sent_at timestamptz,
     created_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     unique (device_id, sar_no)
   )`,
  `create unique index stock_movements_source on stock_movements (source_kind, source_id) where source_kind <> 'adjustment'`,
  `create index stock_movements_unsent on stock_movements (device_id, sar_no) where state in ('pending', 'items_sent')`,
  `create index stock_movements_tenant on stock_movements (tenant_id, id desc)`,
  `create table stock_movement_lines (
     movement_id bigint not null references stock_movements(id),
     seq integer not null,
     item_code text not null,
     quantity numeric(18, 4) not null,
     unit_price numeric(18, 4) not null,
     taxable numeric(18, 2) not null,
     tax numeric(18, 2) not null,
     total numeric(18, 2) not null,
     remaining numeric(18, 4) not null,
     primary key (movement_id, seq)
   )`,
  `create index stock_movement_lines_item on stock_movement_lines (item_code, movement_id)`,
  `create table stock_levels (
     device_id integer not null references devices(id),
     tenant_id integer not null references tenants(id),
     item_code text not null,
     quantity numeric(18, 4) not null,
     updated_at timestamptz not null default now(),
     primary key (device_id, item_code)
   )`,
  `create index stock_levels_tenant on stock_levels (tenant_id, item_code, device_id)`,
];
