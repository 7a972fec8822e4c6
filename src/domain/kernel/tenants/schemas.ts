import { Type, type Static } from 'typebox';
import { ABILITIES } from '../../../credentials/abilities.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { AuthorityBranches, BranchId, Device } from '../devices/schemas.ts';
import { MERCHANT_AUTHORITIES, TAXPAYER_ID_FORMS } from '../devices/authorities.ts';

export const PlanName = literals(['free_trial', 'starter', 'growth', 'enterprise']);
export const OfflinePolicyName = literals(['queue', 'refuse'], {
  description:
    "While the branch's VSDC is known to be unreachable: `queue` stores a sale `pending` and files it later (the default); " +
    '`refuse` answers 503 vsdc_unavailable and stores nothing, for certifications that forbid issuing invoices offline',
});
/** A merchant's taxpayer id, in its authority's form (checked against its profile, not by the schema). */
export const TaxpayerId = Type.String({
  minLength: 1,
  maxLength: 20,
  description: `The merchant's taxpayer id in its authority's form (${TAXPAYER_ID_FORMS})`,
});
export const AuthorityName = literals(MERCHANT_AUTHORITIES as readonly string[], {
  description: 'The tax authority the merchant files with: `zra` (Zambia, the default) or `kra` (Kenya); it cannot change after creation',
});
export const Tenant = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tpin: Type.String({ description: "The merchant's taxpayer id (ZRA: TPIN; KRA: PIN)" }),
  authority: Type.String({
    description: 'The tax authority the merchant files with: `zra` or `kra`; fixed at creation',
    examples: ['zra'],
  }),
  email: Nullable(Type.String()),
  plan: Nullable(PlanName),
  subscription: literals(['active', 'blocked']),
  status: literals(['active', 'suspended']),
  monthlyQuota: Nullable(Type.Integer()),
  rateLimitPerMinute: Nullable(Type.Integer()),
  offlinePolicy: OfflinePolicyName,
  timezone: Type.String({ description: "IANA time zone of the merchant's days (daily reports, exports)", examples: ['Africa/Lusaka'] }),
  stockTracking: Type.Boolean({
    description: "Whether the gateway keeps the merchant's stock and sends the authority's stock chain (docs/stock.md)",
  }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  devices: Type.Array(Device),
  authorityBranches: AuthorityBranches,
});
export type TenantResource = Static<typeof Tenant>;
export const TenantToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  training: Type.Boolean({ description: 'Minted in training mode: every document it issues is a training document' }),
  masked: Type.String({ description: 'Prefix and last four characters; never the plaintext' }),
  createdAt: Timestamp(),
  lastUsedAt: Nullable(Timestamp()),
});
export const TenantTokenCreated = Type.Object({ ...TenantToken.properties, token: Type.String({ description: 'Plaintext, shown once' }) });
const AbilityName = literals(ABILITIES);
export const CreateTokenBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 60 }),
    abilities: Type.Optional(
      Type.Array(AbilityName, {
        minItems: 1,
        maxItems: 2,
        uniqueItems: true,
        description:
          'What the token may do; both unless given. A token with only `invoices:read` is refused every write (403 `missing_ability`)',
      }),
    ),
    training: Type.Optional(
      Type.Boolean({
        description:
          'Training mode: every document it issues is a training document (salesType training, filed T, never a tax invoice), whatever the request says. Default false',
      }),
    ),
  }),
  { name: 'Till 2' },
);
const Dialect = literals(['bare', 'wrapped']);
export const FiscalisationKey = Type.Object({
  id: Type.Integer(),
  masked: Type.String(),
  branch: Nullable(Type.String({ description: 'Set for a branch key; null for a tenant key' })),
  sdcId: Nullable(Type.String()),
  dialect: Dialect,
  training: Type.Boolean({ description: 'Minted in training mode: every invoice it files is a training document' }),
  createdAt: Timestamp(),
  lastUsedAt: Nullable(Timestamp()),
});
export const FiscalisationKeyCreated = Type.Object({
  ...FiscalisationKey.properties,
  key: Type.String({ description: 'Plaintext, shown once' }),
});
export const CreateApiKeyBody = withExample(
  Type.Object({
    branch: Type.Optional(Nullable(BranchId)),
    dialect: Type.Optional(Dialect),
    training: Type.Optional(
      Type.Boolean({
        description:
          'Training mode: every document it issues is a training document (salesType training, filed T, never a tax invoice), whatever the request says. Default false',
      }),
    ),
  }),
  { branch: '000', dialect: 'bare' },
);
export const Revoked = Type.Object({ revoked: Type.Boolean(), id: Type.Integer() });
export const IdParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
/** The example is the demo merchant of a fresh development start. */
const TenantId = Type.Integer({ minimum: 1, maximum: 2147483647, examples: [1] });
export const TenantParam = Type.Object({ tenant: TenantId });
export const TenantBranchParam = Type.Object({ tenant: TenantId, branch: Type.String({ maxLength: 10, examples: ['000'] }) });
