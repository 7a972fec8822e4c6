// A second authority: a tenant files with ZRA or KRA, a device speaks VSDC (ZRA) or OSCU/VSCU
// (KRA). A device keeps, sealed with the context's SecretBox, the key its unit's initialisation
// gave (KRA's cmcKey, or one handed over from an initialisation elsewhere) and the credential of
// an API gateway in front of the authority; `production` marks a device that files to the
// authority's production system; `last_invoice_no` is the last number its previous system used
// (numbering continues after it, or after the unit's own counter if higher). A sale keeps the authority's total receipt count (KRA's totRcptNo).
export const up = [
  `alter table tenants drop constraint tenants_authority_check`,
  `alter table tenants add constraint tenants_authority_check check (authority in ('zra', 'kra'))`,
  `alter table devices drop constraint devices_protocol_check`,
  `alter table devices add constraint devices_protocol_check check (protocol in ('vsdc', 'oscu', 'vscu'))`,
  `alter table devices add column unit_key_sealed text`,
  `alter table devices add column api_credential_sealed text`,
  `alter table devices add column api_credential_kind text check (api_credential_kind in ('bearer', 'client'))`,
  `alter table devices add column production boolean not null default false`,
  `alter table devices add column last_invoice_no integer not null default 0 check (last_invoice_no >= 0)`,
  `alter table sales add column total_receipt_no integer`,
];
