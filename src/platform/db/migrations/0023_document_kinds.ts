// The documents Zambian merchants issue. A document is of a kind (`sales_type`:
// normal, training or proforma, the VSDC's salesTyCd N/T/P); training and proforma documents are
// numbered from sequences of their own per branch (devices.next_training_no /
// next_proforma_no, continuing the VSDC's lastTrainInvcNo / lastProfrmInvcNo), so a branch's
// invoice numbers are unique per kind, and a branch files its documents in the order it stored
// them (id), which is invoice order within each kind. A document carries its currency's rate to
// kwacha, the buyer's LPO number (zero-rated LPO sales), the principal of an RVAT agent's sale
// and the customer's address. A token or fiscalisation key minted in training mode issues
// training documents only.
export const up = [
  `alter table sales add column sales_type text not null default 'normal' check (sales_type in ('normal', 'training', 'proforma'))`,
  `alter table sales add column exchange_rate numeric(18, 4) not null default 1`,
  `alter table sales add column lpo_number text`,
  `alter table sales add column principal_id text`,
  `alter table sales add column customer_address text`,
  `alter table sales drop constraint sales_device_id_invoice_no_key`,
  `alter table sales add constraint sales_device_kind_invoice_no_key unique (device_id, sales_type, invoice_no)`,
  `drop index sales_pending`,
  `create index sales_pending on sales (device_id, id) where status = 'pending'`,
  `alter table devices add column next_training_no bigint not null default 1`,
  `alter table devices add column next_proforma_no bigint not null default 1`,
  `alter table devices add column last_train_invc_no bigint`,
  `alter table devices add column last_profrm_invc_no bigint`,
  `alter table tenant_tokens add column training boolean not null default false`,
  `alter table api_keys add column training boolean not null default false`,
];
