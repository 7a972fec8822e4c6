import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as P from '../../kernel/tenants/schemas.ts';
import { admin, viewer } from './route-parts.ts';
import { listApiKeys, mintApiKey, revokeApiKey } from '../../kernel/tenants/credentials-service.ts';
import { CreateApiKeyBody, TAG, forMint, who } from './developer-route-parts.ts';

/** The merchant's fiscalisation keys: list, mint, revoke. */
export function developerApiKeyRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.get(
      '/api/v1/account/api-keys',
      {
        config: viewer,
        schema: {
          operationId: 'listAccountApiKeys',
          tags: TAG,
          summary: "Your merchant's fiscalisation keys for /zm/api (masked, with last use)",
          response: { 200: data(Type.Array(P.FiscalisationKey)) },
        },
      },
      async (request) => ({ data: await listApiKeys(db, who(request).tenant) }),
    );

    app.post(
      '/api/v1/account/api-keys',
      {
        config: { ...admin, errors: ['subscription_blocked', 'quota_exhausted', 'device_not_found'] },
        schema: {
          operationId: 'createAccountApiKey',
          tags: TAG,
          summary: 'Mint a fiscalisation key for /zm/api (owner or admin; the plaintext is answered once)',
          description:
            "The body is optional. `branch` binds the key to that branch's device (registered first); without it the key is the merchant's and the till names the branch in X-SdcId.",
          body: CreateApiKeyBody,
          response: { 201: data(P.FiscalisationKeyCreated) },
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const { actor, tenant } = forMint(request);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ data: await mintApiKey(db, actor, tenant, request.body) });
      },
    );

    app.delete(
      '/api/v1/account/api-keys/:id',
      {
        config: admin,
        schema: {
          operationId: 'revokeAccountApiKey',
          tags: TAG,
          summary: 'Revoke a fiscalisation key (owner or admin; the next request with it is 401)',
          params: P.IdParam,
          response: { 200: P.Revoked },
        },
      },
      async (request) => {
        const { actor, tenant } = who(request);
        return revokeApiKey(db, actor, tenant, request.params.id);
      },
    );
  };
}
