// Resolving failed documents, and receipts printed again.
// - status `resolved`: a document the authority refused (`failed`) that someone has dealt with,
//   by reissuing it as a new document or by marking it resolved with a note. Only the status and
//   the resolution columns change; its lines, totals and fiscal fields stay as they were.
// - resolution_*: how (`reissued` | `marked`), who (the credential, as `type:id`), when, the note,
//   and for a reissue the new document (`replaced_by_sale_id`); the new document points back with
//   `replaces_sale_id`.
// - receipt_print_count / receipt_printed_at: how many times the document's receipt was printed
//   (served by GET …/receipt or reprinted by GET /zm/api/Signature/{n}) and when first; every print
//   after the first is a COPY.
export const up = [
  `alter table sales drop constraint sales_status_check`,
  `alter table sales add constraint sales_status_check check (status in ('pending', 'uploaded', 'failed', 'resolved'))`,
  `alter table sales add column replaces_sale_id bigint references sales(id)`,
  `alter table sales add column resolution_kind text check (resolution_kind in ('reissued', 'marked'))`,
  `alter table sales add column resolved_at timestamptz`,
  `alter table sales add column resolved_by text`,
  `alter table sales add column resolution_note text`,
  `alter table sales add column replaced_by_sale_id bigint references sales(id)`,
  `alter table sales add column receipt_print_count integer not null default 0`,
  `alter table sales add column receipt_printed_at timestamptz`,
];
