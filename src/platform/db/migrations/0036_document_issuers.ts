// Every document records which credential issued it, in its own insert (no audit
// row on the sale path): `issued_by_type` (`user`, `tenant_token`, `till_login`,
// `fiscalisation_key`, `partner_key`) and `issued_by_id`, that credential's id. Documents stored
// before this migration have neither (their issuer was never recorded). A fiscalisation key minted
// by a till login's getactive names that login (`api_keys.till_login_id`), so that a till's
// documents name the login rather than its key of the day; the live keys of today's logins are
// filled in here (a revoked key issues nothing more).
export const up = [
  `alter table sales add column issued_by_type text
     check (issued_by_type in ('user', 'tenant_token', 'till_login', 'fiscalisation_key', 'partner_key'))`,
  `alter table sales add column issued_by_id bigint`,
  `alter table sales add constraint sales_issued_by_whole check ((issued_by_type is null) = (issued_by_id is null))`,
  `alter table api_keys add column till_login_id integer references till_logins(id)`,
  `update api_keys k set till_login_id = l.id from till_logins l where l.api_key_id = k.id`,
];
