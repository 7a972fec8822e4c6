// Fewer index entries per sale written. The Idempotency-Key's uniqueness per merchant
// was a plain unique constraint, so every document — most carry no key — added a (tenant, null)
// entry to it, on insert and again on each non-HOT outcome update. A partial unique index holds
// only the documents with a key; lookups by key (`reference = $1`, also inside the list's
// `?reference=` OR) use it as before (EXPLAIN: Index Scan / Bitmap Index Scan on
// sales_reference_key, generic plan).
export const up = [
  `create unique index sales_reference_key on sales (tenant_id, reference) where reference is not null`,
  `alter table sales drop constraint sales_tenant_id_reference_key`,
];
