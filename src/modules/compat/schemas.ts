// The legacy till dialect (shared/compat-dialect.md): PascalCase names, unknown fields ignored
// (no `additionalProperties: false` anywhere in a request), bare payloads. The wrapped envelope
// is added by the dialect hook after serialisation, so responses here describe the bare form.
import { Type, type Static } from 'typebox';
import { MAX_LINES, MAX_PRICE, MAX_QUANTITY, Money } from '../sales/schemas.ts';
import { PAYMENT_TYPE_CODES } from '../../vsdc/sales-body.ts';
import { VAT_CATEGORY_CODES } from '../../vsdc/tax.ts';
import { Nullable, literals, Timestamp, withExample } from '../../http/schema-helpers.ts';


/** Printable, no leading or trailing blanks: the number is part of an idempotency key and a path. */
export const ClientInvoiceNumber = Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', description: 'The till\'s own invoice number; idempotent per branch' });

// ---- requests ----

export const LegacyItem = Type.Object({
  ItemName: Type.String({ minLength: 1, maxLength: 200 }),
  ItemClassificationCode: Type.String({ minLength: 1, maxLength: 20, description: 'From the authority\'s classification catalogue' }),
  Quantity: Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'Up to 4 decimals' }),
  UnitPrice: Type.Number({ exclusiveMinimum: 0, maximum: MAX_PRICE, description: 'Up to 4 decimals; tax-inclusive unless TaxInclusive is false' }),
  VATCategoryCode: Type.Optional(Nullable(literals(VAT_CATEGORY_CODES))),
});

export const LegacyInvoiceBody = withExample(
  Type.Object({
    ClientInvoiceNumber,
    ReceiptTypeCode: Type.Literal('S', { description: 'Only S (sale); credit and debit notes are modern-surface only' }),
    PaymentTypeCode: Type.Optional(Nullable(literals(PAYMENT_TYPE_CODES))),
    CustomerTPIN: Type.Optional(Nullable(Type.String({ pattern: '^([0-9]{10})?$', description: '10 digits; empty or null for none' }))),
    CustomerName: Type.Optional(Nullable(Type.String({ maxLength: 60, description: 'Empty or null: the walk-in customer' }))),
    SalesDate: Type.Optional(Nullable(Timestamp())),
    TaxInclusive: Type.Optional(Nullable(Type.Boolean())),
    DestinationCountryCode: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'Required when a line is C1 (export)' }))),
    Items: Type.Array(LegacyItem, { minItems: 1, maxItems: MAX_LINES }),
  }),
  {
    ClientInvoiceNumber: 'TILL01-000123',
    ReceiptTypeCode: 'S',
    PaymentTypeCode: '01',
    CustomerTPIN: '2000000002',
    CustomerName: 'Copperbelt Mining Supplies Limited',
    TaxInclusive: true,
    Items: [{ ItemName: 'Maize meal 25kg', ItemClassificationCode: '50221200', Quantity: 2, UnitPrice: 185, VATCategoryCode: 'A' }],
  },
);
export type LegacyInvoiceBody = Static<typeof LegacyInvoiceBody>;

export const ClientInvoiceNumberParam = Type.Object({ clientInvoicenumber: ClientInvoiceNumber });
export const InvoiceNumberParam = Type.Object({ invoiceNumber: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const GetActiveBody = withExample(
  Type.Object({
    Tpin: Type.String({ pattern: '^[0-9]{10}$' }),
    Username: Type.String({ minLength: 1, maxLength: 64 }),
    Password: Type.String({ minLength: 1, maxLength: 256 }),
  }),
  // The login the POST /api/v1/tenants/{tenant}/till-logins example creates for the demo merchant.
  { Tpin: '2000000001', Username: 'till-01', Password: 'change-me-till-01' },
);
export type GetActiveBody = Static<typeof GetActiveBody>;

/** The optional headers of the surface, for the reference page (the auth hook reads them). */
export const CompatHeaders = Type.Object({
  'terminal-id': Type.Optional(Type.String({ description: 'Alias of X-SdcId (the sdcId security scheme), for tills that send it' })),
});

// ---- responses (bare) ----


export const LegacyInvoice = Type.Object({
  ClientInvoiceNumber: Nullable(Type.String({ description: 'Null only for a document created on the modern surface without clientInvoiceNo' })),
  InvoiceNumber: Type.Integer({ description: 'The gateway invoice number: the branch\'s sequence number' }),
  Status: literals(['pending', 'uploaded', 'failed']),
  Tpin: Type.String(),
  BranchId: Type.String(),
  TotalAmount: Money,
  TaxableAmount: Money,
  TaxAmount: Money,
  Currency: Type.String(),
  ReceiptNumber: Nullable(Type.Integer()),
  InternalData: Nullable(Type.String()),
  ReceiptSignature: Nullable(Type.String()),
  SdcId: Nullable(Type.String()),
  MrcNo: Nullable(Type.String()),
  QrCodeUrl: Nullable(Type.String()),
  PublishedAt: Nullable(Timestamp()),
  ResultCode: Nullable(Type.String({ description: '000 when accepted; null while pending' })),
  ResultMessage: Nullable(Type.String({ description: 'The authority\'s reason when failed' })),
});
export type LegacyInvoice = Static<typeof LegacyInvoice>;

export const LegacyBranch = Type.Object({
  BranchId: Type.String(),
  SdcId: Nullable(Type.String({ description: 'Null until the branch\'s device is initialised' })),
  Name: Nullable(Type.String()),
  Initialized: Type.Boolean(),
});
export type LegacyBranch = Static<typeof LegacyBranch>;

export const LegacyTaxCode = Type.Object({
  Code: Type.String(),
  Name: Type.String(),
  Rate: Type.Number({ description: 'Percent' }),
});

export const GetActiveAnswer = Type.Object({
  ApiKey: Type.String({ description: 'A new fiscalisation key (pk_…), shown only in this answer' }),
  SdcId: Type.String(),
  Branches: Type.Array(LegacyBranch),
});
export type GetActiveAnswer = Static<typeof GetActiveAnswer>;

// ---- partner: till logins ----

export const Dialect = literals(['bare', 'wrapped']);

export const CreateTillLoginBody = withExample(
  Type.Object({
    username: Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7E]+$', description: 'Printable ASCII without spaces; unique per merchant, compared without case' }),
    branch: Type.String({ pattern: '^[0-9]{3}$', description: 'The branch (bhfId) the till files through' }),
    password: Type.Optional(Type.String({ minLength: 12, maxLength: 256, description: 'At least 12 characters; omit it to have one generated and shown once' })),
    dialect: Type.Optional(Dialect),
  }),
  { username: 'till-01', branch: '000', password: 'change-me-till-01', dialect: 'bare' },
);
export type CreateTillLoginBody = Static<typeof CreateTillLoginBody>;

export const TillLogin = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  branch: Type.String(),
  sdcId: Nullable(Type.String()),
  dialect: Dialect,
  activeKeyId: Nullable(Type.Integer({ description: 'The fiscalisation key the last getactive issued, while it is not revoked' })),
  createdAt: Timestamp(),
  lastLoginAt: Nullable(Timestamp()),
});
export type TillLoginResource = Static<typeof TillLogin>;

export const TillLoginCreated = Type.Object({
  ...TillLogin.properties,
  password: Type.Optional(Type.String({ description: 'The generated password, shown once; absent when you chose it' })),
});

export const TillLoginDeleted = Type.Object({ deleted: Type.Boolean(), id: Type.Integer() });
