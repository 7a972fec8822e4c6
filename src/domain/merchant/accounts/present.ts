// A user and a merchant as the account's answers show them.
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { standingOf } from '../../../credentials/standing.ts';
import type { UserRole } from '../../../platform/db/tables/accounts.ts';
import { registerBranchHint } from '../../kernel/devices/branch-rule.ts';
import type * as store from './store.ts';

export interface UserResource {
  id: number;
  email: string;
  role: UserRole;
  emailVerified: boolean;
  createdAt: string;
}

export interface MerchantResource {
  id: number;
  name: string;
  tpin: string;
  origin: 'partner' | 'self';
  status: 'active' | 'suspended';
  subscription: 'active' | 'blocked';
  /** IANA: the zone of its days, and of every time its console shows. */
  timezone: string;
  /** Whether it may file now, and why not (the 402/403's or 422 `no_device`'s message); `cause` says which. */
  standing: { canFile: boolean; reason: string | null; cause: 'account' | 'no_branch' | null };
}

export function presentUser(row: store.UserRow): UserResource {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    emailVerified: row.email_verified_at !== null,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/**
 * `initialisedBranches`: how many of its devices are initialised; with none it cannot file
 * either, whatever its account says, and the reason says who gives it one.
 */
export function presentMerchant(
  t: Omit<TenantAccount, 'partnerId' | 'plan' | 'rateLimitPerMinute' | 'offlinePolicy' | 'authority'> & { origin: 'partner' | 'self' },
  initialisedBranches: number,
  timezone: string,
): MerchantResource {
  const account = standingOf(t);
  const standing: MerchantResource['standing'] = !account.canFile
    ? { ...account, cause: 'account' }
    : initialisedBranches === 0
      ? { canFile: false, reason: `No branch is initialised yet. ${registerBranchHint(t.origin)}`, cause: 'no_branch' }
      : { ...account, cause: null };
  return { id: t.id, name: t.name, tpin: t.tpin, origin: t.origin, status: t.status, subscription: t.subscription, timezone, standing };
}
