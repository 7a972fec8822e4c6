// Purchases: what suppliers sold to the merchant, pulled from each branch's VSDC
// (selectTrnsPurchaseSales) and answered by the merchant (savePurchase).
// - purchases: one row per supplier document, kept as received (`sale` is the raw JSON; the
//   columns are read from it where they could be read, null where not); `dedupe_key` makes a
//   document pulled again (a later pull, another branch) the same row. The merchant's decision
//   and its filing with the authority follow the customs lines' shape (import_items).
// - purchase_lines: the document's lines as received, with the merchant's item mapping.
// - purchase_pulls: per initialised branch, where its pull stands (as import_pulls).
// - purchase_invoice_counters: the branch's own purchase numbers (savePurchase `invcNo`),
//   continuing the VSDC's lastPchsInvcNo.
export const up = [
  `create table purchases (
     id bigint generated always as identity primary key,
     tenant_id integer not null references tenants(id),
     device_id integer not null references devices(id),
     dedupe_key text not null,
     supplier_tpin text,
     supplier_name text,
     supplier_branch text,
     supplier_invoice_no text,
     supplier_sdc_id text,
     receipt_type_code text,
     payment_type_code text,
     confirmed_dt text,
     sales_date text,
     stock_release_dt text,
     total_item_count numeric(18, 4),
     total_taxable_amount numeric(18, 4),
     total_tax_amount numeric(18, 4),
     total_amount numeric(18, 4),
     remark text,
     sale jsonb not null,
     inconsistencies jsonb not null default '[]',
     decision text check (decision in ('accepted', 'rejected')),
     decided_at timestamptz,
     answer_remark text,
     purchase_invoice_no bigint,
     filing_state text not null default 'not_sent' check (filing_state in ('not_sent', 'sending', 'accepted', 'failed')),
     filing_code text,
     filing_message text,
     filed_at timestamptz,
     retry_attempts integer not null default 0,
     next_attempt_at timestamptz,
     lease_until timestamptz,
     last_unreachable text,
     received_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     unique (tenant_id, dedupe_key),
     unique (device_id, purchase_invoice_no),
     check ((decision is null) = (filing_state = 'not_sent')),
     check ((decision is null) = (purchase_invoice_no is null))
   )`,
  `create index purchases_tenant_list on purchases (tenant_id, id desc)`,
  `create index purchases_due on purchases (next_attempt_at) where filing_state = 'sending'`,
  `create table purchase_lines (
     purchase_id bigint not null references purchases(id),
     line_no integer not null,
     item_seq numeric(18, 4),
     item_code text,
     item_class_code text,
     item_name text,
     barcode text,
     packaging_unit_code text,
     packages numeric(18, 4),
     quantity_unit_code text,
     quantity numeric(18, 4),
     unit_price numeric(18, 4),
     supply_amount numeric(18, 4),
     discount_rate numeric(18, 4),
     discount_amount numeric(18, 4),
     vat_category text,
     taxable_amount numeric(18, 4),
     vat_amount numeric(18, 4),
     total_amount numeric(18, 4),
     line jsonb not null,
     mapped_item_code text,
     primary key (purchase_id, line_no)
   )`,
  `create table purchase_pulls (
     device_id integer primary key references devices(id),
     last_req_dt text,
     next_pull_at timestamptz not null default now(),
     lease_until timestamptz,
     failures integer not null default 0,
     last_pulled_at timestamptz,
     last_error text,
     updated_at timestamptz not null default now()
   )`,
  `create table purchase_invoice_counters (
     device_id integer primary key references devices(id),
     last_invoice_no bigint not null
   )`,
];
