// The authority's register of the taxpayer's branches (its RegisterPort), beside the devices the
// merchant registered: fetched at a device's initialisation (so a partner sees them at once) and
// pulled on schedule with the notices (feeds/notices). Stored as received; never refused.
import type { AuthorityBranch } from '../../../authorities/port/index.ts';
import type { AppContext } from '../context.ts';
import { presentAuthorityBranch } from './present.ts';
import type { AuthorityBranchResource } from './schemas.ts';
import { authorityBranchesOf, pullDeviceOf, upsertBranches, type ReceivedBranch } from './store.ts';

/** The at-initialisation fetch of the branches never holds the answer longer than this. */
const BRANCHES_AT_INIT_TIMEOUT_MS = 5_000;

/** A branch of the authority's register as the gateway stores it. */
export function receivedBranchOf(branch: AuthorityBranch): ReceivedBranch {
  return {
    branch: branch.branch,
    name: branch.name,
    status_code: branch.statusCode,
    opened_on: branch.openedOn,
    province: branch.province,
    district: branch.district,
    sector: branch.sector,
    location: branch.location,
    headquarters: branch.headquarters,
    manager_name: branch.managerName,
    manager_phone: branch.managerPhone,
    manager_email: branch.managerEmail,
    branch_record: branch.record,
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
    const device = await pullDeviceOf(ctx.db, ctx.secretBox, tenantId);
    if (!device) return;
    const outcome = await ctx.authorities
      .of(device.profile)
      .register.branches(device, null, { timeoutMs: Math.min(ctx.config.vsdcTimeoutMs, BRANCHES_AT_INIT_TIMEOUT_MS) });
    if (outcome.kind === 'ok') {
      await upsertBranches(ctx.db, tenantId, outcome.records.map(receivedBranchOf));
    } else if (outcome.kind !== 'empty') {
      log.warn(
        { outcome: outcome.kind === 'rejected' ? `${outcome.code} ${outcome.message}` : `${outcome.reason}: ${outcome.detail}` },
        'the branches at initialisation got no list; the scheduled pull will retry',
      );
    }
  } catch (err) {
    log.warn({ err }, 'the branches at initialisation failed; the scheduled pull will retry');
  }
}

// ---- reading ----
/**
 * The authority's branches of each tenant, as resources; `registered` gives the branches each
 * tenant has a device registered for (tenants absent from it get none).
 */
export async function authorityBranchesFor(
  db: AppContext['db'],
  registered: ReadonlyMap<number, readonly string[]>,
): Promise<Map<number, AuthorityBranchResource[]>> {
  const rows = await authorityBranchesOf(db, [...registered.keys()]);
  return new Map(
    [...registered].map(([tenantId, branches]) => {
      const devices = new Set(branches);
      return [tenantId, (rows.get(tenantId) ?? []).map((row) => presentAuthorityBranch(row, devices))];
    }),
  );
}
