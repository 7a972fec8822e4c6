import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';

const DECISIONS = ['approved', 'rejected'] as const;
const DECISION_FILTERS = ['undecided', 'approved', 'rejected'] as const;
export const FILING_STATES = ['not_sent', 'sending', 'accepted', 'failed'] as const;

// ---- requests ----

export const ListImportItemsQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  decision: Type.Optional(Type.Enum(DECISION_FILTERS, { description: '`undecided`: lines still waiting for your answer' })),
  filing: Type.Optional(Type.Enum(FILING_STATES, { description: 'Where the answer stands with the authority' })),
});
export type ListImportItemsQuery = Static<typeof ListImportItemsQuery>;

export const ImportItemParam = Type.Object({ importItem: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const Remark = Type.String({ minLength: 1, maxLength: 400, description: 'Sent to the authority with the answer' });

export const ApproveBody = withExample(
  Type.Object(
    {
      itemCode: Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'Your item (authority item code) the imported goods are taken into stock as',
      }),
      itemClassificationCode: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 20,
          description: 'Default: the classification of your item with that itemCode; required when itemCode is not one of your items',
        }),
      ),
      remark: Type.Optional(Nullable(Remark)),
    },
    { additionalProperties: false },
  ),
  // The item the POST /api/v1/items example creates for a merchant with no items yet.
  { itemCode: 'ZM2NTU0000001', remark: 'Received in full' },
);
export type ApproveBody = Static<typeof ApproveBody>;

export const RejectBody = withExample(
  Type.Object({ remark: Type.Optional(Nullable(Remark)) }, { additionalProperties: false, description: 'Optional body' }),
  { remark: 'Not ordered by us' },
);
export type RejectBody = Static<typeof RejectBody>;

// ---- responses ----

const Amount = Nullable(Type.Number());
const Text = Nullable(Type.String());

const FilingState = Type.Enum(FILING_STATES, {
  description:
    'not_sent (no answer yet), sending (on its way, retried while the VSDC does not answer), accepted, failed (refused by the authority; the decision stands)',
});

/** What the authority answered to a merchant's answer (a customs line, a purchase), beside where it stands. */
const AnswerFilingDetail = Type.Object({
  resultCode: Nullable(Type.String({ description: "The authority's code of the last answer" })),
  message: Nullable(Type.String({ description: "The authority's text when failed" })),
  filedAt: Nullable(Timestamp('When the authority accepted the answer')),
  nextAttemptAt: Nullable(Timestamp('While sending: the next background attempt')),
  lastError: Nullable(Type.String({ description: 'While sending: why the last attempt got no answer' })),
});

/** Where a purchase's answer stands with the authority, with the details. */
export const AnswerFiling = Type.Object({ state: FilingState, ...AnswerFilingDetail.properties });

export const ImportItem = Type.Object({
  id: Type.Integer(),
  branch: Type.String({ description: 'The branch (bhfId) the authority addressed the line to' }),
  taskCode: Type.String({ description: 'The customs task (taskCd)' }),
  declarationDate: Type.String({ description: 'dclDe, as the authority sent it' }),
  itemSeq: Type.Integer(),
  declarationNo: Text,
  hsCode: Text,
  itemName: Text,
  originCountryCode: Text,
  exportCountryCode: Text,
  packages: Amount,
  packagingUnitCode: Text,
  quantity: Amount,
  quantityUnitCode: Text,
  totalWeight: Amount,
  netWeight: Amount,
  supplierName: Text,
  agentName: Text,
  invoiceForeignAmount: Amount,
  invoiceCurrency: Text,
  exchangeRate: Amount,
  decision: Nullable(Type.Enum(DECISIONS, { description: 'Your answer; null until you answer' })),
  decidedAt: Nullable(Timestamp()),
  itemCode: Nullable(Type.String({ description: 'Set on approval' })),
  itemClassificationCode: Nullable(Type.String()),
  remark: Text,
  filing: Type.Enum(FILING_STATES, {
    description:
      'Whether the authority accepted your answer (spec 2.8): not_sent (no answer yet), sending (on its way, retried while the VSDC does not answer), accepted, failed (refused by the authority; the decision stands)',
  }),
  filingDetail: Type.Object(AnswerFilingDetail.properties, { description: 'What the authority answered to your answer, beside `filing`' }),
  receivedAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type ImportItemResource = Static<typeof ImportItem>;
