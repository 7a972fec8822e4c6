import { PREFIXES, masked } from '../../../credentials/secret-format.ts';
import { iso } from '../../../platform/lib/time.ts';
import type { AuthorityBranchResource } from '../devices/schemas.ts';
import type { TenantResource } from './schemas.ts';
import type { TenantRow } from './store.ts';
import type { DeviceRow } from '../devices/store.ts';
import { presentDevice } from '../devices/present.ts';

export interface TokenResource {
  id: number;
  name: string;
  abilities: string[];
  training: boolean;
  masked: string;
  createdAt: string;
  lastUsedAt: string | null;
}
export interface ApiKeyResource {
  id: number;
  masked: string;
  branch: string | null;
  sdcId: string | null;
  dialect: 'bare' | 'wrapped';
  training: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}
/** `authorityBranches`: the taxpayer's branches as the authority reports them (the register in kernel/devices/register.ts). */
export function presentTenant(row: TenantRow, devices: DeviceRow[], authorityBranches: AuthorityBranchResource[]): TenantResource {
  return {
    id: row.id,
    name: row.name,
    tpin: row.tpin,
    authority: row.authority,
    email: row.email,
    plan: row.plan,
    subscription: row.subscription,
    status: row.status,
    monthlyQuota: row.monthly_quota,
    rateLimitPerMinute: row.rate_limit_per_minute,
    offlinePolicy: row.offline_policy,
    timezone: row.timezone,
    stockTracking: row.stock_tracking,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    devices: devices.map(presentDevice),
    authorityBranches,
  };
}
export function presentToken(row: {
  id: number;
  name: string;
  abilities: string[];
  training: boolean;
  last4: string;
  created_at: Date;
  last_used_at: Date | null;
}): TokenResource {
  return {
    id: row.id,
    name: row.name,
    abilities: row.abilities,
    training: row.training,
    masked: masked(PREFIXES.tenantToken, row.last4),
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
  };
}
/** A fiscalisation key with the branch and sdcId of the device it is bound to (null for a tenant key). */
export function presentApiKey(row: {
  id: number;
  last4: string;
  dialect: 'bare' | 'wrapped';
  training: boolean;
  created_at: Date;
  last_used_at: Date | null;
  branch: string | null;
  sdc_id: string | null;
}): ApiKeyResource {
  return {
    id: row.id,
    masked: masked(PREFIXES.fiscalisationKey, row.last4),
    branch: row.branch,
    sdcId: row.sdc_id,
    dialect: row.dialect,
    training: row.training,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
  };
}
