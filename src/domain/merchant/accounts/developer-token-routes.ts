import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import * as P from '../../kernel/tenants/schemas.ts';
import { admin, viewer } from './route-parts.ts';
import { listTokens, mintToken, revokeToken } from '../../kernel/tenants/credentials-service.ts';
import { CreateTokenBody, TAG, forMint, who } from './developer-route-parts.ts';

/** The merchant's tenant tokens: list, mint, revoke. */
export function developerTokenRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.get(
      '/api/v1/account/tokens',
      {
        config: viewer,
        schema: {
          operationId: 'listAccountTokens',
          tags: TAG,
          summary: "Your merchant's live tenant tokens (masked, with last use)",
          description: '`lastUsedAt` is kept current by every request made with the token (written at most once a minute).',
          response: { 200: data(Type.Array(P.TenantToken)) },
        },
      },
      async (request) => ({ data: await listTokens(db, who(request).tenant) }),
    );

    app.post(
      '/api/v1/account/tokens',
      {
        config: { ...admin, errors: ['subscription_blocked', 'quota_exhausted'] },
        schema: {
          operationId: 'createAccountToken',
          tags: TAG,
          summary: 'Mint a tenant token (owner or admin; the plaintext is answered once)',
          description:
            'The token authenticates the merchant API (`Authorization: Bearer tt_…`). Store `token` now: it is never shown again.',
          body: CreateTokenBody,
          response: { 201: data(P.TenantTokenCreated) },
        },
      },
      async (request, reply) => {
        const { actor, tenant } = forMint(request);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({ data: await mintToken(db, actor, tenant, request.body.name, request.body.abilities, request.body.training) });
      },
    );

    app.delete(
      '/api/v1/account/tokens/:id',
      {
        config: admin,
        schema: {
          operationId: 'revokeAccountToken',
          tags: TAG,
          summary: 'Revoke a tenant token (owner or admin; the next request with it is 401)',
          params: P.IdParam,
          response: { 200: P.Revoked },
        },
      },
      async (request) => {
        const { actor, tenant } = who(request);
        return revokeToken(db, actor, tenant, request.params.id);
      },
    );
  };
}
