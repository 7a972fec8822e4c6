// The real legacy invoice body on POST /zm/api/Invoice.
// - till_invoices: what a till sent for an invoice filed through /zm/api — the body exactly as
//   received (for GET /zm/api/Invoice/{n}?originalFormat=true) and which family of field names
//   it used (the answer names follow it). One row per such sale; written by the request that
//   created the sale.
// - sales.filing_details: what a document's saveSales body carries beyond the sale's own fields
//   when its source supplies it (the till's registrant and issuer, line barcodes and units), as
//   JSON; null: the gateway's defaults.
export const up = [
  `create table till_invoices (
     sale_id bigint primary key references sales(id),
     family text not null check (family in ('gateway', 'product')),
     body text not null,
     created_at timestamptz not null default now()
   )`,
  `alter table sales add column filing_details text`,
];
