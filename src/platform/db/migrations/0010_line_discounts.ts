// Line discounts (the VSDC's dcAmt), MTV's recommended retail price, and the splyAmt an
// MTV line files when it sells below its RRP (null on every other line: its amount).
export const up = [
  `alter table sale_lines add column discount numeric(18, 2) not null default 0`,
  `alter table sale_lines add column rrp numeric(18, 4)`,
  `alter table sale_lines add column supply numeric(18, 2)`,
];
