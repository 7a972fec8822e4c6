import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { PageQuery, Paginated } from '../../http/pagination.ts';
import { listAudit } from '../audit/store.ts';
import { createPartner, listPartners, setPartnerStatus, updateTenantAccount } from '../provisioning/partners.ts';
import * as S from '../provisioning/schemas.ts';

// The operator API, enabled only when ADMIN_TOKEN is set.

const TAG = ['Operator'];
const security = [{ adminToken: [] }];
const admin = { auth: { surface: 'admin' as const } };
const actor = { type: 'admin' as const };

const Partner = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  createdAt: Type.String({ format: 'date-time' }),
});

const AuditRecord = Type.Object({
  id: Type.Integer(),
  actorType: Type.String(),
  actorId: Type.Union([Type.String(), Type.Null()]),
  partnerId: Type.Union([Type.Integer(), Type.Null()]),
  tenantId: Type.Union([Type.Integer(), Type.Null()]),
  action: Type.String(),
  targetType: Type.Union([Type.String(), Type.Null()]),
  targetId: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String({ format: 'date-time' }),
});

export function adminRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/partners', {
      config: admin,
      schema: { tags: TAG, security, summary: 'Every partner', response: { 200: S.data(Type.Array(Partner)) } },
    }, async () => ({ data: await listPartners(ctx.db) }));

    app.post('/partners', {
      config: admin,
      schema: {
        tags: TAG,
        security,
        summary: 'Create a partner and its first secret key',
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          test: Type.Optional(Type.Boolean({ description: 'Mint an sk_test_ key instead of sk_live_' })),
          scopes: Type.Optional(Type.Array(S.ScopeName, { minItems: 1, uniqueItems: true })),
        }),
        response: { 201: S.data(Type.Object({ partner: Partner, key: Type.Object({ id: Type.Integer(), secret: Type.String(), scopes: Type.Array(Type.String()), mode: Type.String() }) })) },
      },
    }, async (request, reply) => {
      const created = await createPartner(ctx.db, ctx.secretBox, actor, request.body);
      return reply.code(201).header('cache-control', 'no-store').send({ data: created });
    });

    for (const [action, status] of [['suspend', 'suspended'], ['resume', 'active']] as const) {
      app.post(`/partners/:id/${action}`, {
        config: admin,
        schema: { tags: TAG, security, summary: `${action === 'suspend' ? 'Suspend' : 'Resume'} a partner`, params: S.IdParam, response: { 200: S.data(Partner) } },
      }, async (request) => ({ data: await setPartnerStatus(ctx.db, actor, request.params.id, status) }));
    }

    app.patch('/tenants/:id', {
      config: admin,
      schema: {
        tags: TAG,
        security,
        summary: 'Change a merchant\'s plan, subscription, status, quota, rate limit or offline policy',
        params: S.IdParam,
        body: Type.Object({
          plan: Type.Optional(Type.Union([S.PlanName, Type.Null()])),
          subscription: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('blocked')])),
          status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])),
          monthlyQuota: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()])),
          rateLimitPerMinute: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()])),
          offlinePolicy: Type.Optional(S.OfflinePolicyName),
        }),
        response: { 200: S.data(S.Tenant) },
      },
    }, async (request) => ({ data: await updateTenantAccount(ctx.db, actor, request.params.id, request.body) }));

    app.get('/audit', {
      config: admin,
      schema: {
        tags: TAG,
        security,
        summary: 'The audit log, newest first',
        querystring: Type.Object({
          ...PageQuery.properties,
          partner: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
          tenant: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
          action: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 200: Paginated(AuditRecord) },
      },
    }, async (request) => {
      const { page, partner, tenant, action } = request.query;
      return listAudit(ctx.db, { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}), ...(action ? { action } : {}) }, page);
    });
  };
}
