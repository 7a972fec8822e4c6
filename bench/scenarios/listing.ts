// Reading sales back: `GET /api/v1/sales?reference=` and `?page=N` for one merchant holding
// `small`, then `large` documents (seeded in bulk with SQL, as uploaded sales with one line
// each). Flat means the large figures stay within 2x of the small ones.
import type { Engine } from '../lib/engines.ts';
import { closedLoop, type Throughput } from '../lib/load.ts';
import { startGateway, type ChildServer } from '../lib/processes.ts';
import { createPartner, seedMerchants, type Merchant } from '../lib/seed.ts';

export interface ListingSettings {
  root: string;
  workDir: string;
  seconds: number;
  sizes: number[];
  page: number;
}

export interface ListingRun {
  documents: number;
  seedSeconds: number;
  byReference: Throughput;
  firstPage: Throughput;
  pageN: Throughput;
}

export interface ListingResults {
  page: number;
  runs: ListingRun[];
}

const CHUNK = 100_000;

/** Sales `from`..`to` (invoice numbers) of the merchant's one device, uploaded, one line each. */
function seedSales(merchant: Merchant, from: number, to: number): string[] {
  const statements: string[] = [];
  for (let start = from; start <= to; start += CHUNK) {
    const end = Math.min(to, start + CHUNK - 1);
    statements.push(
      `insert into sales (tenant_id, device_id, tpin, branch, type, invoice_no, status, reference, client_invoice_no, customer_name,
         payment_method, tax_inclusive, occurred_at, net, vat, total, result_code, receipt_no, internal_data, receipt_signature,
         sdc_id, mrc_no, qr_code_url, published_at, created_at, updated_at)
       select d.tenant_id, d.id, '${merchant.tpin}', d.branch, 'sale', g, 'uploaded', 'ref-' || g, 'TILL-' || g, 'Walk-in customer',
         '01', true, now() - interval '1 day', 318.97, 51.03, 370, '000', g, 'I6H7EAWI6NF3TXRECQLK2N5LBY', 'EU24KDP6C5E5MVUF',
         'SDC0010002115', 'WIS00003036', 'https://example.invalid/qr/' || g, now(), now(), now()
       from devices d cross join generate_series(${start}, ${end}) g
       where d.tenant_id = ${merchant.tenantId}`,
      `insert into sale_lines (sale_id, line, name, classification_code, quantity, price, vat_category, vat_rate, amount, net, vat, total)
       select s.id, 1, 'Maize meal 25kg', '50221200', 2, 185, 'A', 16, 370, 318.97, 51.03, 370
       from sales s where s.tenant_id = ${merchant.tenantId} and s.invoice_no between ${start} and ${end}`,
    );
  }
  statements.push(
    `update devices set next_invoice_no = ${to + 1} where tenant_id = ${merchant.tenantId}`,
    'analyze sales',
    'analyze sale_lines',
  );
  return statements;
}

export async function listingScenario(
  engine: Engine,
  settings: ListingSettings,
  sim: ChildServer,
  tpinBase: number,
  log: (line: string) => void,
): Promise<ListingResults> {
  const seeder = await startGateway({
    root: settings.root,
    workDir: settings.workDir,
    env: engine.env,
    args: ['--api-only'],
    label: `${engine.name}-listing-seed`,
  });
  let merchant: Merchant;
  try {
    const partner = await createPartner(seeder.url, 'Listing bench partner');
    [merchant] = (await seedMerchants(seeder.url, partner, sim.urls.url!, 1, tpinBase)) as [Merchant];
  } finally {
    await seeder.stop();
  }
  const runs: ListingRun[] = [];
  let held = 0;
  for (const size of settings.sizes) {
    const began = performance.now();
    await engine.sql(seedSales(merchant, held + 1, size));
    const seedSeconds = Math.round((performance.now() - began) / 100) / 10;
    held = size;
    const gateway = await startGateway({
      root: settings.root,
      workDir: settings.workDir,
      env: engine.env,
      args: ['--api-only'],
      label: `${engine.name}-listing-${size}`,
    });
    try {
      const get = (path: string, verify: (body: string) => boolean) => {
        const plan = { method: 'GET' as const, path, next: () => ({ headers: { authorization: `Bearer ${merchant.token}` } }), verify };
        return closedLoop(gateway.url, plan, { connections: 8, seconds: 1 }).then(() =>
          closedLoop(gateway.url, plan, { connections: 8, seconds: settings.seconds }),
        );
      };
      const middle = Math.ceil(size / 2);
      const byReference = await get(
        `/api/v1/sales?reference=ref-${middle}`,
        (b) => b.includes(`"reference":"ref-${middle}"`) && b.includes('"total":1,"lastPage":1'),
      );
      const firstPage = await get('/api/v1/sales?page=1', (b) => b.includes(`"total":${size},`));
      const pageN = await get(
        `/api/v1/sales?page=${settings.page}`,
        (b) => b.includes(`"page":${settings.page}`) && b.includes(`"invoiceNo":${size - (settings.page - 1) * 20}`),
      );
      runs.push({ documents: size, seedSeconds, byReference, firstPage, pageN });
      log(
        `${engine.name} listing ${size}: reference ${byReference.perSecond}/s p50 ${byReference.p50Ms} ms, page 1 ${firstPage.perSecond}/s p50 ${firstPage.p50Ms} ms, page ${settings.page} ${pageN.perSecond}/s p50 ${pageN.p50Ms} ms (seeded in ${seedSeconds} s)`,
      );
    } finally {
      await gateway.stop();
    }
  }
  return { page: settings.page, runs };
}
