import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { requirePartner } from '../../kernel/http-access/auth.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { closeDay, closedDays } from './service.ts';
import {
  CLOSE_DESCRIPTION,
  EXPORT_DESCRIPTION,
  ExportResponse,
  REPORT_DESCRIPTION,
  ReportResponse,
  TenantParam,
  Z_LIST_DESCRIPTION,
  sendExport,
  sendReport,
} from './report-replies.ts';

const PARTNER_TAG = ['Partner: reports'];

/** A partner's merchants' reports (another partner's merchant is a 404). */
export function partnerReportRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/tenants/:tenant/reports/daily',
      {
        config: {
          auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' },
          errors: ['not_acceptable', 'branch_required', 'branch_not_found'],
        },
        schema: {
          operationId: 'getTenantDailyReport',
          tags: PARTNER_TAG,
          summary: "A merchant's daily report for one branch",
          description: `${REPORT_DESCRIPTION} Another partner's merchant is a 404.`,
          params: TenantParam,
          querystring: S.DailyReportQuery,
          response: ReportResponse,
        },
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        return sendReport(ctx, request, reply, tenant.id, request.query);
      },
    );

    app.post(
      '/api/v1/tenants/:tenant/reports/daily/close',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:write', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'closeTenantDay',
          tags: PARTNER_TAG,
          summary: "Close a merchant's branch's day: take its Z report",
          description: `${CLOSE_DESCRIPTION} Another partner's merchant is a 404.`,
          params: TenantParam,
          body: S.CloseDayBody,
          response: { 200: data(S.DailyReport), 201: data(S.DailyReport) },
        },
      },
      async (request, reply) => {
        const key = requirePartner(request);
        const tenant = requireActedTenant(request);
        const { report, created } = await closeDay(ctx, {
          tenantId: tenant.id,
          date: request.body.date,
          branch: request.body.branch,
          closedBy: `partner_key:${key.keyId}`,
          actor: { type: 'partner_key', keyId: key.keyId, partnerId: key.partner.id },
        });
        return reply.code(created ? 201 : 200).send({ data: report });
      },
    );

    app.get(
      '/api/v1/tenants/:tenant/reports/z',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'listTenantZReports',
          tags: PARTNER_TAG,
          summary: "A merchant's branch's closed days (Z reports), latest first",
          description: `${Z_LIST_DESCRIPTION} Another partner's merchant is a 404.`,
          params: TenantParam,
          querystring: S.ZReportsQuery,
          response: { 200: Paginated(S.ClosedDay) },
        },
      },
      async (request) =>
        closedDays(ctx, { tenantId: requireActedTenant(request).id, branch: request.query.branch, page: request.query.page }),
    );

    app.get(
      '/api/v1/tenants/:tenant/exports/documents',
      {
        config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'exportTenantDocuments',
          tags: PARTNER_TAG,
          summary: "Export a merchant's documents with their lines (CSV or XLSX)",
          description: `${EXPORT_DESCRIPTION} Another partner's merchant is a 404.`,
          params: TenantParam,
          querystring: S.ExportQuery,
          response: ExportResponse,
        },
      },
      async (request, reply) => {
        const tenant = requireActedTenant(request);
        return sendExport(ctx, reply, tenant.id, request.query);
      },
    );
  };
}
