import { Type, type Static } from 'typebox';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { AUTHORITY_PROFILES } from '../../../authorities/index.ts';
import { MAX_LINES, MAX_PRICE, MAX_QUANTITY } from '../../fiscal/sales/schemas.ts';
import { AnswerFiling, FILING_STATES } from '../imports/schemas.ts';

/** Every tax category of the authorities the gateway speaks to; the sale path's checks hold a line to its merchant's. */
const TAX_CATEGORY_CODES = [...new Set(Object.values(AUTHORITY_PROFILES).flatMap((p) => p.taxCategories.map((c) => c.code)))] as [
  string,
  ...string[],
];

const PURCHASE_STATUSES = ['pending', 'accepted', 'rejected'] as const;
const PURCHASE_SOURCES = ['pulled', 'manual'] as const;

// ---- requests ----

export const ListPurchasesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  status: Type.Optional(Type.Enum(PURCHASE_STATUSES, { description: '`pending`: purchases still waiting for your answer' })),
  filing: Type.Optional(Type.Enum(FILING_STATES, { description: 'Where your answer stands with the authority' })),
  source: Type.Optional(
    Type.Enum(PURCHASE_SOURCES, { description: '`pulled` from the authority, or `manual`: captured by you (POST /api/v1/purchases)' }),
  ),
});
export type ListPurchasesQuery = Static<typeof ListPurchasesQuery>;

export const PurchaseParam = Type.Object({ purchase: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const Remark = Type.String({ minLength: 1, maxLength: 400, description: 'Sent to the authority with the answer' });

export const AcceptBody = withExample(
  Type.Object(
    {
      lines: Type.Optional(
        Type.Array(
          Type.Object(
            {
              line: Type.Integer({ minimum: 1, maximum: 10_000, description: "The purchase line's `line` number" }),
              itemCode: Type.String({
                minLength: 1,
                maxLength: 50,
                description: 'One of your items (its itemCode): the goods are taken into stock as it',
              }),
            },
            { additionalProperties: false },
          ),
          { maxItems: 1_000, description: "Optional: each line at most once; a line left out keeps the supplier's item code" },
        ),
      ),
      remark: Type.Optional(Nullable(Remark)),
    },
    { additionalProperties: false, description: 'Optional body' },
  ),
  // The item the POST /api/v1/items example creates for a merchant with no items yet.
  { lines: [{ line: 1, itemCode: 'ZM2NTU0000001' }], remark: 'Received in full' },
);
export type AcceptBody = Static<typeof AcceptBody>;

export const RejectBody = withExample(
  Type.Object(
    {
      reason: Type.Optional(
        Nullable(Type.String({ minLength: 1, maxLength: 400, description: 'Why; sent to the authority with the answer' })),
      ),
    },
    { additionalProperties: false, description: 'Optional body' },
  ),
  { reason: 'Not ordered by us' },
);
export type RejectBody = Static<typeof RejectBody>;

const CapturedLine = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: "As on the supplier's invoice" }),
    classificationCode: Type.String({
      minLength: 1,
      maxLength: 20,
      description: "From the authority's classification catalogue (GET /api/v1/item-classes)",
    }),
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, description: 'Up to 4 decimals' }),
    price: Type.Number({ minimum: 0, maximum: MAX_PRICE, description: 'Unit price, tax-inclusive, up to 4 decimals; 0 for a free line' }),
    vatCategory: Type.Optional(literals(TAX_CATEGORY_CODES, { description: 'Default A (standard rated), as on a sale' })),
    rrp: Type.Optional(
      Nullable(
        Type.Number({
          minimum: 0,
          maximum: MAX_PRICE,
          description: 'MTV (vatCategory B) lines only, and required on them: the recommended retail price per unit, as on a sale',
        }),
      ),
    ),
    itemCode: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 50,
          description:
            'One of your registered items (its itemCode): filed as it, and a goods item is taken into stock. Leave it out for a line that is not one of your items',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const CapturePurchaseBody = withExample(
  Type.Object(
    {
      supplier: Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100, description: "The supplier's name, as on its invoice (spplrNm)" }),
          tpin: Type.Optional(
            Nullable(
              Type.String({
                minLength: 1,
                maxLength: 20,
                description: "The supplier's taxpayer id in the merchant's authority's form (ZRA: 10 digits; KRA: a PIN), when it has one",
              }),
            ),
          ),
        },
        { additionalProperties: false },
      ),
      supplierInvoiceNo: Type.String({
        minLength: 1,
        maxLength: 50,
        description:
          "The number on the supplier's invoice. Sent to the authority as spplrInvcNo when it is a whole number; otherwise in the remark. A second capture with the same supplier and number at the branch is 409 purchase_already_captured",
      }),
      occurredAt: Type.Optional(
        Timestamp('When you bought it (default: now); not in the future, not more than 180 days ago (the VSDC refuses older documents)'),
      ),
      items: Type.Array(CapturedLine, { minItems: 1, maxItems: MAX_LINES }),
    },
    { additionalProperties: false },
  ),
  // The item the POST /api/v1/items example creates for a merchant with no items yet.
  {
    supplier: { name: 'Chanda Family Farm' },
    supplierInvoiceNo: '0042',
    items: [
      { name: 'Maize 50kg bag', classificationCode: '50221200', quantity: 20, price: 230, vatCategory: 'A', itemCode: 'ZM2NTU0000001' },
      { name: 'Transport to store', classificationCode: '50221200', quantity: 1, price: 150 },
    ],
  },
);
export type CapturePurchaseBody = Static<typeof CapturePurchaseBody>;

// ---- responses ----

const Amount = Nullable(Type.Number());
const Text = Nullable(Type.String());

const PurchaseLine = Type.Object({
  line: Type.Integer({ description: "Position in the supplier's document, from 1" }),
  itemSeq: Amount,
  itemCode: Nullable(Type.String({ description: "The supplier's item code" })),
  itemClassificationCode: Text,
  itemName: Text,
  barcode: Text,
  packagingUnitCode: Text,
  packages: Amount,
  quantityUnitCode: Text,
  quantity: Amount,
  unitPrice: Amount,
  supplyAmount: Amount,
  discountRate: Amount,
  discountAmount: Amount,
  vatCategory: Text,
  taxableAmount: Amount,
  vatAmount: Amount,
  totalAmount: Amount,
  mappedItemCode: Nullable(
    Type.String({
      description: "Your item the line was accepted as (mapped in the answer, or the supplier's code when it is one of your items)",
    }),
  ),
});

export const Purchase = Type.Object({
  id: Type.Integer(),
  source: Type.Enum(PURCHASE_SOURCES, {
    description:
      "`pulled` from the authority (a registered supplier filed the sale), or `manual`: captured by you from an unregistered supplier's invoice (POST /api/v1/purchases), accepted at once and filed with regTyCd M",
  }),
  branch: Type.String({ description: 'The branch (bhfId) it was pulled through or captured at; the answer is filed through it' }),
  supplier: Type.Object({
    tpin: Text,
    name: Text,
    branch: Text,
    invoiceNo: Nullable(Type.String({ description: "The supplier's invoice number, as sent" })),
    sdcId: Text,
  }),
  receiptTypeCode: Nullable(Type.String({ description: "`S` sale, `R` credit note (the supplier's rcptTyCd)" })),
  paymentTypeCode: Text,
  confirmedAt: Nullable(Type.String({ description: 'cfmDt as the authority sent it (not always YYYYMMDDHHmmss)' })),
  salesDate: Nullable(Type.String({ description: 'salesDt as sent' })),
  stockReleaseDate: Nullable(Type.String({ description: 'stockRlsDt as sent' })),
  totals: Type.Object(
    { itemCount: Amount, taxableAmount: Amount, taxAmount: Amount, amount: Amount },
    { description: "The supplier's totals as sent" },
  ),
  remark: Nullable(Type.String({ description: "The supplier's remark" })),
  inconsistencies: Type.Array(Type.String(), {
    description: "What does not add up in the supplier's data (stored as received, never refused)",
  }),
  lines: Type.Array(PurchaseLine),
  status: Type.Enum(PURCHASE_STATUSES, { description: 'pending until you answer; then accepted or rejected, never changed' }),
  decidedAt: Nullable(Timestamp()),
  answerRemark: Nullable(Type.String({ description: 'Your remark (accept) or reason (reject)' })),
  purchaseInvoiceNo: Nullable(
    Type.Integer({ description: "The branch's own purchase number the answer is filed under (savePurchase invcNo)" }),
  ),
  filing: AnswerFiling,
  receivedAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type PurchaseResource = Static<typeof Purchase>;
