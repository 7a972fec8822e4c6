// The authority's register of the taxpayer's branches (selectBranches), beside the devices the
// merchant registered: fetched at a device's initialisation (so a partner sees them at once) and
// pulled on schedule with the notices (authority/notices). Stored as received; never refused.
import type { AppContext } from '../context.ts';
import { VSDC_EPOCH, type BranchRecord } from '@fiscal-gateway/vsdc-protocol';
import { presentAuthorityBranch } from './present.ts';
import type { AuthorityBranchResource } from './schemas.ts';
import { authorityBranchesOf, authorityTargetOf, upsertBranches, type ReceivedBranch } from './store.ts';
import { receivedText, receivedList } from '../../../authorities/zra-vsdc/received.ts';

/** The at-initialisation fetch of the branches never holds the answer longer than this. */
const BRANCHES_AT_INIT_TIMEOUT_MS = 5_000;

/** A branch the gateway can key (a 3-digit `bhfId`), or undefined. */
export function toReceivedBranch(raw: BranchRecord): ReceivedBranch | undefined {
  const branch = receivedText(raw.bhfId);
  if (branch === null || !/^\d{3}$/.test(branch)) return undefined;
  return {
    branch,
    name: receivedText(raw.bhfNm),
    status_code: receivedText(raw.bhfSttsCd),
    opened_on: receivedText(raw.bhfOpenDt),
    province: receivedText(raw.prvncNm),
    district: receivedText(raw.dstrtNm),
    sector: receivedText(raw.sctrNm),
    location: receivedText(raw.locDesc),
    headquarters: receivedText(raw.hqYn)?.toUpperCase() === 'Y',
    manager_name: receivedText(raw.mgrNm),
    manager_phone: receivedText(raw.mgrTelNo),
    manager_email: receivedText(raw.mgrEmail),
    branch_record: raw,
  };
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
      await upsertBranches(ctx.db, tenantId, receivedList<BranchRecord>(outcome.data, 'bhfList').map(toReceivedBranch).filter((b) => b !== undefined));
    } else if (outcome.kind !== 'empty') {
      log.warn({ outcome: outcome.kind === 'rejected' ? `${outcome.code} ${outcome.message}` : `${outcome.reason}: ${outcome.detail}` }, 'selectBranches at initialisation got no list; the scheduled pull will retry');
    }
  } catch (err) {
    log.warn({ err }, 'selectBranches at initialisation failed; the scheduled pull will retry');
  }
}

// ---- reading ----
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
