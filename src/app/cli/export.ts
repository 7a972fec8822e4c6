// `fiscal-gateway export documents …`: the operator's export of one merchant's documents to a
// file, the same rows as GET /api/v1/exports/documents, streamed from the database.
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { AppContext } from '../../domain/kernel/context.ts';
import { ApiError, ValidationError } from '../../platform/errors/errors.ts';
import { documentsExport, type ExportFormat } from '../../domain/fiscal/reports/export.ts';
import { exportRange, reportBranch, reportTenant } from '../../domain/fiscal/reports/service.ts';
import { UsageError } from './output.ts';

interface ExportOptions {
  tenantId: number;
  from: string;
  to: string;
  format: ExportFormat;
  branch?: string;
  out: string;
}

const EXPORT_USAGE = 'export documents --tenant ID --from YYYY-MM-DD --to YYYY-MM-DD [--format csv|xlsx] [--branch NNN] --out FILE';

/** The command's options, or a UsageError naming what to send instead (checked before the database is opened). */
export function parseExportArgs(args: string[]): ExportOptions {
  const [what, ...rest] = args;
  if (what !== 'documents') throw new UsageError(`export takes: documents; usage: fiscal-gateway ${EXPORT_USAGE}`);
  const { values } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: false,
    options: {
      tenant: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      format: { type: 'string' },
      branch: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (!values.tenant || !/^\d+$/.test(values.tenant) || Number(values.tenant) < 1 || Number(values.tenant) > 2147483647)
    throw new UsageError(`export documents needs --tenant with a merchant id, got "${values.tenant ?? ''}"`);
  for (const name of ['from', 'to'] as const) {
    if (!values[name] || !/^\d{4}-\d{2}-\d{2}$/.test(values[name]))
      throw new UsageError(`export documents needs --${name} as YYYY-MM-DD, got "${values[name] ?? ''}"`);
  }
  const format = values.format ?? 'csv';
  if (format !== 'csv' && format !== 'xlsx') throw new UsageError(`export documents --format takes csv or xlsx, got "${format}"`);
  if (values.branch !== undefined && !/^\d{3}$/.test(values.branch))
    throw new UsageError(`export documents --branch takes a three-digit branch such as 000, got "${values.branch}"`);
  if (!values.out) throw new UsageError('export documents needs --out FILE');
  return {
    tenantId: Number(values.tenant),
    from: values.from!,
    to: values.to!,
    format,
    out: values.out,
    ...(values.branch === undefined ? {} : { branch: values.branch }),
  };
}

/** Writes the export to `options.out`; answers its size. Bad dates or an unknown branch are usage errors. */
export async function exportDocumentsToFile(ctx: AppContext, options: ExportOptions): Promise<{ bytes: number }> {
  const tenant = await reportTenant(ctx.db, options.tenantId);
  let range: { from: Date; to: Date };
  let deviceId: number | undefined;
  try {
    range = exportRange(tenant, options.from, options.to);
    if (options.branch !== undefined) deviceId = (await reportBranch(ctx.db, tenant.id, options.branch)).id;
  } catch (err) {
    if (err instanceof ValidationError || (err instanceof ApiError && err.status < 500)) throw new UsageError(err.message);
    throw err;
  }
  await pipeline(
    documentsExport(ctx.db, { tenantId: tenant.id, ...range, ...(deviceId === undefined ? {} : { deviceId }) }, options.format, tenant),
    createWriteStream(options.out),
  );
  return { bytes: (await stat(options.out)).size };
}
