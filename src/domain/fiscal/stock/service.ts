// The merchant's stock: levels per branch and item, the movement history with each movement's
// chain state, adjustments (sent through the same chain as sales), and the tracking switch.
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { ApiError, FieldErrors, NotFoundError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { Money } from '../../../authorities/port/amounts.ts';
import type { BranchDevice } from '../../kernel/devices/store.ts';
import { GOODS_ITEM_TYPES, isIncoming, recordStockMovement } from './movements.ts';
import { presentLevel, presentMovement } from './present.ts';
import type {
  CreateAdjustmentBody,
  ListLevelsQuery,
  ListMovementsQuery,
  StockLevelResource,
  StockMovementResource,
  StockSettingsResource,
} from './schemas.ts';
import { stockSignals } from './signals.ts';
import { findMovement, listLevels, listMovements } from './read-store.ts';
import { setStockTracking, stockTrackingOf } from './tracking-store.ts';

export async function listLevelsPage(
  ctx: AppContext,
  tenantId: number,
  deviceId: number | undefined,
  query: ListLevelsQuery,
): Promise<Page<StockLevelResource>> {
  const { rows, total } = await listLevels(ctx.db, tenantId, { deviceId, itemCodes: query.itemCode }, query.page);
  return pageOf(rows.map(presentLevel), total, query.page);
}

export async function listMovementsPage(
  ctx: AppContext,
  tenantId: number,
  deviceId: number | undefined,
  query: ListMovementsQuery,
): Promise<Page<StockMovementResource>> {
  const { rows, lines, total } = await listMovements(
    ctx.db,
    tenantId,
    { deviceId, itemCode: query.itemCode, state: query.state },
    query.page,
  );
  return pageOf(
    rows.map((r) => presentMovement(r, lines.get(Number(r.id)) ?? [])),
    total,
    query.page,
  );
}

export async function getMovement(ctx: AppContext, tenantId: number, id: number): Promise<StockMovementResource> {
  const found = await findMovement(ctx.db, tenantId, id);
  if (!found) throw new NotFoundError('Stock movement not found.');
  return presentMovement(found.row, found.lines);
}

function trackingOff(): ApiError {
  return new ApiError(
    'stock_tracking_off',
    'Stock tracking is off for this merchant, so the gateway records no stock movement. Turn it on with PATCH /api/v1/stock/settings {"stockTracking": true} first.',
  );
}

/**
 * Records an adjustment on the X-Branch (or default) branch and queues its stock chain. Refused
 * before anything is stored: an unknown item, a service, an item the authority has not accepted,
 * an item twice; an outgoing movement that would leave the branch with less than nothing.
 */
export async function createAdjustment(
  ctx: AppContext,
  tenant: TenantAccount,
  device: BranchDevice,
  body: CreateAdjustmentBody,
): Promise<StockMovementResource> {
  if (!(await stockTrackingOf(ctx.db, tenant.id))) throw trackingOff();
  const codes = body.items.map((i) => i.itemCode);
  const items = new Map(
    (
      await ctx.db
        .selectFrom('items')
        .select(['item_code', 'item_type_code', 'registered_at', 'default_price'])
        .where('tenant_id', '=', tenant.id)
        .where('item_code', 'in', codes)
        .execute()
    ).map((i) => [i.item_code, i]),
  );
  const errors = new FieldErrors();
  const seen = new Set<string>();
  body.items.forEach((line, i) => {
    const field = `items.${i}`;
    const item = items.get(line.itemCode);
    if (seen.has(line.itemCode))
      errors.add(`${field}.itemCode`, `${line.itemCode} is named twice: give each item once, with its whole quantity.`);
    seen.add(line.itemCode);
    if (!item) errors.add(`${field}.itemCode`, `${line.itemCode} is not one of your items: register it first (POST /api/v1/items).`);
    else if (!(GOODS_ITEM_TYPES as readonly string[]).includes(item.item_type_code))
      errors.add(`${field}.itemCode`, `${line.itemCode} is a service (item type ${item.item_type_code}); services carry no stock.`);
    else if (item.registered_at === null)
      errors.add(
        `${field}.itemCode`,
        `${line.itemCode} is not registered with the authority yet (GET /api/v1/items/${line.itemCode} shows its registration); the authority refuses stock of unregistered items.`,
      );
    if (new Money(String(line.quantity)).decimalPlaces() > 4) errors.add(`${field}.quantity`, 'The quantity may have at most 4 decimals.');
    if (line.unitPrice !== undefined && new Money(String(line.unitPrice)).decimalPlaces() > 4)
      errors.add(`${field}.unitPrice`, 'The unitPrice may have at most 4 decimals.');
  });
  if (errors.size > 0) throw errors.toError();

  const id = await ctx.db.transaction().execute(async (trx) => {
    const recorded = await recordStockMovement(trx, {
      tenantId: tenant.id,
      deviceId: device.id,
      sarTyCd: body.movementType,
      source: { kind: 'adjustment', id: 0 },
      lines: body.items.map((l) => ({
        itemCode: l.itemCode,
        quantity: String(l.quantity),
        unitPrice: l.unitPrice === undefined ? String(items.get(l.itemCode)!.default_price) : String(l.unitPrice),
      })),
      ...(body.remark ? { remark: body.remark } : {}),
    });
    // Tracking was turned off (or the item changed) since the checks above.
    if (!recorded) throw trackingOff();
    if (!isIncoming(body.movementType)) {
      const short = new FieldErrors();
      body.items.forEach((line, i) => {
        const after = new Money(recorded.remaining.get(line.itemCode)!);
        if (after.isNegative()) {
          const held = after.plus(String(line.quantity));
          short.add(
            `items.${i}.quantity`,
            `Branch ${device.branch} holds ${held.toString()} of ${line.itemCode}; taking ${line.quantity} would leave ${after.toString()}. Take at most ${Money.max(held, 0).toString()}, or record what came in first (e.g. movementType 06).`,
          );
        }
      });
      // Nothing is kept: the transaction is rolled back.
      if (short.size > 0) throw short.toError();
    }
    return recorded.id;
  });
  stockSignals(ctx).movementQueued();
  return getMovement(ctx, tenant.id, id);
}

export async function getSettings(ctx: AppContext, tenantId: number): Promise<StockSettingsResource> {
  return { stockTracking: await stockTrackingOf(ctx.db, tenantId) };
}

export async function updateSettings(ctx: AppContext, tenantId: number, stockTracking: boolean): Promise<StockSettingsResource> {
  await setStockTracking(ctx.db, tenantId, stockTracking);
  return { stockTracking };
}
