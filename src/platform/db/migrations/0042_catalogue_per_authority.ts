// One classification catalogue and one set of code tables per authority (`tenants.authority`): the
// rows stored so far are Zambia's. The sync's cursor and lease become one row per authority.
// `authority_codes.rate`: a tax type's rate where the authority's table publishes one (KRA, class 04).
export const up = [
  `alter table item_classes add column authority text not null default 'zra'`,
  `alter table item_classes drop constraint item_classes_pkey`,
  `alter table item_classes add primary key (authority, code)`,
  `alter table authority_codes add column authority text not null default 'zra'`,
  `alter table authority_codes drop constraint authority_codes_pkey`,
  `alter table authority_codes add primary key (authority, class_code, code)`,
  `alter table authority_codes add column rate numeric`,
  `alter table catalogue_sync drop constraint catalogue_sync_id_check`,
  `alter table catalogue_sync add column authority text not null default 'zra'`,
  `alter table catalogue_sync alter column authority drop default`,
  `alter table catalogue_sync add constraint catalogue_sync_authority_key unique (authority)`,
  `insert into catalogue_sync (id, authority) values (2, 'kra') on conflict do nothing`,
];
