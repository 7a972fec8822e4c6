import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { requirePartner } from '../../kernel/http-access/auth.ts';
import { PageQuery, Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { checkTenantInput, createTenant, getTenant, listTenants, updateTenantSettings } from '../../kernel/tenants/service.ts';
import { bodyRulesWithSchema } from '../../kernel/http-access/body-rules.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { Tenant, TenantParam } from '../../kernel/tenants/schemas.ts';
import { TAG, actorOf } from './route-parts.ts';

/** A partner's merchants: list, create, read, change settings. */
export function tenantRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.get(
      '/api/v1/tenants',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read' } },
        schema: {
          operationId: 'listTenants',
          tags: TAG,
          summary: 'List your merchants',
          querystring: PageQuery,
          response: { 200: Paginated(Tenant) },
        },
      },
      async (request) => listTenants(db, requirePartner(request).partner.id, request.query.page),
    );

    app.post(
      '/api/v1/tenants',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:write' } },
        schema: {
          operationId: 'createTenant',
          tags: TAG,
          summary: 'Create a merchant',
          description:
            '`authority` (`zra` by default, or `kra`) is fixed at creation; `tpin` is in its form (ZRA: a 10-digit TPIN; KRA: an 11-character PIN such as P051234567X).',
          body: S.CreateTenantBody,
          response: { 201: data(Tenant) },
        },
        preValidation: bodyRulesWithSchema(S.CreateTenantBody, (errors, body) => void checkTenantInput(errors, body)),
      },
      async (request, reply) => {
        const tenant = await createTenant(db, actorOf(request), requirePartner(request).partner.id, request.body);
        return reply.code(201).send({ data: tenant });
      },
    );

    app.get(
      '/api/v1/tenants/:tenant',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read' } },
        schema: {
          operationId: 'getTenant',
          tags: TAG,
          summary: 'One merchant with its devices',
          params: TenantParam,
          response: { 200: data(Tenant) },
        },
      },
      async (request) => ({ data: await getTenant(db, requirePartner(request).partner.id, request.params.tenant) }),
    );

    app.patch(
      '/api/v1/tenants/:tenant',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:write' } },
        schema: {
          operationId: 'updateTenant',
          tags: TAG,
          summary: "Change a merchant's settings",
          description:
            "`offlinePolicy` (`queue` or `refuse`), what a sale gets while its branch's VSDC is unreachable (docs/offline.md); `stockTracking`, whether the gateway keeps the merchant's stock and sends the authority's stock chain (docs/stock.md); `timezone`, the IANA time zone of the merchant's days in daily reports and exports (docs/reports.md).",
          params: TenantParam,
          body: S.UpdateTenantBody,
          response: { 200: data(Tenant) },
        },
        preValidation: bodyRulesWithSchema(S.UpdateTenantBody, (errors, body) => {
          if ('authority' in body)
            errors.add(
              'authority',
              "The authority field cannot change after the merchant is created (its documents, numbers and devices are its authority's): create another merchant for another authority.",
            );
        }),
      },
      async (request) => ({
        data: await updateTenantSettings(db, actorOf(request), requirePartner(request).partner.id, request.params.tenant, request.body),
      }),
    );
  };
}
