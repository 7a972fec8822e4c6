// Drafts from sales history: a worker reads the sales stored since its last pass and records a
// draft for every line naming a product the merchant has no item for. Reading history (instead
// of doing it inside sale creation) keeps the sale's hot path free of catalogue work, and no
// sale is missed across crashes: the watermark moves in the same transaction as the drafts.
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../workers/index.ts';
import { pollingWorker } from '../../workers/polling.ts';
import { recordDraftItemsFromSale, type SaleLineProduct } from './drafts.ts';

/** Sales read per pass. */
export const DRAFT_SCAN_BATCH = 500;

/** One pass; returns how many sales it read. Several processes: one passes, the others skip. */
export async function scanSalesForDrafts(ctx: AppContext): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const scan = await trx.selectFrom('item_draft_scan').select('last_sale_id').where('id', '=', 1).forUpdate().skipLocked().executeTakeFirst();
    if (!scan) return 0;
    const sales = await trx
      .selectFrom('sales')
      .select(['id', 'tenant_id'])
      .where('id', '>', scan.last_sale_id)
      .where('type', '=', 'sale')
      .orderBy('id')
      .limit(DRAFT_SCAN_BATCH)
      .execute();
    if (sales.length === 0) return 0;
    const lines = await trx
      .selectFrom('sale_lines')
      .select(['sale_id', 'name', 'classification_code', 'price', 'vat_category'])
      .where('sale_id', 'in', sales.map((s) => s.id))
      .where('item_code', 'is', null)
      .orderBy('sale_id')
      .orderBy('line')
      .execute();
    const tenantOfSale = new Map(sales.map((s) => [s.id, s.tenant_id]));
    const byTenant = new Map<number, SaleLineProduct[]>();
    for (const line of lines) {
      const tenantId = tenantOfSale.get(line.sale_id)!;
      const list = byTenant.get(tenantId) ?? [];
      list.push({ name: line.name, classificationCode: line.classification_code, price: line.price, vatCategory: line.vat_category });
      byTenant.set(tenantId, list);
    }
    for (const [tenantId, products] of byTenant) await recordDraftItemsFromSale(trx, tenantId, products);
    await trx
      .updateTable('item_draft_scan')
      .set({ last_sale_id: sales[sales.length - 1]!.id, scanned_at: sql`now()` })
      .where('id', '=', 1)
      .execute();
    return sales.length;
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
