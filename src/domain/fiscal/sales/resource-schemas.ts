// The sales resources as the API answers them: a document (`Sale`, its lines, notes, fiscal block
// and resolution) and `GET /api/v1/me`. The requests are in schemas.ts.
import { Type, type Static } from 'typebox';
import { AuthorityBranches } from '../../kernel/devices/schemas.ts';
import { Nullable, literals, Timestamp } from '../../../platform/http/schema-helpers.ts';
import { DocumentStock } from '../stock/document-stock.ts';
import { SALE_STATUSES, SALES_TYPES } from './schemas.ts';

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
  amount: Type.Number({
    description:
      'quantity × price, rounded to 2 decimals, before the discount; on a credit note, its share of the original line (credits of a line add up to exactly its amount)',
  }),
  discount: Type.Number({
    description: "The line's discount (0 without one); on a credit note, its share of the original line's discount",
  }),
  net: Type.Number({
    description:
      'The taxable amount (vatTaxblAmt), rounded to 2 decimals: of amount − discount, or on an MTV line of quantity × rrp when higher',
  }),
  vat: Money,
  total: Type.Number({
    description:
      'What the customer pays for the line: amount − discount, plus VAT when prices exclude it. net + vat, except on an MTV line sold below its RRP',
  }),
  originalLine: Nullable(Type.Integer({ description: 'Credit notes: the line of the original sale it takes back' })),
  creditedQuantity: Type.Optional(
    Type.Number({
      description:
        'A sale read alone (GET /api/v1/sales/{sale}): how much of the line its credit notes have taken back, counting those pending or uploaded (a refused note took nothing)',
    }),
  ),
  remainingQuantity: Type.Optional(
    Type.Number({
      description:
        'A sale read alone (GET /api/v1/sales/{sale}): what is left to credit on the line, quantity − creditedQuantity; a credit note may take at most this much of it',
    }),
  ),
});

/** A note as its sale lists it. */
export const IssuedBy = Nullable(
  Type.Object(
    {
      type: literals(['user', 'tenant_token', 'till_login', 'fiscalisation_key', 'partner_key'], {
        description:
          '`user`: a user of the merchant, signed in to the console; `tenant_token`: one of its tenant tokens; `till_login`: a legacy till, by the till login whose key it used; ' +
          "`fiscalisation_key`: a legacy till's key minted by the merchant or its partner; `partner_key`: its partner (a reissue)",
      }),
      id: Type.Integer({ description: "The credential's id (of that type)" }),
      name: Nullable(
        Type.String({
          description:
            "What it is called now, as the audit trail names it: the user's email, the token's name, the till login's username, the key masked (`pk_…abcd`), the partner key's name and its partner's",
        }),
      ),
    },
    {
      description:
        'Which credential issued the document (revoked since or not); null for documents stored before the gateway recorded it (docs/sales.md#who-issued-a-document)',
    },
  ),
);

const NoteSummary = Type.Object({
  id: Type.Integer(),
  type: literals(['credit_note', 'debit_note']),
  invoiceNo: Type.Integer({ description: "The note's number in the branch's sequence" }),
  authorityInvoiceNo: Nullable(
    Type.String({ description: 'INV{sdcId without SDC}/{receiptNo}, as printed on its receipt; null until uploaded' }),
  ),
  status: literals(SALE_STATUSES),
  resolved: Type.Boolean({ description: 'A failed note since marked resolved' }),
  reasonCode: Nullable(Type.String()),
  total: Type.Number({ description: "The note's total, in the sale's currency" }),
  occurredAt: Timestamp(),
  issuedBy: IssuedBy,
});

/** The sale a note corrects, named as its receipt names it. */
const OriginalSale = Type.Object(
  {
    id: Type.Integer(),
    invoiceNo: Type.Integer({ description: "The sale's number in the branch's sequence" }),
    authorityInvoiceNo: Nullable(
      Type.String({
        description:
          "The number printed on its receipt, in its authority's form (ZRA: INV{sdcId without SDC}/{receiptNo}; KRA: {sdcId}/{invoiceNo})",
      }),
    ),
    receiptNo: Nullable(Type.Integer()),
  },
  { description: 'A note read alone (GET /api/v1/sales/{sale}): the sale it corrects, by the numbers the merchant knows it by' },
);

const Fiscal = Type.Object({
  receiptNo: Nullable(Type.Integer()),
  totalReceiptNo: Nullable(
    Type.Integer({
      description:
        "The authority's count of every receipt its unit issued, this one included (KRA: totRcptNo); null for an authority that gives none (ZRA)",
    }),
  ),
  internalData: Nullable(Type.String()),
  receiptSignature: Nullable(Type.String()),
  sdcId: Nullable(Type.String()),
  mrcNo: Nullable(Type.String()),
  qrCodeUrl: Nullable(Type.String()),
  publishedAt: Nullable(Timestamp('When the authority fiscalised the document; null exactly when not filed')),
});

export const Resolution = Type.Object(
  {
    kind: literals(['reissued', 'marked'], {
      description: '`reissued`: replaced by a new document (`replacedBySaleId`); `marked`: nothing had to be filed',
    }),
    by: Type.Object({
      type: Type.String({
        description:
          "Who resolved it: `tenant_token` (the merchant's token), `user` (a user of the merchant, signed in to the console) or `partner_key` (its partner)",
      }),
      id: Nullable(Type.Integer()),
    }),
    at: Timestamp(),
    note: Nullable(Type.String()),
    replacedBySaleId: Nullable(Type.Integer()),
  },
  { description: 'How a failed document was resolved (reissued or marked); null while it is not: its `status` stays `failed`' },
);

export const Sale = Type.Object({
  id: Type.Integer(),
  type: literals(['sale', 'credit_note', 'debit_note']),
  salesType: literals(SALES_TYPES, {
    description: 'normal: a fiscal document; training or proforma: filed as such (salesTyCd T / P), never a tax invoice',
  }),
  reference: Nullable(Type.String({ description: 'The Idempotency-Key the document was created with' })),
  clientInvoiceNo: Nullable(Type.String()),
  invoiceNo: Type.Integer({
    description:
      "The branch's invoice sequence number of the document's kind (salesType): filed as cisInvcNo, `12` for a normal document, `T-12` training, `P-12` proforma",
  }),
  authorityInvoiceNo: Nullable(
    Type.String({ description: 'INV{sdcId without SDC}/{receiptNo}, as printed on the fiscal receipt; null until uploaded' }),
  ),
  status: literals(SALE_STATUSES, {
    description: '`failed`: refused by the authority; one since reissued or marked resolved stays `failed` and has a `resolution`',
  }),
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
  resultCode: Nullable(Type.String({ description: "000 when accepted; the authority's code when failed; null while pending" })),
  lastError: Nullable(Type.String()),
  originalSaleId: Nullable(Type.Integer()),
  originalSale: Type.Optional(OriginalSale),
  notes: Type.Optional(
    Type.Array(NoteSummary, {
      description:
        'A sale read alone (GET /api/v1/sales/{sale}): the credit and debit notes issued against it, oldest first, whatever their status (a failed or resolved credit note took nothing back)',
    }),
  ),
  reasonCode: Nullable(Type.String({ description: 'Credit-note reason (01–07) or debit-note reason (01–04)' })),
  stock: DocumentStock,
  replacesSaleId: Nullable(Type.Integer({ description: 'A reissue: the failed document this one replaces' })),
  resolution: Nullable(Resolution),
  issuedBy: IssuedBy,
  createdAt: Timestamp(),
  fiscalisedAt: Timestamp("Despite its name, the record's last-modified time"),
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
  timezone: Type.String({
    description: "IANA time zone of the merchant's days (reports, list filters) and of the times its receipts print",
    examples: ['Africa/Lusaka'],
  }),
  stockTracking: Type.Boolean({
    description: "Whether the gateway keeps your stock and sends the authority's stock chain (PATCH /api/v1/stock/settings)",
  }),
  devices: Type.Array(MeDevice),
  authorityBranches: AuthorityBranches,
});
export type MeResource = Static<typeof Me>;
