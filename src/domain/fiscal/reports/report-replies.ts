// What the report routes of every surface share: the descriptions and responses of their
// operations, and the answers (the daily report in the format asked for, the documents' export).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../kernel/context.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { data } from '../../../platform/http/schema-helpers.ts';
import { CONTENT_TYPES, documentsExport, type ExportFormat } from './export.ts';
import { reportCsv } from './present.ts';
import * as S from './schemas.ts';
import { dailyReport, exportRange, reportBranch, reportTenant } from './service.ts';

export const TenantParam = Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

const REPORT_FORMATS = ['application/json', 'text/csv', 'application/pdf'] as const;
type ReportFormat = (typeof REPORT_FORMATS)[number];

export const REPORT_DESCRIPTION =
  "A branch's daily report: while the day is open an X report computed now; once closed (`POST …/reports/daily/close`) the stored Z report, which never changes. " +
  "Days are the merchant's (its `timezone`, Africa/Lusaka by default). Totals per VAT category, payment method and type cover uploaded documents (credit notes subtract in `net`); " +
  'pending and failed documents are counted. JSON by default, `Accept: text/csv` or `application/pdf` (one page) for the others; any other Accept is a 406 `not_acceptable`. See docs/reports.md.';
export const CLOSE_DESCRIPTION =
  "Takes the Z report of a branch's day (today or earlier): the figures as of now, stored and never changed; later documents dated that day do not change it. " +
  'Pending documents do not stop it (the Z says how many were pending). 201 with the Z; closing a closed day again answers 200 with the same stored Z.';
export const Z_LIST_DESCRIPTION =
  "A branch's closed days, the latest first, 20 a page: each with when and by whom it was closed, its document counts and its net. " +
  'The full Z report of one is `GET …/reports/daily?date=…&branch=…`. `branch` defaults as for the daily report.';
export const EXPORT_DESCRIPTION =
  "Every document of a date range (days in the merchant's timezone, at most 92) with its lines, one row per line, as CSV (default) or XLSX, streamed. " +
  'Amounts are exact decimals (CSV) or numbers (XLSX). Every branch unless `branch` names one. See docs/reports.md for the columns.';

export const ReportResponse = {
  200: {
    description: 'The report',
    content: {
      'application/json': { schema: data(S.DailyReport) },
      'text/csv': {
        schema: Type.String({
          description: 'Columns section, type, key, value, count, taxable, vat, total, discount: one row per figure set (docs/reports.md)',
        }),
      },
      'application/pdf': { schema: Type.String({ format: 'binary', description: 'One A4 page' }) },
    },
  },
};
export const ExportResponse = {
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

export async function sendReport(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  tenantId: number,
  query: { date?: string; branch?: string },
) {
  const format = negotiateReport(request.headers.accept);
  if (!format) {
    throw new ApiError(
      'not_acceptable',
      `Reports are answered as application/json (the default), text/csv or application/pdf; Accept "${request.headers.accept ?? ''}" names none of them.`,
    );
  }
  const report = await dailyReport(ctx, { tenantId, date: query.date, branch: query.branch });
  reply.header('vary', 'Accept').header('cache-control', 'private, no-cache');
  const name = `${report.type}-report-${report.merchant.tpin}-${report.branch}-${report.date}`;
  if (format === 'text/csv')
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}.csv"`)
      .send(reportCsv(report));
  if (format === 'application/pdf') {
    // pdfkit and its fonts hold ~25 MB: loaded on the first PDF, not by every process at start.
    const { renderReportPdf } = await import('./pdf.ts');
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${name}.pdf"`)
      .send(await renderReportPdf(report, (await reportTenant(ctx.db, tenantId)).profile));
  }
  return reply.type('application/json; charset=utf-8').send({ data: report });
}

export async function sendExport(
  ctx: AppContext,
  reply: FastifyReply,
  tenantId: number,
  query: { from: string; to: string; format?: ExportFormat; branch?: string },
) {
  const tenant = await reportTenant(ctx.db, tenantId);
  const { from, to } = exportRange(tenant, query.from, query.to);
  const deviceId = query.branch === undefined ? undefined : (await reportBranch(ctx.db, tenant.id, query.branch)).id;
  const format = query.format ?? 'csv';
  const stream = documentsExport(
    ctx.db,
    { tenantId: tenant.id, ...(deviceId === undefined ? {} : { deviceId }), from, to },
    format,
    tenant,
  );
  const name = `documents-${tenant.tpin}${query.branch ? `-${query.branch}` : ''}-${query.from}-${query.to}.${format}`;
  return reply
    .type(CONTENT_TYPES[format])
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'private, no-store')
    .send(stream);
}
