import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../kernel/context.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import * as S from './schemas.ts';
import { merchantActor, requireTenant } from '../../kernel/http-access/auth.ts';
import { actorOfParty } from '../../kernel/audit/store.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { closeDay, closedDays } from './service.ts';
import {
  CLOSE_DESCRIPTION,
  EXPORT_DESCRIPTION,
  ExportResponse,
  REPORT_DESCRIPTION,
  ReportResponse,
  Z_LIST_DESCRIPTION,
  sendExport,
  sendReport,
} from './report-replies.ts';

const MERCHANT_TAG = ['Merchant: reports'];

/** The merchant's own reports: the daily report, closing a day, the Z reports, the documents' export. */
export function merchantReportRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/v1/reports/daily',
      {
        config: {
          auth: { surface: 'merchant', ability: 'invoices:read' },
          errors: ['not_acceptable', 'branch_required', 'branch_not_found'],
        },
        schema: {
          operationId: 'getDailyReport',
          tags: MERCHANT_TAG,
          summary: "A branch's daily report (X while open, Z once closed)",
          description: REPORT_DESCRIPTION,
          querystring: S.DailyReportQuery,
          response: ReportResponse,
        },
      },
      async (request, reply) => sendReport(ctx, request, reply, requireTenant(request).id, request.query),
    );

    app.post(
      '/api/v1/reports/daily/close',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:write' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'closeDay',
          tags: MERCHANT_TAG,
          summary: "Close a branch's day: take its Z report",
          description: CLOSE_DESCRIPTION,
          body: S.CloseDayBody,
          response: { 200: data(S.DailyReport), 201: data(S.DailyReport) },
        },
      },
      async (request, reply) => {
        const actor = merchantActor(request);
        const closedBy = `${actor.type}:${actor.id}`;
        const { report, created } = await closeDay(ctx, {
          tenantId: requireTenant(request).id,
          date: request.body.date,
          branch: request.body.branch,
          closedBy,
          actor: actorOfParty(actor),
        });
        return reply.code(created ? 201 : 200).send({ data: report });
      },
    );

    app.get(
      '/api/v1/reports/z',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'listZReports',
          tags: MERCHANT_TAG,
          summary: "A branch's closed days (Z reports), latest first",
          description: Z_LIST_DESCRIPTION,
          querystring: S.ZReportsQuery,
          response: { 200: Paginated(S.ClosedDay) },
        },
      },
      async (request) => closedDays(ctx, { tenantId: requireTenant(request).id, branch: request.query.branch, page: request.query.page }),
    );

    app.get(
      '/api/v1/exports/documents',
      {
        config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: {
          operationId: 'exportDocuments',
          tags: MERCHANT_TAG,
          summary: 'Export documents with their lines (CSV or XLSX)',
          description: EXPORT_DESCRIPTION,
          querystring: S.ExportQuery,
          response: ExportResponse,
        },
      },
      async (request, reply) => sendExport(ctx, reply, requireTenant(request).id, request.query),
    );
  };
}
