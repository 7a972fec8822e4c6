// Drafts from sales history: a worker reads the sales stored since its last pass and records a
// draft for every line naming a product the merchant has no item for. Reading history (instead
// of doing it inside sale creation) keeps the sale's hot path free of catalogue work, and no
// sale is missed across crashes: the watermark moves in the same transaction as the drafts.
import { sql } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { Worker } from '../../../platform/workers/index.ts';
import { pollingWorker } from '../../../platform/workers/polling.ts';
import { normalizeItemName } from './codes.ts';
import { recordDraftItemsFromSale, type SaleLineProduct } from './drafts.ts';
import { knownNormalizedNamesOfTenants } from './store.ts';

/** Sales read per pass. */
const DRAFT_SCAN_BATCH = 500;

interface LineProductRow {
  tenant_id: number;
  sale_id: number;
  line: number;
  name: string;
  classification_code: string;
  price: string;
  vat_category: string | null;
}

/**
 * How old a sale must be before a pass reads it. A pass moves its watermark past the sales it
 * read; a sale whose transaction took a lower id but commits after a higher one was read would be
 * skipped for good. Storing a sale commits within milliseconds of its transaction's start (its
 * `created_at`), so waiting this long for every sale closes that window; drafts appear that much
 * later, which nobody waits on.
 */
export const DRAFT_SCAN_SETTLE_MS = 10_000;

/**
 * One pass; returns how many sales it read. Several processes: one passes, the others skip.
 * A pass costs the same few statements however many merchants sold: the batch's bounds, each
 * merchant's distinct product names in it (a till sells the same products over and over), and
 * which of those names every merchant already has items for. Only merchants with a new name go on
 * to record drafts. The batch ends before the first sale created at or after `settledBefore`
 * (default: DRAFT_SCAN_SETTLE_MS before the database's now, the clock `created_at` is stamped by).
 */
export async function scanSalesForDrafts(ctx: AppContext, options: { settledBefore?: Date } = {}): Promise<number> {
  const settledBefore = options.settledBefore ?? sql<Date>`now() - make_interval(secs => ${DRAFT_SCAN_SETTLE_MS / 1000})`;
  return ctx.db.transaction().execute(async (trx) => {
    const scan = await trx
      .selectFrom('item_draft_scan')
      .select('last_sale_id')
      .where('id', '=', 1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!scan) return 0;
    const bounds = await sql<{ sales: number; last_id: number | null }>`
      with next as (
        select id, created_at from sales where id > ${scan.last_sale_id} and type = 'sale' order by id limit ${DRAFT_SCAN_BATCH}
      ),
      unsettled as (select min(id) as id from next where created_at >= ${settledBefore})
      select count(*)::int as sales, max(id) as last_id
      from next where (select id from unsettled) is null or id < (select id from unsettled)`.execute(trx);
    const { sales, last_id: lastId } = bounds.rows[0]!;
    if (sales === 0 || lastId === null) return 0;
    // The first line of each name per merchant, in sale order; names that normalise alike meet below.
    const lines = await sql<LineProductRow>`
      select * from (
        select distinct on (s.tenant_id, l.name) s.tenant_id, l.sale_id, l.line, l.name, l.classification_code, l.price, l.vat_category
        from sales s join sale_lines l on l.sale_id = s.id
        where s.id > ${scan.last_sale_id} and s.id <= ${lastId} and s.type = 'sale' and l.item_code is null
          -- the same range on the lines' key, so that they are read by it and not by a scan of every line
          and l.sale_id > ${scan.last_sale_id} and l.sale_id <= ${lastId}
        order by s.tenant_id, l.name, l.sale_id, l.line
      ) firsts order by sale_id, line`.execute(trx);
    const byTenant = new Map<number, Map<string, SaleLineProduct>>();
    for (const line of lines.rows) {
      const normalized = normalizeItemName(line.name);
      if (normalized === '') continue;
      const products = byTenant.get(line.tenant_id) ?? new Map<string, SaleLineProduct>();
      if (!products.has(normalized))
        products.set(normalized, {
          name: line.name,
          classificationCode: line.classification_code,
          price: line.price,
          vatCategory: line.vat_category,
        });
      byTenant.set(line.tenant_id, products);
    }
    const wanted = [...byTenant].flatMap(([tenantId, products]) => [...products.keys()].map((name) => ({ tenantId, name })));
    for (const { tenantId, name } of await knownNormalizedNamesOfTenants(trx, wanted)) byTenant.get(tenantId)?.delete(name);
    for (const [tenantId, products] of byTenant) {
      if (products.size > 0) await recordDraftItemsFromSale(trx, tenantId, [...products.values()]);
    }
    await trx
      .updateTable('item_draft_scan')
      .set({ last_sale_id: lastId, scanned_at: sql`now()` })
      .where('id', '=', 1)
      .execute();
    return sales;
  });
}

export function draftScanWorker(ctx: AppContext, options: { pollMs?: number } = {}): Worker {
  return pollingWorker({
    name: 'items.drafts',
    pollMs: options.pollMs ?? 2_000,
    batchSize: DRAFT_SCAN_BATCH,
    log: ctx.log,
    round: () => scanSalesForDrafts(ctx),
  });
}
