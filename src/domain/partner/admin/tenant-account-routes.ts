import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { updateTenantAccount } from '../provisioning/partners-service.ts';
import { Nullable, data, literals, withExample } from '../../../platform/http/schema-helpers.ts';
import { IdParam, PlanName, Tenant, OfflinePolicyName } from '../../kernel/tenants/schemas.ts';
import { TAG, actor, admin } from './route-parts.ts';

const UpdateTenantAccountBody = withExample(
  Type.Object({
    plan: Type.Optional(Nullable(PlanName)),
    subscription: Type.Optional(literals(['active', 'blocked'])),
    status: Type.Optional(literals(['active', 'suspended'])),
    monthlyQuota: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2147483647 }))),
    rateLimitPerMinute: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
    offlinePolicy: Type.Optional(OfflinePolicyName),
  }),
  { plan: 'growth', monthlyQuota: 10000 },
);

/** A merchant's account: plan, subscription, status, quota, rate limit, offline policy. */
export function adminTenantRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.patch(
      '/tenants/:id',
      {
        config: admin,
        schema: {
          operationId: 'adminUpdateTenant',
          tags: TAG,
          summary: "Change a merchant's plan, subscription, status, quota, rate limit or offline policy",
          params: IdParam,
          body: UpdateTenantAccountBody,
          response: { 200: data(Tenant) },
        },
      },
      async (request) => ({ data: await updateTenantAccount(ctx.db, actor, request.params.id, request.body) }),
    );
  };
}
