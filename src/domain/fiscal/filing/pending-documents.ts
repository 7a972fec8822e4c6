// A branch's next pending documents with their lines, read as one json array inside the
// statements that claim a branch (queue.ts) and record an outcome (outcome-store.ts).
import { sql, type RawBuilder } from 'kysely';
import { issuedByName, type SaleLineRow, type SaleRow } from '../sales/store.ts';

export interface PendingDocument {
  row: SaleRow;
  lines: SaleLineRow[];
}

/**
 * The branch's next pending documents (stored after document `after`, an id) with their lines, as
 * one json array in the order the branch stored them: its ids, which the counter row's lock hands
 * out in invoice order within each kind (normal, training, proforma; sales/document-insert.ts).
 */
export function pendingJson(
  deviceId: number | RawBuilder<number>,
  limit: number | RawBuilder<number>,
  after: number | RawBuilder<number> = 0,
) {
  return sql<PendingJson[]>`coalesce((
    select json_agg(p order by p.id) from (
      select s.*, ${issuedByName('s')} as issued_by_name, coalesce((
        select json_agg(json_build_object(
          'sale_id', l.sale_id, 'line', l.line, 'name', l.name, 'classification_code', l.classification_code,
          'item_code', l.item_code, 'quantity', l.quantity::text, 'price', l.price::text, 'vat_category', l.vat_category,
          'vat_rate', l.vat_rate::text, 'rrp', l.rrp::text, 'amount', l.amount::text, 'discount', l.discount::text,
          'supply', l.supply::text, 'net', l.net::text, 'vat', l.vat::text,
          'total', l.total::text, 'original_line', l.original_line) order by l.line)
        from sale_lines l where l.sale_id = s.id), '[]'::json) as lines
      from sales s
      where s.device_id = ${deviceId} and s.status = 'pending' and s.id > ${after}
      order by s.id
      limit ${limit}) p), '[]'::json)`;
}

/** A sales row as json_agg renders it: timestamps as text, numerics as numbers. */
export type PendingJson = Omit<SaleRow, 'occurred_at' | 'created_at' | 'updated_at' | 'published_at' | 'net' | 'vat' | 'total'> & {
  occurred_at: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  net: number | string;
  vat: number | string;
  total: number | string;
  lines: SaleLineRow[];
};

export function toPending(docs: PendingJson[]): PendingDocument[] {
  return docs.map(({ lines, ...row }) => ({
    row: {
      ...row,
      occurred_at: new Date(row.occurred_at),
      created_at: new Date(row.created_at),
      updated_at: new Date(row.updated_at),
      published_at: row.published_at === null ? null : new Date(row.published_at),
      net: String(row.net),
      vat: String(row.vat),
      total: String(row.total),
    },
    lines,
  }));
}
