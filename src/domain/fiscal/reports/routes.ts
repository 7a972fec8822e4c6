import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { merchantActor, requirePartner, requireTenant } from '../../kernel/access/auth.ts';
import { actorOfParty } from '../../kernel/audit/store.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { Paginated } from '../../../platform/http/pagination.ts';
import { CONTENT_TYPES, documentsExport, type ExportFormat } from './export.ts';
import { reportCsv } from './present.ts';
import * as S from './schemas.ts';
import { closeDay, closedDays, dailyReport, exportRange, reportBranch, reportTenant } from './service.ts';
import { requireActedTenant } from '../../kernel/access/acts-on.ts';

const MERCHANT_TAG = ['Merchant: reports'];
const PARTNER_TAG = ['Partner: reports'];
const ADMIN_TAG = ['Operator'];
const TenantParam = Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

const REPORT_FORMATS = ['application/json', 'text/csv', 'application/pdf'] as const;
type ReportFormat = (typeof REPORT_FORMATS)[number];

const REPORT_DESCRIPTION =
  "A branch's daily report: while the day is open an X report computed now; once closed (`POST …/reports/daily/close`) the stored Z report, which never changes. " +
  "Days are the merchant's (its `timezone`, Africa/Lusaka by default). Totals per VAT category, payment method and type cover uploaded documents (credit notes subtract in `net`); " +
  'pending and failed documents are counted. JSON by default, `Accept: text/csv` or `application/pdf` (one page) for the others; any other Accept is a 406 `not_acceptable`. See docs/reports.md.';
const CLOSE_DESCRIPTION =
  'Takes the Z report of a branch\'s day (today or earlier): the figures as of now, stored and never changed; later documents dated that day do not change it. ' +
  'Pending documents do not stop it (the Z says how many were pending). 201 with the Z; closing a closed day again answers 200 with the same stored Z.';
const Z_LIST_DESCRIPTION =
  "A branch's closed days, the latest first, 20 a page: each with when and by whom it was closed, its document counts and its net. " +
  'The full Z report of one is `GET …/reports/daily?date=…&branch=…`. `branch` defaults as for the daily report.';
const EXPORT_DESCRIPTION =
  'Every document of a date range (days in the merchant\'s timezone, at most 92) with its lines, one row per line, as CSV (default) or XLSX, streamed. ' +
  'Amounts are exact decimals (CSV) or numbers (XLSX). Every branch unless `branch` names one. See docs/reports.md for the columns.';

const ReportResponse = {
  200: {
    description: 'The report',
    content: {
      'application/json': { schema: data(S.DailyReport) },
      'text/csv': { schema: Type.String({ description: 'Columns section, type, key, value, count, taxable, vat, total, discount: one row per figure set (docs/reports.md)' }) },
      'application/pdf': { schema: Type.String({ format: 'binary', description: 'One A4 page' }) },
    },
  },
};
const ExportResponse = {
  200: {
    description: 'The documents, streamed',
    content: {
      'text/csv': { schema: Type.String({ description: 'UTF-8 CSV with a header row' }) },
      [CONTENT_TYPES.xlsx]: { schema: Type.String({ format: 'binary', description: 'One worksheet, "Documents"' }) },
    },
  },
};

/** The format the caller prefers among those offered (Accept q-values); JSON when it says nothing. */
export function negotiateReport(accept: string | undefined): ReportFormat | undefined {
  if (accept === undefined || accept.trim() === '') return 'application/json';
  let best: { format: ReportFormat; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) || 0 : 1;
    if (q <= 0) continue;
    const matches = REPORT_FORMATS.filter((f) => range === f || range === '*/*' || range === `${f.split('/')[0]}/*`);
    // A wildcard picks the first offered format that it covers (JSON for */*).
    const format = matches[0];
    if (format && (!best || q > best.q)) best = { format, q };
  }
  return best?.format;
}

async function sendReport(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, tenantId: number, query: { date?: string; branch?: string }) {
  const format = negotiateReport(request.headers.accept);
  if (!format) {
    throw new ApiError('not_acceptable', `Reports are answered as application/json (the default), text/csv or application/pdf; Accept "${request.headers.accept ?? ''}" names none of them.`);
  }
  const report = await dailyReport(ctx, { tenantId, date: query.date, branch: query.branch });
  reply.header('vary', 'Accept').header('cache-control', 'private, no-cache');
  const name = `${report.type}-report-${report.merchant.tpin}-${report.branch}-${report.date}`;
  if (format === 'text/csv') return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`).send(reportCsv(report));
  if (format === 'application/pdf') {
    // pdfkit and its fonts hold ~25 MB: loaded on the first PDF, not by every process at start.
    const { renderReportPdf } = await import('./pdf.ts');
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${name}.pdf"`).send(await renderReportPdf(report, (await reportTenant(ctx.db, tenantId)).profile));
  }
  return reply.type('application/json; charset=utf-8').send({ data: report });
}

async function sendExport(ctx: AppContext, reply: FastifyReply, tenantId: number, query: { from: string; to: string; format?: ExportFormat; branch?: string }) {
  const tenant = await reportTenant(ctx.db, tenantId);
  const { from, to } = exportRange(tenant, query.from, query.to);
  const deviceId = query.branch === undefined ? undefined : (await reportBranch(ctx.db, tenant.id, query.branch)).id;
  const format = query.format ?? 'csv';
  const stream = documentsExport(ctx.db, { tenantId: tenant.id, ...(deviceId === undefined ? {} : { deviceId }), from, to }, format, tenant);
  const name = `documents-${tenant.tpin}${query.branch ? `-${query.branch}` : ''}-${query.from}-${query.to}.${format}`;
  return reply.type(CONTENT_TYPES[format]).header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'private, no-store').send(stream);
}

export function reportRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/api/v1/reports/daily', {
      config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['not_acceptable', 'branch_required', 'branch_not_found'] },
      schema: { operationId: 'getDailyReport', tags: MERCHANT_TAG, summary: "A branch's daily report (X while open, Z once closed)", description: REPORT_DESCRIPTION, querystring: S.DailyReportQuery, response: ReportResponse },
    }, async (request, reply) => sendReport(ctx, request, reply, requireTenant(request).id, request.query));

    app.post('/api/v1/reports/daily/close', {
      config: { auth: { surface: 'merchant', ability: 'invoices:write' }, errors: ['branch_required', 'branch_not_found'] },
      schema: { operationId: 'closeDay', tags: MERCHANT_TAG, summary: "Close a branch's day: take its Z report", description: CLOSE_DESCRIPTION, body: S.CloseDayBody, response: { 200: data(S.DailyReport), 201: data(S.DailyReport) } },
    }, async (request, reply) => {
      const actor = merchantActor(request);
      const closedBy = `${actor.type}:${actor.id}`;
      const { report, created } = await closeDay(ctx, { tenantId: requireTenant(request).id, date: request.body.date, branch: request.body.branch, closedBy, actor: actorOfParty(actor) });
      return reply.code(created ? 201 : 200).send({ data: report });
    });

    app.get('/api/v1/reports/z', {
      config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['branch_required', 'branch_not_found'] },
      schema: { operationId: 'listZReports', tags: MERCHANT_TAG, summary: "A branch's closed days (Z reports), latest first", description: Z_LIST_DESCRIPTION, querystring: S.ZReportsQuery, response: { 200: Paginated(S.ClosedDay) } },
    }, async (request) => closedDays(ctx, { tenantId: requireTenant(request).id, branch: request.query.branch, page: request.query.page }));

    app.get('/api/v1/exports/documents', {
      config: { auth: { surface: 'merchant', ability: 'invoices:read' }, errors: ['branch_required', 'branch_not_found'] },
      schema: { operationId: 'exportDocuments', tags: MERCHANT_TAG, summary: 'Export documents with their lines (CSV or XLSX)', description: EXPORT_DESCRIPTION, querystring: S.ExportQuery, response: ExportResponse },
    }, async (request, reply) => sendExport(ctx, reply, requireTenant(request).id, request.query));

    app.get('/api/v1/tenants/:tenant/reports/daily', {
      config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['not_acceptable', 'branch_required', 'branch_not_found'] },
      schema: { operationId: 'getTenantDailyReport', tags: PARTNER_TAG, summary: "A merchant's daily report for one branch", description: `${REPORT_DESCRIPTION} Another partner's merchant is a 404.`, params: TenantParam, querystring: S.DailyReportQuery, response: ReportResponse },
    }, async (request, reply) => {
      const tenant = requireActedTenant(request);
      return sendReport(ctx, request, reply, tenant.id, request.query);
    });

    app.post('/api/v1/tenants/:tenant/reports/daily/close', {
      config: { auth: { surface: 'partner', scope: 'tenants:write', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
      schema: { operationId: 'closeTenantDay', tags: PARTNER_TAG, summary: "Close a merchant's branch's day: take its Z report", description: `${CLOSE_DESCRIPTION} Another partner's merchant is a 404.`, params: TenantParam, body: S.CloseDayBody, response: { 200: data(S.DailyReport), 201: data(S.DailyReport) } },
    }, async (request, reply) => {
      const key = requirePartner(request);
      const tenant = requireActedTenant(request);
      const { report, created } = await closeDay(ctx, { tenantId: tenant.id, date: request.body.date, branch: request.body.branch, closedBy: `partner_key:${key.keyId}`, actor: { type: 'partner_key', keyId: key.keyId, partnerId: key.partner.id } });
      return reply.code(created ? 201 : 200).send({ data: report });
    });

    app.get('/api/v1/tenants/:tenant/reports/z', {
      config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
      schema: { operationId: 'listTenantZReports', tags: PARTNER_TAG, summary: "A merchant's branch's closed days (Z reports), latest first", description: `${Z_LIST_DESCRIPTION} Another partner's merchant is a 404.`, params: TenantParam, querystring: S.ZReportsQuery, response: { 200: Paginated(S.ClosedDay) } },
    }, async (request) => closedDays(ctx, { tenantId: requireActedTenant(request).id, branch: request.query.branch, page: request.query.page }));

    app.get('/api/v1/tenants/:tenant/exports/documents', {
      config: { auth: { surface: 'partner', scope: 'tenants:read', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
      schema: { operationId: 'exportTenantDocuments', tags: PARTNER_TAG, summary: "Export a merchant's documents with their lines (CSV or XLSX)", description: `${EXPORT_DESCRIPTION} Another partner's merchant is a 404.`, params: TenantParam, querystring: S.ExportQuery, response: ExportResponse },
    }, async (request, reply) => {
      const tenant = requireActedTenant(request);
      return sendExport(ctx, reply, tenant.id, request.query);
    });

    if (ctx.config.adminToken) {
      app.get('/admin/v1/tenants/:tenant/reports/daily', {
        config: { auth: { surface: 'admin', tenant: 'read' }, errors: ['not_acceptable', 'branch_required', 'branch_not_found'] },
        schema: { operationId: 'adminGetDailyReport', tags: ADMIN_TAG, summary: "Any merchant's daily report for one branch", description: REPORT_DESCRIPTION, params: TenantParam, querystring: S.DailyReportQuery, response: ReportResponse },
      }, async (request, reply) => sendReport(ctx, request, reply, requireActedTenant(request).id, request.query));

      app.get('/admin/v1/tenants/:tenant/reports/z', {
        config: { auth: { surface: 'admin', tenant: 'read' }, errors: ['branch_required', 'branch_not_found'] },
        schema: { operationId: 'adminListZReports', tags: ADMIN_TAG, summary: "Any merchant's branch's closed days (Z reports), latest first", description: Z_LIST_DESCRIPTION, params: TenantParam, querystring: S.ZReportsQuery, response: { 200: Paginated(S.ClosedDay) } },
      }, async (request) => closedDays(ctx, { tenantId: requireActedTenant(request).id, branch: request.query.branch, page: request.query.page }));

      app.get('/admin/v1/tenants/:tenant/exports/documents', {
        config: { auth: { surface: 'admin' }, errors: ['branch_required', 'branch_not_found'] },
        schema: { operationId: 'adminExportDocuments', tags: ADMIN_TAG, summary: "Export any merchant's documents with their lines (CSV or XLSX)", description: EXPORT_DESCRIPTION, params: TenantParam, querystring: S.ExportQuery, response: ExportResponse },
      }, async (request, reply) => sendExport(ctx, reply, request.params.tenant, request.query));
    }
  };
}
