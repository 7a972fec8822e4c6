// The VSDC's stock beside the gateway's (docs/stock.md#compared-with-the-vsdc). The VSDC keeps a
// ledger of each branch's movements (saveStockItems); `selectStockItems` returns those changed
// since `lastReqDt`. The gateway keeps a copy per branch, pulled like the other feeds (hourly by
// default, STOCK_PULL_INTERVAL) or at the merchant's request, and the VSDC's level of an item is
// the sum of its movements in that copy (saveStockMaster's levels cannot be read back). A
// difference that only the branch's movements not yet in the VSDC's ledger explain is `pending`,
// not `differs`.
import type { StockMovement } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import type { BranchDevice } from '../../kernel/devices/store.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { pageOf } from '../../../platform/http/pagination.ts';
import type { DeviceTarget } from '../../../authorities/zra-vsdc/client.ts';
import { pullRequestDate } from '../../kernel/authority-rows/answers.ts';
import { receivedDecimal, receivedList, receivedText } from '../../../authorities/zra-vsdc/received.ts';
import { finishPull, pullBranch, pullDueBranchesOf, type ClaimedPull } from '../pulls/branch-pulls.ts';
import type { ReconciliationQuery, StockReconciliationResource } from './schemas.ts';
import {
  answeredSarNo,
  compareLevels,
  finishLivePull,
  ledgerStateOf,
  livePullOf,
  markLedgerRead,
  recordLivePullError,
  storeLedgerMovements,
  type LedgerMovement,
} from './store.ts';

/** `sarTyCd` (code class 12): `0x` brings stock in (+1), `1x` takes it out (−1); another code moves nothing. */
function directionOf(sarTyCd: string | null): 1 | -1 | 0 {
  if (sarTyCd === null || !/^\d{2}$/.test(sarTyCd)) return 0;
  return sarTyCd.startsWith('0') ? 1 : sarTyCd.startsWith('1') ? -1 : 0;
}

/** A movement of the ledger the gateway can key (a whole `sarNo` ≥ 0), with its readable lines; else undefined. */
export function toLedgerMovement(raw: StockMovement): LedgerMovement | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const sarNo = receivedDecimal(raw.sarNo);
  if (sarNo === null || !Number.isSafeInteger(sarNo) || sarNo < 0) return undefined;
  const sarTypeCode = receivedText(raw.sarTyCd);
  const sign = directionOf(sarTypeCode);
  const lines: LedgerMovement['lines'] = [];
  for (const [index, line] of (Array.isArray(raw.itemList) ? raw.itemList : []).entries()) {
    if (line === null || typeof line !== 'object') continue;
    const itemCode = receivedText(line.itemCd);
    const quantity = receivedDecimal(line.qty);
    if (itemCode === null || quantity === null) continue;
    // Stored to 4 decimals, as the gateway's own quantities.
    lines.push({ seq: index + 1, itemCode, quantity: (sign * Math.abs(quantity)).toFixed(4) });
  }
  return { sarNo, sarTypeCode, movement: raw, lines };
}

function ledgerOf(data: unknown): LedgerMovement[] {
  return receivedList<StockMovement>(data, 'stockList').map(toLedgerMovement).filter((m) => m !== undefined);
}

/** Pulls one leased branch's ledger: what changed since its last answer's resultDt. */
async function pullLedgerBranch(ctx: AppContext, pull: ClaimedPull, intervalMs: number): Promise<void> {
  const answered = await answeredSarNo(ctx.db, pull.deviceId);
  const select = (target: DeviceTarget, payload: { lastReqDt: string }) => ctx.vsdc.selectStockItems(target, payload);
  await pullBranch(ctx, 'stock_ledger_pulls', pull, intervalMs, select, async (data, resultDt) => {
    await ctx.db.transaction().execute(async (trx) => {
      await storeLedgerMovements(trx, pull.deviceId, ledgerOf(data));
      await markLedgerRead(trx, pull.deviceId, answered);
      await finishPull(trx, 'stock_ledger_pulls', pull.deviceId, resultDt, intervalMs);
    });
  });
}

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDueStockLedgers(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranchesOf(ctx, 'stock_ledger_pulls', (pull) => pullLedgerBranch(ctx, pull, intervalMs));
}

/**
 * Reads the branch's ledger now (a live selectStockItems, within the VSDC client's timeout) and
 * stores it as a background pull would. No answer: 503; an error for an answer: 502; nothing stored.
 */
export async function refreshLedger(ctx: AppContext, device: BranchDevice): Promise<void> {
  const { target, lastReqDt } = await livePullOf(ctx.db, device.id);
  const answered = await answeredSarNo(ctx.db, device.id);
  const outcome = await ctx.vsdc.selectStockItems(target, { lastReqDt: pullRequestDate(lastReqDt) });
  if (outcome.kind === 'unreachable') {
    await recordLivePullError(ctx.db, device.id, `${outcome.reason}: ${outcome.detail}`);
    throw new ApiError(
      'vsdc_unreachable',
      `The VSDC of branch ${device.branch} did not answer (${outcome.reason}), so its stock could not be read now; nothing was changed. Retry shortly, or leave out refresh=true to compare with the copy read last.`,
      { 'retry-after': '5' },
    );
  }
  if (outcome.kind === 'rejected') {
    await recordLivePullError(ctx.db, device.id, `${outcome.code} ${outcome.message}`);
    throw new ApiError(
      'vsdc_refused',
      `The VSDC of branch ${device.branch} answered selectStockItems with ${outcome.code} (${outcome.message}); nothing was changed. Leave out refresh=true to compare with the copy read last.`,
    );
  }
  const intervalMs = ctx.config.stockPullIntervalSec * 1000;
  await ctx.db.transaction().execute(async (trx) => {
    await storeLedgerMovements(trx, device.id, outcome.kind === 'ok' ? ledgerOf(outcome.data) : []);
    await markLedgerRead(trx, device.id, answered);
    await finishLivePull(trx, device.id, outcome.resultDt, intervalMs);
  });
}

/** The branch's items compared: the gateway's level beside the VSDC's (after a live read with `refresh`). */
export async function stockReconciliation(ctx: AppContext, tenantId: number, device: BranchDevice, query: ReconciliationQuery): Promise<StockReconciliationResource> {
  if (query.refresh) await refreshLedger(ctx, device);
  const state = await ledgerStateOf(ctx.db, device.id);
  const { rows, counts } = await compareLevels(ctx.db, device.id, tenantId, state.answered, { status: query.status }, query.page);
  const read = state.answered !== null;
  const total = query.status === undefined ? counts.matches + counts.pending + counts.differs + counts.unknown : counts[query.status];
  const page = pageOf(
    rows.map((r) => ({
      itemCode: r.item_code,
      itemName: r.item_name,
      gatewayQuantity: Number(r.gateway),
      vsdcQuantity: read ? Number(r.vsdc) : null,
      difference: read ? Number(r.difference) : null,
      unsentMovements: r.unsent_movements,
      unsentQuantity: Number(r.unsent),
      status: r.status,
    })),
    total,
    query.page,
  );
  return {
    data: {
      branch: device.branch,
      pulledAt: read && state.pulledAt ? state.pulledAt.toISOString() : null,
      lastError: state.lastError,
      summary: { items: counts.matches + counts.pending + counts.differs + counts.unknown, matching: counts.matches, pending: counts.pending, differing: counts.differs },
      items: page.data,
    },
    meta: page.meta,
  };
}
