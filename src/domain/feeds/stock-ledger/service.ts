// The VSDC's stock beside the gateway's (docs/stock.md#compared-with-the-vsdc). The VSDC keeps a
// ledger of each branch's movements (the stock port's movements); the adapter's stockLedger
// returns those changed since a cursor. The gateway keeps a copy per branch, pulled like the
// other feeds (hourly by default, STOCK_PULL_INTERVAL) or at the merchant's request, and the
// VSDC's level of an item is the sum of its movements in that copy (the levels the gateway sends
// cannot be read back). A
// difference that only the branch's movements not yet in the VSDC's ledger explain is `pending`,
// not `differs`.
import type { LedgerMove } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import type { BranchDevice } from '../../kernel/devices/store.ts';
import { ApiError } from '../../../platform/errors/errors.ts';
import { pageOf } from '../../../platform/http/pagination.ts';
import { pullDueBranches, type BranchFeedOf } from '../pulls/template.ts';
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
} from './store.ts';

/** The ledger of a branch, with how far its own movements were answered just before it was read. */
const ledgerFeed: BranchFeedOf<LedgerMove, void, number> = {
  name: 'stock-ledger',
  read: (authority) => authority.feeds.stockLedger,
  before: (db, pull) => answeredSarNo(db, pull.deviceId),
  store: async (trx, pull, moves, answered) => {
    await storeLedgerMovements(trx, pull.deviceId, moves);
    await markLedgerRead(trx, pull.deviceId, answered);
  },
};

/** One round of the pull: every initialised branch whose pull is due. Returns how many. */
export function pullDueStockLedgers(ctx: AppContext, intervalMs: number): Promise<number> {
  return pullDueBranches(ctx, ledgerFeed, intervalMs);
}

/**
 * Reads the branch's ledger now (a live read through the adapter, within the client's timeout)
 * and stores it as a background pull would. No answer: 503; an error for an answer: 502; nothing stored.
 */
async function refreshLedger(ctx: AppContext, device: BranchDevice): Promise<void> {
  const { device: authorityDevice, cursor } = await livePullOf(ctx.db, ctx.secretBox, device.id);
  const answered = await answeredSarNo(ctx.db, device.id);
  const outcome = await ctx.authorities.of(authorityDevice.profile).feeds.stockLedger(authorityDevice, cursor);
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
      `The VSDC of branch ${device.branch} answered the read of its stock ledger with ${outcome.code} (${outcome.message}); nothing was changed. Leave out refresh=true to compare with the copy read last.`,
    );
  }
  const intervalMs = ctx.config.stockPullIntervalSec * 1000;
  await ctx.db.transaction().execute(async (trx) => {
    await storeLedgerMovements(trx, device.id, outcome.kind === 'ok' ? outcome.records : []);
    await markLedgerRead(trx, device.id, answered);
    await finishLivePull(trx, device.id, outcome.cursor, intervalMs);
  });
}

/** The branch's items compared: the gateway's level beside the VSDC's (after a live read with `refresh`). */
export async function stockReconciliation(
  ctx: AppContext,
  tenantId: number,
  device: BranchDevice,
  query: ReconciliationQuery,
): Promise<StockReconciliationResource> {
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
      summary: {
        items: counts.matches + counts.pending + counts.differs + counts.unknown,
        matching: counts.matches,
        pending: counts.pending,
        differing: counts.differs,
      },
      items: page.data,
    },
    meta: page.meta,
  };
}
