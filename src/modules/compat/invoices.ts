// POST /zm/api/Invoice and its two reads, as a translation onto the sales module: numbering,
// ordered filing, the offline queue, events and webhooks are all the sales module's.
import type { AppContext } from '../../context.ts';
import type { TenantAccount } from '../../credentials/lookup.ts';
import type { CompatDevice } from '../../credentials/lookup.ts';
import { ApiError, NotFoundError } from '../../http/errors.ts';
import { createSale, getSale } from '../sales/service.ts';
import type { LegacyInvoice, LegacyInvoiceBody } from './schemas.ts';
import { saleIdByInvoiceNo, saleIdByReference } from './store.ts';
import { tillReference, toLegacyError, toLegacyInvoice, toSaleBody } from './translate.ts';

/** The merchant and the branch (named by X-SdcId) a till request acts on. */
export interface TillBranch {
  tenant: TenantAccount;
  device: CompatDevice;
}

export interface FiledInvoice {
  invoice: LegacyInvoice;
  /** True when the ClientInvoiceNumber was already known on this branch: nothing new was filed. */
  replayed: boolean;
}

async function legacyInvoiceOf(ctx: AppContext, tenantId: number, saleId: number | undefined): Promise<LegacyInvoice> {
  if (saleId === undefined) throw new NotFoundError('Invoice not found.');
  return toLegacyInvoice(await getSale(ctx, tenantId, saleId));
}

/**
 * Files a legacy invoice on the till's branch. The ClientInvoiceNumber becomes the sale's
 * Idempotency-Key (with the device), so a repeat — sequential or concurrent — returns the
 * original document and is never filed twice. A repeat with a different body is, to the sales
 * module, a reused key (422); to a till it is still its invoice, so it gets the original back.
 */
export async function fileLegacyInvoice(ctx: AppContext, till: TillBranch, legacy: LegacyInvoiceBody): Promise<FiledInvoice> {
  const reference = tillReference(till.device.id, legacy.ClientInvoiceNumber);
  try {
    const { sale, replayed } = await createSale(ctx, { tenant: till.tenant, branchHeader: till.device.branch, idempotencyHeader: reference }, toSaleBody(legacy));
    return { invoice: toLegacyInvoice(sale), replayed };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'idempotency_key_reused') {
      const original = await saleIdByReference(ctx.db, till.tenant.id, reference);
      if (original !== undefined) return { invoice: await legacyInvoiceOf(ctx, till.tenant.id, original), replayed: true };
    }
    throw toLegacyError(err);
  }
}

/** GET /zm/api/Invoice/{clientInvoicenumber}: an invoice this branch's tills filed. */
export async function invoiceByClientNumber(ctx: AppContext, till: TillBranch, clientInvoiceNumber: string): Promise<LegacyInvoice> {
  const saleId = await saleIdByReference(ctx.db, till.tenant.id, tillReference(till.device.id, clientInvoiceNumber));
  return legacyInvoiceOf(ctx, till.tenant.id, saleId);
}

/** GET /zm/api/Signature/{invoiceNumber}: any sale of this branch by its gateway InvoiceNumber. */
export async function invoiceByInvoiceNumber(ctx: AppContext, till: TillBranch, invoiceNumber: number): Promise<LegacyInvoice> {
  const saleId = await saleIdByInvoiceNo(ctx.db, till.tenant.id, till.device.id, invoiceNumber);
  return legacyInvoiceOf(ctx, till.tenant.id, saleId);
}
