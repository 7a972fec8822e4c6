// The SQL of the partner's side of webhooks: endpoints, their delivery log and resending a
// delivery. The delivery worker's SQL is in delivery-queue.ts.
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { DeliveryStatus, WebhookEndpointsTable } from '../../../platform/db/tables/webhooks.ts';
import { offsetOf } from '../../../platform/http/pagination.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export interface DeliveryLogRow {
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

interface NewEndpoint {
  partnerId: number;
  url: string;
  description: string;
  events: string[];
}

/** Locks the partner's row: serialises concurrent registrations of one partner. */
export async function lockPartner(db: Kysely<DB>, partnerId: number): Promise<void> {
  await db.selectFrom('partners').select('id').where('id', '=', partnerId).forUpdate().executeTakeFirst();
}

export async function countEndpoints(db: Kysely<DB>, partnerId: number): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('partner_id', '=', partnerId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Inserts the endpoint with a placeholder secret (the sealed one is bound to the new id); returns the id. */
export async function insertEndpoint(db: Kysely<DB>, endpoint: NewEndpoint): Promise<number> {
  const inserted = await db
    .insertInto('webhook_endpoints')
    .values({
      partner_id: endpoint.partnerId,
      url: endpoint.url,
      description: endpoint.description,
      events: endpoint.events,
      secret_ciphertext: 'pending',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function storeSealedSecret(db: Kysely<DB>, endpointId: number, secretCiphertext: string): Promise<EndpointRow> {
  return db
    .updateTable('webhook_endpoints')
    .set({ secret_ciphertext: secretCiphertext })
    .where('id', '=', endpointId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The newest sealed endpoint secrets, for the check of which key seals them (src/app/secret-key.ts). */
export async function newestSealedEndpointRows(
  db: Kysely<DB>,
  limit: number,
): Promise<Array<Pick<EndpointRow, 'id' | 'partner_id' | 'secret_ciphertext'>>> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'partner_id', 'secret_ciphertext'])
    .where('secret_ciphertext', '<>', 'pending')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function endpointsOfPartner(db: Kysely<DB>, partnerId: number): Promise<EndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('partner_id', '=', partnerId).orderBy('id').execute();
}

export async function findEndpoint(db: Kysely<DB>, partnerId: number, endpointId: number): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).where('partner_id', '=', partnerId).executeTakeFirst();
}

/** Whether the partner has this endpoint. */
export async function endpointExists(db: Kysely<DB>, partnerId: number, endpointId: number): Promise<boolean> {
  const owned = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', '=', endpointId)
    .where('partner_id', '=', partnerId)
    .executeTakeFirst();
  return owned !== undefined;
}

/** A receiver answered (any HTTP status) a delivery of this endpoint: its host resolved then (an endpoint's url never changes). */
export async function receiverHasAnswered(db: Kysely<DB>, endpointId: number): Promise<boolean> {
  const answered = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('response_status', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return answered !== undefined;
}

/** Deletes the endpoint and its delivery log; undefined when the endpoint was gone. */
export async function deleteEndpointAndDeliveries(db: Kysely<DB>, endpointId: number): Promise<{ id: number; url: string } | undefined> {
  // Deliveries before the endpoint: the order in which a worker recording an attempt locks them.
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).execute();
  return db.deleteFrom('webhook_endpoints').where('id', '=', endpointId).returning(['id', 'url']).executeTakeFirst();
}

/** Enables the partner's endpoint and clears its failure streak; undefined when it has no such endpoint. */
export async function enableEndpointRow(
  db: Kysely<DB>,
  partnerId: number,
  endpointId: number,
  now: Date,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ status: 'enabled', failure_streak: 0, disabled_at: null, updated_at: now })
    .where('id', '=', endpointId)
    .where('partner_id', '=', partnerId)
    .returningAll()
    .executeTakeFirst();
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

/** One page (20) of an endpoint's deliveries, newest first, and how many it has in all. */
export async function deliveriesOfEndpoint(
  db: Kysely<DB>,
  endpointId: number,
  page: number,
): Promise<{ rows: DeliveryLogRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    deliveriesWithEvents(db).where('d.endpoint_id', '=', endpointId).orderBy('d.id', 'desc').limit(20).offset(offsetOf(page)).execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function deliveryLogRow(db: Kysely<DB>, deliveryId: number): Promise<DeliveryLogRow> {
  return deliveriesWithEvents(db).where('d.id', '=', deliveryId).executeTakeFirstOrThrow();
}

/** Locks the partner's delivery (FOR UPDATE); with its endpoint's id and status. */
export async function lockDelivery(
  db: Kysely<DB>,
  partnerId: number,
  deliveryId: number,
): Promise<{ id: number; endpoint_id: number; endpoint_status: EndpointRow['status'] } | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'e.id as endpoint_id', 'e.status as endpoint_status'])
    .where('d.id', '=', deliveryId)
    .where('e.partner_id', '=', partnerId)
    .forUpdate('d')
    .executeTakeFirst();
}

/** Makes the delivery due now with no attempts, and bumps `resends` so an attempt in flight is discarded. */
export async function requeueDelivery(db: Kysely<DB>, deliveryId: number, now: Date): Promise<void> {
  await db
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
}
