// Storing an event and queueing its deliveries. Called inside the transaction that changes
// the thing the event is about, so that the event exists exactly when the change does.
import { sql, type Kysely } from 'kysely';
import { monotonicFactory } from 'ulid';
import type { Notifier } from '../../db/notifier.ts';
import type { DB } from '../../db/schema.ts';

export type InvoiceEventType = 'invoice.fiscalised' | 'invoice.failed';

export const INVOICE_EVENT_TYPES: readonly InvoiceEventType[] = ['invoice.fiscalised', 'invoice.failed'];

/** Partner-level backlog alarms (fired by the alarms worker). */
export const BACKLOG_EVENT = 'branch.backlog';
export const RECOVERED_EVENT = 'branch.recovered';
export const ALARM_EVENT_TYPES = [BACKLOG_EVENT, RECOVERED_EVENT] as const;

/** Every event an endpoint may subscribe to; without a choice it gets the invoice events. */
export const EVENT_TYPES: readonly string[] = [...INVOICE_EVENT_TYPES, ...ALARM_EVENT_TYPES];

/** The notifier channel the delivery worker listens on. */
export const WEBHOOKS_CHANNEL = 'webhooks';

export interface NewEvent {
  /** An event name such as `invoice.fiscalised`; endpoints subscribe by this name. */
  type: string;
  /** The partner whose endpoints receive it; null for a merchant without a partner. */
  partnerId: number | null;
  tenantId: number;
  /** The envelope's `data`, e.g. `{ invoice: <sale resource> }`. */
  data: Record<string, unknown>;
  /** The envelope's `created`; defaults to now. Pass `ctx.clock.now()` to follow the app clock. */
  created?: Date;
}

export interface EventEnvelope {
  id: string;
  event: string;
  created: string;
  data: Record<string, unknown>;
}

const nextEventId = monotonicFactory();

/** The envelope of spec 2.3 in its one serialised form: these bytes are what every attempt sends. */
export function serialiseEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify({ id: envelope.id, event: envelope.event, created: envelope.created, data: envelope.data });
}

/**
 * Stores the event and queues one delivery, due at once, for every enabled endpoint of the
 * partner subscribed to `event.type`. Endpoints disabled now never get this event (spec 3.4b).
 * `db` may be a transaction. Pass `notifier` to wake the delivery worker at once (on the
 * embedded database nothing else wakes it before its next poll).
 */
export async function enqueueEvent(db: Kysely<DB>, event: NewEvent, notifier?: Notifier): Promise<{ eventId: string; deliveries: number }> {
  const created = event.created ?? new Date();
  const id = nextEventId(created.getTime());
  const body = serialiseEnvelope({ id, event: event.type, created: created.toISOString(), data: event.data });

  await db
    .insertInto('webhook_events')
    .values({ id, type: event.type, partner_id: event.partnerId, tenant_id: event.tenantId, body, created_at: created })
    .execute();

  if (event.partnerId === null) return { eventId: id, deliveries: 0 };

  const queued = await db
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id', 'next_attempt_at', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select([sql<string>`${id}::text`.as('event_id'), 'id', sql<Date>`${created}::timestamptz`.as('next_attempt_at'), sql<Date>`${created}::timestamptz`.as('created_at')])
        .where('partner_id', '=', event.partnerId)
        .where('status', '=', 'enabled')
        .where(sql<boolean>`${event.type} = any(events)`),
    )
    .returning('id')
    .execute();

  if (queued.length > 0) await notifier?.notify(db as Kysely<unknown>, WEBHOOKS_CHANNEL);
  return { eventId: id, deliveries: queued.length };
}
