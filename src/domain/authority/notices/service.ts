// What the authority publishes to a taxpayer beyond its sales: notices (selectNotices) and the
// taxpayer's branches (selectBranches). Both are pulled per tenant through one of its initialised
// devices, each from its previous answer's resultDt on, like the customs imports pull; the
// branches are also fetched at a device's initialisation, so a partner sees them at once.
import { parseVsdcDateTime, VSDC_EPOCH, type BranchRecord, type Notice } from '@fiscal-gateway/vsdc-protocol';
import type { AppContext } from '../../kernel/context.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { pullStepOf, vsdcLeaseMs } from '../../../vsdc/polling.ts';
import { presentAuthorityBranch, presentNotice } from './present.ts';
import type { AuthorityBranchResource, ListNoticesQuery, NoticeResource } from './schemas.ts';
import {
  authorityBranchesOf,
  authorityTargetOf,
  claimDueAuthorityPulls,
  deferAuthorityPull,
  listNotices,
  saveBranchesPull,
  saveNoticesPull,
  upsertBranches,
  type ClaimedAuthorityPull,
  type ReceivedBranch,
  type ReceivedNotice,
} from './store.ts';

export const AUTHORITY_PULL_BATCH = 20;

/** The at-initialisation fetch of the branches never holds the answer longer than this. */
const BRANCHES_AT_INIT_TIMEOUT_MS = 5_000;

// ---- reading what the VSDC sends (stored as received; never refused) ----

const text = (value: unknown): string | null => {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
};

/** A notice the gateway can key (a whole `noticeNo`), or undefined. */
export function toReceivedNotice(raw: Notice): ReceivedNotice | undefined {
  const number = typeof raw.noticeNo === 'string' ? Number(String(raw.noticeNo).trim()) : raw.noticeNo;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) return undefined;
  return {
    notice_no: number,
    title: text(raw.title),
    content: text(raw.cont),
    detail_url: text(raw.dtlUrl),
    registered_by: text(raw.regrNm),
    registered_at: parseVsdcDateTime(text(raw.regDt)),
    notice: raw,
  };
}

/** A branch the gateway can key (a 3-digit `bhfId`), or undefined. */
export function toReceivedBranch(raw: BranchRecord): ReceivedBranch | undefined {
  const branch = text(raw.bhfId);
  if (branch === null || !/^\d{3}$/.test(branch)) return undefined;
  return {
    branch,
    name: text(raw.bhfNm),
    status_code: text(raw.bhfSttsCd),
    opened_on: text(raw.bhfOpenDt),
    province: text(raw.prvncNm),
    district: text(raw.dstrtNm),
    sector: text(raw.sctrNm),
    location: text(raw.locDesc),
    headquarters: text(raw.hqYn)?.toUpperCase() === 'Y',
    manager_name: text(raw.mgrNm),
    manager_phone: text(raw.mgrTelNo),
    manager_email: text(raw.mgrEmail),
    branch_record: raw,
  };
}

function listOf<T>(data: unknown, key: string): T[] {
  const list: unknown = (data as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? (list as T[]) : [];
}

// ---- the pull ----

function intervalMsOf(ctx: AppContext, feed: ClaimedAuthorityPull['feed']): number {
  return (feed === 'notices' ? ctx.config.noticePullIntervalSec : ctx.config.branchSyncIntervalSec) * 1000;
}

/** The event's `data`: the notice as the API shows it, and whose it is. */
function noticeEventData(row: Parameters<typeof presentNotice>[0], tenant: { id: number; name: string; tpin: string }): Record<string, unknown> {
  return { notice: presentNotice(row), tenant: { id: tenant.id, name: tenant.name, tpin: tenant.tpin } };
}

/** Pulls one leased feed: what changed since its last answer's resultDt. */
export async function pullFeed(ctx: AppContext, pull: ClaimedAuthorityPull, intervalMs = intervalMsOf(ctx, pull.feed)): Promise<void> {
  const since = { lastReqDt: pull.lastReqDt ?? VSDC_EPOCH };
  if (pull.feed === 'notices') {
    const step = pullStepOf(ctx.config, await ctx.vsdc.selectNotices(pull.target, since), intervalMs, pull.failures);
    if (step.kind === 'defer') return deferAuthorityPull(ctx.db, pull.id, step.retryInMs, step.error);
    const notices = listOf<Notice>(step.data, 'noticeList').map(toReceivedNotice).filter((n) => n !== undefined);
    await saveNoticesPull(ctx.db, ctx.database.notifier, pull, notices, step.resultDt, intervalMs, noticeEventData);
    return;
  }
  const step = pullStepOf(ctx.config, await ctx.vsdc.selectBranches(pull.target, since), intervalMs, pull.failures);
  if (step.kind === 'defer') return deferAuthorityPull(ctx.db, pull.id, step.retryInMs, step.error);
  const branches = listOf<BranchRecord>(step.data, 'bhfList').map(toReceivedBranch).filter((b) => b !== undefined);
  await saveBranchesPull(ctx.db, pull, branches, step.resultDt, intervalMs);
}

/** One round: every tenant feed whose pull is due. `intervalMs` overrides the configured intervals (tests). Returns how many. */
export async function pullDueAuthorityFeeds(ctx: AppContext, intervalMs?: number): Promise<number> {
  const due = await claimDueAuthorityPulls(ctx.db, vsdcLeaseMs(ctx.config), AUTHORITY_PULL_BATCH);
  await Promise.all(due.map((pull) => pullFeed(ctx, pull, intervalMs ?? intervalMsOf(ctx, pull.feed))));
  return due.length;
}

/**
 * After a device's initialisation: records every branch the authority reports for the tenant
 * (from the beginning, through the tenant's pull device). Never fails the initialisation: a
 * refusal or no answer is logged and the scheduled pull tries again.
 */
export async function learnBranchesAtInitialisation(ctx: AppContext, tenantId: number): Promise<void> {
  const log = ctx.log.child({ tenantId, task: 'authority.branches' });
  try {
    const target = await authorityTargetOf(ctx.db, tenantId);
    if (!target) return;
    const outcome = await ctx.vsdc.selectBranches(target, { lastReqDt: VSDC_EPOCH }, { timeoutMs: Math.min(ctx.config.vsdcTimeoutMs, BRANCHES_AT_INIT_TIMEOUT_MS) });
    if (outcome.kind === 'ok') {
      await upsertBranches(ctx.db, tenantId, listOf<BranchRecord>(outcome.data, 'bhfList').map(toReceivedBranch).filter((b) => b !== undefined));
    } else if (outcome.kind !== 'empty') {
      log.warn({ outcome: outcome.kind === 'rejected' ? `${outcome.code} ${outcome.message}` : `${outcome.reason}: ${outcome.detail}` }, 'selectBranches at initialisation got no list; the scheduled pull will retry');
    }
  } catch (err) {
    log.warn({ err }, 'selectBranches at initialisation failed; the scheduled pull will retry');
  }
}

// ---- reading ----

export async function listNoticesPage(ctx: AppContext, tenantId: number, query: ListNoticesQuery): Promise<Page<NoticeResource>> {
  const { rows, total } = await listNotices(ctx.db, tenantId, query.page);
  return pageOf(rows.map(presentNotice), total, query.page);
}

/**
 * The authority's branches of each tenant, as resources; `registered` gives the branches each
 * tenant has a device registered for (tenants absent from it get none).
 */
export async function authorityBranchesFor(db: AppContext['db'], registered: ReadonlyMap<number, readonly string[]>): Promise<Map<number, AuthorityBranchResource[]>> {
  const rows = await authorityBranchesOf(db, [...registered.keys()]);
  return new Map(
    [...registered].map(([tenantId, branches]) => {
      const devices = new Set(branches);
      return [tenantId, (rows.get(tenantId) ?? []).map((row) => presentAuthorityBranch(row, devices))];
    }),
  );
}
