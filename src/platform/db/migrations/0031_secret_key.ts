// The database knows which key seals its secrets. One row: a fingerprint of the
// secret box's key (an HMAC under the derived key of a fixed label: it tells keys apart and
// reveals nothing of them), what recorded it and when. Every `serve` and every CLI command that
// opens a context compares it with its own key and refuses to start with another
// (src/app/secret-key.ts, docs/deployment.md#secret_key).
export const up = [
  `create table secret_key (
    singleton boolean primary key default true check (singleton),
    fingerprint text not null,
    recorded_by text not null,
    recorded_at timestamptz not null default now()
  )`,
];
