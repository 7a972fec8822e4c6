// A note keeps its original's invoice number beside its receipt number: KRA's credit note points
// at the original's `invcNo` (ZRA's at its receipt). Notes already stored take their original's.
export const up = [
  `alter table sales add column original_invoice_no bigint`,
  `update sales set original_invoice_no = (select o.invoice_no from sales o where o.id = sales.original_sale_id) where original_sale_id is not null`,
];
