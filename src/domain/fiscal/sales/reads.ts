// The sales read: a document, the merchant's list of them (paged, filtered by its days, status,
// kind and branch) and `GET /api/v1/me`, each presented with its lines and stock state.
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { ApiError, NotFoundError, assertCalendarDays, fieldError } from '../../../platform/errors/errors.ts';
import { daysBetween, daysRange } from '../../../platform/lib/time-zones.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { presentLineRow, presentSale } from './present.ts';
import type { ListSalesQuery } from './schemas.ts';
import type { MeResource, SaleResource } from './resource-schemas.ts';
import { authorityBranchesFor } from '../../kernel/devices/register.ts';
import { findSale, linesOf, listSales, storedStatuses, timezoneOf, type SaleFilter, type SaleRow } from './store.ts';
import { devicesOfTenant, type BranchDevice } from '../../kernel/devices/store.ts';
import { documentStock } from '../stock/document-stock.ts';
import { stockOfDocuments } from '../stock/read-store.ts';
import { stockTrackingOf } from '../stock/tracking-store.ts';

export async function getSale(ctx: AppContext, tenantId: number, saleId: number): Promise<SaleResource> {
  const row = await findSale(ctx.db, tenantId, saleId);
  if (!row) throw new NotFoundError('Sale not found.');
  return (await presentRows(ctx, [row]))[0]!;
}

/**
 * Stored documents as resources: their lines, then the stock state of those whose lines name an
 * item (only they can move stock; the others are not_applicable without asking the database).
 */
export async function presentRows(ctx: AppContext, rows: SaleRow[]): Promise<SaleResource[]> {
  const lines = await linesOf(
    ctx.db,
    rows.map((r) => Number(r.id)),
  );
  const mayMoveStock = [...lines].filter(([, saleLines]) => saleLines.some((l) => l.item_code !== null)).map(([id]) => id);
  const stock = await stockOfDocuments(ctx.db, mayMoveStock);
  return rows.map((r) => {
    const items = (lines.get(Number(r.id)) ?? []).map(presentLineRow);
    return presentSale(
      r,
      items,
      documentStock(
        r,
        items.map((i) => i.itemCode),
        stock.get(Number(r.id)),
      ),
    );
  });
}

/** Without X-Branch the list covers every branch of the merchant; with it, that branch only. */
export async function listSalesPage(
  ctx: AppContext,
  tenantId: number,
  branchHeader: string | undefined,
  query: ListSalesQuery,
): Promise<Page<SaleResource>> {
  const filter: SaleFilter = {};
  if (query.branch !== undefined && branchHeader !== undefined && query.branch !== branchHeader) {
    throw fieldError(
      'branch',
      `The branch field (${query.branch}) and the X-Branch header (${branchHeader}) name different branches: send one of them.`,
    );
  }
  const branch = query.branch ?? branchHeader;
  if (branch !== undefined) {
    const device = (await devicesOfTenant(ctx.db, tenantId)).find((d) => d.branch === branch);
    if (!device)
      throw new ApiError('branch_not_found', `Branch ${branch} is not a branch of this merchant. GET /api/v1/me lists its branches.`);
    filter.deviceId = device.id;
  }
  if (query.reference !== undefined) filter.reference = query.reference;
  const statuses = storedStatuses(query);
  if (statuses !== undefined) filter.statuses = statuses;
  if (query.type !== undefined) filter.type = query.type;
  if (query.salesType !== undefined) filter.salesType = query.salesType;
  if (query.from !== undefined || query.to !== undefined)
    Object.assign(filter, occurredWithin(query.from, query.to, await timezoneOf(ctx.db, tenantId)));
  const { rows, total } = await listSales(ctx.db, tenantId, filter, query.page);
  return pageOf(await presentRows(ctx, rows), total, query.page);
}

/** The instants of the merchant's days `from`..`to` (inclusive; either may be open). */
function occurredWithin(
  from: string | undefined,
  to: string | undefined,
  timezone: string,
): Pick<SaleFilter, 'occurredFrom' | 'occurredBefore'> {
  assertCalendarDays({ from, to });
  if (from !== undefined && to !== undefined && daysBetween(from, to) < 0)
    throw fieldError('to', `The to field must not be before from (${from}).`);
  return {
    ...(from === undefined ? {} : { occurredFrom: daysRange(from, from, timezone).from }),
    ...(to === undefined ? {} : { occurredBefore: daysRange(to, to, timezone).to }),
  };
}

export async function describeMe(
  ctx: AppContext,
  tenant: TenantAccount,
  devices: readonly BranchDevice[],
  current: BranchDevice | undefined,
): Promise<MeResource> {
  const [stockTracking, authorityBranches, timezone] = await Promise.all([
    stockTrackingOf(ctx.db, tenant.id),
    authorityBranchesFor(ctx.db, new Map([[tenant.id, devices.map((d) => d.branch)]])),
    timezoneOf(ctx.db, tenant.id),
  ]);
  return {
    id: tenant.id,
    name: tenant.name,
    tpin: tenant.tpin,
    plan: tenant.plan,
    subscription: tenant.subscription,
    status: tenant.status,
    monthlyQuota: tenant.monthlyQuota,
    documentsThisMonth: tenant.documentsThisMonth,
    branch: current?.branch ?? null,
    timezone,
    stockTracking,
    devices: devices.map((d) => ({
      branch: d.branch,
      branchName: d.branchName,
      deviceSerial: d.deviceSerial,
      sdcId: d.sdcId,
      mrcNo: d.mrcNo,
      initialized: d.initialized,
      current: d.id === current?.id,
    })),
    authorityBranches: authorityBranches.get(tenant.id) ?? [],
  };
}
