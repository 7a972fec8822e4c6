// The developer screen's API (docs/merchants.md): a signed-in merchant user lists, mints and
// revokes its merchant's tenant tokens and fiscalisation keys, as the merchant's partner does
// under /api/v1/tenants/{tenant}. Viewers read; owners and admins mint and revoke. The user is
// the actor in the audit log.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { assertTenantBillable } from '../../../credentials/standing.ts';
import type { SessionUser } from '../../../credentials/user-session.ts';
import { requireUser } from '../../kernel/http-access/auth.ts';
import { data, withExample } from '../../../platform/http/schema-helpers.ts';
import type { Actor } from '../../kernel/audit/store.ts';
import { listApiKeys, listTokens, mintApiKey, mintToken, revokeApiKey, revokeToken } from '../../kernel/tenants/credentials-service.ts';
import * as P from '../../kernel/tenants/schemas.ts';

const TAG = ['Merchant: developer screen'];
const viewer = { auth: { surface: 'account', role: 'viewer' } } as const;
const admin = { auth: { surface: 'account', role: 'admin' } } as const;

// The partner's bodies, with examples that succeed for a merchant with no branch registered yet.
const CreateTokenBody = withExample(Type.Object(P.CreateTokenBody.properties), {
  name: 'Website shop',
  abilities: ['invoices:read', 'invoices:write'],
});
const CreateApiKeyBody = withExample(Type.Object(P.CreateApiKeyBody.properties), { dialect: 'bare' });

function who(request: FastifyRequest): { user: SessionUser; actor: Actor; tenant: { id: number } } {
  const { user } = requireUser(request);
  return { user, actor: { type: 'user', userId: user.userId }, tenant: { id: user.tenant.id } };
}

/** Minting is refused while the merchant is not billable (402), as the partner's minting is. */
function forMint(request: FastifyRequest) {
  const caller = who(request);
  assertTenantBillable(caller.user.tenant);
  return caller;
}

export function developerRoutes(ctx: AppContext): FastifyPluginAsync {
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
