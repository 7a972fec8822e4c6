import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';

const VsdcBaseUrl = (description: string) => Type.String({ minLength: 1, maxLength: 500, pattern: '^https?://[^\\s]+$', description });
/** A text field the authority may leave empty. */
export const Text = Nullable(Type.String());


const AuthorityBranch = Type.Object(
  {
    branch: Type.String({ description: 'The branch id (bhfId)' }),
    name: Text,
    location: Nullable(Type.String({ description: 'The branch\'s address as the authority records it (locDesc)' })),
    province: Text,
    district: Text,
    sector: Text,
    headquarters: Type.Boolean({ description: 'hqYn' }),
    status: Nullable(Type.String({ description: 'The authority\'s branch status code (bhfSttsCd; 01 active); null when it sends none' })),
    openedOn: Nullable(Type.String({ description: 'bhfOpenDt as sent (YYYYMMDD)' })),
    registeredDevice: Type.Boolean({ description: 'Whether a device of this merchant is registered with the gateway for the branch' }),
    updatedAt: Timestamp('When the authority last reported the branch'),
  },
  { description: 'One of the taxpayer\'s branches as the authority reports them (selectBranches)' },
);
export type AuthorityBranchResource = Static<typeof AuthorityBranch>;
export const AuthorityBranches = Type.Array(AuthorityBranch, {
  description:
    'The taxpayer\'s branches as the authority knows them (selectBranches), learnt at the first device initialisation and refreshed daily (BRANCH_SYNC_INTERVAL); empty until a device is initialised',
});

export const BranchHeaders = Type.Object({
  'x-branch': Type.Optional(Type.String({ pattern: '^[0-9]{3}$', description: 'The branch (bhfId) to act on; see GET /api/v1/me', examples: ['000'] })),
});

export const BranchId = Type.String({ pattern: '^[0-9]{3}$', description: 'Branch id (bhfId), 3 digits; 000 is headquarters' });
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
        lastTrainingInvoiceNo: Nullable(Type.Integer({ description: 'The VSDC\'s lastTrainInvcNo (training documents); null when it keeps none' })),
        lastProformaInvoiceNo: Nullable(Type.Integer({ description: 'The VSDC\'s lastProfrmInvcNo (proforma documents); null when it keeps none' })),
      },
      {
        description:
          'The VSDC\'s own counters as it reported them in the initialisation handshake; never updated afterwards (`nextInvoiceNo` is the live sequence). Null until initialised',
      },
    ),
  ),
  nextInvoiceNo: Nullable(Type.Integer({ description: 'The next invoiceNo this branch will assign (continuing countersAtInitialization.lastSaleInvoiceNo); null until initialised' })),
  nextTrainingInvoiceNo: Nullable(Type.Integer({ description: 'The next training document\'s invoiceNo (filed as T-<n>, continuing lastTrainingInvoiceNo); null until initialised' })),
  nextProformaInvoiceNo: Nullable(Type.Integer({ description: 'The next proforma\'s invoiceNo (filed as P-<n>, continuing lastProformaInvoiceNo); null until initialised' })),
  initializedAt: Nullable(Timestamp()),
  createdAt: Timestamp(),
});
export type DeviceResource = Static<typeof Device>;
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



// ---- requests ----
