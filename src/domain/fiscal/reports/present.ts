// A daily report as CSV: one row per figure set, sections named in the first column, so a
// spreadsheet can filter it (the JSON is the reference shape).
import { stringify } from 'csv-stringify/sync';
import type { ByTypeResource, DailyReportResource, FiguresResource } from './schemas.ts';

/** `value`: a VAT category's rate, or a report fact's value. */
const HEADER = ['section', 'type', 'key', 'value', 'count', 'taxable', 'vat', 'total', 'discount'];
const PARTS = [
  ['sale', 'sales'],
  ['credit_note', 'creditNotes'],
  ['debit_note', 'debitNotes'],
  ['net', 'net'],
] as const;

const amounts = (f: FiguresResource) => [f.count, f.taxable.toFixed(2), f.vat.toFixed(2), f.total.toFixed(2), f.discount.toFixed(2)];

function byTypeRows(section: string, key: string, value: string, figures: ByTypeResource): unknown[][] {
  return PARTS.map(([type, part]) => [section, type, key, value, ...amounts(figures[part])]);
}

export function reportCsv(report: DailyReportResource): string {
  // A fact about the report: its value in `value`.
  const fact = (key: string, value: string | number | null) => ['report', report.type, key, value ?? '', '', '', '', '', ''];
  const rows: unknown[][] = [
    fact('date', report.date),
    fact('timezone', report.timezone),
    fact('merchant', `${report.merchant.name} (TPIN ${report.merchant.tpin})`),
    fact('branch', report.branch),
    fact('generatedAt', report.generatedAt),
    fact('closedAt', report.closedAt),
    fact('closedBy', report.closedBy),
    fact('closedByName', report.closedByName),
    fact('firstInvoiceNo', report.numbers.firstInvoiceNo),
    fact('lastInvoiceNo', report.numbers.lastInvoiceNo),
    fact('firstReceiptNo', report.numbers.firstReceiptNo),
    fact('lastReceiptNo', report.numbers.lastReceiptNo),
    ...(['uploaded', 'pending', 'failed', 'resolved'] as const).map((status) => [
      'counts',
      '',
      status,
      '',
      report.counts[status],
      '',
      '',
      '',
      '',
    ]),
    ...report.documents.map((d) => ['documents', d.type, d.status, '', ...amounts(d)]),
    ...byTypeRows('fiscal', '', '', report.fiscal),
    ...report.vatCategories.flatMap((c) => byTypeRows('vat_category', c.category, String(c.rate), c)),
    ...report.paymentMethods.flatMap((p) => byTypeRows('payment_method', p.method, '', p)),
    // A Z: the day's documents stored after it, in no figure above.
    ...(report.storedAfterClose ? byTypeRows('stored_after_close', '', '', report.storedAfterClose) : []),
  ];
  return stringify(rows, { header: true, columns: HEADER, record_delimiter: 'windows' });
}
