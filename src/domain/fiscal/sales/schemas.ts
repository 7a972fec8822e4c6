import { ANY_BRANCH_PATTERN } from '../../kernel/devices/authorities.ts';
import { Type, type Static } from 'typebox';
import { AuthorityBranches, BranchHeaders } from '../../kernel/devices/schemas.ts';
import { authorityProfile } from '../../../authorities/index.ts';
import type { CodeLabel, SalesType } from '../../../authorities/port/index.ts';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { DocumentStock } from '../stock/document-stock.ts';
import type { SaleStatus } from '../../../platform/db/tables/sales.ts';

/** The spec's three statuses of a document (2.2), the only ones a resource shows. */
export const SALE_STATUSES = ['pending', 'uploaded', 'failed'] as const satisfies readonly SaleStatus[];

/** The document kinds of the API (each authority's profile says which of them it files). */
const SALES_TYPES = ['normal', 'training', 'proforma'] as const satisfies readonly SalesType[];

// The fields whose values the merchant's authority defines take any string here and are checked
// against its profile (authority-fields.ts); their descriptions name Zambia's, the first profile.
const ZAMBIA = authorityProfile('zra-vsdc');
const codes = (list: readonly { code: string }[]): string => list.map((c) => c.code).join(', ');
const labelled = (list: readonly CodeLabel[]): string => list.map((c) => `${c.code} ${c.label}`).join(', ');
/** A code of one of the authority's tables: at most 10 printable characters. */
const authorityCode = (description: string, example: string) => Type.String({ minLength: 1, maxLength: 10, description, examples: [example] });

export const MAX_LINES = 500;
export const MAX_QUANTITY = 1_000_000;
export const MAX_PRICE = 10_000_000_000;
/** A document total above this could no longer be exact to the cent as a JSON number. */
export const MAX_DOCUMENT_TOTAL = 1_000_000_000_000;

// ---- requests ----

export const SaleLineInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    classificationCode: Type.String({ minLength: 1, maxLength: 20, description: 'From the authority\'s classification catalogue (GET /api/v1/item-classes)' }),
    itemCode: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 50, description: 'The authority item code, when the item is registered' }))),
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'Up to 4 decimals' }),
    price: Type.Number({ exclusiveMinimum: 0, maximum: MAX_PRICE, description: 'Unit price, up to 4 decimals; tax-inclusive unless taxInclusive is false. The line (quantity × price) must round to at least 0.01' }),
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
          description: "The line's discount, an amount (the VSDC's dcAmt; dcRt is derived): up to 4 decimals, filed rounded to the cent; at most the line's quantity × price. VAT is computed on what is left",
        }),
      ),
    ),
    rrp: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          maximum: MAX_PRICE,
          description: 'MTV (vatCategory B) lines only, and required on them: the recommended retail price per unit, in the same terms as price. VAT is computed on quantity × rrp when the line sells below it',
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
      Nullable(Type.String({ minLength: 1, maxLength: 20, description: `The buyer's taxpayer id, in the form of the merchant's authority (Zambia: ${ZAMBIA.taxpayerId.words})`, examples: [ZAMBIA.taxpayerId.example] })),
    ),
    address: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 200, description: "Printed on the tax invoice. Default: the registered customer's address when tpin names one (POST /api/v1/customers)", examples: ['Plot 2374, Kafue Road, Lusaka'] })),
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
          authorityCode(`A payment type of the merchant's authority (default: cash). Zambia: ${labelled(ZAMBIA.paymentMethods)} (default ${ZAMBIA.defaultPaymentMethod})`, ZAMBIA.defaultPaymentMethod),
        ),
        taxInclusive: Type.Optional(Type.Boolean()),
        occurredAt: Type.Optional(Timestamp()),
        destinationCountryCode: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2; required when a line is C1 (export)' }))),
        clientInvoiceNo: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
        salesType: Type.Optional(
          literals(SALES_TYPES, {
            description:
              'normal (default): a fiscal sale. training: a cashier learning the till; proforma: a quote. Training and proforma documents are filed with the VSDC (salesTyCd T / P) from sequences of their own per branch (cisInvcNo T-12, P-7), are never fiscal sales (reports, quotas) and print NOT A TAX INVOICE. A training token or key issues training documents only',
            examples: ['training', 'proforma'],
          }),
        ),
        currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 (default ZMW); amounts are in this currency', examples: ['USD', 'ZAR'] })),
        exchangeRate: Type.Optional(
          Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'ZMW per unit of currency, up to 4 decimals: required when currency is not ZMW (filed as exchangeRt); 1 or absent for ZMW', examples: [27.15] })),
        ),
        lpoNumber: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 50, description: "The buyer's Local Purchase Order number: required when a line is C2 (zero-rated LPO sale)", examples: ['GRZ/MOH/LPO/2026/0415'] }))),
        principalId: Type.Optional(
          Nullable(Type.String({ minLength: 1, maxLength: 50, pattern: '^[\\x21-\\x7E]+$', description: 'An RVAT agent\'s sale: the principal it sells for (GET /api/v1/principals)', examples: ['31'] })),
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
                quantity: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'Default: all that is left to credit on that line' })),
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
        reasonCode: authorityCode(`A debit-note reason of the merchant's authority. Zambia: ${labelled(ZAMBIA.debitNoteReasons ?? [])}`, '01'),
        items: Type.Array(SaleLineInput, { minItems: 1, maxItems: MAX_LINES }),
        occurredAt: Type.Optional(Timestamp()),
        clientInvoiceNo: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
      },
      { additionalProperties: false },
  ),
  { reasonCode: '01', items: [{ name: 'Maize meal 25kg, price correction', classificationCode: '50221200', quantity: 2, price: 10, vatCategory: 'A' }], clientInvoiceNo: 'POS1-000125' },
);
export type DebitNoteBody = Static<typeof DebitNoteBody>;

const MAX_RESOLUTION_NOTE = 500;

export const ResolveBody = withExample(
  Type.Object(
    {
      note: Type.String({ minLength: 1, maxLength: MAX_RESOLUTION_NOTE, description: 'Why nothing has to be filed for this document (required; shown in the console and the audit log)' }),
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
      note: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_RESOLUTION_NOTE, description: 'Recorded with the failed document\'s resolution' })),
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
    Type.String({ minLength: 1, maxLength: 257, pattern: '^"?[\\x21-\\x7E]{1,255}"?$', description: 'Up to 255 printable ASCII characters; a repeat returns the original document' }),
  ),
});

export const SaleParam = Type.Object({ sale: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, examples: [1] }) });

/** A partner's merchant's document. */
export const TenantSaleParam = Type.Object({ tenant: Type.Integer({ minimum: 1, maximum: 2147483647, examples: [1] }), ...SaleParam.properties });

/** A partner's reissue names no branch (the failed sale's is used): only the Idempotency-Key. */
export const IdempotencyHeaders = Type.Object({ 'idempotency-key': WriteHeaders.properties['idempotency-key'] });

/** `?expand=credits` on GET /api/v1/sales/{sale}: what a credit note may still take back, and the notes. */
export const GetSaleQuery = Type.Object(
  {
    expand: Type.Optional(
      Type.Literal('credits', {
        description:
          'credits: a sale also gives each line\'s `creditedQuantity` and `remainingQuantity` (what a credit note may still take back) and `notes`, the credit and debit notes issued against it; ' +
          'a note gives `originalSale`, the sale it corrects with its `invoiceNo` and `authorityInvoiceNo`. Without it the document is the same resource as in lists and webhooks.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListSalesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Your clientInvoiceNo or the Idempotency-Key the sale was created with' })),
  status: Type.Optional(literals(SALE_STATUSES, { description: 'Only documents in this state (`failed` includes the refused documents since resolved: `resolved` narrows)' })),
  resolved: Type.Optional(Type.Boolean({ description: '`true`: only the refused documents since reissued or marked resolved (they have a `resolution`); `false`: every other document (with `status=failed`, the refused ones still to deal with)' })),
  type: Type.Optional(literals(['sale', 'credit_note', 'debit_note'], { description: 'Only sales, or only credit or debit notes' })),
  salesType: Type.Optional(literals(SALES_TYPES, { description: 'Only normal (fiscal), training or proforma documents' })),
  branch: Type.Optional(Type.String({ pattern: ANY_BRANCH_PATTERN, description: 'Only this branch (bhfId, in the merchant\'s authority\'s form); the same as the X-Branch header', examples: ['000'] })),
  from: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: "Documents that occurred on or after this day (YYYY-MM-DD) in the merchant's timezone", examples: ['2026-01-01'] })),
  to: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: "Documents that occurred on or before this day (YYYY-MM-DD, inclusive) in the merchant's timezone", examples: ['2026-01-31'] })),
});
export type ListSalesQuery = Static<typeof ListSalesQuery>;

// ---- responses ----

export const Money = Type.Number({ description: 'Rounded to 2 decimals' });

const SaleLine = Type.Object({
  line: Type.Integer(),
  name: Type.String(),
  classificationCode: Type.String(),
  itemCode: Nullable(Type.String()),
  quantity: Type.Number(),
  price: Type.Number(),
  vatCategory: Type.String(),
  vatRate: Type.Number({ description: 'Percent' }),
  rrp: Nullable(Type.Number({ description: 'MTV (B) lines: the recommended retail price per unit' })),
  amount: Type.Number({ description: 'quantity × price, rounded to 2 decimals, before the discount; on a credit note, its share of the original line (credits of a line add up to exactly its amount)' }),
  discount: Type.Number({ description: 'The line\'s discount (0 without one); on a credit note, its share of the original line\'s discount' }),
  net: Type.Number({ description: 'The taxable amount (vatTaxblAmt), rounded to 2 decimals: of amount − discount, or on an MTV line of quantity × rrp when higher' }),
  vat: Money,
  total: Type.Number({ description: 'What the customer pays for the line: amount − discount, plus VAT when prices exclude it. net + vat, except on an MTV line sold below its RRP' }),
  originalLine: Nullable(Type.Integer({ description: 'Credit notes: the line of the original sale it takes back' })),
  creditedQuantity: Type.Optional(
    Type.Number({ description: 'A sale read alone (GET /api/v1/sales/{sale}): how much of the line its credit notes have taken back, counting those pending or uploaded (a refused note took nothing)' }),
  ),
  remainingQuantity: Type.Optional(
    Type.Number({ description: 'A sale read alone (GET /api/v1/sales/{sale}): what is left to credit on the line, quantity − creditedQuantity; a credit note may take at most this much of it' }),
  ),
});

/** A note as its sale lists it. */
export const IssuedBy = Nullable(
  Type.Object({
    type: literals(['user', 'tenant_token', 'till_login', 'fiscalisation_key', 'partner_key'], {
      description:
        '`user`: a user of the merchant, signed in to the console; `tenant_token`: one of its tenant tokens; `till_login`: a legacy till, by the till login whose key it used; ' +
        '`fiscalisation_key`: a legacy till\'s key minted by the merchant or its partner; `partner_key`: its partner (a reissue)',
    }),
    id: Type.Integer({ description: 'The credential\'s id (of that type)' }),
    name: Nullable(Type.String({ description: 'What it is called now, as the audit trail names it: the user\'s email, the token\'s name, the till login\'s username, the key masked (`pk_…abcd`), the partner key\'s name and its partner\'s' })),
  }, { description: 'Which credential issued the document (revoked since or not); null for documents stored before the gateway recorded it (docs/sales.md#who-issued-a-document)' }),
);

const NoteSummary = Type.Object({
  id: Type.Integer(),
  type: literals(['credit_note', 'debit_note']),
  invoiceNo: Type.Integer({ description: "The note's number in the branch's sequence" }),
  authorityInvoiceNo: Nullable(Type.String({ description: 'INV{sdcId without SDC}/{receiptNo}, as printed on its receipt; null until uploaded' })),
  status: literals(SALE_STATUSES),
  resolved: Type.Boolean({ description: 'A failed note since marked resolved' }),
  reasonCode: Nullable(Type.String()),
  total: Type.Number({ description: "The note's total, in the sale's currency" }),
  occurredAt: Timestamp(),
  issuedBy: IssuedBy,
});

/** The sale a note corrects, named as its receipt names it. */
const OriginalSale = Type.Object({
  id: Type.Integer(),
  invoiceNo: Type.Integer({ description: "The sale's number in the branch's sequence" }),
  authorityInvoiceNo: Nullable(Type.String({ description: 'The number printed on its receipt, in its authority\'s form (ZRA: INV{sdcId without SDC}/{receiptNo}; KRA: {sdcId}/{invoiceNo})' })),
  receiptNo: Nullable(Type.Integer()),
}, { description: 'A note read alone (GET /api/v1/sales/{sale}): the sale it corrects, by the numbers the merchant knows it by' });

const Fiscal = Type.Object({
  receiptNo: Nullable(Type.Integer()),
  totalReceiptNo: Nullable(Type.Integer({ description: 'The authority\'s count of every receipt its unit issued, this one included (KRA: totRcptNo); null for an authority that gives none (ZRA)' })),
  internalData: Nullable(Type.String()),
  receiptSignature: Nullable(Type.String()),
  sdcId: Nullable(Type.String()),
  mrcNo: Nullable(Type.String()),
  qrCodeUrl: Nullable(Type.String()),
  publishedAt: Nullable(Timestamp('When the authority fiscalised the document; null exactly when not filed')),
});

export const Resolution = Type.Object(
  {
    kind: literals(['reissued', 'marked'], { description: '`reissued`: replaced by a new document (`replacedBySaleId`); `marked`: nothing had to be filed' }),
    by: Type.Object({ type: Type.String({ description: 'Who resolved it: `tenant_token` (the merchant\'s token), `user` (a user of the merchant, signed in to the console) or `partner_key` (its partner)' }), id: Nullable(Type.Integer()) }),
    at: Timestamp(),
    note: Nullable(Type.String()),
    replacedBySaleId: Nullable(Type.Integer()),
  },
  { description: 'How a failed document was resolved (reissued or marked); null while it is not: its `status` stays `failed`' },
);

export const Sale = Type.Object({
  id: Type.Integer(),
  type: literals(['sale', 'credit_note', 'debit_note']),
  salesType: literals(SALES_TYPES, { description: 'normal: a fiscal document; training or proforma: filed as such (salesTyCd T / P), never a tax invoice' }),
  reference: Nullable(Type.String({ description: 'The Idempotency-Key the document was created with' })),
  clientInvoiceNo: Nullable(Type.String()),
  invoiceNo: Type.Integer({ description: 'The branch\'s invoice sequence number of the document\'s kind (salesType): filed as cisInvcNo, `12` for a normal document, `T-12` training, `P-12` proforma' }),
  authorityInvoiceNo: Nullable(Type.String({ description: 'INV{sdcId without SDC}/{receiptNo}, as printed on the fiscal receipt; null until uploaded' })),
  status: literals(SALE_STATUSES, { description: '`failed`: refused by the authority; one since reissued or marked resolved stays `failed` and has a `resolution`' }),
  tpin: Type.String(),
  branch: Type.String(),
  customer: Type.Object({ name: Type.String(), tpin: Nullable(Type.String()), address: Nullable(Type.String()) }),
  paymentMethod: Type.String(),
  taxInclusive: Type.Boolean(),
  destinationCountryCode: Nullable(Type.String()),
  occurredAt: Timestamp(),
  items: Type.Array(SaleLine),
  totals: Type.Object({
    net: Type.Number({ description: 'Σ line net (the taxable amount filed)' }),
    vat: Money,
    total: Type.Number({ description: 'What the customer pays: Σ line total' }),
    discount: Type.Number({ description: 'Σ line discounts (already taken off total)' }),
    currency: Type.String({ description: 'ISO 4217: the currency of every amount of the document' }),
  }),
  exchangeRate: Type.Number({ description: 'ZMW per unit of totals.currency (1 for ZMW)' }),
  totalInKwacha: Type.Number({ description: 'totals.total × exchangeRate, rounded to the cent (what reports add up)' }),
  lpoNumber: Nullable(Type.String({ description: "The buyer's Local Purchase Order (zero-rated LPO sales)" })),
  principalId: Nullable(Type.String({ description: "An RVAT agent's sale: the principal it sells for" })),
  fiscal: Fiscal,
  resultCode: Nullable(Type.String({ description: '000 when accepted; the authority\'s code when failed; null while pending' })),
  lastError: Nullable(Type.String()),
  originalSaleId: Nullable(Type.Integer()),
  originalSale: Type.Optional(OriginalSale),
  notes: Type.Optional(
    Type.Array(NoteSummary, {
      description: 'A sale read alone (GET /api/v1/sales/{sale}): the credit and debit notes issued against it, oldest first, whatever their status (a failed or resolved credit note took nothing back)',
    }),
  ),
  reasonCode: Nullable(Type.String({ description: 'Credit-note reason (01–07) or debit-note reason (01–04)' })),
  stock: DocumentStock,
  replacesSaleId: Nullable(Type.Integer({ description: 'A reissue: the failed document this one replaces' })),
  resolution: Nullable(Resolution),
  issuedBy: IssuedBy,
  createdAt: Timestamp(),
  fiscalisedAt: Timestamp('Despite its name, the record\'s last-modified time'),
});
export type SaleResource = Static<typeof Sale>;

const MeDevice = Type.Object({
  branch: Type.String(),
  branchName: Nullable(Type.String()),
  deviceSerial: Type.String(),
  sdcId: Nullable(Type.String()),
  mrcNo: Nullable(Type.String()),
  initialized: Type.Boolean(),
  current: Type.Boolean({ description: 'The branch this request acts on (X-Branch, or the default)' }),
});

export const Me = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tpin: Type.String(),
  plan: Nullable(Type.String()),
  subscription: Type.String(),
  status: Type.String(),
  monthlyQuota: Nullable(Type.Integer()),
  documentsThisMonth: Type.Integer(),
  branch: Nullable(Type.String({ description: 'The branch this request acts on; null when X-Branch is absent and no default applies' })),
  timezone: Type.String({ description: "IANA time zone of the merchant's days (reports, list filters) and of the times its receipts print", examples: ['Africa/Lusaka'] }),
  stockTracking: Type.Boolean({ description: 'Whether the gateway keeps your stock and sends the authority\'s stock chain (PATCH /api/v1/stock/settings)' }),
  devices: Type.Array(MeDevice),
  authorityBranches: AuthorityBranches,
});
export type MeResource = Static<typeof Me>;

