import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './columns.ts';

interface PartnersTable {
  id: Generated<number>;
  name: string;
  status: Generated<'active' | 'suspended'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PartnerKeysTable {
  id: Generated<number>;
  partner_id: number;
  name: string;
  mode: 'live' | 'test';
  scopes: string[];
  secret_hash: string;
  secret_ciphertext: string;
  last4: string;
  created_at: Timestamp;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  rotated_to_id: number | null;
  last_used_at: NullableTimestamp;
}

export type Plan = 'free_trial' | 'starter' | 'growth' | 'enterprise';

export type OfflinePolicy = 'queue' | 'refuse';

export interface TenantsTable {
  id: Generated<number>;
  partner_id: number | null;
  name: string;
  tpin: string;
  email: string | null;
  plan: Plan | null;
  subscription: Generated<'active' | 'blocked'>;
  status: Generated<'active' | 'suspended'>;
  monthly_quota: number | null;
  rate_limit_per_minute: number | null;
  /** While the branch's VSDC is unreachable: store sales `pending` (queue) or answer 503 (refuse). */
  offline_policy: Generated<OfflinePolicy>;
  /** IANA time zone of the merchant's days (daily reports, exports); `Africa/Lusaka` by default. */
  timezone: Generated<string>;
  /** Keep stock and send the authority's stock chain (docs/stock.md). */
  stock_tracking: Generated<boolean>;
  /** `partner`: provisioned by a partner; `self`: signed up by the merchant (no partner). */
  origin: Generated<'partner' | 'self'>;
  /** The tax authority the merchant files with (with each device's protocol, the adapter: src/authorities/index.ts). */
  authority: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** How a device talks to its authority: ZRA's VSDC, KRA's hosted OSCU or its taxpayer-run VSCU. */
export type DeviceProtocol = 'vsdc' | 'oscu' | 'vscu';

export interface DevicesTable {
  id: Generated<number>;
  tenant_id: number;
  branch: string;
  device_serial: string;
  vsdc_base_url: string;
  /** How the device talks to its authority (with the tenant's authority, the adapter). */
  protocol: Generated<DeviceProtocol>;
  initialized: Generated<boolean>;
  sdc_id: string | null;
  mrc_no: string | null;
  taxpayer_name: string | null;
  branch_name: string | null;
  /** The VSDC's counters as its initialisation handshake reported them; never updated afterwards. */
  last_sale_invc_no: number | null;
  last_pchs_invc_no: number | null;
  last_sale_rcpt_no: number | null;
  last_train_invc_no: number | null;
  last_profrm_invc_no: number | null;
  /** The branch's live invoice sequence: the next invoice_no a document takes. */
  next_invoice_no: Generated<number>;
  /** The branch's training and proforma sequences, beside the fiscal one. */
  next_training_no: Generated<number>;
  next_proforma_no: Generated<number>;
  initialized_at: NullableTimestamp;
  init_claimed_until: NullableTimestamp;
  /** The unit's key (KRA's cmcKey), sealed with the SecretBox (AAD `device:<id>:unit-key`); null when it has none. */
  unit_key_sealed: string | null;
  /** JSON of the device's API gateway credential, sealed (AAD `device:<id>:api-credential`); null: none. */
  api_credential_sealed: string | null;
  /** What the sealed credential is (shown; its secret never is). */
  api_credential_kind: 'bearer' | 'client' | null;
  /** Files to the authority's production system (its receipts' QR points at the production portal). */
  production: Generated<boolean>;
  /** The last invoice number the device's previous system used: numbering continues after it (or the unit's counter, if higher). */
  last_invoice_no: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TenantTokensTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  abilities: string[];
  token_hash: string;
  last4: string;
  /** Minted in training mode: every document it issues is a training document. */
  training: Generated<boolean>;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: number | null;
  dialect: Generated<'bare' | 'wrapped'>;
  key_hash: string;
  last4: string;
  /** Minted in training mode: every document it issues is a training document. */
  training: Generated<boolean>;
  /** The till login whose getactive minted it; null for a key minted by the merchant or its partner. */
  till_login_id: number | null;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

export interface AuditLogTable {
  id: Generated<number>;
  actor_type: string;
  actor_id: string | null;
  partner_id: number | null;
  tenant_id: number | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
}

interface TenantUsageTable {
  tenant_id: number;
  month: string;
  documents: Generated<number>;
}

/** Rate-limit windows of the PostgreSQL store (see db/rate-limit-window.ts): one row per bucket. */
interface RateLimitsTable {
  key: string;
  /** Requests counted in the current window. */
  points: Generated<number>;
  /** When the window ends, in ms since the epoch (database clock). */
  expire: number | null;
}

/**
 * Which key seals the database's secrets (migration 0031): one row, written by the first process
 * that seals with its key, compared by every later one (src/app/secret-key.ts).
 */
interface SecretKeyTable {
  /** Always true: the table holds one row. */
  singleton: Generated<boolean>;
  /** HMAC-SHA256 of a fixed label under the secret box's derived key (SecretBox.fingerprint), hex. */
  fingerprint: string;
  /** The command that recorded it (`serve`, `partner create`), and whether it used the development key file. */
  recorded_by: string;
  recorded_at: Timestamp;
}

export interface FoundationTables {
  partners: PartnersTable;
  partner_keys: PartnerKeysTable;
  tenants: TenantsTable;
  devices: DevicesTable;
  tenant_tokens: TenantTokensTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  tenant_usage: TenantUsageTable;
  rate_limits: RateLimitsTable;
  secret_key: SecretKeyTable;
}
