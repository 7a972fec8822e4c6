// The checklist's "code data": the authority's code tables (selectCodes) — payment
// types, units, countries, tax types, note reasons… — synced beside the classification catalogue
// from the same VSDC and served as GET /api/v1/codes. One row per (class, code); the class's name
// is repeated on its rows. `codes_last_req_dt` is where the next selectCodes asks from.
export const up = [
  `create table authority_codes (
    class_code text not null,
    class_name text not null,
    code text not null,
    name text not null,
    description text,
    in_use boolean not null,
    sort_order integer,
    synced_at timestamptz not null,
    primary key (class_code, code)
  )`,
  `alter table catalogue_sync add column codes_last_req_dt text`,
];
