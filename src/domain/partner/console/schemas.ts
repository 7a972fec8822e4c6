import { ANY_BRANCH_PATTERN } from '../../kernel/devices/authorities.ts';
import { Type, type Static } from 'typebox';
import { Nullable, literals, Timestamp } from '../../../platform/http/schema-helpers.ts';
import { SALE_STATUSES } from '../../fiscal/sales/schemas.ts';
import { IssuedBy, Resolution } from '../../fiscal/sales/resource-schemas.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const Page = Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' });

const VsdcHealth = Type.Object({
  state: literals(['reachable', 'unreachable', 'unknown'], {
    description:
      '`unreachable` while filing is backing off after the VSDC did not answer; `reachable` when its last answer was an outcome; `unknown` before any filing',
  }),
  lastOutcome: Nullable(literals(['uploaded', 'failed'], { description: 'The most recent filing outcome on this branch' })),
  lastOutcomeAt: Nullable(Timestamp()),
  lastError: Nullable(Type.String({ description: 'Why the VSDC could not be reached, while it cannot' })),
  nextAttemptAt: Nullable(Timestamp('When filing retries, while backing off')),
});

export const BranchBacklog = Type.Object({
  tenantId: Type.Integer(),
  tenantName: Type.String(),
  tpin: Type.String(),
  partnerId: Nullable(Type.Integer()),
  branch: Type.String(),
  branchName: Nullable(Type.String()),
  deviceSerial: Type.String(),
  initialized: Type.Boolean(),
  sdcId: Nullable(Type.String()),
  pending: Type.Integer({ description: 'Documents waiting to be filed' }),
  oldestPendingAt: Nullable(Timestamp()),
  oldestPendingAgeSeconds: Nullable(Type.Integer({ description: 'The authority expects documents filed within 24 h' })),
  failed: Type.Integer({ description: 'Documents the authority refused (need operator action)' }),
  alarm: Nullable(
    Type.Object(
      { thresholdSeconds: Type.Integer(), firedAt: Timestamp() },
      { description: 'The last branch.backlog alarm of the open backlog episode' },
    ),
  ),
  vsdc: VsdcHealth,
});
export type BranchBacklogResource = Static<typeof BranchBacklog>;

export const BacklogQuery = Type.Object({
  page: Page,
  tenant: Type.Optional(Id),
  pendingOnly: Type.Optional(Type.Boolean({ description: 'Only branches with pending documents' })),
});

const DocumentStatus = literals(SALE_STATUSES);

export const DocumentsQuery = Type.Object({
  page: Page,
  status: Type.Optional(literals(SALE_STATUSES, { description: 'Only documents in this state; default `failed`' })),
  resolved: Type.Optional(
    Type.Boolean({ description: '`true`: only the refused documents since reissued or marked resolved; `false` (default): the others' }),
  ),
  tenant: Type.Optional(Id),
  branch: Type.Optional(Type.String({ pattern: ANY_BRANCH_PATTERN })),
});

export const DocumentSummary = Type.Object({
  id: Type.Integer(),
  tenantId: Type.Integer(),
  tenantName: Type.String(),
  tpin: Type.String(),
  branch: Type.String(),
  type: literals(['sale', 'credit_note', 'debit_note']),
  invoiceNo: Type.Integer({ description: "The branch's invoice sequence number the gateway assigned" }),
  authorityInvoiceNo: Nullable(
    Type.String({
      description:
        "The number on the fiscal receipt in its authority's form (ZRA: `INV{sdcId without SDC}/{receiptNo}`; KRA: `{sdcId}/{invoiceNo}`), as on the sale resource; null until uploaded",
    }),
  ),
  receiptNo: Nullable(Type.Integer({ description: "The VSDC's receipt number; null until uploaded" })),
  status: DocumentStatus,
  clientInvoiceNo: Nullable(Type.String({ description: "The merchant's own reference sent with the sale (its clientInvoiceNo)" })),
  totals: Type.Object({ net: Type.Number(), vat: Type.Number(), total: Type.Number(), currency: Type.String() }),
  resultCode: Nullable(Type.String()),
  lastError: Nullable(Type.String()),
  replacesSaleId: Nullable(Type.Integer({ description: 'A reissue: the failed document this one replaces' })),
  resolution: Nullable(Resolution),
  issuedBy: IssuedBy,
  occurredAt: Timestamp(),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type DocumentSummaryResource = Static<typeof DocumentSummary>;

export const FILING_WINDOWS = { '1h': 3_600, '6h': 21_600, '24h': 86_400 } as const;
export type FilingWindow = keyof typeof FILING_WINDOWS;

export const FilingsQuery = Type.Object({
  window: Type.Optional(
    Type.Union(
      Object.keys(FILING_WINDOWS).map((w) => Type.Literal(w)),
      { default: '24h' },
    ),
  ),
  tenant: Type.Optional(Id),
});

const StatusCounts = {
  uploaded: Type.Integer(),
  pending: Type.Integer(),
  failed: Type.Integer({ description: 'Refused by the authority and not resolved' }),
  resolved: Type.Integer({ description: 'Refused, then reissued or marked resolved (their `status` is `failed`, with a `resolution`)' }),
};

export const Filings = Type.Object({
  window: Type.String(),
  bucketSeconds: Type.Integer(),
  from: Timestamp(),
  to: Timestamp(),
  buckets: Type.Array(Type.Object({ at: Timestamp('Start of the minute'), ...StatusCounts }), {
    description: 'Documents by the minute they were stored and their status now, oldest first; minutes without documents are left out',
  }),
  totals: Type.Object(StatusCounts),
});
export type FilingsResource = Static<typeof Filings>;

export const WEBHOOK_STATS_WINDOWS = { '24h': 86_400, '7d': 604_800 } as const;
export type WebhookStatsWindow = keyof typeof WEBHOOK_STATS_WINDOWS;

export const WebhookStatsQuery = Type.Object({
  window: Type.Optional(
    Type.Union(
      Object.keys(WEBHOOK_STATS_WINDOWS).map((w) => Type.Literal(w)),
      { default: '24h' },
    ),
  ),
});

export const EndpointStats = Type.Object({
  endpointId: Type.Integer(),
  url: Type.String(),
  description: Type.String(),
  status: literals(['enabled', 'disabled']),
  delivered: Type.Integer(),
  failed: Type.Integer(),
  pending: Type.Integer(),
  successRate: Nullable(Type.Number({ description: 'delivered / (delivered + failed) over the window; null when none settled' })),
  lastDeliveredAt: Nullable(Timestamp()),
  lastFailureAt: Nullable(Timestamp()),
});
export type EndpointStatsResource = Static<typeof EndpointStats>;

export const AdminTenantsQuery = Type.Object({
  page: Page,
  partner: Type.Optional(Id),
  status: Type.Optional(literals(['active', 'suspended'])),
  subscription: Type.Optional(literals(['active', 'blocked'])),
});

export const AdminScopeQuery = Type.Object({ partner: Type.Optional(Id) });
