import { PREFIXES, masked } from '../../../credentials/secret-format.ts';
import { iso } from '../../../platform/lib/time.ts';
import type { AuthorityBranchResource } from '../../authority/notices/schemas.ts';
import type { DeviceResource, TenantResource } from './schemas.ts';
import type { DeviceRow, PartnerKeyRow, TenantRow } from './store.ts';

export interface PartnerResource {
  id: number;
  name: string;
  status: 'active' | 'suspended';
  createdAt: string;
}

export interface PartnerKeyResource {
  id: number;
  name: string;
  mode: 'live' | 'test';
  scopes: string[];
  masked: string;
  createdAt: string;
  expiresAt: string | null;
  rotatedToId: number | null;
  lastUsedAt: string | null;
}

export interface TokenResource {
  id: number;
  name: string;
  abilities: string[];
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
  createdAt: string;
  lastUsedAt: string | null;
}

/** The secret prefix of a partner key of that mode (sk_live_ or sk_test_). */
export const partnerKeyPrefix = (mode: 'live' | 'test') => (mode === 'live' ? PREFIXES.partnerLive : PREFIXES.partnerTest);

export function presentPartner(row: { id: number; name: string; status: 'active' | 'suspended'; created_at: Date }): PartnerResource {
  return { id: row.id, name: row.name, status: row.status, createdAt: row.created_at.toISOString() };
}

export function presentPartnerKey(row: PartnerKeyRow): PartnerKeyResource {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode,
    scopes: row.scopes,
    masked: masked(partnerKeyPrefix(row.mode), row.last4),
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    rotatedToId: row.rotated_to_id,
    lastUsedAt: iso(row.last_used_at),
  };
}

export function presentDevice(row: DeviceRow): DeviceResource {
  return {
    id: row.id,
    deviceSerial: row.device_serial,
    branch: row.branch,
    vsdcBaseUrl: row.vsdc_base_url,
    initialized: row.initialized,
    sdcId: row.sdc_id,
    mrcNo: row.mrc_no,
    taxpayerName: row.taxpayer_name,
    branchName: row.branch_name,
    countersAtInitialization:
      row.initialized && row.last_sale_invc_no !== null
        ? { lastSaleInvoiceNo: row.last_sale_invc_no, lastSaleReceiptNo: row.last_sale_rcpt_no, lastPurchaseInvoiceNo: row.last_pchs_invc_no }
        : null,
    nextInvoiceNo: row.initialized ? row.next_invoice_no : null,
    initializedAt: iso(row.initialized_at),
    createdAt: row.created_at.toISOString(),
  };
}

/** `authorityBranches`: the taxpayer's branches as the authority reports them (notices module). */
export function presentTenant(row: TenantRow, devices: DeviceRow[], authorityBranches: AuthorityBranchResource[]): TenantResource {
  return {
    id: row.id,
    name: row.name,
    tpin: row.tpin,
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

export function presentToken(row: { id: number; name: string; abilities: string[]; last4: string; created_at: Date; last_used_at: Date | null }): TokenResource {
  return {
    id: row.id,
    name: row.name,
    abilities: row.abilities,
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
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
  };
}
