// The merchant's stock-tracking switch (`tenants.stock_tracking`).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';

export async function stockTrackingOf(db: Kysely<DB>, tenantId: number): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('stock_tracking').where('id', '=', tenantId).executeTakeFirst();
  return row?.stock_tracking ?? false;
}

export async function setStockTracking(db: Kysely<DB>, tenantId: number, on: boolean): Promise<void> {
  await db
    .updateTable('tenants')
    .set({ stock_tracking: on, updated_at: sql<Date>`now()` })
    .where('id', '=', tenantId)
    .execute();
}
