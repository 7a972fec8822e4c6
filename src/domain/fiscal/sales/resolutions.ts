// Resolving a document the authority refused (`failed`): reissue it as a new sale (stored through
// the sale path, service.ts createSale, in one transaction with the resolution) or mark it
// resolved with a note. The failed document keeps its lines, totals and outcome: only its stored
// status (`resolved`: out of the kept counts of failed documents, still `failed` in every resource)
// and its resolution columns change. Each resolution is audited and fires `invoice.resolved`.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { ResolutionKind } from '../../../platform/db/tables/sales.ts';
import { ApiError, NotFoundError, requiredText } from '../../../platform/errors/errors.ts';
import { actorOfParty, recordAudit, type Party } from '../../kernel/audit/store.ts';
import { enqueueEvent, RESOLVED_EVENT, wakeDeliveryWorkers } from '../../kernel/outbox/events.ts';
import { presentLineRow, presentSale } from './present.ts';
import type { ReissueBody } from './schemas.ts';
import type { SaleResource } from './resource-schemas.ts';
import { createSale, type PartyWriteRequest, type WriteResult } from './service.ts';
import { issuedByName, linesOf, lockSale, type SaleRow } from './store.ts';

/** Locks the document and checks that it may be resolved this way: it must be `failed`. */
async function lockFailed(trx: Kysely<DB>, tenantId: number, saleId: number, action: 'reissue' | 'resolve'): Promise<SaleRow> {
  const row = await lockSale(trx, tenantId, saleId);
  if (!row) throw new NotFoundError('Sale not found.');
  if (action === 'reissue' && row.type !== 'sale') {
    throw new ApiError(
      'not_a_sale',
      `Document ${saleId} is a ${row.type.replace('_', ' ')}: only a sale can be reissued. Mark it resolved (POST /api/v1/sales/${saleId}/resolve) and, if the customer is still owed it, issue a new note against the original sale.`,
    );
  }
  const verb = action === 'reissue' ? 'reissued' : 'resolved';
  if (row.status === 'resolved') {
    const how = `${row.resolution_kind ?? 'resolved'}${row.replaced_by_sale_id === null ? '' : `, replaced by document ${row.replaced_by_sale_id}`}`;
    throw new ApiError(
      'document_not_failed',
      `A failed document is ${verb} once, and document ${saleId} was already resolved (${how}): see its resolution.`,
    );
  }
  if (row.status !== 'failed') {
    const why =
      row.status === 'pending'
        ? 'it is still pending: the authority has not answered yet'
        : 'it was fiscalised (uploaded): correct it with a credit or debit note instead';
    throw new ApiError('document_not_failed', `Only a failed document can be ${verb}, and document ${saleId} is not: ${why}.`);
  }
  return row;
}

interface Resolution {
  kind: ResolutionKind;
  by: Party;
  note: string | null;
  replacedBySaleId: number | null;
}

/**
 * Flips the failed document to `resolved` (guarded: only while it is still `failed`), audits it
 * and stores its `invoice.resolved` event, all in the caller's transaction. Returns how many
 * deliveries the event queued (the caller wakes the delivery workers after the commit).
 */
async function markResolved(
  ctx: AppContext,
  trx: Kysely<DB>,
  tenant: TenantAccount,
  failed: SaleRow,
  resolution: Resolution,
): Promise<{ row: SaleRow; deliveries: number }> {
  const now = ctx.clock.now();
  const row = await trx
    .updateTable('sales')
    .set({
      status: 'resolved',
      resolution_kind: resolution.kind,
      resolved_at: now,
      resolved_by: `${resolution.by.type}:${resolution.by.id}`,
      resolution_note: resolution.note,
      replaced_by_sale_id: resolution.replacedBySaleId,
      updated_at: now,
    })
    .where('id', '=', failed.id)
    .where('status', '=', 'failed')
    .returningAll()
    .returning(issuedByName('sales').as('issued_by_name'))
    .executeTakeFirst();
  // The row is locked by lockFailed: nothing can have changed it in between.
  if (!row) throw new Error(`sale ${failed.id} changed under its lock`);
  await recordAudit(trx, {
    actor: actorOfParty(resolution.by),
    action: resolution.kind === 'reissued' ? 'sale.reissued' : 'sale.resolved',
    tenantId: tenant.id,
    partnerId: tenant.partnerId,
    targetType: 'sale',
    targetId: Number(row.id),
    details: {
      invoiceNo: Number(row.invoice_no),
      branch: row.branch,
      note: resolution.note,
      ...(resolution.replacedBySaleId === null ? {} : { replacedBySaleId: resolution.replacedBySaleId }),
    },
  });
  const lines = (await linesOf(trx, [Number(row.id)])).get(Number(row.id)) ?? [];
  const notifier = ctx.database.notifier;
  const { deliveries } = await enqueueEvent(
    trx,
    {
      type: RESOLVED_EVENT,
      partnerId: tenant.partnerId,
      tenantId: tenant.id,
      data: { invoice: presentSale(row, lines.map(presentLineRow)) },
      created: now,
    },
    // In a statement (PostgreSQL: delivered at commit); the embedded database is woken after the commit.
    notifier.notifiesInStatements ? notifier : undefined,
  );
  return { row, deliveries };
}

function noteOf(note: string | undefined, field: string): string | null {
  return note === undefined ? null : requiredText(note, field);
}

/**
 * Reissues a failed sale as a new sale with the body's lines and customer: a new invoice number
 * in the failed one's branch sequence, `replacesSaleId` set. The new document is stored, the old
 * one resolved and the two linked in one transaction; a refused request changes neither. The
 * request's credential issues the new sale and resolves the failed one.
 */
export async function reissueSale(ctx: AppContext, req: PartyWriteRequest, saleId: number, body: ReissueBody): Promise<WriteResult> {
  const by = req.issuer;
  const note = noteOf(body.note, 'note');
  let deliveries = 0;
  let failed: SaleRow | undefined;
  const result = await createSale(ctx, req, body, {
    replaces: {
      saleId,
      lock: async (trx) => {
        failed = await lockFailed(trx, req.tenant.id, saleId, 'reissue');
        return { deviceId: failed.device_id, branch: failed.branch };
      },
      link: async (trx, stored) => {
        deliveries = (
          await markResolved(ctx, trx, req.tenant, failed!, { kind: 'reissued', by, note, replacedBySaleId: Number(stored.id) })
        ).deliveries;
        await trx.updateTable('sales').set({ replaces_sale_id: saleId }).where('id', '=', stored.id).execute();
        return { ...stored, replaces_sale_id: saleId };
      },
    },
  });
  if (!result.replayed) await wakeDeliveryWorkers(ctx.db, ctx.database.notifier, deliveries);
  return result;
}

/** Marks a failed document (sale or note) resolved with a note: nothing more is filed for it. */
export async function resolveDocument(
  ctx: AppContext,
  tenant: TenantAccount,
  by: Party,
  saleId: number,
  body: { note: string },
): Promise<SaleResource> {
  const note = noteOf(body.note, 'note')!;
  const { row, deliveries } = await ctx.db.transaction().execute(async (trx) => {
    const failed = await lockFailed(trx, tenant.id, saleId, 'resolve');
    return markResolved(ctx, trx, tenant, failed, { kind: 'marked', by, note, replacedBySaleId: null });
  });
  await wakeDeliveryWorkers(ctx.db, ctx.database.notifier, deliveries);
  const lines = await linesOf(ctx.db, [saleId]);
  return presentSale(row, (lines.get(saleId) ?? []).map(presentLineRow));
}
