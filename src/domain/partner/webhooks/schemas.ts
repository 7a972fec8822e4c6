import { Type, type Static } from 'typebox';
import { EVENT_TYPES } from '../../kernel/outbox/events.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';

const EventName = literals(EVENT_TYPES);

export const Endpoint = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  status: literals(['enabled', 'disabled'], {
    description: '`disabled` after 10 consecutive failed deliveries; POST …/enable restores it',
  }),
  createdAt: Timestamp(),
  lastFailureAt: Nullable(Timestamp('The last failed delivery attempt')),
  disabledAt: Nullable(Timestamp('When it was auto-disabled; null while enabled')),
});
export type EndpointResource = Static<typeof Endpoint>;

export const CreateEndpointBody = withExample(
  Type.Object({
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Receiver URL. Production: https, public hostname, port 80, 443, 8080 or 8443',
    }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(
      Type.Array(EventName, {
        minItems: 1,
        maxItems: EVENT_TYPES.length,
        uniqueItems: true,
        description:
          'Defaults to the invoice events (invoice.fiscalised, invoice.failed); branch.backlog, branch.recovered, purchase.received, authority.notice and reconciliation.mismatch are opt-in',
      }),
    ),
  }),
  { url: 'https://example.com/webhooks/fiscal-gateway', description: 'Accounting sync', events: ['invoice.fiscalised', 'invoice.failed'] },
);
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const EndpointCreated = Type.Object({
  secret: Type.String({ description: 'The whsec_ signing secret, shown only here' }),
  endpoint: Endpoint,
  message: Type.String(),
});

export const Delivery = Type.Object({
  id: Type.Integer({ description: 'Sent as X-Webhook-Delivery; stable across retries' }),
  status: literals(['pending', 'delivered', 'failed']),
  attempts: Type.Integer(),
  responseStatus: Nullable(Type.Integer({ description: 'HTTP status of the last attempt; null when none came back' })),
  error: Nullable(Type.String({ description: 'Why the last attempt failed' })),
  nextRetryAt: Nullable(Timestamp('When the next attempt is due; null once delivered or failed')),
  eventId: Type.String({ description: 'The event ULID, sent as X-Webhook-Id' }),
  eventType: Type.String(),
  createdAt: Timestamp(),
  lastAttemptAt: Nullable(Timestamp()),
  deliveredAt: Nullable(Timestamp()),
});
export type DeliveryResource = Static<typeof Delivery>;

export const EndpointParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export const DeliveryParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const Deleted = Type.Object({ deleted: Type.Boolean(), id: Type.Integer() });
