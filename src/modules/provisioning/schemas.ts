import { Type, type Static } from 'typebox';
import { SCOPES } from '../../http/auth.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const PlanName = Type.Union([Type.Literal('free_trial'), Type.Literal('starter'), Type.Literal('growth'), Type.Literal('enterprise')]);
export const OfflinePolicyName = Type.Union([Type.Literal('queue'), Type.Literal('refuse')], {
  description:
    'While the branch\'s VSDC is known to be unreachable: `queue` stores a sale `pending` and files it later (the default); ' +
    '`refuse` answers 503 vsdc_unavailable and stores nothing, for certifications that forbid issuing invoices offline',
});
export const Tpin = Type.String({ pattern: '^[0-9]{10}$', description: 'Taxpayer id, 10 digits' });
export const BranchId = Type.String({ pattern: '^[0-9]{3}$', description: 'Branch id (bhfId), 3 digits; 000 is headquarters' });
export const ScopeName = Type.Union(SCOPES.map((s) => Type.Literal(s)));

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
  lastSaleInvoiceNo: Nullable(Type.Integer({ description: 'The VSDC\'s last sale invoice number at initialisation' })),
  lastSaleReceiptNo: Nullable(Type.Integer()),
  lastPurchaseInvoiceNo: Nullable(Type.Integer()),
  nextInvoiceNo: Nullable(Type.Integer({ description: 'The next invoiceNo this branch will assign; null until initialised' })),
  initializedAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
});
export type DeviceResource = Static<typeof Device>;

export const Tenant = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tpin: Type.String(),
  email: Nullable(Type.String()),
  plan: Nullable(PlanName),
  subscription: Type.Union([Type.Literal('active'), Type.Literal('blocked')]),
  status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
  monthlyQuota: Nullable(Type.Integer()),
  rateLimitPerMinute: Nullable(Type.Integer()),
  offlinePolicy: OfflinePolicyName,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  devices: Type.Array(Device),
});
export type TenantResource = Static<typeof Tenant>;

export const CreateTenantBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  tpin: Tpin,
  plan: Type.Optional(Nullable(PlanName)),
  email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
  offlinePolicy: Type.Optional(OfflinePolicyName),
});

export const UpdateTenantBody = Type.Object({
  offlinePolicy: Type.Optional(OfflinePolicyName),
});

export const RegisterDeviceBody = Type.Object({
  deviceSerial: Type.String({ minLength: 1, maxLength: 100 }),
  branch: BranchId,
  vsdcBaseUrl: Type.String({ minLength: 1, maxLength: 500, pattern: '^https?://[^\\s]+$', description: 'http(s) base address of the VSDC, with or without a context path' }),
});

export const TenantToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  masked: Type.String({ description: 'Prefix and last four characters; never the plaintext' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
});
export const TenantTokenCreated = Type.Object({ ...TenantToken.properties, token: Type.String({ description: 'Plaintext, shown once' }) });

export const CreateTokenBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 60 }) });

export const Dialect = Type.Union([Type.Literal('bare'), Type.Literal('wrapped')]);

export const FiscalisationKey = Type.Object({
  id: Type.Integer(),
  masked: Type.String(),
  branch: Nullable(Type.String({ description: 'Set for a branch key; null for a tenant key' })),
  sdcId: Nullable(Type.String()),
  dialect: Dialect,
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
});
export const FiscalisationKeyCreated = Type.Object({ ...FiscalisationKey.properties, key: Type.String({ description: 'Plaintext, shown once' }) });

export const CreateApiKeyBody = Type.Object({
  branch: Type.Optional(Nullable(BranchId)),
  dialect: Type.Optional(Dialect),
});

export const Revoked = Type.Object({ revoked: Type.Boolean(), id: Type.Integer() });

export const PartnerKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  scopes: Type.Array(Type.String()),
  masked: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Nullable(Type.String({ format: 'date-time', description: 'Set when the key was rotated: it stops working then' })),
  rotatedToId: Nullable(Type.Integer()),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
});
export const PartnerKeyCreated = Type.Object({ ...PartnerKey.properties, secret: Type.String({ description: 'Plaintext; readable again through /secret' }) });

export const CreatePartnerKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
  mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
});

export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export const TenantParam = Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export const TenantBranchParam = Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647 }), branch: Type.String({ maxLength: 10 }) });

export const data = <T extends Parameters<typeof Type.Object>[0][string]>(schema: T) => Type.Object({ data: schema });
