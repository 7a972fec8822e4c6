import { Type } from 'typebox';
import { SCOPES } from '../../../credentials/abilities.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { PlanName, OfflinePolicyName, TaxpayerId, AuthorityName } from '../../kernel/tenants/schemas.ts';

export const ScopeName = literals(SCOPES);

export const CreateTenantBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    tpin: TaxpayerId,
    authority: Type.Optional(AuthorityName),
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
      timezone: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description:
            "An IANA time zone name (`Africa/Lusaka`, the default): where the merchant's days begin and end in daily reports and exports",
        }),
      ),
      stockTracking: Type.Optional(
        Type.Boolean({ description: 'false: no stock kept and no stock chain sent for the merchant (docs/stock.md)' }),
      ),
    },
    { additionalProperties: false },
  ),
  { offlinePolicy: 'queue', timezone: 'Africa/Lusaka', stockTracking: true },
);

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
export const PartnerKeyCreated = Type.Object({
  ...PartnerKey.properties,
  secret: Type.String({ description: 'Plaintext; readable again through /secret' }),
});

export const CreatePartnerKeyBody = withExample(
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    mode: Type.Optional(literals(['live', 'test'], { description: 'Default: the mode of the key that mints it' })),
  }),
  { name: 'Reporting dashboard', scopes: ['tenants:read', 'webhooks:read'] },
);
