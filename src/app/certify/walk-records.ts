// The walk's last section (walk.ts): reports and exports, the audit trail, a backup.
import { expect, type Json, type Walk } from './walk-session.ts';

export async function walkRecords({ session, settings }: Walk): Promise<void> {
  const { call, data, item, needs } = session;

  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  let csv = '';
  await item(26, async (notes) => {
    needs(14);
    const exported = await call('GET', `/api/v1/exports/documents?from=${from}&to=${today}&format=csv`);
    expect(exported.status === 200 && exported.text.split('\n').length > 2, `the CSV export answered ${exported.status}`);
    csv = exported.text;
    const xlsx = await call('GET', `/api/v1/exports/documents?from=${from}&to=${today}&format=xlsx`);
    expect(xlsx.status === 200 && xlsx.bytes.subarray(0, 2).toString() === 'PK', `the Excel export answered ${xlsx.status}`);
    const pdf = await call('GET', '/api/v1/reports/daily', { accept: 'application/pdf' });
    expect(pdf.status === 200 && pdf.bytes.subarray(0, 4).toString() === '%PDF', `the PDF report answered ${pdf.status}`);
    const reportCsv = await call('GET', '/api/v1/reports/daily', { accept: 'text/csv' });
    expect(reportCsv.status === 200, `the CSV report answered ${reportCsv.status}`);
    notes.push(
      `documents exported as CSV (${csv.split('\n').length - 1} rows) and Excel (${xlsx.bytes.length} bytes); the day's X report as PDF (${pdf.bytes.length} bytes) and CSV`,
    );
  });
  await item(27, async (notes) => {
    needs(26);
    const header = csv.split(/\r?\n/)[0]!.split(',');
    const wanted = ['invoiceNo', 'occurredAt', 'customerName', 'customerTpin', 'documentTotal', 'documentVat', 'itemName'];
    const missing = wanted.filter((column) => !header.includes(column));
    expect(missing.length === 0, `the export lacks the columns ${missing.join(', ')}`);
    expect(csv.includes(settings.customerTpin), "the export does not carry the customer's TPIN");
    notes.push(
      `GET /api/v1/exports/documents: invoice number (invoiceNo), date (occurredAt), customer (customerName), TPIN (customerTpin), value (documentTotal), tax (documentVat), goods or services (itemName, classificationCode), per line`,
    );
  });
  await item(28, async (notes) => {
    needs(14);
    const trail = await data('GET', '/api/v1/audit');
    const actions = new Set(((trail as unknown as Json[]) ?? []).map((r) => String(r.action)));
    const wanted = ['item.created', 'sale.reprinted'];
    const missing = wanted.filter((a) => !actions.has(a));
    expect(missing.length === 0, `the audit trail lacks ${missing.join(', ')}; it has ${[...actions].join(', ')}`);
    const exported = await call('GET', '/api/v1/audit/export');
    expect(exported.status === 200, `the audit export answered ${exported.status}`);
    notes.push(`GET /api/v1/audit lists who did what: ${[...actions].sort().join(', ')}; exported as CSV`);
  });
  await item(21, async (notes) => {
    const backup = await call('POST', '/admin/v1/backup', { auth: 'admin' });
    expect(backup.status === 200 && backup.bytes.length > 0, `the online backup answered ${backup.status}: ${backup.text.slice(0, 200)}`);
    notes.push(
      `an online copy of the embedded database was taken while the gateway ran (${backup.bytes.length} bytes; \`fiscal-gateway backup --out FILE\`, docs/deployment.md); PostgreSQL: pg_dump`,
    );
  });
}
