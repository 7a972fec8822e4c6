// Item compositions: an item made of other items. Each component is one of the merchant's own
// registered items, filed on its own (item, component, quantity) through the composite item's branch, and retried like item registrations. A POST replaces
// the whole composition. The rules and states are in docs/items.md.
import type { AppContext } from '../../kernel/context.ts';
import { ApiError, FieldErrors } from '../../../platform/errors/errors.ts';
import { sentOutcomeOf, vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import type { ItemResource, SetCompositionBody } from './schemas.ts';
import { findItem, reload } from './service.ts';
import type { ItemRow } from './store.ts';
import { actorOfParty, recordAudit, type Party } from '../../kernel/audit/store.ts';
import {
  candidateComponents,
  claimDueComponents,
  claimItemComponents,
  recordComponentOutcome,
  replaceComposition,
  type ClaimedComponent,
  type NewComponent,
} from './composition-store.ts';

const COMPONENT_RETRY_BATCH = 20;

const FOUR_DECIMALS = /^\d+(\.\d{1,4})?$/;

/** The components as stored, or a 422 naming each bad `components.N.itemCode` / `components.N.quantity`. */
async function checkedComponents(ctx: AppContext, tenantId: number, item: ItemRow, body: SetCompositionBody): Promise<NewComponent[]> {
  const errors = new FieldErrors();
  const found = await candidateComponents(ctx.db, tenantId, [...new Set(body.components.map((c) => c.itemCode))]);
  const seen = new Map<string, number>();
  const components: NewComponent[] = [];
  body.components.forEach((component, i) => {
    const field = `components.${i}.itemCode`;
    if (!FOUR_DECIMALS.test(String(component.quantity))) {
      errors.add(`components.${i}.quantity`, `The components.${i}.quantity field must have at most 4 decimal places.`);
    }
    const earlier = seen.get(component.itemCode);
    if (earlier !== undefined) {
      errors.add(
        field,
        `The item ${component.itemCode} is already components.${earlier}; name each component once, with its whole quantity.`,
      );
      return;
    }
    seen.set(component.itemCode, i);
    if (component.itemCode === item.item_code) {
      errors.add(field, `An item cannot be a component of itself (${component.itemCode}).`);
      return;
    }
    const candidate = found.get(component.itemCode);
    if (!candidate) {
      errors.add(field, `The item ${component.itemCode} is not one of your items (GET /api/v1/items).`);
      return;
    }
    if (!candidate.registered) {
      errors.add(
        field,
        `The item ${component.itemCode} is not registered with the authority (it is ${candidate.state}); a component must be registered first.`,
      );
      return;
    }
    if (candidate.deviceId !== item.device_id) {
      errors.add(
        field,
        `The item ${component.itemCode} is registered through branch ${candidate.branch ?? 'none'}; a component must be registered through the item's branch ${item.branch ?? 'none'}.`,
      );
      return;
    }
    components.push({ componentItemId: candidate.id, position: i, quantity: String(component.quantity) });
  });
  if (errors.size > 0) throw errors.toError();
  return components;
}

/**
 * Replaces the item's composition, then files each component the authority does not yet hold
 * as given (the item must be registered; until then they wait). Answers with the item and the
 * state each component reached.
 */
export async function setComposition(
  ctx: AppContext,
  tenantId: number,
  ref: string,
  body: SetCompositionBody,
  by: Party,
): Promise<ItemResource> {
  const item = await findItem(ctx, tenantId, ref);
  if (item.registration_state === 'draft') {
    throw new ApiError('item_is_draft', 'A draft has no composition: review it and release it (POST /api/v1/items/{item}/release) first.');
  }
  const components = await checkedComponents(ctx, tenantId, item, body);
  const id = Number(item.id);
  await ctx.db.transaction().execute(async (trx) => {
    await replaceComposition(trx, tenantId, id, components);
    await recordAudit(trx, {
      actor: actorOfParty(by),
      action: 'item.composition_set',
      tenantId,
      targetType: 'item',
      targetId: id,
      details: { itemCode: item.item_code, components: body.components },
    });
  });
  const claimed = await claimItemComponents(ctx.db, ctx.secretBox, id, vsdcLeaseMs(ctx.config));
  // One at a time, in the order given: the authority sees the composition as the merchant wrote it.
  for (const component of claimed) await sendComponent(ctx, component);
  return reload(ctx, tenantId, id);
}

/** One attempt to file a leased component; records the answer. */
async function sendComponent(ctx: AppContext, component: ClaimedComponent): Promise<void> {
  const { itemCode, componentCode, quantity } = component;
  const outcome = await ctx.authorities
    .of(component.device.profile)
    .items.registerComponent(component.device, { itemCode, componentCode, quantity });
  await recordComponentOutcome(ctx.db, component.id, component.revision, sentOutcomeOf(ctx.config, outcome, component.retryAttempts));
}

/** One background round: files components whose wait is over (their item registered). Returns how many it handled. */
export async function retryDueComponents(ctx: AppContext): Promise<number> {
  const due = await claimDueComponents(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), COMPONENT_RETRY_BATCH);
  await Promise.all(due.map((component) => sendComponent(ctx, component)));
  return due.length;
}
