// A purchase captured by hand (POST /api/v1/purchases) from a supplier the
// authority does not know. It is a `purchases` row like a pulled one, answered `accepted` at
// once and filed with savePurchase `regTyCd` `M`; `source` tells the two apart. Its
// `dedupe_key` (`manual/<branch>/<supplier>/<invoice>`) keeps a second capture of the same
// supplier invoice at the same branch from making a second purchase.
export const up = [`alter table purchases add column source text not null default 'pulled' check (source in ('pulled', 'manual'))`];
