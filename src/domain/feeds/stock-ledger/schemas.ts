import { Type, type Static } from 'typebox';
import { PageMeta } from '../../../platform/http/pagination.ts';
import { Nullable, Timestamp } from '../../../platform/http/schema-helpers.ts';

const COMPARISON_STATUSES = ['matches', 'pending', 'differs', 'unknown'] as const;
export type ComparisonStatus = (typeof COMPARISON_STATUSES)[number];

// ---- requests ----

export const ReconciliationQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page of the items, from 1; 20 a page, by item code.' }),
  status: Type.Optional(
    Type.Enum(COMPARISON_STATUSES, {
      description: 'Only the items with this status (e.g. `differs`); the counts are always of every item',
    }),
  ),
  refresh: Type.Boolean({
    default: false,
    description:
      "true: read the branch's ledger from its VSDC now (selectStockItems, within VSDC_TIMEOUT_MS) before comparing; 503 vsdc_unreachable when it does not answer, 502 vsdc_refused when it answers with an error. " +
      'false (default): compare with the copy the gateway last pulled (`pulledAt`)',
  }),
});
export type ReconciliationQuery = Static<typeof ReconciliationQuery>;

// ---- responses ----

const StockComparison = Type.Object({
  itemCode: Type.String(),
  itemName: Nullable(Type.String({ description: "Your item's name; null for an item the VSDC lists that you do not have" })),
  gatewayQuantity: Type.Number({ description: 'What the gateway holds at the branch (as GET /api/v1/stock); 0 when it never moved here' }),
  vsdcQuantity: Nullable(
    Type.Number({
      description:
        "The VSDC's level: its ledger's movements of the item, in (01–06) less out (11–16); null while the ledger was never read",
    }),
  ),
  difference: Nullable(Type.Number({ description: 'gatewayQuantity − vsdcQuantity; null while the ledger was never read' })),
  unsentMovements: Type.Integer({
    description:
      "Your movements of the item the VSDC's ledger does not have yet: not sent, or sent after the ledger was read (a refused one is not counted)",
  }),
  unsentQuantity: Type.Number({ description: 'What those movements add to the item (negative when they take it out)' }),
  status: Type.Enum(COMPARISON_STATUSES, {
    description:
      "`matches`: the two levels are equal; `pending`: they differ only by your movements not yet in the VSDC's ledger (gatewayQuantity − unsentQuantity = vsdcQuantity); " +
      '`differs`: a difference those do not explain (a refused movement, one filed by another system, a lost one); `unknown`: the ledger was never read',
  }),
});
export type StockComparisonResource = Static<typeof StockComparison>;

export const StockReconciliation = Type.Object({
  data: Type.Object({
    branch: Type.String({ description: 'The branch compared (X-Branch, else as for sales)' }),
    pulledAt: Nullable(
      Timestamp("When the VSDC's ledger was last read (in the background every STOCK_PULL_INTERVAL, or with ?refresh=true); null: never"),
    ),
    lastError: Nullable(Type.String({ description: 'Why the last background read failed, if it did after pulledAt; null otherwise' })),
    summary: Type.Object({
      items: Type.Integer({ description: 'Items compared: every item either side has at the branch' }),
      matching: Type.Integer(),
      pending: Type.Integer(),
      differing: Type.Integer(),
    }),
    items: Type.Array(StockComparison, { description: 'One page of the items (`status` filter), by item code' }),
  }),
  meta: PageMeta,
});
export type StockReconciliationResource = Static<typeof StockReconciliation>;
