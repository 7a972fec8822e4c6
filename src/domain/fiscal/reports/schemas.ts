import { ANY_BRANCH_PATTERN } from '../../kernel/devices/authorities.ts';
import { Type, type Static } from 'typebox';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { PageQuery } from '../../../platform/http/pagination.ts';

const Day = (description: string) => Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description, examples: ['2026-01-15'] });
const Branch = Type.String({
  pattern: ANY_BRANCH_PATTERN,
  description: 'The branch (bhfId); by default the X-Branch rules: the headquarters (`000`, KRA `00`) if registered, else the only branch',
  examples: ['000'],
});

export const DailyReportQuery = Type.Object({
  date: Type.Optional(Day("The merchant's calendar day, in its timezone (default: today there)")),
  branch: Type.Optional(Branch),
});

export const ZReportsQuery = Type.Object({
  branch: Type.Optional(Branch),
  ...PageQuery.properties,
});

export const CloseDayBody = withExample(
  Type.Object(
    {
      date: Day("The merchant's calendar day to close, in its timezone (today or earlier)"),
      branch: Type.Optional(Branch),
    },
    { additionalProperties: false },
  ),
  { date: '2026-01-15', branch: '000' },
);

export const ExportQuery = Type.Object({
  from: Day("First day (inclusive), in the merchant's timezone"),
  to: Day('Last day (inclusive), at most 92 days after `from`'),
  format: Type.Optional(literals(['csv', 'xlsx'], { description: 'csv (default) or xlsx' })),
  branch: Type.Optional(
    Type.String({ pattern: ANY_BRANCH_PATTERN, description: 'One branch; every branch when left out', examples: ['000'] }),
  ),
});

/** Counts and amounts of a set of documents (or of their lines in one VAT category). */
const Figures = Type.Object({
  count: Type.Integer({ description: 'Documents' }),
  taxable: Type.Number({ description: 'Taxable amount (vatTaxblAmt)' }),
  vat: Type.Number(),
  total: Type.Number({ description: 'What the customers paid (or were refunded)' }),
  discount: Type.Number({ description: 'Line discounts' }),
});
export type FiguresResource = Static<typeof Figures>;

/** Uploaded documents split by type, and the net (sales + debit notes − credit notes). */
const ByType = Type.Object({
  sales: Figures,
  creditNotes: Figures,
  debitNotes: Figures,
  net: Type.Object(
    { ...Figures.properties, count: Type.Integer({ description: 'Documents of every type' }) },
    { description: 'Sales + debit notes − credit notes' },
  ),
});
export type ByTypeResource = Static<typeof ByType>;

export const DailyReport = Type.Object({
  type: literals(['X', 'Z'], {
    description: 'X: the day is open, figures as of now; Z: the stored report taken when the day was closed, never changed',
  }),
  date: Type.String({ description: "The merchant's calendar day" }),
  timezone: Type.String({ description: 'The IANA time zone the day was counted in' }),
  from: Timestamp('First instant of the day (UTC)'),
  to: Timestamp('First instant of the next day (UTC): the day is [from, to)'),
  merchant: Type.Object({ id: Type.Integer(), name: Type.String(), tpin: Type.String() }),
  branch: Type.String(),
  branchName: Nullable(Type.String()),
  currency: Type.String({
    description:
      "The currency of the merchant's authority (ZMW for ZRA, KES for KRA): a foreign-currency document counts with its equivalent in it (each document's amounts × its exchangeRate, to the cent)",
  }),
  generatedAt: Timestamp('When these figures were computed'),
  closedAt: Nullable(Timestamp('Z only: when the day was closed')),
  closedBy: Nullable(
    Type.String({
      description:
        'Z only: who closed it (`tenant_token:<id>`, `user:<id>` for a user of the merchant in the console, `partner_key:<id>`, `admin`)',
    }),
  ),
  closedByName: Nullable(
    Type.String({
      description:
        "Z only: who closed it, named as the audit trail names people (a user's email, a token's name, a partner key's name and its partner's); null for an X, or once the credential is gone",
    }),
  ),
  counts: Type.Object(
    {
      documents: Type.Integer({ description: 'Fiscal (normal) documents; training and proforma ones are in nonFiscal' }),
      uploaded: Type.Integer(),
      pending: Type.Integer(),
      failed: Type.Integer(),
      resolved: Type.Integer({ description: 'Failed documents since reissued or marked resolved (docs/offline.md)' }),
    },
    { description: 'Documents of the day by status; pending ones may still be filed (a Z says how many were pending when it was taken)' },
  ),
  documents: Type.Array(
    Type.Object({
      type: literals(['sale', 'credit_note', 'debit_note']),
      status: literals(['pending', 'uploaded', 'failed', 'resolved']),
      ...Figures.properties,
    }),
    { description: 'Every document of the day by type and status' },
  ),
  fiscal: Type.Object({ ...ByType.properties }, { description: 'Uploaded documents (what the authority holds) by type' }),
  vatCategories: Type.Array(Type.Object({ category: Type.String(), rate: Type.Number(), ...ByType.properties }), {
    description: "Uploaded documents' lines per VAT category and rate",
  }),
  paymentMethods: Type.Array(
    Type.Object({ method: Type.String({ description: 'Payment type code (01 cash, 02 credit, …)' }), ...ByType.properties }),
    { description: 'Uploaded documents per payment method' },
  ),
  nonFiscal: Type.Optional(
    Type.Array(
      Type.Object({
        salesType: literals(['training', 'proforma']),
        type: literals(['sale', 'credit_note', 'debit_note']),
        count: Type.Integer(),
        taxable: Type.Number(),
        vat: Type.Number(),
        total: Type.Number({ description: "In the report's currency" }),
      }),
      {
        description:
          'Training and proforma documents of the day, every status: never fiscal, so left out of every figure above (absent from Z reports closed before they existed)',
      },
    ),
  ),
  numbers: Type.Object({
    firstInvoiceNo: Nullable(Type.Integer({ description: "The branch's invoice sequence, every document of the day" })),
    lastInvoiceNo: Nullable(Type.Integer()),
    firstReceiptNo: Nullable(Type.Integer({ description: "The VSDC's receipt numbers, uploaded documents" })),
    lastReceiptNo: Nullable(Type.Integer()),
  }),
  authority: Type.Optional(
    Type.Object(
      {
        authority: Type.String({ description: '`zra`, `kra`' }),
        taxpayerId: Type.String({ description: 'What the authority calls `merchant.tpin`: `TPIN`, `PIN`' }),
        paymentMethods: Type.Array(Type.Object({ code: Type.String(), label: Type.String() }), {
          description: "The payment types' words, for `paymentMethods[].method`",
        }),
      },
      { description: "The merchant's authority, as the report is read (not stored with a Z): the words for its codes" },
    ),
  ),
  storedAfterClose: Nullable(
    Type.Object(
      { ...ByType.properties },
      {
        description:
          'Z only: fiscal documents of this day stored after the Z was taken (a till that was offline, a sale after an early close), every status, by type; `net.count` is how many. ' +
          "They are in no daily report's figures: find them in the documents list and the exports. Counted when the Z is read; null for an X",
      },
    ),
  ),
});
export type DailyReportResource = Static<typeof DailyReport>;

/** A closed day in the list of a branch's Z reports: when and by whom, and its headline figures. */
export const ClosedDay = Type.Object({
  date: Type.String({ description: "The merchant's calendar day; its full Z is `GET …/reports/daily?date=…&branch=…`" }),
  branch: Type.String(),
  branchName: Nullable(Type.String()),
  timezone: Type.String(),
  closedAt: Timestamp('When the day was closed'),
  closedBy: Type.String({ description: "Who closed it (as the Z report's `closedBy`)" }),
  closedByName: Nullable(Type.String({ description: "Who closed it, by name (as the Z report's `closedByName`)" })),
  counts: DailyReport.properties.counts,
  net: ByType.properties.net,
  storedAfterClose: Type.Object(
    { ...Figures.properties },
    { description: "The day's fiscal documents stored after the close (as the Z report's `storedAfterClose.net`): `count` is how many" },
  ),
});
export type ClosedDayResource = Static<typeof ClosedDay>;
