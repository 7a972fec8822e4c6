import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { listApiKeys, listTokens, mintApiKey, mintToken, revokeApiKey, revokeToken } from '../../kernel/tenants/credentials-service.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import {
  CreateApiKeyBody,
  IdParam,
  FiscalisationKeyCreated,
  TenantToken,
  TenantTokenCreated,
  Revoked,
  CreateTokenBody,
  FiscalisationKey,
  TenantParam,
} from '../../kernel/tenants/schemas.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';
import { TAG, actorOf } from './route-parts.ts';

/** A partner's merchant's credentials: tenant tokens and fiscalisation keys. */
export function tenantCredentialRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.get(
      '/api/v1/tenants/:tenant/tokens',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
        schema: {
          operationId: 'listTenantTokens',
          tags: TAG,
          summary: 'Live tenant tokens (no plaintext)',
          params: TenantParam,
          response: { 200: data(Type.Array(TenantToken)) },
        },
      },
      async (request) => ({ data: await listTokens(db, requireActedTenant(request)) }),
    );

    app.post(
      '/api/v1/tenants/:tenant/tokens',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'writable' } },
        schema: {
          operationId: 'createTenantToken',
          tags: TAG,
          summary: 'Mint a tenant token (plaintext once)',
          params: TenantParam,
          body: CreateTokenBody,
          response: { 201: data(TenantTokenCreated) },
        },
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ data: await mintToken(db, actorOf(request), tenant, request.body.name, request.body.abilities, request.body.training) });
      },
    );

    app.delete(
      '/api/v1/tenants/:tenant/tokens/:id',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
        schema: {
          operationId: 'revokeTenantToken',
          tags: TAG,
          summary: 'Revoke a tenant token (immediate)',
          params: Type.Object({ ...TenantParam.properties, ...IdParam.properties }),
          response: { 200: Revoked },
        },
      },
      async (request) => revokeToken(db, actorOf(request), requireActedTenant(request), request.params.id),
    );

    app.get(
      '/api/v1/tenants/:tenant/api-keys',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
        schema: {
          operationId: 'listFiscalisationKeys',
          tags: TAG,
          summary: 'Fiscalisation keys, masked',
          params: TenantParam,
          response: { 200: data(Type.Array(FiscalisationKey)) },
        },
      },
      async (request) => ({ data: await listApiKeys(db, requireActedTenant(request)) }),
    );

    app.post(
      '/api/v1/tenants/:tenant/api-keys',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'writable' }, errors: ['device_not_found'] },
        schema: {
          operationId: 'createFiscalisationKey',
          tags: TAG,
          summary: 'Mint a fiscalisation key for /zm/api (plaintext once)',
          description: 'The body is optional.',
          params: TenantParam,
          body: CreateApiKeyBody,
          response: { 201: data(FiscalisationKeyCreated) },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        const created = await mintApiKey(db, actorOf(request), tenant, request.body);
        return reply.code(201).header('cache-control', 'no-store').send({ data: created });
      },
    );

    app.delete(
      '/api/v1/tenants/:tenant/api-keys/:id',
      {
        config: { auth: { surface: 'partner', scope: 'keys:write', tenant: 'read' } },
        schema: {
          operationId: 'revokeFiscalisationKey',
          tags: TAG,
          summary: 'Revoke a fiscalisation key (immediate)',
          params: Type.Object({ ...TenantParam.properties, ...IdParam.properties }),
          response: { 200: Revoked },
        },
      },
      async (request) => revokeApiKey(db, actorOf(request), requireActedTenant(request), request.params.id),
    );
  };
}
