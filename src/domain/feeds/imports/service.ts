// Customs declaration lines: pulled per branch from its authority (the adapter's customsLines,
// from the previous answer's cursor on), answered by the merchant (approve with an item code, or
// reject). The decision is the merchant's and stands at once; filing it with the authority
// (the adapter's answerCustomsLine) is a separate fact that may fail or wait for the authority.
import type { CustomsLine } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import { ApiError, NotFoundError, ValidationError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { unknownClassificationCodes } from '../../kernel/catalogue/lookup.ts';
import { pullDueBranches as pullDueBranchesOf, type BranchFeedOf } from '../pulls/template.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { answerOutcomeOf } from '../answers.ts';
import { findItemByCode } from '../../merchant/items/store.ts';
import { presentImportItem } from './present.ts';
import type { ApproveBody, ImportItemResource, ListImportItemsQuery, RejectBody } from './schemas.ts';
import {
  claimDueFilings,
  decide,
  findImportItem,
  leasedFiling,
  listImportItems,
  recordFilingOutcome,
  storeCustomsLines,
  type ClaimedFiling,
  type Decision,
} from './store.ts';

export const FILING_RETRY_BATCH = 20;

// ---- the pull ----

/** The customs lines of a branch: a line already held is left as it is. */
const customsFeed: BranchFeedOf<CustomsLine> = {
  name: 'imports',
  read: (authority) => authority.feeds.customsLines,
  store: async (trx, pull, lines) => {
    await storeCustomsLines(trx, pull, lines);
  },
};

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDueBranches(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranchesOf(ctx, customsFeed, intervalMs);
}

// ---- reading ----

/** All branches, or the one X-Branch names. */
export async function listImportItemsPage(
  ctx: AppContext,
  tenantId: number,
  deviceId: number | undefined,
  query: ListImportItemsQuery,
): Promise<Page<ImportItemResource>> {
  const { rows, total } = await listImportItems(ctx.db, tenantId, { deviceId, decision: query.decision, filing: query.filing }, query.page);
  return pageOf(rows.map(presentImportItem), total, query.page);
}

export async function getImportItem(ctx: AppContext, tenantId: number, id: number): Promise<ImportItemResource> {
  const row = await findImportItem(ctx.db, tenantId, id);
  if (!row) throw new NotFoundError('Import item not found.');
  return presentImportItem(row);
}

// ---- answering ----

async function answer(ctx: AppContext, tenantId: number, id: number, decision: Decision): Promise<ImportItemResource> {
  const result = await decide(ctx.db, tenantId, id, decision, vsdcLeaseMs(ctx.config));
  if (result.kind === 'not_found') throw new NotFoundError('Import item not found.');
  if (result.kind === 'already_decided') {
    throw new ApiError('import_item_already_decided', `This import item was already ${result.decision}; a decision cannot be changed.`);
  }
  const filing = await leasedFiling(ctx.db, ctx.secretBox, id);
  if (filing) await sendFiling(ctx, filing);
  return getImportItem(ctx, tenantId, id);
}

/** `tenant`: the merchant, with the authority whose catalogue a new classification code must be in. */
export async function approveImportItem(
  ctx: AppContext,
  tenant: { id: number; authority: string },
  id: number,
  body: ApproveBody,
): Promise<ImportItemResource> {
  const tenantId = tenant.id;
  if (!(await findImportItem(ctx.db, tenantId, id))) throw new NotFoundError('Import item not found.');
  const itemCode = body.itemCode.trim();
  let itemClassCode = body.itemClassificationCode?.trim();
  if (itemClassCode === undefined || itemClassCode === '') {
    const item = await findItemByCode(ctx.db, tenantId, itemCode);
    if (!item) {
      throw new ValidationError({
        itemClassificationCode: [`The itemClassificationCode field is required when ${itemCode} is not one of your items.`],
      });
    }
    itemClassCode = item.item_class_code;
  } else if ((await unknownClassificationCodes(ctx, tenant.authority, [itemClassCode])).length > 0) {
    throw new ValidationError({
      itemClassificationCode: [`The itemClassificationCode ${itemClassCode} is not in the authority's classification catalogue.`],
    });
  }
  return answer(ctx, tenantId, id, { decision: 'approved', itemCode, itemClassCode, remark: body.remark?.trim() || null });
}

export async function rejectImportItem(ctx: AppContext, tenantId: number, id: number, body: RejectBody): Promise<ImportItemResource> {
  return answer(ctx, tenantId, id, { decision: 'rejected', itemCode: null, itemClassCode: null, remark: body.remark?.trim() || null });
}

/** One attempt to file the merchant's answer with the authority; records the outcome. */
async function sendFiling(ctx: AppContext, filing: ClaimedFiling): Promise<void> {
  const sent = await ctx.authorities.of(filing.device.profile).purchases.answerCustomsLine(filing.device, filing.answer);
  await recordFilingOutcome(ctx.db, filing.id, answerOutcomeOf(ctx.config, sent, filing.retryAttempts));
}

/** One background round: resends answers whose wait is over. Returns how many it handled. */
export async function retryDueFilings(ctx: AppContext): Promise<number> {
  const due = await claimDueFilings(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), FILING_RETRY_BATCH);
  await Promise.all(due.map((filing) => sendFiling(ctx, filing)));
  return due.length;
}
