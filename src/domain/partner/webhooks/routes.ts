import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { partnerActor, requirePartner } from '../../kernel/http-access/auth.ts';
import { PageQuery, Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { createEndpoint, deleteEndpoint, enableEndpoint, getEndpoint, listDeliveries, listEndpoints, resendDelivery } from './service.ts';
import { data } from '../../../platform/http/schema-helpers.ts';

const TAG = ['Partner: webhooks'];
const read = { auth: { surface: 'partner', scope: 'webhooks:read' } } as const;
const write = { auth: { surface: 'partner', scope: 'webhooks:write' } } as const;

export function webhookRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/webhooks',
      {
        config: read,
        schema: {
          operationId: 'listWebhookEndpoints',
          tags: TAG,
          summary: 'Your webhook endpoints',
          response: { 200: data(Type.Array(S.Endpoint)) },
        },
      },
      async (request) => ({ data: await listEndpoints(ctx, requirePartner(request).partner.id) }),
    );

    app.post(
      '/api/v1/webhooks',
      {
        config: { ...write, errors: ['webhook_endpoint_limit'] },
        schema: {
          operationId: 'createWebhookEndpoint',
          tags: TAG,
          summary: 'Register an endpoint (the signing secret is shown once)',
          description: 'Receives the events of every merchant you provisioned. `events` defaults to invoice.fiscalised and invoice.failed.',
          body: S.CreateEndpointBody,
          response: { 201: S.EndpointCreated },
        },
      },
      async (request, reply) => {
        const created = await createEndpoint(ctx, partnerActor(request), request.body);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({
            ...created,
            message: 'Store this signing secret now: it is shown only once. It verifies the X-Service-Signature header of every delivery.',
          });
      },
    );

    app.get(
      '/api/v1/webhooks/:id',
      {
        config: read,
        schema: {
          operationId: 'getWebhookEndpoint',
          tags: TAG,
          summary: 'One endpoint',
          params: S.EndpointParam,
          response: { 200: data(S.Endpoint) },
        },
      },
      async (request) => ({ data: await getEndpoint(ctx, requirePartner(request).partner.id, request.params.id) }),
    );

    app.delete(
      '/api/v1/webhooks/:id',
      {
        config: write,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          tags: TAG,
          summary: 'Delete an endpoint and its delivery log',
          params: S.EndpointParam,
          response: { 200: S.Deleted },
        },
      },
      async (request) => deleteEndpoint(ctx, partnerActor(request), request.params.id),
    );

    app.post(
      '/api/v1/webhooks/:id/enable',
      {
        config: write,
        schema: {
          operationId: 'enableWebhookEndpoint',
          tags: TAG,
          summary: 'Re-enable an endpoint; clears the failure streak, keeps the secret',
          description: 'Deliveries left pending when it was disabled resume. Events fired while it was disabled were never queued.',
          params: S.EndpointParam,
          response: { 200: data(S.Endpoint) },
        },
      },
      async (request) => ({ data: await enableEndpoint(ctx, partnerActor(request), request.params.id) }),
    );

    app.get(
      '/api/v1/webhooks/:id/deliveries',
      {
        config: read,
        schema: {
          operationId: 'listWebhookDeliveries',
          tags: TAG,
          summary: 'Delivery log of an endpoint, newest first',
          params: S.EndpointParam,
          querystring: PageQuery,
          response: { 200: Paginated(S.Delivery) },
        },
      },
      async (request) => listDeliveries(ctx, requirePartner(request).partner.id, request.params.id, request.query.page),
    );

    app.post(
      '/api/v1/webhooks/deliveries/:id/resend',
      {
        config: { ...write, errors: ['endpoint_disabled'] },
        schema: {
          operationId: 'resendWebhookDelivery',
          tags: TAG,
          summary: 'Re-queue a delivery for immediate redelivery',
          description:
            'Attempts reset to 0 and the full retry schedule applies again; same event id and body. 409 endpoint_disabled when its endpoint is disabled.',
          params: S.DeliveryParam,
          response: { 202: data(S.Delivery) },
        },
      },
      async (request, reply) => {
        const delivery = await resendDelivery(ctx, partnerActor(request), request.params.id);
        return reply.code(202).send({ data: delivery });
      },
    );
  };
}
