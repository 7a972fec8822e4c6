import type { DeliveryResource, EndpointResource } from './schemas.ts';
import type { DeliveryLogRow, EndpointRow } from './store.ts';
import { iso } from '../../../platform/lib/time.ts';

export function presentEndpoint(row: EndpointRow): EndpointResource {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    lastFailureAt: iso(row.last_failure_at),
    disabledAt: iso(row.disabled_at),
  };
}

export function presentDelivery(row: DeliveryLogRow): DeliveryResource {
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
