// Sends one branch's stock chain under its lease: each unsent movement in sarNo order,
// `saveStockItems` then `saveStockMaster` (the absolute quantities after that movement). A
// movement whose items were accepted but whose master was not is resumed at the master. A
// refusal fails that movement and the branch goes on; no answer defers the branch (backoff).
// No database transaction is open across a VSDC call.
import { formatVsdcDate, type SaveStockItemsRequest, type SaveStockMasterRequest, type StockMovementType } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { nextBackoffMs } from '../../../platform/workers/backoff.ts';
import { GATEWAY_REGISTRANT_FIELDS } from '../../../authorities/zra-vsdc/registrant.ts';
import { deferChainBranch, nextUnsent, recordChainStep, releaseChainBranch, type ChainMovement, type ChainStep, type ClaimedChainBranch } from './chain-store.ts';


function stockItemsBody(movement: ChainMovement): SaveStockItemsRequest {
  return {
    sarNo: movement.sarNo,
    orgSarNo: 0,
    // Movements that follow a document are automatic; a merchant's adjustment is manual.
    regTyCd: movement.sourceKind === 'adjustment' ? 'M' : 'A',
    // Pulled supplier data is not always clean; a TPIN that is not 10 digits is the VSDC's 910.
    custTpin: movement.counterpartyTpin !== null && /^\d{10}$/.test(movement.counterpartyTpin) ? movement.counterpartyTpin : null,
    custNm: movement.counterpartyName,
    custBhfId: movement.counterpartyBranch,
    sarTyCd: movement.sarTypeCode as StockMovementType,
    ocrnDt: formatVsdcDate(movement.createdAt),
    totItemCnt: movement.lines.length,
    totTaxblAmt: Number(movement.totalTaxable),
    totTaxAmt: Number(movement.totalTax),
    totAmt: Number(movement.totalAmount),
    remark: movement.remark,
    ...GATEWAY_REGISTRANT_FIELDS,
    itemList: movement.lines.map((l) => ({
      itemSeq: l.seq,
      itemCd: l.itemCode,
      itemClsCd: l.itemClassCode ?? '',
      itemNm: l.itemName ?? l.itemCode,
      bcd: l.barcode,
      pkgUnitCd: l.packagingUnitCode ?? 'NT',
      pkg: Number(l.quantity),
      qtyUnitCd: l.quantityUnitCode ?? 'U',
      qty: Number(l.quantity),
      itemExprDt: null,
      prc: Number(l.unitPrice),
      splyAmt: Number(l.total),
      // Never null: a null is the VSDC's 910.
      totDcAmt: 0,
      taxblAmt: Number(l.taxable),
      vatCatCd: l.vatCategory ?? 'A',
      iplCatCd: null,
      tlCatCd: null,
      exciseTxCatCd: null,
      vatAmt: Number(l.tax),
      iplAmt: 0,
      tlAmt: 0,
      exciseTxAmt: 0,
      taxAmt: Number(l.tax),
      totAmt: Number(l.total),
    })),
  };
}

/** Each item of the movement once (the same itemCd twice is the VSDC's 999), with what the branch held after it. */
function stockMasterBody(movement: ChainMovement): SaveStockMasterRequest {
  const remaining = new Map<string, string>();
  for (const l of movement.lines) remaining.set(l.itemCode, l.remaining);
  return { ...GATEWAY_REGISTRANT_FIELDS, stockItemList: [...remaining].map(([itemCd, rsdQty]) => ({ itemCd, rsdQty: Number(rsdQty) })) };
}

type ChainDrain = { kind: 'done' } | { kind: 'deferred'; retryInMs: number } | { kind: 'lease_lost' } | { kind: 'stopped' };

interface ChainSenderOptions {
  owner: string;
  leaseMs: number;
  /** No new call once aborted. */
  stopping: AbortSignal;
  /** Cuts calls in flight (the stop's grace is over). */
  cut: AbortSignal;
}

/** Sends the claimed branch's unsent movements in order until none is left, the VSDC does not answer, or the stop. */
export async function drainChain(ctx: AppContext, branch: ClaimedChainBranch, options: ChainSenderOptions): Promise<ChainDrain> {
  const { owner, leaseMs } = options;
  const defer = async (outcome: { reason: string; detail: string }): Promise<ChainDrain> => {
    const delayMs = branch.retryDelayMs === null ? ctx.config.filingRetryMs : nextBackoffMs(branch.retryDelayMs);
    await deferChainBranch(ctx.db, branch.deviceId, owner, delayMs, `${outcome.reason}: ${outcome.detail}`);
    return { kind: 'deferred', retryInMs: delayMs };
  };
  for (;;) {
    if (options.stopping.aborted) {
      await releaseChainBranch(ctx.db, branch.deviceId, owner);
      return { kind: 'stopped' };
    }
    const movement = await nextUnsent(ctx.db, branch.deviceId);
    if (!movement) {
      await releaseChainBranch(ctx.db, branch.deviceId, owner);
      return { kind: 'done' };
    }
    let step: ChainStep | undefined;
    if (movement.state === 'pending') {
      const outcome = await ctx.vsdc.saveStockItems(branch.target, stockItemsBody(movement), { signal: options.cut });
      if (outcome.kind === 'unreachable') return defer(outcome);
      step = outcome.kind === 'ok' ? { kind: 'items_sent' } : { kind: 'failed', code: outcome.code, message: outcome.message };
      if (!(await recordChainStep(ctx.db, branch.deviceId, movement.id, owner, leaseMs, step))) return { kind: 'lease_lost' };
      if (step.kind === 'failed') continue;
    }
    const outcome = await ctx.vsdc.saveStockMaster(branch.target, stockMasterBody(movement), { signal: options.cut });
    if (outcome.kind === 'unreachable') return defer(outcome);
    step = outcome.kind === 'ok' ? { kind: 'sent' } : { kind: 'failed', code: outcome.code, message: `saveStockMaster: ${outcome.message}` };
    if (!(await recordChainStep(ctx.db, branch.deviceId, movement.id, owner, leaseMs, step))) return { kind: 'lease_lost' };
  }
}
