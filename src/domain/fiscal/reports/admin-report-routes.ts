import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { requireActedTenant } from '../../kernel/http-access/acts-on.ts';
import { closedDays } from './service.ts';
import {
  EXPORT_DESCRIPTION,
  ExportResponse,
  REPORT_DESCRIPTION,
  ReportResponse,
  TenantParam,
  Z_LIST_DESCRIPTION,
  sendExport,
  sendReport,
} from './report-replies.ts';

const ADMIN_TAG = ['Operator'];

/** Any merchant's reports, for the operator (only with ADMIN_TOKEN set). */
export function adminReportRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    if (!ctx.config.adminToken) return;
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/admin/v1/tenants/:tenant/reports/daily',
      {
        config: { auth: { surface: 'admin', tenant: 'read' }, errors: ['not_acceptable', 'branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'adminGetDailyReport',
          tags: ADMIN_TAG,
          summary: "Any merchant's daily report for one branch",
          description: REPORT_DESCRIPTION,
          params: TenantParam,
          querystring: S.DailyReportQuery,
          response: ReportResponse,
        },
      },
      async (request, reply) => sendReport(ctx, request, reply, requireActedTenant(request).id, request.query),
    );

    app.get(
      '/admin/v1/tenants/:tenant/reports/z',
      {
        config: { auth: { surface: 'admin', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'adminListZReports',
          tags: ADMIN_TAG,
          summary: "Any merchant's branch's closed days (Z reports), latest first",
          description: Z_LIST_DESCRIPTION,
          params: TenantParam,
          querystring: S.ZReportsQuery,
          response: { 200: Paginated(S.ClosedDay) },
        },
      },
      async (request) =>
        closedDays(ctx, { tenantId: requireActedTenant(request).id, branch: request.query.branch, page: request.query.page }),
    );

    app.get(
      '/admin/v1/tenants/:tenant/exports/documents',
      {
        config: { auth: { surface: 'admin' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'adminExportDocuments',
          tags: ADMIN_TAG,
          summary: "Export any merchant's documents with their lines (CSV or XLSX)",
          description: EXPORT_DESCRIPTION,
          params: TenantParam,
          querystring: S.ExportQuery,
          response: ExportResponse,
        },
      },
      async (request, reply) => sendExport(ctx, reply, request.params.tenant, request.query),
    );
  };
}
