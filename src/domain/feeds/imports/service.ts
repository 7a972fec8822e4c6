// Customs declaration lines: pulled per branch from its VSDC (selectImportItems, from the
// previous answer's resultDt on), answered by the merchant (approve with an item code, or
// reject). The decision is the merchant's and stands at once; filing it with the authority
// (updateImportItems) is a separate fact that may fail or wait for the VSDC.
import type { ImportItem, ImportItemDecision, UpdateImportItemsRequest } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { ApiError, NotFoundError, ValidationError } from '../../../platform/errors/errors.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { receivedDecimal, receivedText } from '../../../authorities/zra-vsdc/received.ts';
import { unknownClassificationCodes } from '../../kernel/catalogue/lookup.ts';
import { pullBranch, type ClaimedPull, pullDueBranchesOf } from '../pulls/branch-pulls.ts';
import { vsdcLeaseMs, sendOutcomeOf } from '../../kernel/authority-rows/answers.ts';
import { GATEWAY_REGISTRANT } from '../../../authorities/zra-vsdc/registrant.ts';
import { findItemByCode } from '../../merchant/items/store.ts';
import { presentImportItem } from './present.ts';
import type { ApproveBody, ImportItemResource, ListImportItemsQuery, RejectBody } from './schemas.ts';
import { claimDueFilings, decide, findImportItem, leasedFiling, listImportItems, recordFilingOutcome, savePull, type ClaimedFiling, type Decision, type ReceivedLine } from './store.ts';

export const FILING_RETRY_BATCH = 20;

// ---- the pull ----

const text = receivedText;
const decimal = receivedDecimal;

/** A line the gateway can key and answer (taskCd, dclDe, itemSeq), or undefined. */
function toReceivedLine(raw: ImportItem): ReceivedLine | undefined {
  const taskCd = text(raw.taskCd);
  const dclDe = text(raw.dclDe);
  const itemSeq = decimal(raw.itemSeq);
  if (taskCd === null || dclDe === null || itemSeq === null || !Number.isInteger(itemSeq) || itemSeq < 0 || itemSeq > 2_147_483_647) return undefined;
  return {
    task_cd: taskCd,
    dcl_de: dclDe,
    item_seq: itemSeq,
    dcl_no: text(raw.dclNo),
    hs_cd: text(raw.hsCd),
    item_name: text(raw.itemNm),
    origin_country_code: text(raw.orgnNatCd),
    export_country_code: text(raw.exptNatCd),
    packages: decimal(raw.pkg),
    packaging_unit_code: text(raw.pkgUnitCd),
    quantity: decimal(raw.qty),
    quantity_unit_code: text(raw.qtyUnitCd),
    total_weight: decimal(raw.totWt),
    net_weight: decimal(raw.netWt),
    supplier_name: text(raw.spplrNm),
    agent_name: text(raw.agntNm),
    invoice_foreign_amount: decimal(raw.invcFcurAmt),
    invoice_currency: text(raw.invcFcurCd),
    exchange_rate: decimal(raw.invcFcurExcrt),
    line: raw,
  };
}

/** Pulls one leased branch: what changed since its last answer's resultDt. */
async function pullImportBranch(ctx: AppContext, pull: ClaimedPull, intervalMs: number): Promise<void> {
  await pullBranch(ctx, 'import_pulls', pull, intervalMs, ctx.vsdc.selectImportItems, async (data, resultDt) => {
    const list: unknown = data?.itemList;
    const lines = (Array.isArray(list) ? (list as ImportItem[]) : []).map(toReceivedLine).filter((l) => l !== undefined);
    await savePull(ctx.db, pull, lines, resultDt, intervalMs);
  });
}

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDueBranches(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranchesOf(ctx, 'import_pulls', (pull) => pullImportBranch(ctx, pull, intervalMs));
}

// ---- reading ----

/** All branches, or the one X-Branch names. */
export async function listImportItemsPage(ctx: AppContext, tenantId: number, deviceId: number | undefined, query: ListImportItemsQuery): Promise<Page<ImportItemResource>> {
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
  const filing = await leasedFiling(ctx.db, id);
  if (filing) await sendFiling(ctx, filing);
  return getImportItem(ctx, tenantId, id);
}

export async function approveImportItem(ctx: AppContext, tenantId: number, id: number, body: ApproveBody): Promise<ImportItemResource> {
  if (!(await findImportItem(ctx.db, tenantId, id))) throw new NotFoundError('Import item not found.');
  const itemCode = body.itemCode.trim();
  let itemClassCode = body.itemClassificationCode?.trim();
  if (itemClassCode === undefined || itemClassCode === '') {
    const item = await findItemByCode(ctx.db, tenantId, itemCode);
    if (!item) {
      throw new ValidationError({ itemClassificationCode: [`The itemClassificationCode field is required when ${itemCode} is not one of your items.`] });
    }
    itemClassCode = item.item_class_code;
  } else if ((await unknownClassificationCodes(ctx, [itemClassCode])).length > 0) {
    throw new ValidationError({ itemClassificationCode: [`The itemClassificationCode ${itemClassCode} is not in the authority's classification catalogue.`] });
  }
  return answer(ctx, tenantId, id, { decision: 'approved', itemCode, itemClassCode, remark: body.remark?.trim() || null });
}

export async function rejectImportItem(ctx: AppContext, tenantId: number, id: number, body: RejectBody): Promise<ImportItemResource> {
  return answer(ctx, tenantId, id, { decision: 'rejected', itemCode: null, itemClassCode: null, remark: body.remark?.trim() || null });
}

/** Import item status (code class 26): 3 approved, 4 cancelled (rejected). */
const STATUS_CODE = { approved: '3', rejected: '4' } as const;

function filingPayload(filing: ClaimedFiling): UpdateImportItemsRequest {
  const line: ImportItemDecision = {
    itemSeq: filing.itemSeq,
    hsCd: filing.hsCd,
    itemClsCd: filing.itemClassCode,
    itemCd: filing.itemCode,
    imptItemSttsCd: STATUS_CODE[filing.decision],
    remark: filing.remark,
    modrId: GATEWAY_REGISTRANT,
    modrNm: GATEWAY_REGISTRANT,
  };
  return { taskCd: filing.taskCd, dclDe: filing.dclDe, importItemList: [line] };
}

/** One attempt to file the merchant's answer with the authority; records the outcome. */
async function sendFiling(ctx: AppContext, filing: ClaimedFiling): Promise<void> {
  const outcome = await ctx.vsdc.updateImportItems(filing.target, filingPayload(filing));
  await recordFilingOutcome(ctx.db, filing.id, sendOutcomeOf(ctx.config, outcome, filing.retryAttempts));
}

/** One background round: resends answers whose wait is over. Returns how many it handled. */
export async function retryDueFilings(ctx: AppContext): Promise<number> {
  const due = await claimDueFilings(ctx.db, vsdcLeaseMs(ctx.config), FILING_RETRY_BATCH);
  await Promise.all(due.map((filing) => sendFiling(ctx, filing)));
  return due.length;
}
