// Items: registration with the authority (saveItem), amendments (updateItem), and drafts the
// service creates from sale lines that name unknown products, which wait for the merchant's
// review and are sent only when released. The states and moves are in docs/items.md.
import type { AuthorityItem } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import { ApiError, NotFoundError, ValidationError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { actorOfParty, recordAudit, type Party } from '../../kernel/audit/store.ts';
import { unknownClassificationCodes } from '../../kernel/catalogue/lookup.ts';
import type { BranchDevice } from '../../kernel/devices/store.ts';
import { vsdcLeaseMs, sentOutcomeOf } from '../../kernel/authority-rows/answers.ts';
import { merchantProfile } from '../../../authorities/index.ts';
import { generatedItemCode, itemDefaults, normalizeItemName } from './codes.ts';
import { presentItem } from './present.ts';
import { componentsOfItems } from './composition-store.ts';
import type { CreateItemBody, ItemResource, ListItemsQuery, UpdateItemBody } from './schemas.ts';
import {
  amendItem,
  claimDueItems,
  claimItem,
  findItemByCode,
  findItemById,
  insertItem,
  leasedItem,
  listItems,
  recordSendOutcome,
  releaseDraft,
  reserveItemCodeSequence,
  type ClaimedItem,
  type ItemChanges,
  type ItemRow,
} from './store.ts';

export const ITEM_RETRY_BATCH = 20;
/** Generated codes only clash with a code a caller chose by hand; a few fresh tries suffice. */
const CODE_ATTEMPTS = 5;

const FOUR_DECIMALS = /^\d+(\.\d{1,4})?$/;

async function checkFields(
  ctx: AppContext,
  authority: string,
  fields: { itemClsCd?: string | undefined; defaultPrice?: number | undefined; vatCategory?: string | undefined },
): Promise<void> {
  const errors: Record<string, string[]> = {};
  const categories = merchantProfile(authority).taxCategories.map((c) => c.code);
  if (fields.vatCategory !== undefined && !categories.includes(fields.vatCategory)) {
    errors.vatCategory = [`The vatCategory field must be one of your authority's tax categories: ${categories.join(', ')}.`];
  }
  if (fields.defaultPrice !== undefined && !FOUR_DECIMALS.test(String(fields.defaultPrice))) {
    errors.defaultPrice = ['The defaultPrice field must have at most 4 decimal places.'];
  }
  if (fields.itemClsCd !== undefined && (await unknownClassificationCodes(ctx, authority, [fields.itemClsCd])).length > 0) {
    errors.itemClsCd = [`The itemClsCd ${fields.itemClsCd} is not in the authority's classification catalogue (GET /api/v1/item-classes).`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** An item by id (digits) or by its authority item code (item codes are never digits only). */
export async function findItem(ctx: AppContext, tenantId: number, ref: string): Promise<ItemRow> {
  const row = /^[0-9]{1,15}$/.test(ref) ? await findItemById(ctx.db, tenantId, Number(ref)) : await findItemByCode(ctx.db, tenantId, ref);
  if (!row) throw new NotFoundError('Item not found.');
  return row;
}

/** The item as the API shows it, with its composition. */
async function presentWithComposition(ctx: AppContext, row: ItemRow): Promise<ItemResource> {
  return presentItem(row, (await componentsOfItems(ctx.db, [Number(row.id)])).get(Number(row.id)));
}

export async function reload(ctx: AppContext, tenantId: number, id: number): Promise<ItemResource> {
  return presentWithComposition(ctx, (await findItemById(ctx.db, tenantId, id))!);
}

/** Stores the item as `pending` on the branch, then sends it; answers with the state reached. */
export async function createItem(
  ctx: AppContext,
  tenant: TenantAccount,
  device: BranchDevice,
  body: CreateItemBody,
  by: Party,
): Promise<ItemResource> {
  await checkFields(ctx, tenant.authority, body);
  const DEFAULT_ITEM = itemDefaults(merchantProfile(tenant.authority));
  const item = {
    tenantId: tenant.id,
    deviceId: device.id,
    name: body.name.trim(),
    normalizedName: normalizeItemName(body.name),
    itemClassCode: body.itemClsCd,
    itemTypeCode: body.itemTypeCode ?? DEFAULT_ITEM.itemTypeCode,
    originCountryCode: body.originCountryCode ?? DEFAULT_ITEM.originCountryCode,
    packagingUnitCode: body.packagingUnitCode ?? DEFAULT_ITEM.packagingUnitCode,
    quantityUnitCode: body.quantityUnitCode ?? DEFAULT_ITEM.quantityUnitCode,
    vatCategory: body.vatCategory ?? DEFAULT_ITEM.vatCategory,
    defaultPrice: body.defaultPrice ?? 0,
    barcode: body.barcode ?? null,
    active: body.active ?? true,
    source: 'api' as const,
    state: 'pending' as const,
  };
  const lease = vsdcLeaseMs(ctx.config);
  // The item and its audit record in one transaction (the audit trail, docs/audit.md).
  const insertAudited = (itemCode: string) =>
    ctx.db.transaction().execute(async (trx) => {
      const inserted = await insertItem(trx, { ...item, itemCode }, lease);
      if (inserted !== undefined) {
        await recordAudit(trx, {
          actor: actorOfParty(by),
          action: 'item.created',
          tenantId: tenant.id,
          targetType: 'item',
          targetId: inserted,
          details: { itemCode, name: item.name, branch: device.branch },
        });
      }
      return inserted;
    });
  let id: number | undefined;
  if (body.itemCode !== undefined) {
    id = await insertAudited(body.itemCode);
    if (id === undefined)
      throw new ValidationError({ itemCode: [`The item code ${body.itemCode} is already used by another of your items.`] });
  } else {
    for (let attempt = 0; attempt < CODE_ATTEMPTS && id === undefined; attempt++) {
      const [sequence] = await reserveItemCodeSequence(ctx.db, tenant.id, 1);
      id = await insertAudited(generatedItemCode(item, sequence!));
    }
    if (id === undefined) throw new ApiError('item_code_conflict', 'Could not generate a free item code; retry, or give an itemCode.');
  }
  // The insert took the lease: this request sends it first.
  const leased = await leasedItem(ctx.db, ctx.secretBox, id);
  if (leased) await sendItem(ctx, leased);
  return reload(ctx, tenant.id, id);
}

export async function getItem(ctx: AppContext, tenantId: number, ref: string): Promise<ItemResource> {
  return presentWithComposition(ctx, await findItem(ctx, tenantId, ref));
}

export async function listItemsPage(ctx: AppContext, tenantId: number, query: ListItemsQuery): Promise<Page<ItemResource>> {
  const { rows, total } = await listItems(
    ctx.db,
    tenantId,
    { state: query.state, name: query.name?.trim() || undefined, itemClassCode: query.itemClsCd },
    query.page,
  );
  const compositions = await componentsOfItems(
    ctx.db,
    rows.map((row) => Number(row.id)),
  );
  return pageOf(
    rows.map((row) => presentItem(row, compositions.get(Number(row.id)))),
    total,
    query.page,
  );
}

/**
 * Amends the item locally, then tells the authority: `saveItem` while it never accepted the
 * item, `updateItem` once it has. A draft is only amended (review before release).
 */
export async function updateItem(
  ctx: AppContext,
  tenant: Pick<TenantAccount, 'id' | 'authority'>,
  ref: string,
  body: UpdateItemBody,
  by: Party,
): Promise<ItemResource> {
  const tenantId = tenant.id;
  const row = await findItem(ctx, tenantId, ref);
  await checkFields(ctx, tenant.authority, body);
  const changes: ItemChanges = {};
  if (body.name !== undefined) Object.assign(changes, { name: body.name.trim(), normalized_name: normalizeItemName(body.name) });
  if (body.itemClsCd !== undefined) changes.item_class_code = body.itemClsCd;
  if (body.itemTypeCode !== undefined) changes.item_type_code = body.itemTypeCode;
  if (body.originCountryCode !== undefined) changes.origin_country_code = body.originCountryCode;
  if (body.packagingUnitCode !== undefined) changes.packaging_unit_code = body.packagingUnitCode;
  if (body.quantityUnitCode !== undefined) changes.quantity_unit_code = body.quantityUnitCode;
  if (body.vatCategory !== undefined) changes.vat_category = body.vatCategory;
  if (body.defaultPrice !== undefined) changes.default_price = body.defaultPrice;
  if (body.barcode !== undefined) changes.barcode = body.barcode;
  if (body.active !== undefined) changes.active = body.active;
  const id = Number(row.id);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await amendItem(trx, tenantId, id, changes);
      await recordAudit(trx, {
        actor: actorOfParty(by),
        action: 'item.updated',
        tenantId,
        targetType: 'item',
        targetId: id,
        details: { itemCode: row.item_code, changes: body },
      });
    });
  } catch (err) {
    // Renaming a draft onto another draft's name: two drafts would stand for one product.
    if (isUniqueViolation(err)) {
      throw new ValidationError({ name: ['Another draft already has this name; release or rename that one first.'] });
    }
    throw err;
  }
  if (row.registration_state !== 'draft') {
    // Someone else may be sending an older revision right now; they hand over when they finish.
    const claimed = await claimItem(ctx.db, ctx.secretBox, id, vsdcLeaseMs(ctx.config));
    if (claimed) await sendItem(ctx, claimed);
  }
  return reload(ctx, tenantId, id);
}

/** Sends a reviewed draft to the authority through the X-Branch (or default) branch. */
export async function releaseItem(
  ctx: AppContext,
  tenant: TenantAccount,
  ref: string,
  branchOf: () => Promise<BranchDevice>,
  by: Party,
): Promise<ItemResource> {
  const row = await findItem(ctx, tenant.id, ref);
  const id = Number(row.id);
  if (row.registration_state !== 'draft') {
    throw new ApiError('item_not_draft', `Only a draft can be released; this item is ${row.registration_state}.`);
  }
  const device = await branchOf();
  await checkFields(ctx, tenant.authority, { itemClsCd: row.item_class_code });
  const released = await ctx.db.transaction().execute(async (trx) => {
    if (!(await releaseDraft(trx, tenant.id, id, device.id))) return false;
    await recordAudit(trx, {
      actor: actorOfParty(by),
      action: 'item.released',
      tenantId: tenant.id,
      targetType: 'item',
      targetId: id,
      details: { itemCode: row.item_code, name: row.name, branch: device.branch },
    });
    return true;
  });
  if (!released) {
    const now = await findItemById(ctx.db, tenant.id, id);
    throw new ApiError('item_not_draft', `Only a draft can be released; this item is ${now?.registration_state ?? 'gone'}.`);
  }
  const claimed = await claimItem(ctx.db, ctx.secretBox, id, vsdcLeaseMs(ctx.config));
  if (claimed) await sendItem(ctx, claimed);
  return reload(ctx, tenant.id, id);
}

function authorityItemOf(item: ClaimedItem): AuthorityItem {
  return {
    code: item.itemCode,
    classificationCode: item.itemClassCode,
    typeCode: item.itemTypeCode,
    name: item.name,
    originCountryCode: item.originCountryCode,
    packagingUnitCode: item.packagingUnitCode,
    quantityUnitCode: item.quantityUnitCode,
    vatCategory: item.vatCategory,
    barcode: item.barcode,
    defaultPrice: item.defaultPrice,
    active: item.active,
  };
}

/** One attempt to tell the authority about a leased item (new, or an amendment once it was accepted); records the answer. */
async function sendItem(ctx: AppContext, item: ClaimedItem): Promise<void> {
  const { items } = ctx.authorities.of(item.device.profile);
  const outcome =
    item.state === 'pending'
      ? await items.register(item.device, authorityItemOf(item))
      : await items.amend(item.device, authorityItemOf(item));
  await recordSendOutcome(ctx.db, item.id, item.revision, sentOutcomeOf(ctx.config, outcome, item.retryAttempts));
}

/** One background round: resends items whose wait is over. Returns how many it handled. */
export async function retryDueItems(ctx: AppContext): Promise<number> {
  const due = await claimDueItems(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), ITEM_RETRY_BATCH);
  await Promise.all(due.map((item) => sendItem(ctx, item)));
  return due.length;
}
