// Response shapes the console reads. The console's own read endpoints share their types with
// the server; the older resources are restated here (the fields the console shows).
export type {
  BranchBacklogResource as BranchBacklog,
  DocumentSummaryResource as DocumentSummary,
  EndpointStatsResource as EndpointStats,
  FilingsResource as Filings,
} from '../../src/domain/partner/console/schemas.ts';
export type { NoticeResource as Notice } from '../../src/domain/feeds/notices/schemas.ts';
export type { AuthorityBranchResource as AuthorityBranch } from '../../src/domain/kernel/devices/schemas.ts';

export interface Delivery {
  id: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  nextRetryAt: string | null;
  eventId: string;
  eventType: string;
  createdAt: string;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface Partner {
  id: number;
  name: string;
  status: 'active' | 'suspended';
  createdAt: string;
}

export interface AdminTenant {
  id: number;
  name: string;
  tpin: string;
  authority: string;
  plan: string | null;
  subscription: 'active' | 'blocked';
  status: 'active' | 'suspended';
  monthlyQuota: number | null;
  rateLimitPerMinute: number | null;
  partnerId: number | null;
  partnerName: string | null;
  documentsThisMonth: number;
  pending: number;
  failed: number;
  devices: Array<{ branch: string; protocol: string; initialized: boolean }>;
}

export interface AuditRecord {
  id: number;
  actorType: 'partner_key' | 'till_login' | 'admin' | 'cli';
  actorId: string | null;
  actorName: string | null;
  partnerId: number | null;
  partnerName: string | null;
  tenantId: number | null;
  tenantName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetName: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

// ---- the merchant's console ----
export type { SaleResource as Sale } from '../../src/domain/fiscal/sales/resource-schemas.ts';
export type { DeviceResource as Device } from '../../src/domain/kernel/devices/schemas.ts';
export type { TokenResource as TenantToken, ApiKeyResource as FiscalisationKey } from '../../src/domain/kernel/tenants/present.ts';

export type UserRole = 'owner' | 'admin' | 'viewer';

export interface AccountUser {
  id: number;
  email: string;
  role: UserRole;
  emailVerified: boolean;
  createdAt: string;
}

export type BranchUserState = 'registered' | 'pending' | 'failed';

/** A user as the Users list shows it: with its registration at each initialised branch's VSDC (saveBrancheUser). */
export interface ListedAccountUser extends AccountUser {
  vsdcRegistration: {
    state: BranchUserState | 'none';
    branches: Array<{ branch: string; state: BranchUserState; resultCode: string | null; message: string | null }>;
  };
}

interface Standing {
  canFile: boolean;
  reason: string | null;
  /** `no_branch`: nothing is wrong with the account, it has no initialised branch yet. */
  cause?: 'account' | 'no_branch' | null;
}

interface AccountMerchant {
  id: number;
  name: string;
  tpin: string;
  origin: 'partner' | 'self';
  status: 'active' | 'suspended';
  subscription: 'active' | 'blocked';
  /** IANA: the zone the console shows the merchant's times in (absent on an older gateway: the viewer's). */
  timezone?: string;
  /** Absent on a gateway older than the merchant console: read as "can file". */
  standing?: Standing;
}

export interface AccountSession {
  user: AccountUser;
  merchant: AccountMerchant;
  csrfToken: string;
}

export interface Invitation {
  id: number;
  email: string;
  role: UserRole;
  expiresAt: string;
}

export interface PendingInvitation extends Invitation {
  createdAt: string;
}

export interface OutboxMail {
  kind: string;
  to: string;
  subject: string;
  link: string | null;
  sentAt: string;
}
