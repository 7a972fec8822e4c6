// Storing an event and queueing its deliveries. Called inside the transaction that changes
// the thing the event is about, so that the event exists exactly when the change does.
import { randomFillSync } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { monotonicFactory } from 'ulid';
import type { Notifier } from '../../../platform/db/notifier.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { prepared } from '../../../platform/db/prepared.ts';

export type InvoiceEventType = 'invoice.fiscalised' | 'invoice.failed';

export const INVOICE_EVENT_TYPES = ['invoice.fiscalised', 'invoice.failed'] as const satisfies readonly InvoiceEventType[];

/** A failed document was reissued or marked resolved (opt-in: not among the defaults). */
export const RESOLVED_EVENT = 'invoice.resolved';

/** Partner-level backlog alarms (fired by the alarms worker). */
export const BACKLOG_EVENT = 'branch.backlog';
export const RECOVERED_EVENT = 'branch.recovered';
export const ALARM_EVENT_TYPES = [BACKLOG_EVENT, RECOVERED_EVENT] as const;

/** A reconciliation found a document the authority holds differently, or not at all (opt-in). */
export const RECONCILIATION_MISMATCH_EVENT = 'reconciliation.mismatch';

/** A supplier's sale to the merchant, pulled from the authority (authority/purchases). */
export const PURCHASE_RECEIVED_EVENT = 'purchase.received';
/** A notice the authority published to a merchant (fired by the notices pull). */
export const NOTICE_EVENT = 'authority.notice';
const AUTHORITY_EVENT_TYPES = [PURCHASE_RECEIVED_EVENT, NOTICE_EVENT, RECONCILIATION_MISMATCH_EVENT] as const;

/** Every event an endpoint may subscribe to; without a choice it gets the invoice events. */
export const EVENT_TYPES = [...INVOICE_EVENT_TYPES, RESOLVED_EVENT, ...ALARM_EVENT_TYPES, ...AUTHORITY_EVENT_TYPES] as const;

/** The notifier channel the delivery worker listens on. */
export const WEBHOOKS_CHANNEL = 'webhooks';

interface NewEvent {
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

interface EventEnvelope {
  id: string;
  event: string;
  created: string;
  data: Record<string, unknown>;
}

/**
 * ulid's default source asks the OS for one byte per character (16 calls an id);
 * this draws the same cryptographic randomness from a pooled buffer.
 */
function pooledRandom(): () => number {
  const pool = Buffer.alloc(4096);
  let at = pool.length;
  return () => {
    if (at === pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    return pool[at++]! / 256;
  };
}

const nextEventId = monotonicFactory(pooledRandom());

/** The envelope of spec 2.3 in its one serialised form: these bytes are what every attempt sends. */
export function serialiseEnvelope(envelope: EventEnvelope): string {
  return JSON.stringify({ id: envelope.id, event: envelope.event, created: envelope.created, data: envelope.data });
}

/** An event's row fields; the id is a ULID of its creation time. */
export interface EventRow {
  id: string;
  type: string;
  partnerId: number | null;
  tenantId: number;
  created: Date;
}

export function eventRow(event: Omit<NewEvent, 'data'>): EventRow {
  const created = event.created ?? new Date();
  return { id: nextEventId(created.getTime()), type: event.type, partnerId: event.partnerId, tenantId: event.tenantId, created };
}

/** An event row's fields as SQL: a Statement's placeholders, or values (`eventValues`). */
interface EventFields {
  id: RawBuilder<unknown>;
  type: RawBuilder<unknown>;
  partnerId: RawBuilder<unknown>;
  tenantId: RawBuilder<unknown>;
  created: RawBuilder<unknown>;
}

export function eventValues(row: EventRow): EventFields {
  return {
    id: sql`${row.id}`,
    type: sql`${row.type}`,
    partnerId: sql`${row.partnerId}`,
    tenantId: sql`${row.tenantId}`,
    created: sql`${row.created}`,
  };
}

/**
 * The CTEs `event` and `deliveries`, for a statement that stores an event together with the
 * change it is about: the event row, with the body `body` computed from the row of `source`
 * (`from x`; no row there, no event), and one delivery, due at once, for every enabled endpoint
 * of the partner subscribed to its type. Endpoints disabled now never get this event (spec 3.4b).
 */
export function eventCtes(event: EventFields, body: RawBuilder<unknown>, source: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  return sql`event as (
      insert into webhook_events (id, type, partner_id, tenant_id, body, created_at)
      select ${event.id}::text, ${event.type}::text, ${event.partnerId}::int, ${event.tenantId}::int, ${body}, ${event.created}::timestamptz ${source}
      returning id, type, partner_id, created_at
    ),
    deliveries as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select event.id, e.id, event.created_at, event.created_at
      from event join webhook_endpoints e on e.partner_id = event.partner_id and e.status = 'enabled' and event.type = any(e.events)
      returning event_id, endpoint_id
    )`;
}

/**
 * A select-list entry that wakes the delivery workers at commit when the statement queued a
 * delivery (PostgreSQL; on the embedded database call `wakeDeliveryWorkers` after the statement).
 */
export const DELIVERIES_NOTICE = sql`(select pg_notify(${sql.lit(WEBHOOKS_CHANNEL)}, '') where exists (select 1 from deliveries)) as deliveries_notice`;

export async function wakeDeliveryWorkers(db: Kysely<DB>, notifier: Notifier, deliveries: number): Promise<void> {
  if (deliveries > 0 && !notifier.notifiesInStatements) await notifier.notify(db as Kysely<unknown>, WEBHOOKS_CHANNEL);
}

/**
 * Stores the event and queues its deliveries in one statement. `db` may be a transaction. Pass
 * `notifier` to wake the delivery worker at once (on the embedded database nothing else wakes
 * it before its next poll).
 */
export async function enqueueEvent(db: Kysely<DB>, event: NewEvent, notifier?: Notifier): Promise<{ eventId: string; deliveries: number }> {
  const row = eventRow(event);
  const body = serialiseEnvelope({ id: row.id, event: row.type, created: row.created.toISOString(), data: event.data });
  const notice = notifier?.notifiesInStatements ? sql`, ${DELIVERIES_NOTICE}` : sql``;
  const result = await sql<{ deliveries: number }>`${prepared}
    with ${eventCtes(eventValues(row), sql`${body}::text`)}
    select (select count(*) from deliveries)::int as deliveries ${notice}`.execute(db);
  const deliveries = result.rows[0]?.deliveries ?? 0;
  if (notifier) await wakeDeliveryWorkers(db, notifier, deliveries);
  return { eventId: row.id, deliveries };
}
