import { Type, type Static } from 'typebox';
import { ABILITIES, SCOPES } from '../../kernel/access/auth.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { AuthorityBranches } from '../../authority/notices/schemas.ts';


export const PlanName = literals(['free_trial', 'starter', 'growth', 'enterprise']);
export const OfflinePolicyName = literals(['queue', 'refuse'], {
  description:
    'While the branch\'s VSDC is known to be unreachable: `queue` stores a sale `pending` and files it later (the default); ' +
    '`refuse` answers 503 vsdc_unavailable and stores nothing, for certifications that forbid issuing invoices offline',
});
export const Tpin = Type.String({ pattern: '^[0-9]{10}$', description: 'Taxpayer id, 10 digits' });
export const BranchId = Type.String({ pattern: '^[0-9]{3}$', description: 'Branch id (bhfId), 3 digits; 000 is headquarters' });
export const ScopeName = literals(SCOPES);

export const Device = Type.Object({
  id: Type.Integer(),
  deviceSerial: Type.String(),
  branch: Type.String(),
  vsdcBaseUrl: Type.String(),
  initialized: Type.Boolean(),
  sdcId: Nullable(Type.String()),
  mrcNo: Nullable(Type.String()),
  taxpayerName: Nullable(Type.String()),
  branchName: Nullable(Type.String()),
  countersAtInitialization: Nullable(
    Type.Object(
      {
        lastSaleInvoiceNo: Type.Integer({ description: 'The VSDC\'s lastSaleInvcNo: the last sale invoice number it had seen' }),
        lastSaleReceiptNo: Nullable(Type.Integer({ description: 'The VSDC\'s lastSaleRcptNo' })),
        lastPurchaseInvoiceNo: Nullable(Type.Integer({ description: 'The VSDC\'s lastPchsInvcNo' })),
      },
      {
        description:
          'The VSDC\'s own counters as it reported them in the initialisation handshake; never updated afterwards (`nextInvoiceNo` is the live sequence). Null until initialised',
      },
    ),
  ),
  nextInvoiceNo: Nullable(Type.Integer({ description: 'The next invoiceNo this branch will assign (continuing countersAtInitialization.lastSaleInvoiceNo); null until initialised' })),
  initializedAt: Nullable(Timestamp()),
  createdAt: Timestamp(),
});
export type DeviceResource = Static<typeof Device>;

export const Tenant = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tpin: Type.String(),
  email: Nullable(Type.String()),
  plan: Nullable(PlanName),
  subscription: literals(['active', 'blocked']),
  status: literals(['active', 'suspended']),
  monthlyQuota: Nullable(Type.Integer()),
  rateLimitPerMinute: Nullable(Type.Integer()),
  offlinePolicy: OfflinePolicyName,
  timezone: Type.String({ description: 'IANA time zone of the merchant\'s days (daily reports, exports)', examples: ['Africa/Lusaka'] }),
  stockTracking: Type.Boolean({ description: 'Whether the gateway keeps the merchant\'s stock and sends the authority\'s stock chain (docs/stock.md)' }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  devices: Type.Array(Device),
  authorityBranches: AuthorityBranches,
});
export type TenantResource = Static<typeof Tenant>;

export const CreateTenantBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    tpin: Tpin,
    plan: Type.Optional(Nullable(PlanName)),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    offlinePolicy: Type.Optional(OfflinePolicyName),
  }),
  { name: 'Copperbelt Mining Supplies Limited', tpin: '2000000002', email: 'accounts@example.com', offlinePolicy: 'queue' },
);

/** A partner may change these; plan, subscription, quota and limits are the operator's (refused, not ignored). */
export const UpdateTenantBody = withExample(
  Type.Object(
    {
      offlinePolicy: Type.Optional(OfflinePolicyName),
      timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone name (`Africa/Lusaka`, the default): where the merchant\'s days begin and end in daily reports and exports' })),
      stockTracking: Type.Optional(Type.Boolean({ description: 'false: no stock kept and no stock chain sent for the merchant (docs/stock.md)' })),
    },
    { additionalProperties: false },
  ),
  { offlinePolicy: 'queue', timezone: 'Africa/Lusaka', stockTracking: true },
);

const VsdcBaseUrl = (description: string) => Type.String({ minLength: 1, maxLength: 500, pattern: '^https?://[^\\s]+$', description });

export const RegisterDeviceBody = withExample(
  Type.Object({
    deviceSerial: Type.String({ minLength: 1, maxLength: 100 }),
    branch: BranchId,
    vsdcBaseUrl: VsdcBaseUrl('http(s) base address of the VSDC, with or without a context path'),
  }),
  // The development start's built-in simulator (SIMULATOR_PORT 8089); its demo device is branch 000.
  { deviceSerial: 'DEMO-DEVICE-0002', branch: '001', vsdcBaseUrl: 'http://127.0.0.1:8089' },
);

/** Corrections to a device that is not initialised yet; the branch cannot change. */
export const UpdateDeviceBody = withExample(
  Type.Object(
    {
      vsdcBaseUrl: Type.Optional(VsdcBaseUrl('The corrected http(s) base address of the VSDC; the next initialisation uses it')),
      deviceSerial: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The corrected serial of the device' })),
    },
    { additionalProperties: false, description: 'At least one of the fields' },
  ),
  { vsdcBaseUrl: 'http://127.0.0.1:8089' },
);

export const DeviceRemoved = Type.Object({ deleted: Type.Boolean(), branch: Type.String() });

export const TenantToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  masked: Type.String({ description: 'Prefix and last four characters; never the plaintext' }),
  createdAt: Timestamp(),
  lastUsedAt: Nullable(Timestamp()),
});
export const TenantTokenCreated = Type.Object({ ...TenantToken.properties, token: Type.String({ description: 'Plaintext, shown once' }) });

export const AbilityName = literals(ABILITIES);
export const CreateTokenBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 60 }),
    abilities: Type.Optional(
      Type.Array(AbilityName, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'What the token may do; both unless given. A token with only `invoices:read` is refused every write (403 `missing_ability`)' }),
    ),
  }),
  { name: 'Till 2' },
);

export const Dialect = literals(['bare', 'wrapped']);

export const FiscalisationKey = Type.Object({
  id: Type.Integer(),
  masked: Type.String(),
  branch: Nullable(Type.String({ description: 'Set for a branch key; null for a tenant key' })),
  sdcId: Nullable(Type.String()),
  dialect: Dialect,
  createdAt: Timestamp(),
  lastUsedAt: Nullable(Timestamp()),
});
export const FiscalisationKeyCreated = Type.Object({ ...FiscalisationKey.properties, key: Type.String({ description: 'Plaintext, shown once' }) });

export const CreateApiKeyBody = withExample(
  Type.Object({
    branch: Type.Optional(Nullable(BranchId)),
    dialect: Type.Optional(Dialect),
  }),
  { branch: '000', dialect: 'bare' },
);

export const Revoked = Type.Object({ revoked: Type.Boolean(), id: Type.Integer() });

export const PartnerKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  mode: literals(['live', 'test']),
  scopes: Type.Array(Type.String()),
  masked: Type.String(),
  createdAt: Timestamp(),
  expiresAt: Nullable(Timestamp('Set when the key was rotated: it stops working then')),
  rotatedToId: Nullable(Type.Integer()),
  lastUsedAt: Nullable(Timestamp()),
});
export const PartnerKeyCreated = Type.Object({ ...PartnerKey.properties, secret: Type.String({ description: 'Plaintext; readable again through /secret' }) });

export const CreatePartnerKeyBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    mode: Type.Optional(literals(['live', 'test'], { description: 'Default: the mode of the key that mints it' })),
  }),
  { name: 'Reporting dashboard', scopes: ['tenants:read', 'webhooks:read'] },
);

export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
/** The example is the demo merchant of a fresh development start. */
const TenantId = Type.Integer({ minimum: 1, maximum: 2147483647, examples: [1] });
export const TenantParam = Type.Object({ tenant: TenantId });
export const TenantBranchParam = Type.Object({ tenant: TenantId, branch: Type.String({ maxLength: 10, examples: ['000'] }) });

