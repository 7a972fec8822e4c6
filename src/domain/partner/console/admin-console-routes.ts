import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { backlogPage, documentsPage } from './service.ts';
import { filingsPerMinute } from './filings-store.ts';
import * as S from './schemas.ts';
import { listAdminTenants } from './tenants-store.ts';
import { Nullable, data } from '../../../platform/http/schema-helpers.ts';
import { Tenant } from '../../kernel/tenants/schemas.ts';
import { BACKLOG_DESCRIPTION, DOCUMENTS_DESCRIPTION, FILINGS_DESCRIPTION } from './descriptions.ts';

const ADMIN_TAG = ['Operator'];
const admin = { auth: { surface: 'admin' } } as const;

const AdminTenant = Type.Object({
  ...Tenant.properties,
  partnerId: Nullable(Type.Integer()),
  partnerName: Nullable(Type.String()),
  origin: Type.Union([Type.Literal('partner'), Type.Literal('self')], {
    description: '`partner`: provisioned by a partner; `self`: signed up by the merchant (no partner)',
  }),
  documentsThisMonth: Type.Integer(),
  pending: Type.Integer(),
  failed: Type.Integer(),
});

/** The operator's console over every partner (only with ADMIN_TOKEN set). */
export function adminConsoleRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    if (!ctx.config.adminToken) return;
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const { db } = ctx;

    app.get(
      '/admin/v1/tenants',
      {
        config: admin,
        schema: {
          operationId: 'adminListTenants',
          tags: ADMIN_TAG,
          summary: 'Every merchant with its plan, account state, usage and backlog',
          querystring: S.AdminTenantsQuery,
          response: { 200: Paginated(AdminTenant) },
        },
      },
      async (request) => {
        const { page, partner, status, subscription } = request.query;
        return listAdminTenants(
          db,
          { page, ...(partner ? { partnerId: partner } : {}), ...(status ? { status } : {}), ...(subscription ? { subscription } : {}) },
          ctx.clock.now(),
        );
      },
    );

    app.get(
      '/admin/v1/backlog',
      {
        config: admin,
        schema: {
          operationId: 'adminListBacklog',
          tags: ADMIN_TAG,
          summary: 'Backlog per branch, every partner',
          description: BACKLOG_DESCRIPTION,
          querystring: Type.Object({ ...S.BacklogQuery.properties, ...S.AdminScopeQuery.properties }),
          response: { 200: Paginated(S.BranchBacklog) },
        },
      },
      async (request) => {
        const { page, tenant, pendingOnly, partner } = request.query;
        return backlogPage(
          db,
          { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}) },
          { page, pendingOnly: pendingOnly ?? false },
          ctx.clock.now(),
        );
      },
    );

    app.get(
      '/admin/v1/documents',
      {
        config: admin,
        schema: {
          operationId: 'adminListDocuments',
          tags: ADMIN_TAG,
          summary: 'Documents by status (default: failed, not resolved), every partner',
          description: DOCUMENTS_DESCRIPTION,
          querystring: Type.Object({ ...S.DocumentsQuery.properties, ...S.AdminScopeQuery.properties }),
          response: { 200: Paginated(S.DocumentSummary) },
        },
      },
      async (request) => {
        const { page, status, resolved, tenant, branch, partner } = request.query;
        return documentsPage(
          db,
          { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}) },
          { status, resolved, page, branch },
        );
      },
    );

    app.get(
      '/admin/v1/filings',
      {
        config: admin,
        schema: {
          operationId: 'adminGetFilings',
          tags: ADMIN_TAG,
          summary: 'Documents per minute, every partner',
          description: FILINGS_DESCRIPTION,
          querystring: Type.Object({ ...S.FilingsQuery.properties, ...S.AdminScopeQuery.properties }),
          response: { 200: data(S.Filings) },
        },
      },
      async (request) => {
        const { window, tenant, partner } = request.query;
        const scope = { ...(partner ? { partnerId: partner } : {}), ...(tenant ? { tenantId: tenant } : {}) };
        return { data: await filingsPerMinute(db, scope, (window ?? '24h') as S.FilingWindow, ctx.clock.now()) };
      },
    );
  };
}
