// Reads of the compat surface: the branches a key may file through, and which document a
// till's number names. Documents themselves are read through the sales module.
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';

export interface KeyBranch {
  branch: string;
  sdcId: string | null;
  name: string | null;
  initialized: boolean;
}

/** A branch key's own device, or every device of the tenant for a tenant key. */
export async function branchesOfKey(db: Kysely<DB>, key: { tenantId: number; deviceId: number | null }): Promise<KeyBranch[]> {
  let query = db.selectFrom('devices').select(['branch', 'sdc_id', 'branch_name', 'initialized']).where('tenant_id', '=', key.tenantId);
  if (key.deviceId !== null) query = query.where('id', '=', key.deviceId);
  const rows = await query.orderBy('branch').execute();
  return rows.map((r) => ({ branch: r.branch, sdcId: r.sdc_id, name: r.branch_name, initialized: r.initialized }));
}

/** The sale with this gateway invoice number on this device (its branch sequence). */
export async function saleIdByInvoiceNo(
  db: Kysely<DB>,
  tenantId: number,
  deviceId: number,
  invoiceNo: number,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('sales')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', deviceId)
    .where('invoice_no', '=', invoiceNo)
    .where('type', '=', 'sale')
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** The document created with this Idempotency-Key (unique per tenant). */
export async function saleIdByReference(db: Kysely<DB>, tenantId: number, reference: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('sales')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

interface TillBody {
  family: 'gateway' | 'product';
  /** The request body exactly as the till sent it. */
  body: string;
}

/** Keeps what the till sent for the sale its request created (once; a second write is a no-op). */
export async function keepTillBody(db: Kysely<DB>, saleId: number, till: TillBody): Promise<void> {
  await db
    .insertInto('till_invoices')
    .values({ sale_id: saleId, family: till.family, body: till.body })
    .onConflict((oc) => oc.column('sale_id').doNothing())
    .execute();
}

/** What the till sent for this sale; undefined for a sale not created through /zm/api (or before bodies were kept). */
export async function tillBodyOf(db: Kysely<DB>, saleId: number): Promise<TillBody | undefined> {
  return db.selectFrom('till_invoices').select(['family', 'body']).where('sale_id', '=', saleId).executeTakeFirst();
}
