import type { Generated } from 'kysely';
import type { NullableTimestamp, RequiredTimestamp, Timestamp } from './columns.ts';

export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  partner_id: number;
  url: string;
  description: Generated<string>;
  events: string[];
  status: Generated<EndpointStatus>;
  /** The whsec_ secret sealed with the SecretBox: it keys every signature, so it is not only hashed. */
  secret_ciphertext: string;
  failure_streak: Generated<number>;
  last_failure_at: NullableTimestamp;
  disabled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface WebhookEventsTable {
  id: string;
  type: string;
  partner_id: number | null;
  tenant_id: number;
  /** The exact request body of every delivery of this event. */
  body: string;
  created_at: RequiredTimestamp;
}

interface WebhookDeliveriesTable {
  id: Generated<number>;
  event_id: string;
  endpoint_id: number;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: NullableTimestamp;
  /** A worker's claim; expires so that a crashed worker's deliveries are taken over. */
  locked_until: NullableTimestamp;
  lease_token: string | null;
  /** Bumped by each resend, so an attempt in flight during a resend does not overwrite it. */
  resends: Generated<number>;
  response_status: number | null;
  error: string | null;
  last_attempt_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  created_at: RequiredTimestamp;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
