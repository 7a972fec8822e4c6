import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, literals, withExample } from '../../../platform/http/schema-helpers.ts';
import { ITEM_CODE_PATTERN } from '../../merchant/items/schemas.ts';

/**
 * The class-12 codes a merchant may record by hand: every one except `11` (sale) and `03`
 * (return), which the gateway records itself from sales and credit notes.
 */
const ADJUSTMENT_TYPES = ['01', '02', '04', '05', '06', '12', '13', '14', '15', '16'] as const;
const CHAIN_STATES = ['pending', 'items_sent', 'sent', 'failed'] as const;
const SOURCE_KINDS = ['sale', 'credit_note', 'debit_note', 'adjustment', 'purchase'] as const;
const MAX_ADJUSTMENT_LINES = 100;
const MAX_STOCK_QUANTITY = 1_000_000_000;

const Page = Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' });
const ItemCodeFilter = Type.String({ minLength: 1, maxLength: 50, description: 'Only this item (its authority item code)' });

// ---- requests ----

const MAX_LEVEL_ITEM_CODES = 20;
export const ListLevelsQuery = Type.Object({
  page: Page,
  itemCode: Type.Optional(
    Type.Array(ItemCodeFilter, {
      minItems: 1,
      maxItems: MAX_LEVEL_ITEM_CODES,
      description:
        'Only these items (their authority item codes): `?itemCode=A`, or repeated for up to 20 (a page of items) in one request, `?itemCode=A&itemCode=B`',
    }),
  ),
});
export type ListLevelsQuery = Static<typeof ListLevelsQuery>;

export const ListMovementsQuery = Type.Object({
  page: Page,
  itemCode: Type.Optional(ItemCodeFilter),
  state: Type.Optional(Type.Enum(CHAIN_STATES, { description: 'Only movements whose stock chain is in this state' })),
});
export type ListMovementsQuery = Static<typeof ListMovementsQuery>;

export const MovementParam = Type.Object({ movement: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const CreateAdjustmentBody = withExample(
  Type.Object(
    {
      movementType: Type.Enum(ADJUSTMENT_TYPES, {
        description:
          "The authority's stock movement type (code class 12). In: 01 import, 02 purchase, 04 stock movement (e.g. from another branch), 05 processing, 06 adjustment (opening stock, a count that found more). " +
          'Out: 12 return to the supplier, 13 stock movement, 14 processing, 15 discarding (losses, breakage, expiry), 16 adjustment. 11 (sale) and 03 (return) come from your sales and credit notes',
      }),
      items: Type.Array(
        Type.Object(
          {
            itemCode: Type.String({ pattern: ITEM_CODE_PATTERN, description: 'One of your registered goods items (type 1 or 2)' }),
            quantity: Type.Number({
              exclusiveMinimum: 0,
              maximum: MAX_STOCK_QUANTITY,
              description: 'How much moves, always positive (movementType says the direction); up to 4 decimals',
            }),
            unitPrice: Type.Optional(
              Type.Number({
                minimum: 0,
                maximum: 10_000_000_000,
                description: "Value per unit, VAT inclusive, up to 4 decimals; default: the item's defaultPrice",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: MAX_ADJUSTMENT_LINES, description: 'Each item at most once' },
      ),
      remark: Type.Optional(
        Nullable(Type.String({ minLength: 1, maxLength: 400, description: 'Sent to the authority with the movement' })),
      ),
    },
    { additionalProperties: false },
  ),
  // The item the POST /api/v1/items example creates for a merchant with no items yet.
  { movementType: '06', items: [{ itemCode: 'ZM2NTU0000001', quantity: 40 }], remark: 'Opening stock' },
);
export type CreateAdjustmentBody = Static<typeof CreateAdjustmentBody>;

export const StockSettingsBody = withExample(
  Type.Object(
    {
      stockTracking: Type.Boolean({
        description:
          'false: the gateway keeps no stock and sends no stock chain for your documents; stock writes are refused (409 stock_tracking_off)',
      }),
    },
    { additionalProperties: false },
  ),
  { stockTracking: true },
);
export type StockSettingsBody = Static<typeof StockSettingsBody>;

// ---- responses ----

export const StockLevel = Type.Object({
  itemCode: Type.String(),
  itemName: Nullable(Type.String()),
  branch: Type.String({ description: 'The branch (bhfId) holding it' }),
  quantity: Type.Number({ description: 'On hand; negative when more was sold than recorded as received' }),
  quantityUnitCode: Nullable(Type.String()),
  updatedAt: Timestamp(),
});
export type StockLevelResource = Static<typeof StockLevel>;

export const StockMovement = Type.Object({
  id: Type.Integer(),
  branch: Type.String(),
  sarNo: Type.Integer({ description: "The branch's own stock-movement number, in the order movements are sent" }),
  movementType: Type.String({ description: 'Code class 12 (sarTyCd)' }),
  direction: literals(['in', 'out']),
  source: Type.Object({
    kind: Type.Enum(SOURCE_KINDS),
    id: Nullable(Type.Integer({ description: 'The sale, credit note or purchase it follows; null for an adjustment' })),
  }),
  remark: Nullable(Type.String()),
  items: Type.Array(
    Type.Object({
      itemCode: Type.String(),
      quantity: Type.Number({ description: 'Always positive' }),
      unitPrice: Type.Number(),
      remaining: Type.Number({ description: 'What the branch held of the item after this movement (sent as rsdQty)' }),
    }),
  ),
  chain: Type.Object({
    state: Type.Enum(CHAIN_STATES, {
      description:
        'pending (nothing accepted yet; retried while the VSDC does not answer), items_sent (saveStockItems accepted, saveStockMaster to follow), sent, failed (refused; the branch goes on)',
    }),
    resultCode: Nullable(Type.String()),
    message: Nullable(Type.String()),
    sentAt: Nullable(Timestamp('When saveStockMaster was accepted')),
  }),
  createdAt: Timestamp(),
});
export type StockMovementResource = Static<typeof StockMovement>;

export const StockSettings = Type.Object({ stockTracking: Type.Boolean() });
export type StockSettingsResource = Static<typeof StockSettings>;
