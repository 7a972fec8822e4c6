// The branch a merchant request acts on (design.md), in its two forms: `pickBranch` over the
// merchant's devices in JS, and `defaultBranchSql` inside a statement (the sale's insert, which
// picks the branch in the statement that takes the number). test/kernel/devices/branch-rule.test.ts
// checks that they agree.
import { sql, type RawBuilder } from 'kysely';
import { ApiError } from '../../../platform/errors/errors.ts';
import type { BranchDevice } from './store.ts';
import { HEADQUARTERS } from './authorities.ts';

/**
 * The SQL form of the rule without X-Branch: the tenant's headquarters branch (its authority's:
 * `000`, `00`) if registered, else its
 * only branch, else null; `tenantId` is the tenant's id as an SQL expression.
 */
export function defaultBranchSql(tenantId: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<
    string | null
  >`(select coalesce(max(rule_d.branch) filter (where rule_d.branch in (${sql.join(HEADQUARTERS.map((hq) => sql.lit(hq)))})), case when count(*) = 1 then max(rule_d.branch) end) from devices rule_d where rule_d.tenant_id = ${tenantId})`;
}

/**
 * The branch a merchant request acts on (design.md): the one X-Branch names, else the tenant's
 * headquarters branch (`000`, `00`: its authority's) if registered, else its only branch. Undefined when none applies.
 */
export function pickBranch<D extends Pick<BranchDevice, 'branch'>>(devices: readonly D[], header: string | undefined): D | undefined {
  if (header !== undefined) {
    const named = devices.find((d) => d.branch === header);
    if (!named)
      throw new ApiError('branch_not_found', `X-Branch ${header} is not a branch of this merchant. GET /api/v1/me lists its branches.`);
    return named;
  }
  return devices.find((d) => HEADQUARTERS.includes(d.branch)) ?? (devices.length === 1 ? devices[0] : undefined);
}

/** Who gives a merchant its devices: its partner, or the merchant itself when it signed up on its own. */
export type MerchantOrigin = 'partner' | 'self';

/** A merchant with no partner signed up on its own. */
export function merchantOrigin(tenant: { partnerId: number | null }): MerchantOrigin {
  return tenant.partnerId === null ? 'self' : 'partner';
}

/** What a merchant without an initialised branch is told to do, by who does it. */
export function registerBranchHint(origin: MerchantOrigin | undefined): string {
  return origin === 'self'
    ? 'Register and initialise a branch: in the console under Devices, or POST /api/v1/account/devices then POST /api/v1/account/devices/{branch}/initialize (docs/merchants.md).'
    : 'Its partner registers and initialises one (POST /api/v1/tenants/{tenant}/devices, then POST /api/v1/tenants/{tenant}/devices/{branch}/initialize; docs/partners.md).';
}

/** The branch to store a document on: it must exist and be initialised. */
export function branchForWrite(devices: readonly BranchDevice[], header: string | undefined, origin?: MerchantOrigin): BranchDevice {
  if (devices.length === 0)
    throw new ApiError('no_device', `This merchant has no device yet, so nothing can be fiscalised. ${registerBranchHint(origin)}`);
  const device = pickBranch(devices, header);
  if (!device) {
    throw new ApiError(
      'branch_required',
      'This merchant has several branches and none is its headquarters: name one with the X-Branch header (GET /api/v1/me lists them).',
    );
  }
  if (!device.initialized) {
    throw new ApiError(
      'branch_not_initialized',
      `Branch ${device.branch} is not initialised with the authority yet, so it cannot fiscalise. ${origin === 'self' ? 'Initialise it: in the console under Devices, or POST /api/v1/account/devices/{branch}/initialize.' : 'Its partner must initialise the device first.'}`,
    );
  }
  return device;
}
