// An upgrade from an older schema that holds data: the rows a running gateway had stay as they
// were, and the columns added since take their defaults.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { migrateToLatest } from '../../src/platform/db/database.ts';
import { migrationProvider } from '../../src/platform/db/migrations/index.ts';
import type { DB } from '../../src/platform/db/schema.ts';
import { branchesReady } from '../../src/domain/fiscal/filing/queue.ts';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/db.ts';

/** The level a gateway of issue 14 ran at; everything after it is the upgrade under test. */
const FROM = '0007_item_drafts';
const TABLES = ['partners', 'tenants', 'devices', 'sales', 'sale_lines', 'filing_queues'] as const;

async function migrateTo(db: Kysely<DB>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

async function rows(db: Kysely<DB>, table: (typeof TABLES)[number]): Promise<Array<Record<string, unknown>>> {
  return (await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by 1, 2`.execute(db)).rows;
}

describe(`schema upgrade from ${FROM} with data (${engineName})`, () => {
  let testDb: TestDatabase;
  before(async () => {
    testDb = await createTestDatabase({ migrated: false, poolSize: 2 });
  });
  after(() => testDb.close());

  test('partners, tenants, devices, sales with lines and queue rows survive; new columns take their defaults', async () => {
    const db = testDb.database.db;
    await migrateTo(db, FROM);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    assert.equal(applied.rows.at(-1)?.name, FROM);

    // As the gateway wrote them at that level (only the columns that existed then).
    const exec = (q: string) => sql.raw(q).execute(db);
    await exec(`insert into partners (name) values ('Acme POS')`);
    await exec(`insert into tenants (partner_id, name, tpin, plan, monthly_quota, rate_limit_per_minute)
                select id, 'Lusaka Trading Ltd', '1002345678', 'growth', 5000, 90 from partners`);
    await exec(`insert into devices (tenant_id, branch, device_serial, vsdc_base_url, initialized, sdc_id, mrc_no, next_invoice_no, initialized_at)
                select id, '000', 'SN-1', 'http://127.0.0.1:9/vsdc', true, 'SDC0000000001', 'WIS00000001', 3, now() from tenants`);
    await exec(`insert into sales (tenant_id, device_id, tpin, branch, type, invoice_no, status, reference, customer_name, payment_method, tax_inclusive, occurred_at, net, vat, total,
                                   result_code, receipt_no, internal_data, receipt_signature, sdc_id, mrc_no, published_at)
                select t.id, d.id, t.tpin, d.branch, 'sale', 1, 'uploaded', 'ref-1', 'Walk-in customer', '01', true, now(), 100.00, 16.00, 116.00,
                       '000', 1, 'INTERNAL', 'SIGNATURE', d.sdc_id, d.mrc_no, now()
                from tenants t join devices d on d.tenant_id = t.id`);
    await exec(`insert into sales (tenant_id, device_id, tpin, branch, type, invoice_no, customer_name, payment_method, tax_inclusive, occurred_at, net, vat, total, original_sale_id, reason_code)
                select t.id, d.id, t.tpin, d.branch, 'credit_note', 2, 'Walk-in customer', '01', true, now(), -50.00, -8.00, -58.00, s.id, '01'
                from tenants t join devices d on d.tenant_id = t.id join sales s on s.invoice_no = 1`);
    await exec(`insert into sale_lines (sale_id, line, name, classification_code, item_code, quantity, price, vat_category, vat_rate, amount, net, vat, total)
                select id, 1, 'Roller mealie meal 25kg', '50221200', 'ZM2NTU0000001', 1.0000, 116.0000, 'A', 16.00, 116.00, 100.00, 16.00, 116.00 from sales where invoice_no = 1`);
    await exec(`insert into sale_lines (sale_id, line, name, classification_code, quantity, price, vat_category, vat_rate, amount, net, vat, total, original_line)
                select id, 1, 'Roller mealie meal 25kg', '50221200', 0.5000, 116.0000, 'A', 16.00, 58.00, 50.00, 8.00, 58.00, 1 from sales where invoice_no = 2`);
    await exec(`insert into filing_queues (device_id, next_attempt_at, retry_delay_ms, last_error)
                select id, now() - interval '1 minute', 400, 'timeout: no reply within the VSDC timeout' from devices`);
    const before = Object.fromEntries(await Promise.all(TABLES.map(async (table) => [table, await rows(db, table)] as const)));
    for (const table of TABLES) assert.ok(before[table]!.length > 0, `${table} holds rows`);

    const upgraded = await migrateToLatest(db);
    assert.ok(upgraded.length > 0 && !upgraded.includes(FROM), `migrations after ${FROM} ran: ${upgraded.join(', ')}`);

    const added: Record<string, Record<string, unknown>> = {
      tenants: { offline_policy: 'queue', timezone: 'Africa/Lusaka', stock_tracking: true, origin: 'partner', authority: 'zra' },
      filing_queues: { probed_at: null },
      devices: {
        next_training_no: 1,
        next_proforma_no: 1,
        last_train_invc_no: null,
        last_profrm_invc_no: null,
        protocol: 'vsdc',
        unit_key_sealed: null,
        api_credential_sealed: null,
        api_credential_kind: null,
        production: false,
        last_invoice_no: 0,
      },
      sales: {
        sales_type: 'normal',
        exchange_rate: '1.0000',
        lpo_number: null,
        principal_id: null,
        customer_address: null,
        filing_details: null,
        replaces_sale_id: null,
        resolution_kind: null,
        resolved_at: null,
        resolved_by: null,
        resolution_note: null,
        replaced_by_sale_id: null,
        receipt_print_count: 0,
        receipt_printed_at: null,
        // Who issued a document was not recorded then: it stays unknown.
        issued_by_type: null,
        issued_by_id: null,
        total_receipt_no: null,
      },
      sale_lines: { discount: '0.00', rrp: null, supply: null },
    };
    // A note keeps its original's invoice number, taken from the original when the column came.
    const invoiceOf = new Map(before.sales!.map((row) => [row.id, row.invoice_no]));
    const derived = (table: string, row: Record<string, unknown>) =>
      table === 'sales' ? { original_invoice_no: row.original_sale_id === null ? null : invoiceOf.get(row.original_sale_id) } : {};
    for (const table of TABLES) {
      const now = await rows(db, table);
      assert.deepEqual(
        now,
        before[table]!.map((row) => ({ ...row, ...added[table], ...derived(table, row) })),
        `${table}: the old rows as they were, with the new columns' defaults`,
      );
    }
    // The application reads the upgraded rows: the pending credit note's branch is ready to file.
    const device = before.devices![0]!.id as number;
    assert.deepEqual(await branchesReady(db, 'test', 10), [device]);
    // Stock is booked from the upgrade on: the branch's documents so far are not.
    const stock = await sql<{
      booked_invoice_no: number;
    }>`select booked_invoice_no from stock_branches where device_id = ${device}`.execute(db);
    assert.deepEqual(
      stock.rows.map((r) => Number(r.booked_invoice_no)),
      [2],
    );
  });
});
