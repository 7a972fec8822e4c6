// What the authority publishes to a taxpayer beyond its sales: notices (selectNotices) and the
// taxpayer's branches (selectBranches). Both are pulled per tenant through one of its initialised
// devices, each from its previous answer's resultDt on, like the customs imports pull; the
// branches are also fetched at a device's initialisation, so a partner sees them at once.
import { parseVsdcDateTime, type BranchRecord, type Notice } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { pullRequestDate, pullStepOf, vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { presentNotice } from './present.ts';
import type { ListNoticesQuery, NoticeResource } from './schemas.ts';
import { claimDueAuthorityPulls, deferAuthorityPull, listNotices, saveBranchesPull, saveNoticesPull, type ClaimedAuthorityPull, type ReceivedNotice } from './store.ts';
import { toReceivedBranch } from '../../kernel/devices/register.ts';
import { receivedList, receivedText } from '../../../authorities/zra-vsdc/received.ts';

export const AUTHORITY_PULL_BATCH = 20;

/** A notice the gateway can key (a whole `noticeNo`), or undefined. */
export function toReceivedNotice(raw: Notice): ReceivedNotice | undefined {
  const number = typeof raw.noticeNo === 'string' ? Number(String(raw.noticeNo).trim()) : raw.noticeNo;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) return undefined;
  return {
    notice_no: number,
    title: receivedText(raw.title),
    content: receivedText(raw.cont),
    detail_url: receivedText(raw.dtlUrl),
    registered_by: receivedText(raw.regrNm),
    registered_at: parseVsdcDateTime(receivedText(raw.regDt)),
    notice: raw,
  };
}

function intervalMsOf(ctx: AppContext, feed: ClaimedAuthorityPull['feed']): number {
  return (feed === 'notices' ? ctx.config.noticePullIntervalSec : ctx.config.branchSyncIntervalSec) * 1000;
}

/** The event's `data`: the notice as the API shows it, and whose it is. */
function noticeEventData(row: Parameters<typeof presentNotice>[0], tenant: { id: number; name: string; tpin: string }): Record<string, unknown> {
  return { notice: presentNotice(row), tenant: { id: tenant.id, name: tenant.name, tpin: tenant.tpin } };
}

/** Pulls one leased feed: what changed since its last answer's resultDt. */
async function pullFeed(ctx: AppContext, pull: ClaimedAuthorityPull, intervalMs = intervalMsOf(ctx, pull.feed)): Promise<void> {
  const since = { lastReqDt: pullRequestDate(pull.lastReqDt) };
  if (pull.feed === 'notices') {
    const step = pullStepOf(ctx.config, await ctx.vsdc.selectNotices(pull.target, since), intervalMs, pull.failures);
    if (step.kind === 'defer') return deferAuthorityPull(ctx.db, pull.id, step.retryInMs, step.error);
    const notices = receivedList<Notice>(step.data, 'noticeList').map(toReceivedNotice).filter((n) => n !== undefined);
    await saveNoticesPull(ctx.db, ctx.database.notifier, pull, notices, step.resultDt, intervalMs, noticeEventData);
    return;
  }
  const step = pullStepOf(ctx.config, await ctx.vsdc.selectBranches(pull.target, since), intervalMs, pull.failures);
  if (step.kind === 'defer') return deferAuthorityPull(ctx.db, pull.id, step.retryInMs, step.error);
  const branches = receivedList<BranchRecord>(step.data, 'bhfList').map(toReceivedBranch).filter((b) => b !== undefined);
  await saveBranchesPull(ctx.db, pull, branches, step.resultDt, intervalMs);
}

/** One round: every tenant feed whose pull is due. `intervalMs` overrides the configured intervals (tests). Returns how many. */
export async function pullDueAuthorityFeeds(ctx: AppContext, intervalMs?: number): Promise<number> {
  const due = await claimDueAuthorityPulls(ctx.db, vsdcLeaseMs(ctx.config), AUTHORITY_PULL_BATCH);
  await Promise.all(due.map((pull) => pullFeed(ctx, pull, intervalMs ?? intervalMsOf(ctx, pull.feed))));
  return due.length;
}

export async function listNoticesPage(ctx: AppContext, tenantId: number, query: ListNoticesQuery): Promise<Page<NoticeResource>> {
  const { rows, total } = await listNotices(ctx.db, tenantId, query.page);
  return pageOf(rows.map(presentNotice), total, query.page);
}
