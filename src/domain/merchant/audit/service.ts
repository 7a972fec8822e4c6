// The merchant's own audit trail (docs/audit.md): the kernel's audit log, only the merchant's rows
// (tenant_id), newest first, with who acted as the merchant knows them. Sales issued are not in it:
// the documents list is their record, each naming its issuer (docs/decisions.md).
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { AppContext } from '../../kernel/context.ts';
import { auditBatches, listAudit, type AuditFilter, type AuditRecord } from '../../kernel/audit/store.ts';
import { NotFoundError, assertCalendarDays, fieldError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { daysBetween, daysRange, localDateTime } from '../../../platform/lib/time-zones.ts';
import type { AuditEntryResource, ExportAuditQuery, ListAuditQuery } from './schemas.ts';

/** Records read per statement by the export. */
const EXPORT_BATCH = 500;

const FIXED_NAMES: Partial<Record<AuditRecord['actorType'], string>> = { admin: 'operator', cli: 'command line' };

function presentAuditEntry(r: AuditRecord): AuditEntryResource {
  const keyName =
    r.actorType === 'partner_key' && r.actorName !== null && r.partnerName !== null ? `${r.actorName} (${r.partnerName})` : r.actorName;
  return {
    id: r.id,
    action: r.action,
    actor: { type: r.actorType, id: r.actorId, name: FIXED_NAMES[r.actorType] ?? keyName },
    target: r.targetType === null || r.targetId === null ? null : { type: r.targetType, id: r.targetId, name: r.targetName },
    details: r.details,
    at: r.createdAt,
  };
}

async function timezoneOf(ctx: AppContext, tenantId: number): Promise<string> {
  const row = await ctx.db.selectFrom('tenants').select('timezone').where('id', '=', tenantId).executeTakeFirst();
  if (!row) throw new NotFoundError('Tenant not found.');
  return row.timezone;
}

/** The tenant's filter: its rows only, of the action (or family), within its local days `from`..`to`. */
async function filterOf(ctx: AppContext, tenantId: number, query: ExportAuditQuery): Promise<AuditFilter> {
  const { from, to } = query;
  assertCalendarDays({ from, to });
  if (from !== undefined && to !== undefined && daysBetween(from, to) < 0)
    throw fieldError('to', `The to field must not be before from (${from}).`);
  const timezone = from === undefined && to === undefined ? undefined : await timezoneOf(ctx, tenantId);
  return {
    tenantId,
    ...(query.action === undefined ? {} : { action: query.action }),
    ...(from === undefined ? {} : { from: daysRange(from, from, timezone!).from }),
    ...(to === undefined ? {} : { before: daysRange(to, to, timezone!).to }),
  };
}

export async function listAuditPage(ctx: AppContext, tenantId: number, query: ListAuditQuery): Promise<Page<AuditEntryResource>> {
  const page = await listAudit(ctx.db, await filterOf(ctx, tenantId, query), query.page);
  return pageOf(page.data.map(presentAuditEntry), page.meta.total, query.page);
}

const AUDIT_CSV_COLUMNS = [
  'id',
  'at',
  'atLocal',
  'action',
  'actorType',
  'actorId',
  'actorName',
  'targetType',
  'targetId',
  'targetName',
  'details',
] as const;

/** RFC 4180 CSV (CRLF, a header row), newest first, read a batch at a time and written as read. */
export async function exportAudit(ctx: AppContext, tenantId: number, query: ExportAuditQuery): Promise<Readable> {
  const filter = await filterOf(ctx, tenantId, query);
  const timezone = await timezoneOf(ctx, tenantId);
  async function* chunks(): AsyncGenerator<string> {
    yield stringify([], { header: true, columns: [...AUDIT_CSV_COLUMNS], record_delimiter: 'windows' });
    for await (const batch of auditBatches(ctx.db, filter, EXPORT_BATCH)) {
      const rows = batch.map((r) => {
        const e = presentAuditEntry(r);
        return [
          e.id,
          e.at,
          localDateTime(new Date(e.at), timezone),
          e.action,
          e.actor.type,
          e.actor.id ?? '',
          e.actor.name ?? '',
          e.target?.type ?? '',
          e.target?.id ?? '',
          e.target?.name ?? '',
          JSON.stringify(e.details),
        ];
      });
      yield stringify(rows, { record_delimiter: 'windows' });
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
