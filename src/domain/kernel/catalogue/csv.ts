import { gzipSync } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import type { ItemClassRow } from './browse-store.ts';

const CSV_HEADER = ['code', 'name', 'level', 'taxType', 'majorTarget', 'inUse'] as const;

const yesNo = (value: boolean | null): string => (value === null ? '' : value ? 'Y' : 'N');

/** The catalogue as UTF-8 CSV (RFC 4180, CRLF, a header row), gzip-compressed. */
export function catalogueCsvGz(rows: readonly ItemClassRow[]): Buffer {
  const csv = stringify(
    rows.map((r) => [r.code, r.name, r.level ?? '', r.tax_type ?? '', yesNo(r.major_target), yesNo(r.in_use)]),
    { header: true, columns: [...CSV_HEADER], record_delimiter: 'windows' },
  );
  return gzipSync(Buffer.from(csv, 'utf8'));
}
