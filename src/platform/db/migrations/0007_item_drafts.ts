// How far the draft-item scan has read the sales history (one row, claimed with a row lock).
export const up = [
  `create table item_draft_scan (
     id integer primary key default 1 check (id = 1),
     last_sale_id bigint not null default 0,
     scanned_at timestamptz
   )`,
  `insert into item_draft_scan (id, last_sale_id) values (1, 0)`,
];
