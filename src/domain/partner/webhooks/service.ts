// The partner's side of webhooks: registering, listing, enabling and deleting endpoints (their
// signing secrets sealed to the row), the delivery log of an endpoint, and resending a delivery.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { PREFIXES, mintSecret } from '../../../credentials/secret-format.ts';
import { ApiError, NotFoundError, ValidationError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { INVOICE_EVENT_TYPES, WEBHOOKS_CHANNEL } from '../../kernel/outbox/events.ts';
import { presentDelivery, presentEndpoint } from './present.ts';
import type { CreateEndpointBody, DeliveryResource, EndpointResource } from './schemas.ts';
import {
  countEndpoints,
  deleteEndpointAndDeliveries,
  deliveriesOfEndpoint,
  deliveryLogRow,
  enableEndpointRow,
  endpointExists,
  endpointsOfPartner,
  findEndpoint,
  insertEndpoint,
  lockDelivery,
  lockPartner,
  newestSealedEndpointRows,
  requeueDelivery,
  storeSealedSecret,
  type EndpointRow,
} from './store.ts';
import { urlProblems } from './url-rules.ts';

type PartnerActor = Actor & { type: 'partner_key' };

/** Keeps one partner from multiplying every event into an unbounded number of requests. */
const MAX_ENDPOINTS_PER_PARTNER = 20;

/** Binds a sealed secret to its endpoint row, so a ciphertext copied elsewhere does not open. */
export const secretAad = (endpointId: number, partnerId: number) => `webhook_endpoint:${endpointId}:partner:${partnerId}`;

/** The newest sealed endpoint secrets with what each was sealed to: does a key open them? (src/app/secret-key.ts). */
export async function newestSealedEndpointSecrets(db: Kysely<DB>, limit: number): Promise<Array<{ sealed: string; aad: string }>> {
  const rows = await newestSealedEndpointRows(db, limit);
  return rows.map((row) => ({ sealed: row.secret_ciphertext, aad: secretAad(row.id, row.partner_id) }));
}

/** Wakes the delivery workers: a re-enabled endpoint or a resent delivery has work due now. */
async function wakeDeliveries(ctx: AppContext): Promise<void> {
  await ctx.database.notifier.notify(ctx.db as Kysely<unknown>, WEBHOOKS_CHANNEL);
}

export async function createEndpoint(
  ctx: AppContext,
  actor: PartnerActor,
  body: CreateEndpointBody,
): Promise<{ secret: string; endpoint: EndpointResource }> {
  const problems = urlProblems(body.url, ctx.config.env);
  if (problems.length > 0) throw new ValidationError({ url: problems });
  const url = new URL(body.url).toString();
  const secret = mintSecret(PREFIXES.webhookSecret);

  const row = await ctx.db.transaction().execute(async (trx) => {
    // Serialises concurrent registrations of one partner, so the cap holds.
    await lockPartner(trx, actor.partnerId);
    if ((await countEndpoints(trx, actor.partnerId)) >= MAX_ENDPOINTS_PER_PARTNER) {
      throw new ApiError(
        'webhook_endpoint_limit',
        `A partner may register at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints; delete one first.`,
      );
    }
    const id = await insertEndpoint(trx, {
      partnerId: actor.partnerId,
      url,
      description: body.description ?? '',
      events: [...(body.events ?? INVOICE_EVENT_TYPES)],
    });
    const sealed = await storeSealedSecret(trx, id, ctx.secretBox.seal(secret, secretAad(id, actor.partnerId)));
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.created',
      targetType: 'webhook_endpoint',
      targetId: sealed.id,
      details: { url, events: sealed.events },
    });
    return sealed;
  });
  return { secret, endpoint: presentEndpoint(row) };
}

export async function listEndpoints(ctx: AppContext, partnerId: number): Promise<EndpointResource[]> {
  const rows = await endpointsOfPartner(ctx.db, partnerId);
  return rows.map(presentEndpoint);
}

/** The partner's own endpoint; another partner's is answered exactly like a missing one. */
async function ownEndpoint(ctx: AppContext, partnerId: number, endpointId: number): Promise<EndpointRow> {
  const row = await findEndpoint(ctx.db, partnerId, endpointId);
  if (!row) throw new NotFoundError('Webhook endpoint not found.');
  return row;
}

export async function getEndpoint(ctx: AppContext, partnerId: number, endpointId: number): Promise<EndpointResource> {
  return presentEndpoint(await ownEndpoint(ctx, partnerId, endpointId));
}

/** Deletes the endpoint and its delivery log; attempts in flight finish but record nothing. */
export async function deleteEndpoint(ctx: AppContext, actor: PartnerActor, endpointId: number): Promise<{ deleted: true; id: number }> {
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await endpointExists(trx, actor.partnerId, endpointId))) throw new NotFoundError('Webhook endpoint not found.');
    const deleted = await deleteEndpointAndDeliveries(trx, endpointId);
    if (!deleted) throw new NotFoundError('Webhook endpoint not found.');
    await recordAudit(trx, {
      actor,
      action: 'webhook_endpoint.deleted',
      targetType: 'webhook_endpoint',
      targetId: deleted.id,
      details: { url: deleted.url },
    });
    return { deleted: true as const, id: deleted.id };
  });
}

/**
 * Enables the endpoint and clears its failure streak; the signing secret stays the same.
 * Deliveries left pending when it was disabled resume at once.
 */
export async function enableEndpoint(ctx: AppContext, actor: PartnerActor, endpointId: number): Promise<EndpointResource> {
  const now = ctx.clock.now();
  const endpoint = await ctx.db.transaction().execute(async (trx) => {
    const row = await enableEndpointRow(trx, actor.partnerId, endpointId, now);
    if (!row) throw new NotFoundError('Webhook endpoint not found.');
    await recordAudit(trx, { actor, action: 'webhook_endpoint.enabled', targetType: 'webhook_endpoint', targetId: row.id });
    return presentEndpoint(row);
  });
  await wakeDeliveries(ctx);
  return endpoint;
}

/** One of the partner's endpoints' deliveries, newest first, 20 a page. */
export async function listDeliveries(
  ctx: AppContext,
  partnerId: number,
  endpointId: number,
  page: number,
): Promise<Page<DeliveryResource>> {
  const endpoint = await ownEndpoint(ctx, partnerId, endpointId);
  const { rows, total } = await deliveriesOfEndpoint(ctx.db, endpoint.id, page);
  return pageOf(rows.map(presentDelivery), total, page);
}

/**
 * Restarts a delivery: attempt counter reset, due now, the full retry schedule again, same
 * event id and body bytes (a fresh `t` and signature). An attempt already in flight keeps its
 * claim until it ends, so the delivery is never sent twice at once; the `resends` bump makes
 * that attempt's result be discarded. A disabled endpoint is refused: enable it first.
 */
export async function resendDelivery(ctx: AppContext, actor: PartnerActor, deliveryId: number): Promise<DeliveryResource> {
  const now = ctx.clock.now();
  const delivery = await ctx.db.transaction().execute(async (trx) => {
    const owned = await lockDelivery(trx, actor.partnerId, deliveryId);
    if (!owned) throw new NotFoundError('Webhook delivery not found.');
    if (owned.endpoint_status !== 'enabled') {
      throw new ApiError(
        'endpoint_disabled',
        "This delivery's endpoint is disabled. Enable it (POST /api/v1/webhooks/{id}/enable), then resend.",
      );
    }
    await requeueDelivery(trx, deliveryId, now);
    await recordAudit(trx, {
      actor,
      action: 'webhook_delivery.resent',
      targetType: 'webhook_delivery',
      targetId: deliveryId,
      details: { endpointId: owned.endpoint_id },
    });
    return presentDelivery(await deliveryLogRow(trx, deliveryId));
  });
  await wakeDeliveries(ctx);
  return delivery;
}
