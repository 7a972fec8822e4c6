// Exporting a month of documents: `GET /api/v1/exports/documents` for one merchant holding
// `documents` sales spread over the last 30 days (seeded in bulk with SQL, uploaded, one line
// each), as CSV and as XLSX, each from a fresh gateway process (run as `npm start` runs it, heap
// capped at 192 MB) so its peak RSS (VmHWM) is the export's. Constant memory means the peak stays
// near the idle process's whatever the document count. Opt-in: `npm run bench -- --only exports
// --engines postgres` (a million documents take minutes to seed and export).
import type { Engine } from '../lib/engines.ts';
import { startGateway } from '../lib/processes.ts';
import { createPartner, seedMerchants, type Merchant } from '../lib/seed.ts';
import type { ChildServer } from '../lib/processes.ts';

export interface ExportSettings {
  root: string;
  workDir: string;
  documents: number;
}

export interface ExportRun {
  format: 'csv' | 'xlsx';
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  idleRssMb: number;
  peakRssMb: number;
}

export interface ExportResults {
  documents: number;
  seedSeconds: number;
  runs: ExportRun[];
}

const CHUNK = 100_000;
const DAY_MS = 86_400_000;

/** `count` uploaded sales of the merchant's device, spread evenly over the 30 days before now. */
function seedSales(merchant: Merchant, count: number): string[] {
  const statements: string[] = [];
  const spacingMs = Math.floor((30 * DAY_MS) / count);
  for (let start = 1; start <= count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK - 1);
    statements.push(
      `insert into sales (tenant_id, device_id, tpin, branch, type, invoice_no, status, reference, client_invoice_no, customer_name,
         payment_method, tax_inclusive, occurred_at, net, vat, total, result_code, receipt_no, internal_data, receipt_signature,
         sdc_id, mrc_no, qr_code_url, published_at, created_at, updated_at)
       select d.tenant_id, d.id, '${merchant.tpin}', d.branch, 'sale', g, 'uploaded', 'ref-' || g, 'TILL-' || g, 'Walk-in customer',
         '01', true, now() - interval '30 days' + g * interval '${spacingMs} milliseconds', 318.97, 51.03, 370, '000', g,
         'I6H7EAWI6NF3TXRECQLK2N5LBY', 'EU24KDP6C5E5MVUF', 'SDC0010002115', 'WIS00003036', 'https://example.invalid/qr/' || g, now(), now(), now()
       from devices d cross join generate_series(${start}, ${end}) g
       where d.tenant_id = ${merchant.tenantId}`,
      `insert into sale_lines (sale_id, line, name, classification_code, quantity, price, vat_category, vat_rate, amount, net, vat, total)
       select s.id, 1, 'Maize meal 25kg', '50221200', 2, 185, 'A', 16, 370, 318.97, 51.03, 370
       from sales s where s.tenant_id = ${merchant.tenantId} and s.invoice_no between ${start} and ${end}`,
    );
  }
  statements.push(
    `update devices set next_invoice_no = ${count + 1} where tenant_id = ${merchant.tenantId}`,
    'analyze sales',
    'analyze sale_lines',
  );
  return statements;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function exportScenario(
  engine: Engine,
  settings: ExportSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<ExportResults> {
  const seeder = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env: engine.env,
    args: ['--api-only'],
    label: `${engine.name}-exports-seed`,
  });
  let merchant: Merchant;
  try {
    const partner = await createPartner(seeder.url, 'Exports bench partner');
    [merchant] = (await seedMerchants(seeder.url, partner, sim.urls.url!, 1, tpinBase)) as [Merchant];
  } finally {
    await seeder.stop();
  }
  const began = performance.now();
  await engine.sql(seedSales(merchant, settings.documents));
  const seedSeconds = Math.round((performance.now() - began) / 100) / 10;
  log(`exports: ${settings.documents} documents seeded in ${seedSeconds} s`);

  // A day either side: the merchant's days are Lusaka's (UTC+2).
  const from = isoDay(Date.now() - 31 * DAY_MS);
  const to = isoDay(Date.now() + DAY_MS);
  const runs: ExportRun[] = [];
  for (const format of ['csv', 'xlsx'] as const) {
    const gateway = await startGateway({
      root: settings.root,
      workDir: settings.workDir,
      env: engine.env,
      args: ['--api-only'],
      label: `${engine.name}-exports-${format}`,
    });
    try {
      const idleRssMb = gateway.stats().peakRssMb;
      const started = performance.now();
      const res = await fetch(`${gateway.url}/api/v1/exports/documents?from=${from}&to=${to}&format=${format}`, {
        headers: { authorization: `Bearer ${merchant.token}` },
      });
      if (res.status !== 200 || !res.body) throw new Error(`export ${format}: ${res.status} ${await res.text()}`);
      let bytes = 0;
      let newlines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        if (format === 'csv') for (const b of chunk) if (b === 10) newlines++;
      }
      const seconds = (performance.now() - started) / 1000;
      const peakRssMb = gateway.stats().peakRssMb;
      // XLSX rows are inside a zip: the count is the documents', checked by the tests on small ranges.
      const rows = format === 'csv' ? newlines - 1 : settings.documents;
      if (format === 'csv' && rows !== settings.documents) throw new Error(`export csv: ${rows} rows, expected ${settings.documents}`);
      const run = {
        format,
        rows,
        megabytes: Math.round(bytes / 1e5) / 10,
        seconds: Math.round(seconds * 10) / 10,
        rowsPerSecond: Math.round(rows / seconds),
        idleRssMb,
        peakRssMb,
      };
      log(
        `exports: ${format} ${run.rows} rows, ${run.megabytes} MB in ${run.seconds} s (${run.rowsPerSecond}/s); RSS idle ${idleRssMb} MB, peak ${peakRssMb} MB`,
      );
      runs.push(run);
    } finally {
      await gateway.stop();
    }
  }
  return { documents: settings.documents, seedSeconds, runs };
}
