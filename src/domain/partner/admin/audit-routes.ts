import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { PageQuery, Paginated } from '../../../platform/http/pagination.ts';
import { listAudit } from '../../kernel/audit/store.ts';
import { Nullable, literals, Timestamp } from '../../../platform/http/schema-helpers.ts';
import { TAG, admin } from './route-parts.ts';

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

/** The audit log, with the names of who acted and on what. */
export function adminAuditRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

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
