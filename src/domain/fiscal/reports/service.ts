// Daily reports (X while a branch's day is open, the stored Z once it is closed) and the rules
// of their inputs: the merchant's day in its timezone, the branch, the export's date range.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../kernel/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { DocumentType } from '../../../platform/db/tables/sales.ts';
import { ApiError, assertCalendarDays, fieldError, NotFoundError } from '../../../platform/errors/errors.ts';
import { dayOf, daysBetween, daysRange } from '../../../platform/lib/time-zones.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { Money } from '../../../authorities/port/amounts.ts';
import type { AuthorityProfile } from '../../../authorities/port/profile.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { pickBranch } from '../../kernel/devices/branch-rule.ts';
import { devicesOfTenant, type BranchDevice } from '../../kernel/devices/store.ts';
import { offsetOf, pageOf, PER_PAGE, type Page } from '../../../platform/http/pagination.ts';
import type { ByTypeResource, ClosedDayResource, DailyReportResource, FiguresResource } from './schemas.ts';
import {
  documentsByTypeAndStatus,
  documentsOfDaysByType,
  findZReport,
  insertZReport,
  nonFiscalOfDay,
  zReportsOfBranch,
  numbersOfDay,
  paymentMethodsOfDay,
  vatCategoriesOfDay,
  type AggregateRow,
  type CountedDay,
  type DayScope,
  type StoredZ,
} from './store.ts';

/** The merchant a report or export is about, with what it prints and its timezone. */
interface ReportTenant {
  id: number;
  name: string;
  tpin: string;
  timezone: string;
  /** Its authority's: the labels of its codes. */
  profile: AuthorityProfile;
}

export async function reportTenant(db: Kysely<DB>, tenantId: number): Promise<ReportTenant> {
  const row = await db
    .selectFrom('tenants')
    .select(['id', 'name', 'tpin', 'timezone', 'authority'])
    .where('id', '=', tenantId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Tenant not found.');
  const { authority, ...tenant } = row;
  return { ...tenant, profile: merchantProfile(authority) };
}

/** The longest export range, in days (a quarter): longer ranges are exported in parts. */
const MAX_EXPORT_DAYS = 92;

/** The branch a report is about: the one named, else the X-Branch defaults (000, else the only one). */
export async function reportBranch(db: Kysely<DB>, tenantId: number, branch: string | undefined): Promise<BranchDevice> {
  const devices = await devicesOfTenant(db, tenantId);
  if (branch !== undefined && !devices.some((d) => d.branch === branch)) {
    throw new ApiError('branch_not_found', `Branch ${branch} is not a branch of this merchant. GET /api/v1/me lists its branches.`);
  }
  const device = pickBranch(devices, branch);
  if (!device) {
    throw new ApiError(
      'branch_required',
      devices.length === 0
        ? 'This merchant has no registered branch yet, so it has no reports.'
        : 'This merchant has several branches and none is its headquarters: name one with the branch parameter.',
    );
  }
  return device;
}

/** A day the merchant has lived already (today or before, in its timezone). */
function checkDay(field: string, day: string, timezone: string, now: Date): void {
  assertCalendarDays({ [field]: day });
  if (day > dayOf(now, timezone))
    throw fieldError(field, `The ${field} field must not be after today (${dayOf(now, timezone)} in ${timezone}).`);
}

/** The export's range: two days, in order, at most MAX_EXPORT_DAYS apart. */
export function exportRange(tenant: ReportTenant, first: string, last: string): { from: Date; to: Date } {
  assertCalendarDays({ from: first, to: last });
  const span = daysBetween(first, last);
  if (span < 0) throw fieldError('to', `The to field must not be before from (${first}).`);
  if (span >= MAX_EXPORT_DAYS) throw fieldError('to', `The range must be at most ${MAX_EXPORT_DAYS} days: export longer periods in parts.`);
  return daysRange(first, last, tenant.timezone);
}

const TYPE_KEYS: Record<DocumentType, 'sales' | 'creditNotes' | 'debitNotes'> = {
  sale: 'sales',
  credit_note: 'creditNotes',
  debit_note: 'debitNotes',
};

interface ExactFigures {
  count: number;
  taxable: Money;
  vat: Money;
  total: Money;
  discount: Money;
}

const zero = (): ExactFigures => ({ count: 0, taxable: new Money(0), vat: new Money(0), total: new Money(0), discount: new Money(0) });
const shown = (f: ExactFigures): FiguresResource => ({
  count: f.count,
  taxable: f.taxable.toNumber(),
  vat: f.vat.toNumber(),
  total: f.total.toNumber(),
  discount: f.discount.toNumber(),
});

/** Aggregate rows of one group, folded by type with their net (credit notes subtract), exactly. */
function byType(rows: readonly AggregateRow[]): ByTypeResource {
  const parts = { sales: zero(), creditNotes: zero(), debitNotes: zero() };
  const net = zero();
  for (const row of rows) {
    const part = parts[TYPE_KEYS[row.type]];
    const sign = row.type === 'credit_note' ? -1 : 1;
    part.count += row.count;
    net.count += row.count;
    for (const field of ['taxable', 'vat', 'total', 'discount'] as const) {
      part[field] = part[field].plus(row[field]);
      net[field] = net[field].plus(new Money(row[field]).times(sign));
    }
  }
  return { sales: shown(parts.sales), creditNotes: shown(parts.creditNotes), debitNotes: shown(parts.debitNotes), net: shown(net) };
}

function grouped<R extends AggregateRow>(rows: readonly R[], key: (row: R) => string): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const k = key(row);
    groups.set(k, [...(groups.get(k) ?? []), row]);
  }
  return groups;
}

/** The day's figures as of now (an X report). */
async function computeReport(
  db: Kysely<DB>,
  tenant: ReportTenant,
  device: BranchDevice,
  day: string,
  now: Date,
): Promise<DailyReportResource> {
  const { from, to } = daysRange(day, day, tenant.timezone);
  const scope: DayScope = { tenantId: tenant.id, deviceId: device.id, from, to };
  const [documents, categories, payments, numbers, nonFiscal] = await Promise.all([
    documentsByTypeAndStatus(db, scope),
    vatCategoriesOfDay(db, scope),
    paymentMethodsOfDay(db, scope),
    numbersOfDay(db, scope),
    nonFiscalOfDay(db, scope),
  ]);
  const count = (status?: string) => documents.filter((d) => status === undefined || d.status === status).reduce((n, d) => n + d.count, 0);
  return {
    type: 'X',
    date: day,
    timezone: tenant.timezone,
    from: from.toISOString(),
    to: to.toISOString(),
    merchant: { id: tenant.id, name: tenant.name, tpin: tenant.tpin },
    branch: device.branch,
    branchName: device.branchName,
    currency: tenant.profile.currency,
    generatedAt: now.toISOString(),
    closedAt: null,
    closedBy: null,
    closedByName: null,
    counts: {
      documents: count(),
      uploaded: count('uploaded'),
      pending: count('pending'),
      failed: count('failed'),
      resolved: count('resolved'),
    },
    documents: documents.map((d) => ({
      type: d.type,
      status: d.status,
      ...shown({
        count: d.count,
        taxable: new Money(d.taxable),
        vat: new Money(d.vat),
        total: new Money(d.total),
        discount: new Money(d.discount),
      }),
    })),
    fiscal: byType(documents.filter((d) => d.status === 'uploaded')),
    vatCategories: [...grouped(categories, (r) => `${r.category}\u0000${r.rate}`).values()].map((rows) => ({
      category: rows[0]!.category,
      rate: Number(rows[0]!.rate),
      ...byType(rows),
    })),
    paymentMethods: [...grouped(payments, (r) => r.method).values()].map((rows) => ({ method: rows[0]!.method, ...byType(rows) })),
    nonFiscal: nonFiscal.map((r) => ({
      salesType: r.sales_type,
      type: r.type,
      count: r.count,
      taxable: new Money(r.taxable).toNumber(),
      vat: new Money(r.vat).toNumber(),
      total: new Money(r.total).toNumber(),
    })),
    numbers: {
      firstInvoiceNo: numbers.first_invoice_no,
      lastInvoiceNo: numbers.last_invoice_no,
      firstReceiptNo: numbers.first_receipt_no,
      lastReceiptNo: numbers.last_receipt_no,
    },
    authority: authorityWords(tenant.profile),
    storedAfterClose: null,
  };
}

/** What is said of a Z when it is read, never stored with it: who closed it by name, and what its day holds beyond it. */
type ReadWithZ = 'closedByName' | 'storedAfterClose' | 'authority';

/** The words of the merchant's authority a report is read with. */
function authorityWords(profile: AuthorityProfile): NonNullable<DailyReportResource['authority']> {
  return {
    authority: profile.authority,
    taxpayerId: profile.receiptLabels.taxpayerId,
    paymentMethods: profile.paymentMethods.map(({ code, label }) => ({ code, label })),
  };
}

/** The day and instants a stored Z counted (its own, whatever the merchant's timezone is now). */
const countedDay = (z: DailyReportResource): CountedDay => ({ day: z.date, from: new Date(z.from), to: new Date(z.to) });

/**
 * The day's fiscal documents that a Z does not hold: those of the day now (`now`, every status,
 * by type) less those it counted (its `documents`). A document never leaves its day and its
 * amounts never change, so the difference is exactly the documents stored after the Z was taken,
 * whatever their status has become since.
 */
function storedAfter(z: DailyReportResource, now: readonly AggregateRow[]): ByTypeResource {
  const counted = z.documents.map((d): AggregateRow => ({
    type: d.type,
    count: -d.count,
    taxable: String(-d.taxable),
    vat: String(-d.vat),
    total: String(-d.total),
    discount: String(-d.discount),
  }));
  return byType([...now, ...counted]);
}

/** A stored Z as it is answered: with its closer's name and the day's documents stored after it. */
async function answeredZ(db: Kysely<DB>, tenant: ReportTenant, deviceId: number, stored: StoredZ): Promise<DailyReportResource> {
  const z = JSON.parse(stored.report) as DailyReportResource;
  const now = await documentsOfDaysByType(db, tenant.id, deviceId, [countedDay(z)]);
  return { ...z, closedByName: stored.closer_name, authority: authorityWords(tenant.profile), storedAfterClose: storedAfter(z, now) };
}

interface ReportRequest {
  tenantId: number;
  date: string | undefined;
  branch: string | undefined;
}

/** The day's report: the stored Z once the day is closed, else an X computed now. */
export async function dailyReport(ctx: AppContext, request: ReportRequest): Promise<DailyReportResource> {
  const tenant = await reportTenant(ctx.db, request.tenantId);
  const now = ctx.clock.now();
  const day = request.date ?? dayOf(now, tenant.timezone);
  checkDay('date', day, tenant.timezone, now);
  const device = await reportBranch(ctx.db, tenant.id, request.branch);
  const stored = await findZReport(ctx.db, device.id, day);
  if (stored) return answeredZ(ctx.db, tenant, device.id, stored);
  return computeReport(ctx.db, tenant, device, day, now);
}

/**
 * Takes the day's Z report: the figures as of now, stored once and never changed. Closing a day
 * already closed answers its stored Z (`created: false`), so a close whose reply was lost is safe
 * to repeat. Pending documents do not stop it; the Z counts them. Documents of the day stored
 * later are in no Z: the Z says how many when it is read (`storedAfterClose`).
 */
export async function closeDay(
  ctx: AppContext,
  request: ReportRequest & { date: string; closedBy: string; actor: Actor },
): Promise<{ report: DailyReportResource; created: boolean }> {
  const tenant = await reportTenant(ctx.db, request.tenantId);
  const now = ctx.clock.now();
  checkDay('date', request.date, tenant.timezone, now);
  const device = await reportBranch(ctx.db, tenant.id, request.branch);
  const { stored, created } = await ctx.db.transaction().execute(async (trx) => {
    const existing = await findZReport(trx, device.id, request.date);
    if (existing) return { stored: existing, created: false };
    const x = await computeReport(trx, tenant, device, request.date, now);
    const z: Omit<DailyReportResource, ReadWithZ> = {
      ...withoutReadFields(x),
      type: 'Z',
      closedAt: now.toISOString(),
      closedBy: request.closedBy,
    };
    const inserted = await insertZReport(trx, {
      deviceId: device.id,
      tenantId: tenant.id,
      branch: device.branch,
      day: request.date,
      report: JSON.stringify(z),
      closedAt: now,
      closedBy: request.closedBy,
    });
    if (inserted) {
      await recordAudit(trx, {
        actor: request.actor,
        action: 'report.closed',
        tenantId: tenant.id,
        targetType: 'daily_report',
        targetId: `${device.branch}:${request.date}`,
        details: { branch: device.branch, date: request.date, counts: z.counts },
      });
    }
    // Ours; or, when another request closed the day between our read and our insert, its Z.
    return { stored: (await findZReport(trx, device.id, request.date))!, created: inserted };
  });
  return { report: await answeredZ(ctx.db, tenant, device.id, stored), created };
}

function withoutReadFields(report: DailyReportResource): Omit<DailyReportResource, ReadWithZ> {
  const { closedByName: _name, storedAfterClose: _after, authority: _authority, ...stored } = report;
  return stored;
}

/** A branch's closed days (its Z reports), the latest first, a page at a time. */
export async function closedDays(
  ctx: AppContext,
  request: { tenantId: number; branch: string | undefined; page: number },
): Promise<Page<ClosedDayResource>> {
  const tenant = await reportTenant(ctx.db, request.tenantId);
  const device = await reportBranch(ctx.db, tenant.id, request.branch);
  const { reports, total } = await zReportsOfBranch(ctx.db, device.id, PER_PAGE, offsetOf(request.page));
  const zs = reports.map((stored) => ({ z: JSON.parse(stored.report) as DailyReportResource, closedByName: stored.closer_name }));
  const now = await documentsOfDaysByType(
    ctx.db,
    tenant.id,
    device.id,
    zs.map(({ z }) => countedDay(z)),
  );
  const days = zs.map(({ z, closedByName }) => ({
    date: z.date,
    branch: z.branch,
    branchName: z.branchName,
    timezone: z.timezone,
    closedAt: z.closedAt!,
    closedBy: z.closedBy!,
    closedByName,
    counts: z.counts,
    net: z.fiscal.net,
    storedAfterClose: storedAfter(
      z,
      now.filter((row) => row.day === z.date),
    ).net,
  }));
  return pageOf(days, total, request.page);
}
