// What the authority publishes to a taxpayer beyond its sales: notices and the taxpayer's
// branches (the adapter's notices and branches). Both are pulled per tenant through one of its
// initialised devices, each from its previous answer's cursor on, by the pull template; the
// branches are also fetched at a device's initialisation, so a partner sees them at once.
import type { AuthorityBranch, AuthorityNotice } from '../../../authorities/port/index.ts';
import type { AppContext } from '../../kernel/context.ts';
import { pageOf, type Page } from '../../../platform/http/pagination.ts';
import { vsdcLeaseMs } from '../../kernel/authority-rows/answers.ts';
import { receivedBranchOf } from '../../kernel/devices/register.ts';
import { upsertBranches } from '../../kernel/devices/store.ts';
import { claimDueTenantPulls, PULL_BATCH, pullOnce, type ClaimedPull, type Feed } from '../pulls/template.ts';
import { presentNotice } from './present.ts';
import type { ListNoticesQuery, NoticeResource } from './schemas.ts';
import { listNotices, storeNotices, type ReceivedNotice } from './store.ts';

/** A notice as the gateway keeps it. */
function toReceivedNotice(n: AuthorityNotice): ReceivedNotice {
  return {
    notice_no: n.number,
    title: n.title,
    content: n.content,
    detail_url: n.detailUrl,
    registered_by: n.registeredBy,
    registered_at: n.registeredAt,
    notice: n.raw,
  };
}

/** The event's `data`: the notice as the API shows it, and whose it is. */
function noticeEventData(
  row: Parameters<typeof presentNotice>[0],
  tenant: { id: number; name: string; tpin: string },
): Record<string, unknown> {
  return { notice: presentNotice(row), tenant: { id: tenant.id, name: tenant.name, tpin: tenant.tpin } };
}

function noticesFeed(ctx: AppContext): Feed<AuthorityNotice, number> {
  return {
    name: 'notices',
    read: (authority) => authority.feeds.notices,
    store: (trx, pull, notices) => storeNotices(trx, ctx.database.notifier, pull.tenantId, notices.map(toReceivedNotice), noticeEventData),
  };
}

const branchesFeed: Feed<AuthorityBranch> = {
  name: 'branches',
  read: (authority) => (device, cursor, options) => authority.register.branches(device, cursor, options),
  store: (trx, pull, branches) => upsertBranches(trx, pull.tenantId, branches.map(receivedBranchOf)),
};

function intervalMsOf(ctx: AppContext, feed: ClaimedPull['feed']): number {
  return (feed === 'notices' ? ctx.config.noticePullIntervalSec : ctx.config.branchSyncIntervalSec) * 1000;
}

/** One round: every tenant feed whose pull is due. `intervalMs` overrides the configured intervals (tests). Returns how many. */
export async function pullDueAuthorityFeeds(ctx: AppContext, intervalMs?: number): Promise<number> {
  const due = await claimDueTenantPulls(ctx.db, ctx.secretBox, vsdcLeaseMs(ctx.config), PULL_BATCH);
  await Promise.all(
    due.map((pull) => {
      const every = intervalMs ?? intervalMsOf(ctx, pull.feed);
      return pull.feed === 'notices' ? pullOnce(ctx, noticesFeed(ctx), pull, every) : pullOnce(ctx, branchesFeed, pull, every);
    }),
  );
  return due.length;
}

export async function listNoticesPage(ctx: AppContext, tenantId: number, query: ListNoticesQuery): Promise<Page<NoticeResource>> {
  const { rows, total } = await listNotices(ctx.db, tenantId, query.page);
  return pageOf(rows.map(presentNotice), total, query.page);
}
