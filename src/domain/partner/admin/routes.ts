import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { PageQuery, Paginated } from '../../../platform/http/pagination.ts';
import { listAudit } from '../../kernel/audit/store.ts';
import { createPartner, listPartners, setPartnerStatus, updateTenantAccount } from '../provisioning/partners-service.ts';
import * as S from '../provisioning/schemas.ts';
import { Nullable, data, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { IdParam, PlanName, Tenant, OfflinePolicyName } from '../../kernel/tenants/schemas.ts';

// The operator API, enabled only when ADMIN_TOKEN is set.

const TAG = ['Operator'];
const admin = { auth: { surface: 'admin' as const } };
const actor = { type: 'admin' as const };

const Partner = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: literals(['active', 'suspended']),
  createdAt: Timestamp(),
});

const AuditRecord = Type.Object({
  id: Type.Integer(),
  actorType: literals(['partner_key', 'till_login', 'tenant_token', 'user', 'anonymous', 'admin', 'cli'], {
    description:
      "Who acted: a partner key, a till logging in, a merchant's tenant token (resolving a failed document), a merchant user (its session), someone not signed in (sign-up, a failed sign-in, a one-time link), the operator (ADMIN_TOKEN) or the command line",
  }),
  actorId: Nullable(Type.String()),
  actorName: Nullable(
    Type.String({ description: "The partner key's name or the till login's username; null for the operator and the CLI" }),
  ),
  partnerId: Nullable(Type.Integer()),
  partnerName: Nullable(Type.String()),
  tenantId: Nullable(Type.Integer()),
  tenantName: Nullable(Type.String({ description: "The merchant's name" })),
  action: Type.String(),
  targetType: Nullable(Type.String()),
  targetId: Nullable(Type.String()),
  targetName: Nullable(
    Type.String({
      description:
        "The target as it is called now: a merchant's, partner's, key's or token's name, a device's branch and serial, a masked fiscalisation key, a till login's username, a webhook endpoint's URL, a delivery's event type and URL; null once the target is gone",
    }),
  ),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp(),
});

const CreatePartnerBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    test: Type.Optional(Type.Boolean({ description: 'Mint an sk_test_ key instead of sk_live_' })),
    scopes: Type.Optional(Type.Array(S.ScopeName, { minItems: 1, uniqueItems: true })),
  }),
  { name: 'Acme POS Ltd', test: true },
);

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

export function adminRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/partners',
      {
        config: admin,
        schema: { operationId: 'adminListPartners', tags: TAG, summary: 'Every partner', response: { 200: data(Type.Array(Partner)) } },
      },
      async () => ({ data: await listPartners(ctx.db) }),
    );

    app.post(
      '/partners',
      {
        config: admin,
        schema: {
          operationId: 'adminCreatePartner',
          tags: TAG,
          summary: 'Create a partner and its first secret key',
          body: CreatePartnerBody,
          response: {
            201: data(
              Type.Object({
                partner: Partner,
                key: Type.Object({ id: Type.Integer(), secret: Type.String(), scopes: Type.Array(Type.String()), mode: Type.String() }),
              }),
            ),
          },
        },
      },
      async (request, reply) => {
        const created = await createPartner(ctx.db, ctx.secretBox, actor, request.body);
        return reply.code(201).header('cache-control', 'no-store').send({ data: created });
      },
    );

    for (const [action, status] of [
      ['suspend', 'suspended'],
      ['resume', 'active'],
    ] as const) {
      app.post(
        `/partners/:id/${action}`,
        {
          config: admin,
          schema: {
            operationId: `admin${action === 'suspend' ? 'Suspend' : 'Resume'}Partner`,
            tags: TAG,
            summary: `${action === 'suspend' ? 'Suspend' : 'Resume'} a partner`,
            params: IdParam,
            response: { 200: data(Partner) },
          },
        },
        async (request) => ({ data: await setPartnerStatus(ctx.db, actor, request.params.id, status) }),
      );
    }

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

    app.get(
      '/audit',
      {
        config: admin,
        schema: {
          operationId: 'adminListAudit',
          tags: TAG,
          summary: 'The audit log, newest first, with the names of who acted and on what',
          querystring: Type.Object({
            ...PageQuery.properties,
            partner: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
            tenant: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
            action: Type.Optional(Type.String({ maxLength: 100 })),
          }),
          response: { 200: Paginated(AuditRecord) },
        },
      },
      async (request) => {
        const { page, partner, tenant, action } = request.query;
        return listAudit(
          ctx.db,
          { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}), ...(action ? { action } : {}) },
          page,
        );
      },
    );
  };
}
