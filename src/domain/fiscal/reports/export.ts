// Exports of a merchant's documents with their lines, one row per line, as CSV or XLSX. Both
// read the range a page of documents at a time (keyset: no server cursor on the embedded
// database, none needed on PostgreSQL) and write each page before reading the next, waiting
// while the reader is slower: memory stays flat whatever the range holds.
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { localDateTime } from '../../../platform/lib/time-zones.ts';
import type { AuthorityProfile } from '../../../authorities/port/profile.ts';
import { exportPage, type ExportCursor, type ExportRow, type ExportScope } from './store.ts';

export type ExportFormat = 'csv' | 'xlsx';

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Documents per page read (each with its lines). */
const PAGE_DOCUMENTS = 500;

export const EXPORT_COLUMNS = [
  'documentId',
  'type',
  'status',
  'branch',
  'invoiceNo',
  'authorityInvoiceNo',
  'receiptNo',
  'clientInvoiceNo',
  'occurredAt',
  'customerName',
  'customerTpin',
  'paymentMethod',
  'taxInclusive',
  'currency',
  'documentTaxable',
  'documentVat',
  'documentTotal',
  'originalSaleId',
  'reasonCode',
  'resultCode',
  'line',
  'itemName',
  'classificationCode',
  'itemCode',
  'quantity',
  'price',
  'vatCategory',
  'vatRate',
  'amount',
  'discount',
  'taxable',
  'vat',
  'total',
  // After the earlier columns so that readers by position keep working: the document's
  // kind (training and proforma documents are not fiscal), its rate and its total in the
  // authority's currency (named after it: documentTotalZmw, documentTotalKes), its LPO, its time
  // in the merchant's zone and the payment method's name.
  'salesType',
  'exchangeRate',
  'documentTotalZmw',
  'lpoNumber',
  'occurredAtLocal',
  'paymentMethodName',
  // Which credential issued the document (empty for documents stored before it was recorded).
  'issuedByType',
  'issuedById',
  'issuedByName',
] as const;

/** The header row of a merchant's export: the total in its authority's currency is named after it (`documentTotalKes`). */
export function exportColumns(profile: AuthorityProfile): string[] {
  const home = `documentTotal${profile.currency.charAt(0)}${profile.currency.slice(1).toLowerCase()}`;
  return EXPORT_COLUMNS.map((column) => (column === 'documentTotalZmw' ? home : column));
}

/** Columns holding amounts or quantities: numbers in a spreadsheet, exact decimal text in CSV. */
const NUMERIC = new Set<string>([
  'invoiceNo',
  'receiptNo',
  'documentTaxable',
  'documentVat',
  'documentTotal',
  'line',
  'quantity',
  'price',
  'vatRate',
  'amount',
  'discount',
  'taxable',
  'vat',
  'total',
  'exchangeRate',
  'documentTotalZmw',
]);

/** One row's cells; `timeZone` is the merchant's, for `occurredAtLocal` (`2026-11-27 17:29:47 CAT`). */
function cells(row: ExportRow, { timezone: timeZone, profile }: ExportMerchant): Array<string | boolean | null> {
  const uploaded = row.status === 'uploaded';
  const receiptNo = uploaded ? row.receipt_no : null;
  return [
    row.id,
    row.type,
    row.status,
    row.branch,
    row.invoice_no,
    uploaded && row.sdc_id !== null && receiptNo !== null
      ? profile.authorityInvoiceNo({ sdcId: row.sdc_id, invoiceNo: Number(row.invoice_no), receiptNo: Number(receiptNo) })
      : null,
    receiptNo,
    row.client_invoice_no,
    row.occurred_at.toISOString(),
    row.customer_name,
    row.customer_tpin,
    row.payment_method,
    row.tax_inclusive,
    row.currency,
    row.doc_taxable,
    row.doc_vat,
    row.doc_total,
    row.original_sale_id,
    row.reason_code,
    row.result_code,
    row.line === null ? null : String(row.line),
    row.name,
    row.classification_code,
    row.item_code,
    row.quantity,
    row.price,
    row.vat_category,
    row.vat_rate,
    row.amount,
    row.discount,
    row.taxable,
    row.vat,
    row.total,
    row.sales_type,
    row.exchange_rate,
    row.doc_total_home,
    row.lpo_number,
    localDateTime(row.occurred_at, timeZone),
    profile.paymentMethods.find((m) => m.code === row.payment_method)?.label ?? row.payment_method,
    row.issued_by_type,
    row.issued_by_id,
    row.issued_by_name,
  ];
}

/** Every page of the range, in order. */
async function* pages(db: Kysely<DB>, scope: ExportScope): AsyncGenerator<ExportRow[]> {
  let cursor: ExportCursor | undefined;
  for (;;) {
    const rows = await exportPage(db, scope, cursor, PAGE_DOCUMENTS);
    if (rows.length === 0) return;
    yield rows;
    const last = rows[rows.length - 1]!;
    cursor = { occurredAt: last.cursor_at, id: last.id };
    const documents = new Set(rows.map((r) => r.id)).size;
    if (documents < PAGE_DOCUMENTS) return;
  }
}

/** RFC 4180 CSV (CRLF, a header row), UTF-8. */
function csvExport(db: Kysely<DB>, scope: ExportScope, merchant: ExportMerchant): Readable {
  async function* chunks(): AsyncGenerator<string> {
    yield stringify([], { header: true, columns: exportColumns(merchant.profile), record_delimiter: 'windows' });
    for await (const rows of pages(db, scope)) {
      yield stringify(
        rows.map((r) => cells(r, merchant).map((c) => (typeof c === 'boolean' ? (c ? 'true' : 'false') : (c ?? '')))),
        { record_delimiter: 'windows' },
      );
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

interface WritableLike extends NodeJS.EventEmitter {
  _writableState?: { length: number; highWaterMark: number };
}

/**
 * The stream exceljs's worksheet writer feeds the zip through (exceljs 4: the sheet's StreamBuf
 * pipes into the zip entry's PassThrough, ignoring its `write` result, so without a wait here
 * the whole uncompressed sheet piles up in it). Undefined if a later exceljs is built otherwise:
 * then nothing waits, and the export benchmark's peak RSS shows it.
 */
function sheetEntry(sheet: unknown): WritableLike | undefined {
  const entry = (sheet as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as WritableLike | undefined;
  return entry?._writableState ? entry : undefined;
}

function backlogged(stream: WritableLike | PassThrough): boolean {
  const state = (stream as WritableLike)._writableState;
  return state !== undefined && state.length > state.highWaterMark;
}

/** One worksheet, "Documents", written by exceljs's streaming writer (no shared strings, no styles). */
function xlsxExport(db: Kysely<DB>, scope: ExportScope, merchant: ExportMerchant): Readable {
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  void (async () => {
    // exceljs is large: loaded on the first XLSX export, not by every process at start.
    const { default: ExcelJS } = await import('exceljs');
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Documents');
    sheet.addRow(exportColumns(merchant.profile)).commit();
    for await (const rows of pages(db, scope)) {
      if (out.destroyed) return;
      for (const row of rows) {
        sheet
          .addRow(cells(row, merchant).map((value, i) => (value !== null && NUMERIC.has(EXPORT_COLUMNS[i]!) ? Number(value) : value)))
          .commit();
      }
      // exceljs writes the sheet into the zip without waiting for it: wait here, a page at a time,
      // until what it handed the zip (and what the zip handed us) is down to a buffer's worth.
      for (const stream of [sheetEntry(sheet), out]) {
        while (stream && backlogged(stream) && !out.destroyed) await Promise.race([once(stream, 'drain'), once(out, 'close')]);
      }
    }
    sheet.commit();
    await workbook.commit();
  })().catch((err: unknown) => out.destroy(err as Error));
  return out;
}

/** The merchant an export is of: its zone gives `occurredAtLocal`, its authority's profile the payment types' labels. */
interface ExportMerchant {
  timezone: string;
  profile: AuthorityProfile;
}

/** The range's documents as `format`. */
export function documentsExport(db: Kysely<DB>, scope: ExportScope, format: ExportFormat, merchant: ExportMerchant): Readable {
  return format === 'csv' ? csvExport(db, scope, merchant) : xlsxExport(db, scope, merchant);
}
