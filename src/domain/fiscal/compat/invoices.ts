// POST /zm/api/Invoice and its two reads, as a translation onto the sales module: numbering,
// ordered filing, the offline queue, events and webhooks are all the sales module's.
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import type { CompatDevice } from '../../../credentials/key-lookup.ts';
import type { Issuer } from '../../kernel/audit/store.ts';
import { ApiError, NotFoundError } from '../../../platform/errors/errors.ts';
import { countPrint, printsOf } from '../receipts/receipt.ts';
import { createSale } from '../sales/service.ts';
import { getSale } from '../sales/reads.ts';
import type { Family } from './field-names.ts';
import { parseTillInvoice } from './invoice-body.ts';
import type { LegacyInvoice } from './schemas.ts';
import { keepTillBody, saleIdByInvoiceNo, saleIdByReference, tillBodyOf } from './store.ts';
import { tillReference, toLegacyError, toLegacyInvoice } from './translate.ts';

/** The merchant and the branch (named by X-SdcId) a till request acts on. */
export interface TillBranch {
  tenant: TenantAccount;
  device: CompatDevice;
  /** Who the till is: the till login whose key it sent, else that key; its invoices name it as their issuer. */
  issuer: Issuer;
  /** The fiscalisation key was minted in training mode: the till's invoices are training documents. */
  training?: boolean;
}

interface FiledInvoice {
  invoice: LegacyInvoice;
  /** True when the till's number was already known on this branch: nothing new was filed. */
  replayed: boolean;
}

export interface RetrievedInvoice {
  invoice: LegacyInvoice;
  /** The body exactly as the till sent it; null for a sale not filed through /zm/api (or before bodies were kept). */
  originalBody: string | null;
}

async function readInvoice(ctx: AppContext, tenant: TenantAccount, saleId: number | undefined): Promise<RetrievedInvoice> {
  if (saleId === undefined) throw new NotFoundError('Invoice not found.');
  const [sale, till] = await Promise.all([getSale(ctx, tenant.id, saleId), tillBodyOf(ctx.db, saleId)]);
  return { invoice: toLegacyInvoice(sale, tenant.timezone, till?.family), originalBody: till?.body ?? null };
}

/**
 * Files a till's invoice on its branch, in either family of names. The till's number
 * (ClientInvoiceNumber or InvoiceNumber) becomes the sale's Idempotency-Key (with the device), so
 * a repeat — sequential or concurrent — returns the original document and is never filed twice.
 * A repeat with a different body is, to the sales module, a reused key (422); to a till it is
 * still its invoice, so it gets the original back. The answer uses the names of the body it
 * answers; the body of the request that created the sale is kept, as sent.
 */
export async function fileLegacyInvoice(
  ctx: AppContext,
  till: TillBranch,
  body: unknown,
  bodyText: string | undefined,
): Promise<FiledInvoice> {
  const request = parseTillInvoice(body, till.device.sdcId, till.tenant.timezone);
  const family: Family = request.read.family;
  const reference = tillReference(till.device.id, request.number);
  const kept = { family, body: (bodyText ?? JSON.stringify(body)).replace(/^\uFEFF/, '') };
  try {
    const { sale, replayed } = await createSale(
      ctx,
      {
        tenant: till.tenant,
        issuer: till.issuer,
        branchHeader: till.device.branch,
        idempotencyHeader: reference,
        training: till.training === true,
        ...(request.filingDetails ? { filingDetails: request.filingDetails } : {}),
        onStored: (row) => keepTillBody(ctx.db, Number(row.id), kept),
      },
      request.sale,
    );
    // The till prints its receipt from this answer: when fiscalised, that is the original print.
    // A replay answers as the reads do, saying whether the receipt was printed before.
    if (replayed) return { invoice: await withCopyFlag(ctx, till, toLegacyInvoice(sale, till.tenant.timezone, family), sale.id), replayed };
    if (sale.status === 'uploaded') await countPrint(ctx.db, till.tenant.id, sale.id, ctx.clock.now());
    return { invoice: toLegacyInvoice(sale, till.tenant.timezone, family), replayed };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'idempotency_key_reused') {
      const original = await saleIdByReference(ctx.db, till.tenant.id, reference);
      if (original !== undefined)
        return {
          invoice: await withCopyFlag(
            ctx,
            till,
            toLegacyInvoice(await getSale(ctx, till.tenant.id, original), till.tenant.timezone, family),
            original,
          ),
          replayed: true,
        };
    }
    throw toLegacyError(err, request);
  }
}

/**
 * GET /zm/api/Invoice/{clientInvoicenumber}: an invoice this branch's tills filed, in the names it
 * was filed in. A lookup, not a print: `ReceiptCopy` says whether its receipt was printed before,
 * as the Signature reprint would (the two payloads stay identical).
 */
export async function invoiceByClientNumber(ctx: AppContext, till: TillBranch, tillNumber: string): Promise<RetrievedInvoice> {
  const saleId = await saleIdByReference(ctx.db, till.tenant.id, tillReference(till.device.id, tillNumber));
  const read = await readInvoice(ctx, till.tenant, saleId);
  return { ...read, invoice: await withCopyFlag(ctx, till, read.invoice, saleId!) };
}

/** `ReceiptCopy` of a lookup (counts nothing): was the uploaded invoice's receipt printed before? */
async function withCopyFlag(ctx: AppContext, till: TillBranch, invoice: LegacyInvoice, saleId: number): Promise<LegacyInvoice> {
  const copy = invoice.Status === 'uploaded' && (await printsOf(ctx.db, till.tenant.id, saleId)) >= 1;
  return { ...invoice, ReceiptCopy: copy };
}

/**
 * GET /zm/api/Signature/{invoiceNumber}: any sale of this branch by its gateway InvoiceNumber, as
 * a reprint: an uploaded invoice's print is counted, and `ReceiptCopy` says whether it was
 * printed before.
 */
export async function invoiceByInvoiceNumber(ctx: AppContext, till: TillBranch, invoiceNumber: number): Promise<RetrievedInvoice> {
  const saleId = await saleIdByInvoiceNo(ctx.db, till.tenant.id, till.device.id, invoiceNumber);
  const read = await readInvoice(ctx, till.tenant, saleId);
  const copy = read.invoice.Status === 'uploaded' && (await countPrint(ctx.db, till.tenant.id, saleId!, ctx.clock.now())) > 1;
  return { ...read, invoice: { ...read.invoice, ReceiptCopy: copy } };
}
