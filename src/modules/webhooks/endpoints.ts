import { sql, type Kysely, type Selectable } from 'kysely';
import type { GatewayEnv } from '../../config.ts';
import type { SecretBox } from '../../credentials/secret-box.ts';
import { PREFIXES, mintSecret } from '../../credentials/secret-format.ts';
import type { DB } from '../../db/schema.ts';
import type { WebhookEndpointsTable } from '../../db/tables/webhooks.ts';
import { ApiError, NotFoundError, ValidationError } from '../../http/errors.ts';
import { recordAudit, type Actor } from '../audit/store.ts';
import { INVOICE_EVENT_TYPES } from './events.ts';
import type { CreateEndpointBody, EndpointResource } from './schemas.ts';
import { urlProblems } from './url-rules.ts';
import { iso } from '../../lib/time.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** Keeps one partner from multiplying every event into an unbounded number of requests. */
export const MAX_ENDPOINTS_PER_PARTNER = 20;

/** Binds a sealed secret to its endpoint row, so a ciphertext copied elsewhere does not open. */
export const secretAad = (endpointId: number, partnerId: number) => `webhook_endpoint:${endpointId}:partner:${partnerId}`;

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

export async function createEndpoint(
  db: Kysely<DB>,
  box: SecretBox,
  env: GatewayEnv,
  actor: Actor & { type: 'partner_key' },
  body: CreateEndpointBody,
): Promise<{ secret: string; endpoint: EndpointResource }> {
  const problems = urlProblems(body.url, env);
  if (problems.length > 0) throw new ValidationError({ url: problems });
  const url = new URL(body.url).toString();
  const secret = mintSecret(PREFIXES.webhookSecret);

  const row = await db.transaction().execute(async (trx) => {
    // Serialises concurrent registrations of one partner, so the cap holds.
    await trx.selectFrom('partners').select('id').where('id', '=', actor.partnerId).forUpdate().executeTakeFirst();
    const { count } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('partner_id', '=', actor.partnerId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ENDPOINTS_PER_PARTNER) {
      throw new ApiError(422, 'webhook_endpoint_limit', `A partner may register at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints; delete one first.`);
    }
    const inserted = await trx
      .insertInto('webhook_endpoints')
      .values({
        partner_id: actor.partnerId,
        url,
        description: body.description ?? '',
        events: [...(body.events ?? INVOICE_EVENT_TYPES)],
        secret_ciphertext: 'pending',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sealed = await trx
      .updateTable('webhook_endpoints')
      .set({ secret_ciphertext: box.seal(secret, secretAad(inserted.id, actor.partnerId)) })
      .where('id', '=', inserted.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(trx, { actor, action: 'webhook_endpoint.created', targetType: 'webhook_endpoint', targetId: sealed.id, details: { url, events: sealed.events } });
    return sealed;
  });
  return { secret, endpoint: presentEndpoint(row) };
}

export async function listEndpoints(db: Kysely<DB>, partnerId: number): Promise<EndpointResource[]> {
  const rows = await db.selectFrom('webhook_endpoints').selectAll().where('partner_id', '=', partnerId).orderBy('id').execute();
  return rows.map(presentEndpoint);
}

/** The partner's own endpoint; another partner's is answered exactly like a missing one. */
export async function ownEndpoint(db: Kysely<DB>, partnerId: number, endpointId: number): Promise<EndpointRow> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).where('partner_id', '=', partnerId).executeTakeFirst();
  if (!row) throw new NotFoundError('Webhook endpoint not found.');
  return row;
}

/** Deletes the endpoint and its delivery log; attempts in flight finish but record nothing. */
export async function deleteEndpoint(db: Kysely<DB>, actor: Actor & { type: 'partner_key' }, endpointId: number): Promise<{ deleted: true; id: number }> {
  return db.transaction().execute(async (trx) => {
    const owned = await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', endpointId).where('partner_id', '=', actor.partnerId).executeTakeFirst();
    if (!owned) throw new NotFoundError('Webhook endpoint not found.');
    // Deliveries before the endpoint: the order in which a worker recording an attempt locks them.
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).execute();
    const deleted = await trx.deleteFrom('webhook_endpoints').where('id', '=', endpointId).returning(['id', 'url']).executeTakeFirst();
    if (!deleted) throw new NotFoundError('Webhook endpoint not found.');
    await recordAudit(trx, { actor, action: 'webhook_endpoint.deleted', targetType: 'webhook_endpoint', targetId: deleted.id, details: { url: deleted.url } });
    return { deleted: true as const, id: deleted.id };
  });
}

/** Enables the endpoint and clears its failure streak; the signing secret stays the same. */
export async function enableEndpoint(db: Kysely<DB>, actor: Actor & { type: 'partner_key' }, endpointId: number, now: Date): Promise<EndpointResource> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'enabled', failure_streak: 0, disabled_at: null, updated_at: now })
      .where('id', '=', endpointId)
      .where('partner_id', '=', actor.partnerId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Webhook endpoint not found.');
    await recordAudit(trx, { actor, action: 'webhook_endpoint.enabled', targetType: 'webhook_endpoint', targetId: row.id });
    return presentEndpoint(row);
  });
}

/** Records an attempt's outcome on the endpoint: a success ends the streak, a failed delivery extends it. */
export async function recordEndpointOutcome(
  db: Kysely<DB>,
  endpointId: number,
  outcome: 'delivered' | 'attempt_failed' | 'delivery_failed',
  now: Date,
  disableAfter: number,
): Promise<void> {
  if (outcome === 'delivered') {
    await db.updateTable('webhook_endpoints').set({ failure_streak: 0 }).where('id', '=', endpointId).where('failure_streak', '>', 0).execute();
    return;
  }
  if (outcome === 'attempt_failed') {
    await db.updateTable('webhook_endpoints').set({ last_failure_at: now }).where('id', '=', endpointId).execute();
    return;
  }
  await db
    .updateTable('webhook_endpoints')
    .set({
      last_failure_at: now,
      failure_streak: sql`failure_streak + 1`,
      status: sql`case when failure_streak + 1 >= ${disableAfter} then 'disabled' else status end`,
      disabled_at: sql`case when status = 'enabled' and failure_streak + 1 >= ${disableAfter} then ${now}::timestamptz else disabled_at end`,
      updated_at: now,
    })
    .where('id', '=', endpointId)
    .execute();
}
