// The VSDC's stock beside the gateway's. A copy of each branch's stock ledger
// as the VSDC returns it (`selectStockItems`: the movements filed with `saveStockItems`), pulled
// like the other feeds, so the merchant can compare its levels with the gateway's.
// - stock_ledger_pulls: per initialised branch, where its pull stands (as import_pulls), and
//   `answered_sar_no`: when the ledger was last read, the branch's movements up to this sarNo
//   had all been answered by the VSDC (the rest were still on their way). Null: never read.
// - stock_ledger_movements: one row per branch and `sarNo`, as last received (a VSDC replaces a
//   movement filed again with the same sarNo; so does the copy).
// - stock_ledger_lines: each movement's lines with the quantity signed by its `sarTyCd`
//   (`0x` in: +, `1x` out: −), replaced with their movement.
// - stock_ledger_levels: per branch and item, the sum of its lines: the VSDC's level. Recomputed
//   for the items a pull touched, in the pull's transaction.
export const up = [
  `create table stock_ledger_pulls (
     device_id integer primary key references devices(id),
     last_req_dt text,
     next_pull_at timestamptz not null default now(),
     lease_until timestamptz,
     failures integer not null default 0,
     last_pulled_at timestamptz,
     last_error text,
     answered_sar_no integer,
     updated_at timestamptz not null default now()
   )`,
  `create table stock_ledger_movements (
     device_id integer not null references devices(id),
     sar_no bigint not null,
     sar_type_code text,
     movement jsonb not null,
     received_at timestamptz not null default now(),
     updated_at timestamptz not null default now(),
     primary key (device_id, sar_no)
   )`,
  `create table stock_ledger_lines (
     device_id integer not null,
     sar_no bigint not null,
     seq integer not null,
     item_code text not null,
     quantity numeric(18, 4) not null,
     primary key (device_id, sar_no, seq),
     foreign key (device_id, sar_no) references stock_ledger_movements (device_id, sar_no) on delete cascade
   )`,
  `create index stock_ledger_lines_item on stock_ledger_lines (device_id, item_code)`,
  `create table stock_ledger_levels (
     device_id integer not null references devices(id),
     item_code text not null,
     quantity numeric(18, 4) not null,
     updated_at timestamptz not null default now(),
     primary key (device_id, item_code)
   )`,
];
