// The items the authority holds for a branch (read live through its device) beside the
// items the gateway registered through it: the checklist's "item retrieve", and a merchant's way
// to see that what the authority taxes against is what it registered.
import type { ListedItem } from '../../../authorities/port/index.ts';
import type { Selectable } from 'kysely';
import type { ItemsTable } from '../../../platform/db/tables/items.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { iso } from '../../../platform/lib/time.ts';
import type { AppContext } from '../../kernel/context.ts';
import type { BranchDevice } from '../../kernel/devices/store.ts';
import type { ComparedItem, ComparedItemField, ItemReconciliationResource, ItemReconciliationState } from './schemas.ts';
import { branchDevice, itemsKnownToAuthority } from './store.ts';

function fromGateway(row: Selectable<ItemsTable>): ComparedItem {
  return {
    name: row.name,
    itemClsCd: row.item_class_code,
    itemTypeCode: row.item_type_code,
    packagingUnitCode: row.packaging_unit_code,
    quantityUnitCode: row.quantity_unit_code,
    vatCategory: row.vat_category,
    defaultPrice: Number(row.default_price),
    active: row.active,
  };
}

/** An item the authority lists, as the gateway compares it. */
function fromAuthority(item: ListedItem): ComparedItem {
  return {
    name: item.name,
    itemClsCd: item.classificationCode,
    itemTypeCode: item.typeCode,
    packagingUnitCode: item.packagingUnitCode,
    quantityUnitCode: item.quantityUnitCode,
    vatCategory: item.vatCategory,
    defaultPrice: item.defaultPrice,
    active: item.active,
  };
}

function differences(gateway: ComparedItem, authority: ComparedItem): ComparedItemField[] {
  return (Object.keys(gateway) as ComparedItemField[]).filter((field) =>
    field === 'defaultPrice' ? Math.abs(gateway.defaultPrice - authority.defaultPrice) > 0.00005 : gateway[field] !== authority[field],
  );
}

export async function reconcileItems(ctx: AppContext, tenantId: number, branch: BranchDevice): Promise<ItemReconciliationResource> {
  const device = await branchDevice(ctx.db, ctx.secretBox, branch.id);
  const outcome = await ctx.authorities.of(device.profile).items.list(device);
  if (outcome.kind === 'unreachable') {
    throw new ApiError(
      'vsdc_unreachable',
      `Branch ${branch.branch}'s VSDC at ${device.baseUrl} did not answer (${outcome.reason}: ${outcome.detail}); nothing to compare yet. Retry shortly.`,
    );
  }
  if (outcome.kind === 'rejected') {
    throw new ApiError(
      'vsdc_refused',
      `Branch ${branch.branch}'s VSDC answered the list of its items with ${outcome.code} (${outcome.message}).`,
    );
  }
  const atAuthority = new Map(outcome.items.map((item) => [item.code, fromAuthority(item)]));
  const atGateway = new Map((await itemsKnownToAuthority(ctx.db, tenantId, branch.id)).map((row) => [row.item_code, fromGateway(row)]));

  const codes = [...new Set([...atGateway.keys(), ...atAuthority.keys()])].sort();
  const items = codes.map((itemCode) => {
    const gateway = atGateway.get(itemCode) ?? null;
    const authority = atAuthority.get(itemCode) ?? null;
    const differing = gateway && authority ? differences(gateway, authority) : [];
    const state: ItemReconciliationState = !authority
      ? 'missing_at_authority'
      : !gateway
        ? 'unknown_to_gateway'
        : differing.length > 0
          ? 'differs'
          : 'matches';
    return { itemCode, state, gateway, authority, differences: differing };
  });
  const count = (state: ItemReconciliationState) => items.filter((i) => i.state === state).length;
  return {
    branch: branch.branch,
    retrievedAt: iso(ctx.clock.now()),
    summary: {
      matches: count('matches'),
      differs: count('differs'),
      missingAtAuthority: count('missing_at_authority'),
      unknownToGateway: count('unknown_to_gateway'),
    },
    items,
  };
}
