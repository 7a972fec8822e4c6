// The partner's view of deliveries: the log of one endpoint, and resending one delivery.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { DeliveryStatus } from '../../db/tables/webhooks.ts';
import { ApiError, NotFoundError } from '../../http/errors.ts';
import { offsetOf, pageOf, type Page } from '../../http/pagination.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import type { DeliveryResource } from './schemas.ts';
import { iso } from '../../lib/time.ts';

interface DeliveryLogRow {
  id: number;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  error: string | null;
  next_attempt_at: Date | null;
  event_id: string;
  event_type: string;
  created_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

function presentDelivery(row: DeliveryLogRow): DeliveryResource {
  return {
    id: Number(row.id),
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    error: row.error,
    nextRetryAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    eventId: row.event_id,
    eventType: row.event_type,
    createdAt: row.created_at.toISOString(),
    lastAttemptAt: iso(row.last_attempt_at),
    deliveredAt: iso(row.delivered_at),
  };
}

function deliveriesWithEvents(db: Kysely<DB>) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.status',
      'd.attempts',
      'd.response_status',
      'd.error',
      'd.next_attempt_at',
      'd.event_id',
      'ev.type as event_type',
      'd.created_at',
      'd.last_attempt_at',
      'd.delivered_at',
    ]);
}

/** One endpoint's deliveries, newest first, 20 a page. The caller has checked the endpoint is theirs. */
export async function listDeliveries(db: Kysely<DB>, endpointId: number, page: number): Promise<Page<DeliveryResource>> {
  const [rows, total] = await Promise.all([
    deliveriesWithEvents(db).where('d.endpoint_id', '=', endpointId).orderBy('d.id', 'desc').limit(20).offset(offsetOf(page)).execute(),
    db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow(),
  ]);
  return pageOf(rows.map(presentDelivery), Number(total.n), page);
}

/**
 * Restarts a delivery: attempt counter reset, due now, the full retry schedule again, same
 * event id and body bytes (a fresh `t` and signature). An attempt already in flight keeps its
 * claim until it ends, so the delivery is never sent twice at once; the `resends` bump makes
 * that attempt's result be discarded. A disabled endpoint is refused: enable it first.
 */
export async function resendDelivery(db: Kysely<DB>, actor: Actor & { type: 'partner_key' }, deliveryId: number, now: Date): Promise<DeliveryResource> {
  return db.transaction().execute(async (trx) => {
    const owned = await trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'e.id as endpoint_id', 'e.status as endpoint_status'])
      .where('d.id', '=', deliveryId)
      .where('e.partner_id', '=', actor.partnerId)
      .forUpdate('d')
      .executeTakeFirst();
    if (!owned) throw new NotFoundError('Webhook delivery not found.');
    if (owned.endpoint_status !== 'enabled') {
      throw new ApiError(409, 'endpoint_disabled', 'This delivery\'s endpoint is disabled. Enable it (POST /api/v1/webhooks/{id}/enable), then resend.');
    }
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        response_status: null,
        error: null,
        delivered_at: null,
        resends: eb('resends', '+', 1),
      }))
      .where('id', '=', deliveryId)
      .execute();
    await recordAudit(trx, { actor, action: 'webhook_delivery.resent', targetType: 'webhook_delivery', targetId: deliveryId, details: { endpointId: owned.endpoint_id } });
    const row = await deliveriesWithEvents(trx).where('d.id', '=', deliveryId).executeTakeFirstOrThrow();
    return presentDelivery(row);
  });
}
