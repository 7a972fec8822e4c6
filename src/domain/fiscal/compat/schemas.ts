// The legacy till dialect (shared/compat-dialect.md): PascalCase names, unknown fields ignored
// (no `additionalProperties: false` anywhere in a request), bare payloads. The wrapped envelope
// is added by the dialect hook after serialisation, so responses here describe the bare form.
import { Type, type Static } from 'typebox';
import { MAX_LINES, MAX_PRICE, MAX_QUANTITY, SALE_STATUSES } from '../sales/schemas.ts';
import { Money } from '../sales/resource-schemas.ts';
import { authorityProfile } from '../../../authorities/index.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';

/** The till surface is Zambia's: its codes, categories and arithmetic are the ZRA VSDC profile's. */
export const ZAMBIA = authorityProfile('zra-vsdc');
/** One of the profile's codes: the same union of literals a compiled-in list would give. */
const oneOfCodes = (list: readonly { code: string }[], options?: Parameters<typeof literals>[1]) =>
  Type.Unsafe<string>(
    literals(
      list.map((c) => c.code),
      options,
    ),
  );

/** Printable, no leading or trailing blanks: the number is part of an idempotency key and a path. */
const tillNumber = (description: string) => Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', description });
const ClientInvoiceNumber = tillNumber("The till's own invoice number; idempotent per branch");

// ---- requests ----

// POST /zm/api/Invoice takes the names of two families (field-names.ts), without regard to case.
// These schemas check the body once its fields are read by name, under the spellings below; which
// fields are required depends on the family and is checked by invoice-body.ts. The route's own
// validation is off for the body (routes.ts), so that a field sent as `invoiceitems` or
// `ItemDESC` is read like its spelling here.

const TillText = (maxLength: number, description: string) => Nullable(Type.String({ maxLength, description }));
/** A unit code of the authority's lists, or empty for none (generated clients send "" for an unset string). */
const UNIT_CODE = '^([A-Z0-9]{1,5})?$';

export const TillInvoiceLine = Type.Object({
  ItemSequenceNumber: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description:
          'Product: the line number (VSDC itemSeq), unique in the invoice; lines are filed in this order. Send it on every line or none',
      }),
    ),
  ),
  ItemName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Ours: the line name (product: ItemDesc). Required' })),
  ItemDesc: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Product: the line name (ours: ItemName). Required' })),
  ItemClassificationCode: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 20,
      description: "Ours: the code from the authority's classification catalogue (product: itemClsCd). Required",
    }),
  ),
  itemClsCd: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 20,
      description: "Product: the code from the authority's classification catalogue (ours: ItemClassificationCode). Required",
    }),
  ),
  PackagingUnitCode: Type.Optional(
    Nullable(
      Type.String({
        pattern: UNIT_CODE,
        description: "Product: the authority's packaging unit code (class 17, VSDC pkgUnitCd), e.g. NT net, CT carton; empty or null: NT",
      }),
    ),
  ),
  Package: Type.Optional(
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: MAX_QUANTITY,
        description: 'Product: the number of packages (VSDC pkg); 0 or null: the quantity',
      }),
    ),
  ),
  QuantityUnitCode: Type.Optional(
    Nullable(
      Type.String({
        pattern: UNIT_CODE,
        description: "Product: the authority's quantity unit code (class 10, VSDC qtyUnitCd), e.g. U pieces, KG; empty or null: U",
      }),
    ),
  ),
  Quantity: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'Up to 4 decimals. Required' })),
  UnitPrice: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_PRICE,
      description: 'Up to 4 decimals; tax-inclusive unless TaxInclusive (ours) or isTaxInclusive (product) is false. Required',
    }),
  ),
  DiscountAmount: Type.Optional(
    Nullable(Type.Number({ minimum: 0, maximum: MAX_PRICE, description: 'Product: the discount on the line, an amount (VSDC dcAmt)' })),
  ),
  TotalAmount: Type.Optional(
    Nullable(
      Type.Number({ description: 'Product: Quantity × UnitPrice − DiscountAmount as the till computed it; more than 0.01 off is a 422' }),
    ),
  ),
  Barcode: Type.Optional(TillText(50, 'Product: the barcode (VSDC bcd)')),
  VATCategoryCode: Type.Optional(
    Nullable(
      oneOfCodes(ZAMBIA.taxCategories, { description: `Ours: the VAT category (product: TaxCodes); default ${ZAMBIA.defaultTaxCategory}` }),
    ),
  ),
  TaxCodes: Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 10 }), {
        maxItems: 10,
        description: "Product: the line's tax codes, the VAT category (A, B, C1, …; default A) and any levy (TL, IPL1, IPL2, ECM, EXEEG)",
      }),
    ),
  ),
  isTaxInclusive: Type.Optional(
    Nullable(Type.Boolean({ description: 'Product: whether UnitPrice includes VAT; every line of an invoice must agree; default true' })),
  ),
  rrp: Type.Optional(
    Nullable(
      Type.Number({
        minimum: 0,
        maximum: MAX_PRICE,
        description: 'Product: the recommended retail price; required on a line whose tax code is B (MTV), ignored on others',
      }),
    ),
  ),
});

const TillLines = (description: string) => Type.Optional(Type.Array(TillInvoiceLine, { minItems: 1, maxItems: MAX_LINES, description }));

export const TillInvoiceBody = withExample(
  Type.Object(
    {
      ClientInvoiceNumber: Type.Optional(
        tillNumber("Ours: the till's own invoice number, idempotent per branch (product: InvoiceNumber). Required"),
      ),
      InvoiceNumber: Type.Optional(
        tillNumber("Product: the till's own invoice number, idempotent per branch (ours: ClientInvoiceNumber). Required"),
      ),
      OriginalInvoiceNumber: Type.Optional(
        TillText(100, 'Product: only meaningful for credit and debit notes, which this surface refuses; kept with the body'),
      ),
      RegistrantName: Type.Optional(TillText(60, 'Product: who registered the sale at the till (VSDC regrNm)')),
      RegistrantId: Type.Optional(TillText(20, "Product: the registrant's id (VSDC regrId)")),
      IssuerName: Type.Optional(TillText(60, 'Product: VSDC modrNm; default the registrant')),
      IssuerId: Type.Optional(TillText(20, 'Product: VSDC modrId; default the registrant')),
      CustomerMobileNumber: Type.Optional(TillText(30, 'Product: kept with the body, not sent to the VSDC')),
      ReportNumber: Type.Optional(TillText(100, 'Product: kept with the body, not sent to the VSDC')),
      ReceiptTypeCode: Type.Optional(
        Type.Literal('S', { description: 'Only S (sale); credit and debit notes are modern-surface only. Required' }),
      ),
      PaymentTypeCode: Type.Optional(Nullable(oneOfCodes(ZAMBIA.paymentMethods))),
      currencyType: Type.Optional(
        Nullable(
          Type.String({
            pattern: '^[A-Z]{3}$',
            description: 'Product: the currency, ISO 4217 (VSDC currencyTyCd); default ZMW. Amounts are in it',
          }),
        ),
      ),
      conversionRate: Type.Optional(
        Nullable(
          Type.Number({
            exclusiveMinimum: 0,
            maximum: 1_000_000,
            description:
              'Product: ZMW per unit of currencyType (VSDC exchangeRt), up to 4 decimals: required for a currency other than ZMW, which the VSDC refuses at 1',
          }),
        ),
      ),
      SalesDate: Type.Optional(Nullable(Timestamp('Ours: when the sale happened, ISO 8601 (product: SaleDate); default now'))),
      SaleDate: Type.Optional(
        Nullable(
          Type.String({
            pattern: '^[0-9]{14}$',
            description:
              "Product: when the sale happened, yyyyMMddHHmmss in the till's local time, the merchant's time zone (Africa/Lusaka, UTC+2); ours: SalesDate; default now",
          }),
        ),
      ),
      CustomerName: Type.Optional(Nullable(Type.String({ maxLength: 60, description: 'Empty or null: the walk-in customer' }))),
      CustomerTPIN: Type.Optional(
        Nullable(
          Type.String({
            pattern: '^([0-9]{10})?$',
            description: '10 digits; empty or null for none (product: CustomerTpin, the same name without regard to case)',
          }),
        ),
      ),
      refundedReasonCode: Type.Optional(
        TillText(10, 'Product: only meaningful for credit notes, which this surface refuses; kept with the body'),
      ),
      sdcId: Type.Optional(TillText(100, "Product: the branch's SDC id; X-SdcId selects the branch, and a different sdcId is refused")),
      TaxInclusive: Type.Optional(
        Nullable(Type.Boolean({ description: 'Ours: whether prices include VAT (product: isTaxInclusive on each line); default true' })),
      ),
      DestinationCountryCode: Type.Optional(
        Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'Required when a line is C1 (export)' })),
      ),
      Items: TillLines('Ours: the lines (product: invoiceItems). Required'),
      invoiceItems: TillLines('Product: the lines (ours: Items). Required'),
    },
    {
      description:
        'The fields of two families of names, ours and those of the product /zm/api imitates, matched without regard to case; a body may mix the families, ' +
        'but a field given twice (two names, or two casings of one) is a 422 naming both. Unknown fields are ignored.',
    },
  ),
  {
    InvoiceNumber: 'TILL01-000123',
    ReceiptTypeCode: 'S',
    PaymentTypeCode: '01',
    CustomerTPIN: '2000000002',
    CustomerName: 'Copperbelt Mining Supplies Limited',
    RegistrantName: 'Till 1',
    invoiceItems: [
      {
        ItemSequenceNumber: 1,
        ItemDesc: 'Maize meal 25kg',
        itemClsCd: '50221200',
        Quantity: 2,
        UnitPrice: 185,
        TotalAmount: 370,
        TaxCodes: ['A'],
        isTaxInclusive: true,
      },
    ],
  },
);
export type TillInvoiceBody = Static<typeof TillInvoiceBody>;
export type TillInvoiceLine = Static<typeof TillInvoiceLine>;

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
  ClientInvoiceNumber: Nullable(
    Type.String({ description: 'Null only for a document created on the modern surface without clientInvoiceNo' }),
  ),
  InvoiceNumber: Type.Integer({ description: "The gateway invoice number: the branch's sequence number" }),
  Status: literals(SALE_STATUSES, {
    description: "The sale resource's `status`: a refused invoice stays `failed` once reissued or marked resolved on the modern surface",
  }),
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
  ResultMessage: Nullable(Type.String({ description: "The authority's reason when failed" })),
  // The product's fiscal answer (ZMFiscalDetailsDtoOut), beside ours, for an invoice sent in its names.
  vsdcdate: Type.Optional(
    Nullable(
      Type.String({
        description:
          "Product names only: when the authority published the receipt, yyyyMMddHHmmss in the till's local time, the merchant's time zone (Africa/Lusaka); null while not uploaded",
      }),
    ),
  ),
  internalData: Type.Optional(Nullable(Type.String({ description: 'Product names only: = InternalData' }))),
  signature: Type.Optional(Nullable(Type.String({ description: 'Product names only: = ReceiptSignature' }))),
  receiptTotalCounter: Type.Optional(Nullable(Type.Integer({ description: 'Product names only: = ReceiptNumber' }))),
  normalReceiptTypeCounter: Type.Optional(
    Nullable(Type.Integer({ description: "Product names only: = ReceiptNumber (the receipt's number among normal sales)" })),
  ),
  taxItems: Type.Optional(
    Type.Array(
      Type.Object({
        code: Type.String({ description: 'The VAT category' }),
        rate: Type.Number({ description: 'Percent' }),
        taxableAmount: Money,
        taxAmount: Money,
      }),
      { description: "Product names only: per VAT category of the invoice's lines" },
    ),
  ),
  ReceiptCopy: Type.Optional(
    Type.Boolean({
      description:
        'On the two reads and on a replayed POST answer (not on a first answer, which is the original): true when the fiscal receipt was printed before this answer, so a till printing it now must mark it COPY. ' +
        'Prints counted: the POST /zm/api/Invoice answer of an uploaded invoice (the original), every GET /zm/api/Signature/{invoiceNumber} of an uploaded invoice (a reprint), and GET /api/v1/sales/{sale}/receipt; ' +
        'GET /zm/api/Invoice/{clientInvoicenumber} is a lookup and counts nothing, so both reads answer the same. False while not uploaded',
    }),
  ),
});
export type LegacyInvoice = Static<typeof LegacyInvoice>;

/** GET …?originalFormat=true: the invoice payload and, beside it, the body as the till sent it. */
export const LegacyInvoiceWithOriginal = Type.Object({
  ...LegacyInvoice.properties,
  OriginalInvoice: Type.Optional(
    Type.Unknown({
      description:
        'With originalFormat=true: the request body exactly as the till sent it (null for an invoice filed before bodies were kept)',
    }),
  ),
});

export const InvoiceReadQuery = Type.Object({
  originalFormat: Type.Optional(
    Type.String({
      pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$',
      description:
        'true or false in any case; true adds OriginalInvoice, the body as the till sent it. The name is matched without regard to case',
    }),
  ),
});

export const LegacyBranch = Type.Object({
  BranchId: Type.String(),
  SdcId: Nullable(Type.String({ description: "Null until the branch's device is initialised" })),
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
