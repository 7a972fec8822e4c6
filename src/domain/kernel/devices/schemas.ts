import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, literals, withExample } from '../../../platform/http/schema-helpers.ts';
import { ANY_BRANCH_PATTERN, BRANCH_FORMS } from './authorities.ts';

const VsdcBaseUrl = (description: string) => Type.String({ minLength: 1, maxLength: 500, pattern: '^https?://[^\\s]+$', description });
/** A text field the authority may leave empty. */
export const Text = Nullable(Type.String());

const AuthorityBranch = Type.Object(
  {
    branch: Type.String({ description: 'The branch id (bhfId)' }),
    name: Text,
    location: Nullable(Type.String({ description: "The branch's address as the authority records it (locDesc)" })),
    province: Text,
    district: Text,
    sector: Text,
    headquarters: Type.Boolean({ description: 'hqYn' }),
    status: Nullable(Type.String({ description: "The authority's branch status code (bhfSttsCd; 01 active); null when it sends none" })),
    openedOn: Nullable(Type.String({ description: 'bhfOpenDt as sent (YYYYMMDD)' })),
    registeredDevice: Type.Boolean({ description: 'Whether a device of this merchant is registered with the gateway for the branch' }),
    updatedAt: Timestamp('When the authority last reported the branch'),
  },
  { description: "One of the taxpayer's branches as the authority reports them (selectBranches)" },
);
export type AuthorityBranchResource = Static<typeof AuthorityBranch>;
export const AuthorityBranches = Type.Array(AuthorityBranch, {
  description:
    "The taxpayer's branches as the authority knows them (selectBranches), learnt at the first device initialisation and refreshed daily (BRANCH_SYNC_INTERVAL); empty until a device is initialised",
});

export const BranchHeaders = Type.Object({
  'x-branch': Type.Optional(
    Type.String({
      pattern: ANY_BRANCH_PATTERN,
      description: `The branch (bhfId) to act on, in the merchant's authority's form (${BRANCH_FORMS}); without it, the headquarters. See GET /api/v1/me`,
      examples: ['000'],
    }),
  ),
});

export const BranchId = Type.String({
  pattern: ANY_BRANCH_PATTERN,
  description: `Branch id (bhfId) in the merchant's authority's form: ${BRANCH_FORMS}`,
});
export const Device = Type.Object({
  id: Type.Integer(),
  deviceSerial: Type.String(),
  branch: Type.String(),
  vsdcBaseUrl: Type.String(),
  protocol: Type.String({
    description: 'How the device talks to its authority: `vsdc` (ZRA), `oscu` (KRA-hosted) or `vscu` (the KRA unit the taxpayer runs)',
    examples: ['vsdc'],
  }),
  production: Type.Boolean({
    description: "Marked as filing to the authority's production system (its receipts' QR points at the production portal)",
  }),
  apiCredential: Nullable(
    Type.Object(
      { kind: literals(['bearer', 'client']), set: Type.Boolean() },
      {
        description:
          'The credential sent to an API gateway in front of the authority, when the device has one: its kind only, never its secret',
      },
    ),
  ),
  unitKeySet: Type.Boolean({ description: "Whether the gateway holds the unit's key (KRA's cmcKey), sealed; never shown" }),
  lastInvoiceNo: Type.Integer({
    description: "The last invoice number the device's previous system used (0: none); numbering continues after it",
  }),
  initialized: Type.Boolean(),
  sdcId: Nullable(Type.String()),
  mrcNo: Nullable(Type.String()),
  taxpayerName: Nullable(Type.String()),
  branchName: Nullable(Type.String()),
  countersAtInitialization: Nullable(
    Type.Object(
      {
        lastSaleInvoiceNo: Type.Integer({ description: "The VSDC's lastSaleInvcNo: the last sale invoice number it had seen" }),
        lastSaleReceiptNo: Nullable(Type.Integer({ description: "The VSDC's lastSaleRcptNo" })),
        lastPurchaseInvoiceNo: Nullable(Type.Integer({ description: "The VSDC's lastPchsInvcNo" })),
        lastTrainingInvoiceNo: Nullable(
          Type.Integer({ description: "The VSDC's lastTrainInvcNo (training documents); null when it keeps none" }),
        ),
        lastProformaInvoiceNo: Nullable(
          Type.Integer({ description: "The VSDC's lastProfrmInvcNo (proforma documents); null when it keeps none" }),
        ),
      },
      {
        description:
          "The VSDC's own counters as it reported them in the initialisation handshake; never updated afterwards (`nextInvoiceNo` is the live sequence). Null until initialised",
      },
    ),
  ),
  nextInvoiceNo: Nullable(
    Type.Integer({
      description:
        'The next invoiceNo this branch will assign (continuing countersAtInitialization.lastSaleInvoiceNo); null until initialised',
    }),
  ),
  nextTrainingInvoiceNo: Nullable(
    Type.Integer({
      description: "The next training document's invoiceNo (filed as T-<n>, continuing lastTrainingInvoiceNo); null until initialised",
    }),
  ),
  nextProformaInvoiceNo: Nullable(
    Type.Integer({
      description: "The next proforma's invoiceNo (filed as P-<n>, continuing lastProformaInvoiceNo); null until initialised",
    }),
  ),
  initializedAt: Nullable(Timestamp()),
  createdAt: Timestamp(),
});
export type DeviceResource = Static<typeof Device>;
const Protocol = Type.String({
  minLength: 1,
  maxLength: 20,
  description:
    'How the device talks to its authority: `vsdc` for a ZRA merchant (its only one); `oscu` (the default) or `vscu` for a KRA merchant. Default: the first its authority has',
});
const UnitKey = Type.String({
  minLength: 1,
  maxLength: 500,
  description: 'The key the earlier initialisation returned (KRA: the cmcKey). Stored sealed; never shown or logged',
});
const HandoverFields = Type.Object(
  {
    sdcId: Type.String({ minLength: 1, maxLength: 40, description: 'The unit id the earlier initialisation returned (sdcId)' }),
    mrcNo: Type.Optional(Type.String({ maxLength: 40, description: 'Its MRC number, when it gave one' })),
    unitKey: UnitKey,
  },
  {
    additionalProperties: false,
    description:
      'A device initialised elsewhere (another integrator, an earlier system): checked with the authority by a call that changes nothing, then taken as initialised, with no initialisation call',
  },
);
/** A device initialised elsewhere; the example is a unit registered but not initialised here. */
export const Handover = withExample(HandoverFields, {
  sdcId: 'SDC0010000002',
  mrcNo: 'WIS00000002',
  unitKey: 'the-key-its-initialisation-returned',
});
const ApiCredentialInput = Type.Union(
  [
    Type.Object(
      { token: Type.String({ minLength: 1, maxLength: 4000, description: 'A bearer token sent with every call' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        clientId: Type.String({ minLength: 1, maxLength: 500 }),
        clientSecret: Type.String({ minLength: 1, maxLength: 4000 }),
        tokenUrl: Type.String({
          minLength: 1,
          maxLength: 500,
          pattern: '^https?://[^\\s]+$',
          description: 'The token endpoint the client id and secret are exchanged at',
        }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      "A credential for an API gateway in front of the authority (KRA's token gateway), sent with every call when set; off by default. Stored sealed, never shown back",
  },
);
export const RegisterDeviceBody = withExample(
  Type.Object({
    deviceSerial: Type.String({ minLength: 1, maxLength: 100 }),
    branch: Type.String({
      minLength: 1,
      maxLength: 10,
      description: `Branch id (bhfId) in the merchant's authority's form: ${BRANCH_FORMS}`,
    }),
    vsdcBaseUrl: VsdcBaseUrl(
      "http(s) base address of the authority's unit (ZRA: the VSDC, with or without a context path; KRA: the OSCU base or the VSCU's local address)",
    ),
    protocol: Type.Optional(Protocol),
    initializedElsewhere: Type.Optional(HandoverFields),
    apiCredential: Type.Optional(ApiCredentialInput),
    production: Type.Optional(
      Type.Boolean({
        description: "Files to the authority's production system (e.g. through a proxy whose address does not say so). Default false",
      }),
    ),
    lastInvoiceNo: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2147483646,
        description:
          "The last invoice number its previous system used (default 0): numbering continues from the larger of it and the unit's own counter",
      }),
    ),
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
      lastInvoiceNo: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 2147483646,
          description: 'The corrected last invoice number of its previous system (before initialisation only)',
        }),
      ),
      apiCredential: Type.Optional(Nullable(ApiCredentialInput)),
      production: Type.Optional(Type.Boolean({ description: "Files to the authority's production system" })),
    },
    {
      additionalProperties: false,
      description:
        'At least one of the fields. `vsdcBaseUrl`, `deviceSerial` and `lastInvoiceNo` only before initialisation; `apiCredential` (null removes it) and `production` at any time',
    },
  ),
  { vsdcBaseUrl: 'http://127.0.0.1:8089' },
);
export const DeviceRemoved = Type.Object({ deleted: Type.Boolean(), branch: Type.String() });

// ---- requests ----
