import { ANY_BRANCH_PATTERN } from '../../kernel/devices/authorities.ts';
import { Type, type Static } from 'typebox';
import { BranchHeaders } from '../../kernel/devices/schemas.ts';
import { authorityProfile } from '../../../authorities/index.ts';
import type { CodeLabel, SalesType } from '../../../authorities/port/index.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import type { SaleStatus } from '../../../platform/db/tables/sales.ts';

/** The spec's three statuses of a document (2.2), the only ones a resource shows. */
export const SALE_STATUSES = ['pending', 'uploaded', 'failed'] as const satisfies readonly SaleStatus[];

/** The document kinds of the API (each authority's profile says which of them it files). */
export const SALES_TYPES = ['normal', 'training', 'proforma'] as const satisfies readonly SalesType[];

// The fields whose values the merchant's authority defines take any string here and are checked
// against its profile (authority-fields.ts); their descriptions name Zambia's, the first profile.
const ZAMBIA = authorityProfile('zra-vsdc');
const codes = (list: readonly { code: string }[]): string => list.map((c) => c.code).join(', ');
const labelled = (list: readonly CodeLabel[]): string => list.map((c) => `${c.code} ${c.label}`).join(', ');
/** A code of one of the authority's tables: at most 10 printable characters. */
const authorityCode = (description: string, example: string) =>
  Type.String({ minLength: 1, maxLength: 10, description, examples: [example] });

export const MAX_LINES = 500;
export const MAX_QUANTITY = 1_000_000;
export const MAX_PRICE = 10_000_000_000;
/** A document total above this could no longer be exact to the cent as a JSON number. */
export const MAX_DOCUMENT_TOTAL = 1_000_000_000_000;

// ---- requests ----

export const SaleLineInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    classificationCode: Type.String({
      minLength: 1,
      maxLength: 20,
      description: "From the authority's classification catalogue (GET /api/v1/item-classes)",
    }),
    itemCode: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 50, description: 'The authority item code, when the item is registered' })),
    ),
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'Up to 4 decimals' }),
    price: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_PRICE,
      description:
        'Unit price, up to 4 decimals; tax-inclusive unless taxInclusive is false. The line (quantity × price) must round to at least 0.01',
    }),
    vatCategory: Type.Optional(
      authorityCode(
        `A tax category of the merchant's authority (default: its standard one). Zambia: ${codes(ZAMBIA.taxCategories)} (default ${ZAMBIA.defaultTaxCategory})`,
        ZAMBIA.defaultTaxCategory,
      ),
    ),
    discount: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          maximum: MAX_DOCUMENT_TOTAL,
          description:
            "The line's discount, an amount (the VSDC's dcAmt; dcRt is derived): up to 4 decimals, filed rounded to the cent; at most the line's quantity × price. VAT is computed on what is left",
        }),
      ),
    ),
    rrp: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          maximum: MAX_PRICE,
          description:
            'MTV (vatCategory B) lines only, and required on them: the recommended retail price per unit, in the same terms as price. VAT is computed on quantity × rrp when the line sells below it',
        }),
      ),
    ),
    levy: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 20,
          description: `A levy on the line (Zambia: ${codes(ZAMBIA.levies)}). The gateway computes no levy: a line naming one is refused (422 levy_not_supported), never filed without it`,
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

const Customer = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    tpin: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 20,
          description: `The buyer's taxpayer id, in the form of the merchant's authority (Zambia: ${ZAMBIA.taxpayerId.words})`,
          examples: [ZAMBIA.taxpayerId.example],
        }),
      ),
    ),
    address: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description:
            "Printed on the tax invoice. Default: the registered customer's address when tpin names one (POST /api/v1/customers)",
          examples: ['Plot 2374, Kafue Road, Lusaka'],
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const CreateSaleBody = withExample(
  Type.Object(
    {
      items: Type.Array(SaleLineInput, { minItems: 1, maxItems: MAX_LINES }),
      customer: Type.Optional(Nullable(Customer)),
      paymentMethod: Type.Optional(
        authorityCode(
          `A payment type of the merchant's authority (default: cash). Zambia: ${labelled(ZAMBIA.paymentMethods)} (default ${ZAMBIA.defaultPaymentMethod})`,
          ZAMBIA.defaultPaymentMethod,
        ),
      ),
      taxInclusive: Type.Optional(Type.Boolean()),
      occurredAt: Type.Optional(Timestamp()),
      destinationCountryCode: Type.Optional(
        Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2; required when a line is C1 (export)' })),
      ),
      clientInvoiceNo: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
      salesType: Type.Optional(
        literals(SALES_TYPES, {
          description:
            'normal (default): a fiscal sale. training: a cashier learning the till; proforma: a quote. Training and proforma documents are filed with the VSDC (salesTyCd T / P) from sequences of their own per branch (cisInvcNo T-12, P-7), are never fiscal sales (reports, quotas) and print NOT A TAX INVOICE. A training token or key issues training documents only',
          examples: ['training', 'proforma'],
        }),
      ),
      currency: Type.Optional(
        Type.String({
          pattern: '^[A-Z]{3}$',
          description: 'ISO 4217 (default ZMW); amounts are in this currency',
          examples: ['USD', 'ZAR'],
        }),
      ),
      exchangeRate: Type.Optional(
        Nullable(
          Type.Number({
            exclusiveMinimum: 0,
            maximum: 1_000_000,
            description:
              'ZMW per unit of currency, up to 4 decimals: required when currency is not ZMW (filed as exchangeRt); 1 or absent for ZMW',
            examples: [27.15],
          }),
        ),
      ),
      lpoNumber: Type.Optional(
        Nullable(
          Type.String({
            minLength: 1,
            maxLength: 50,
            description: "The buyer's Local Purchase Order number: required when a line is C2 (zero-rated LPO sale)",
            examples: ['GRZ/MOH/LPO/2026/0415'],
          }),
        ),
      ),
      principalId: Type.Optional(
        Nullable(
          Type.String({
            minLength: 1,
            maxLength: 50,
            pattern: '^[\\x21-\\x7E]+$',
            description: "An RVAT agent's sale: the principal it sells for (GET /api/v1/principals)",
            examples: ['31'],
          }),
        ),
      ),
    },
    { additionalProperties: false },
  ),
  {
    items: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 2, price: 185, vatCategory: 'A' }],
    customer: { name: 'Copperbelt Mining Supplies Limited', tpin: '2000000002' },
    paymentMethod: '01',
    clientInvoiceNo: 'POS1-000123',
  },
);
export type CreateSaleBody = Static<typeof CreateSaleBody>;

export const CreditNoteBody = withExample(
  Type.Object(
    {
      reasonCode: authorityCode(`A credit-note reason of the merchant's authority. Zambia: ${labelled(ZAMBIA.creditNoteReasons)}`, '01'),
      items: Type.Optional(
        Type.Array(
          Type.Object(
            {
              line: Type.Integer({ minimum: 1, maximum: MAX_LINES, description: 'The line number on the original sale' }),
              quantity: Type.Optional(
                Type.Number({
                  exclusiveMinimum: 0,
                  maximum: MAX_QUANTITY,
                  description: 'Default: all that is left to credit on that line',
                }),
              ),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: MAX_LINES },
        ),
      ),
      occurredAt: Type.Optional(Timestamp()),
      clientInvoiceNo: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    },
    { additionalProperties: false },
  ),
  { reasonCode: '01', items: [{ line: 1, quantity: 1 }], clientInvoiceNo: 'POS1-000124' },
);
export type CreditNoteBody = Static<typeof CreditNoteBody>;

export const DebitNoteBody = withExample(
  Type.Object(
    {
      reasonCode: authorityCode(
        `A debit-note reason of the merchant's authority. Zambia: ${labelled(ZAMBIA.debitNoteReasons ?? [])}`,
        '01',
      ),
      items: Type.Array(SaleLineInput, { minItems: 1, maxItems: MAX_LINES }),
      occurredAt: Type.Optional(Timestamp()),
      clientInvoiceNo: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    },
    { additionalProperties: false },
  ),
  {
    reasonCode: '01',
    items: [{ name: 'Maize meal 25kg, price correction', classificationCode: '50221200', quantity: 2, price: 10, vatCategory: 'A' }],
    clientInvoiceNo: 'POS1-000125',
  },
);
export type DebitNoteBody = Static<typeof DebitNoteBody>;

const MAX_RESOLUTION_NOTE = 500;

export const ResolveBody = withExample(
  Type.Object(
    {
      note: Type.String({
        minLength: 1,
        maxLength: MAX_RESOLUTION_NOTE,
        description: 'Why nothing has to be filed for this document (required; shown in the console and the audit log)',
      }),
    },
    { additionalProperties: false },
  ),
  { note: 'Customer cancelled the order; goods never left the shop.' },
);
export type ResolveBody = Static<typeof ResolveBody>;

export const ReissueBody = withExample(
  Type.Object(
    {
      ...CreateSaleBody.properties,
      note: Type.Optional(
        Type.String({ minLength: 1, maxLength: MAX_RESOLUTION_NOTE, description: "Recorded with the failed document's resolution" }),
      ),
    },
    { additionalProperties: false },
  ),
  {
    items: [{ name: 'Maize meal 25kg', classificationCode: '50221200', quantity: 2, price: 185, vatCategory: 'A' }],
    customer: { name: 'Copperbelt Mining Supplies Limited', tpin: '2000000002' },
    paymentMethod: '01',
    clientInvoiceNo: 'POS1-000123-R1',
    note: 'Customer TPIN corrected',
  },
);
export type ReissueBody = Static<typeof ReissueBody>;

export const WriteHeaders = Type.Object({
  ...BranchHeaders.properties,
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 257,
      pattern: '^"?[\\x21-\\x7E]{1,255}"?$',
      description: 'Up to 255 printable ASCII characters; a repeat returns the original document',
    }),
  ),
});

export const SaleParam = Type.Object({ sale: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, examples: [1] }) });

/** A partner's merchant's document. */
export const TenantSaleParam = Type.Object({
  tenant: Type.Integer({ minimum: 1, maximum: 2147483647, examples: [1] }),
  ...SaleParam.properties,
});

/** A partner's reissue names no branch (the failed sale's is used): only the Idempotency-Key. */
export const IdempotencyHeaders = Type.Object({ 'idempotency-key': WriteHeaders.properties['idempotency-key'] });

/** `?expand=credits` on GET /api/v1/sales/{sale}: what a credit note may still take back, and the notes. */
export const GetSaleQuery = Type.Object(
  {
    expand: Type.Optional(
      Type.Literal('credits', {
        description:
          "credits: a sale also gives each line's `creditedQuantity` and `remainingQuantity` (what a credit note may still take back) and `notes`, the credit and debit notes issued against it; " +
          'a note gives `originalSale`, the sale it corrects with its `invoiceNo` and `authorityInvoiceNo`. Without it the document is the same resource as in lists and webhooks.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListSalesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  reference: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Your clientInvoiceNo or the Idempotency-Key the sale was created with' }),
  ),
  status: Type.Optional(
    literals(SALE_STATUSES, {
      description: 'Only documents in this state (`failed` includes the refused documents since resolved: `resolved` narrows)',
    }),
  ),
  resolved: Type.Optional(
    Type.Boolean({
      description:
        '`true`: only the refused documents since reissued or marked resolved (they have a `resolution`); `false`: every other document (with `status=failed`, the refused ones still to deal with)',
    }),
  ),
  type: Type.Optional(literals(['sale', 'credit_note', 'debit_note'], { description: 'Only sales, or only credit or debit notes' })),
  salesType: Type.Optional(literals(SALES_TYPES, { description: 'Only normal (fiscal), training or proforma documents' })),
  branch: Type.Optional(
    Type.String({
      pattern: ANY_BRANCH_PATTERN,
      description: "Only this branch (bhfId, in the merchant's authority's form); the same as the X-Branch header",
      examples: ['000'],
    }),
  ),
  from: Type.Optional(
    Type.String({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
      description: "Documents that occurred on or after this day (YYYY-MM-DD) in the merchant's timezone",
      examples: ['2026-01-01'],
    }),
  ),
  to: Type.Optional(
    Type.String({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
      description: "Documents that occurred on or before this day (YYYY-MM-DD, inclusive) in the merchant's timezone",
      examples: ['2026-01-31'],
    }),
  ),
});
export type ListSalesQuery = Static<typeof ListSalesQuery>;
