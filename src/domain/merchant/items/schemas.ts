import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';

const ITEM_STATES = ['draft', 'pending', 'registered', 'failed', 'amendment_pending', 'amendment_failed'] as const;
const ITEM_TYPE_CODES = ['1', '2', '3'] as const;
const MAX_ITEM_PRICE = 10_000_000_000;

/** Letters, digits, `.`, `_`, `-`; not digits only, so it is never mistaken for an item id. */
export const ITEM_CODE_PATTERN = '^(?![0-9]+$)[A-Za-z0-9._-]{1,50}$';

// ---- requests ----

// Factories, so each use can carry its own description.
const fields = {
  name: () => Type.String({ minLength: 1, maxLength: 200 }),
  itemClsCd: () =>
    Type.String({
      minLength: 1,
      maxLength: 20,
      description: "Classification code from the authority's catalogue (GET /api/v1/item-classes)",
    }),
  itemTypeCode: (description = '1 raw material, 2 finished product, 3 service') => Type.Enum(ITEM_TYPE_CODES, { description }),
  originCountryCode: (description = 'Country of origin, ISO 3166 alpha-2') => Type.String({ pattern: '^[A-Z]{2}$', description }),
  packagingUnitCode: (description = "The authority's packaging unit code (class 17), e.g. NT net, CT carton") =>
    Type.String({ pattern: '^[A-Z0-9]{1,5}$', description }),
  quantityUnitCode: (description = "The authority's quantity unit code (class 10), e.g. U pieces, KG, L") =>
    Type.String({ pattern: '^[A-Z0-9]{1,5}$', description }),
  // Checked against the merchant's authority's categories by the service (a 422 listing them).
  vatCategory: (
    description = "A tax category of the merchant's authority. ZRA: A standard (16%), B MTV, C1 export, C2 LPO, C3 zero-rated, D exempt, RVAT, E, F; KRA: A exempt, B 16%, C zero-rated, D non-VAT, E 8%",
  ) => Type.String({ pattern: '^[A-Z0-9]{1,5}$', description }),
  defaultPrice: (description = 'Up to 4 decimals') => Type.Number({ minimum: 0, maximum: MAX_ITEM_PRICE, description }),
  barcode: () => Nullable(Type.String({ minLength: 1, maxLength: 50 })),
  active: () => Type.Boolean({ description: 'Sent as useYn; false withdraws the item from use' }),
};

export const CreateItemBody = withExample(
  Type.Object(
    {
      name: fields.name(),
      itemClsCd: fields.itemClsCd(),
      itemCode: Type.Optional(
        Type.String({
          pattern: ITEM_CODE_PATTERN,
          description:
            'The authority item code; generated when absent (country + type + packaging unit + quantity unit + 7-digit sequence, e.g. ZM2NTU0000001, KE2NTU0000001)',
        }),
      ),
      itemTypeCode: Type.Optional(fields.itemTypeCode('1 raw material, 2 finished product (default), 3 service')),
      originCountryCode: Type.Optional(
        fields.originCountryCode("Country of origin, ISO 3166 alpha-2; default the authority's country (ZM, KE)"),
      ),
      packagingUnitCode: Type.Optional(fields.packagingUnitCode("The authority's packaging unit code (class 17); default NT (net)")),
      quantityUnitCode: Type.Optional(fields.quantityUnitCode("The authority's quantity unit code (class 10); default U (pieces)")),
      vatCategory: Type.Optional(
        fields.vatCategory(
          "Default the authority's standard category: ZRA's A (16%), KRA's B (16%). Zambia: A, B MTV, C1 export, C2 LPO, C3 zero-rated, D exempt, RVAT, E, F; Kenya: A exempt, B 16%, C zero-rated, D non-VAT, E 8%",
        ),
      ),
      defaultPrice: Type.Optional(fields.defaultPrice('Default 0; up to 4 decimals')),
      barcode: Type.Optional(fields.barcode()),
      active: Type.Optional(fields.active()),
    },
    { additionalProperties: false },
  ),
  // Its generated item code is ZM2NTU0000001 for a merchant's first item (the import approval example uses it).
  { name: 'Maize meal 25kg', itemClsCd: '50221200', itemTypeCode: '2', vatCategory: 'A', defaultPrice: 185, barcode: '6009880123456' },
);
export type CreateItemBody = Static<typeof CreateItemBody>;

export const UpdateItemBody = withExample(
  Type.Object(
    {
      name: Type.Optional(fields.name()),
      itemClsCd: Type.Optional(fields.itemClsCd()),
      itemTypeCode: Type.Optional(fields.itemTypeCode()),
      originCountryCode: Type.Optional(fields.originCountryCode()),
      packagingUnitCode: Type.Optional(fields.packagingUnitCode()),
      quantityUnitCode: Type.Optional(fields.quantityUnitCode()),
      vatCategory: Type.Optional(fields.vatCategory()),
      defaultPrice: Type.Optional(fields.defaultPrice()),
      barcode: Type.Optional(fields.barcode()),
      active: Type.Optional(fields.active()),
    },
    { additionalProperties: false, minProperties: 1, description: 'The fields to change; the item code cannot change' },
  ),
  { defaultPrice: 190 },
);
export type UpdateItemBody = Static<typeof UpdateItemBody>;

/** How many components one composition may name. */
const MAX_COMPONENTS = 100;
const MAX_COMPONENT_QUANTITY = 1_000_000;

export const SetCompositionBody = withExample(
  Type.Object(
    {
      components: Type.Array(
        Type.Object(
          {
            itemCode: Type.String({
              minLength: 1,
              maxLength: 50,
              description:
                "The authority item code of one of the merchant's own items, registered through the same branch as the composite item; not the item itself, not twice",
            }),
            quantity: Type.Number({
              exclusiveMinimum: 0,
              maximum: MAX_COMPONENT_QUANTITY,
              description: 'How much of the component goes into one unit of the item (cpstQty): greater than 0, up to 4 decimals',
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: MAX_COMPONENTS, description: 'The whole composition: it replaces any earlier one' },
      ),
    },
    { additionalProperties: false },
  ),
  // ZM2NTU0000002: the merchant's second generated item code (the path example is its first).
  { components: [{ itemCode: 'ZM2NTU0000002', quantity: 2 }] },
);
export type SetCompositionBody = Static<typeof SetCompositionBody>;

export const ListItemsQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  state: Type.Optional(
    Type.Enum(ITEM_STATES, {
      description:
        'Only items in this registration state; `draft` lists the drafts waiting for review. Without it: every item except drafts',
    }),
  ),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Part of the name, any case' })),
  itemClsCd: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'Exact classification code' })),
});
export type ListItemsQuery = Static<typeof ListItemsQuery>;

export const ItemParam = Type.Object({
  // The code of the item the POST /api/v1/items example creates for a merchant with no items yet.
  item: Type.String({ minLength: 1, maxLength: 50, description: "The item's id, or its authority item code", examples: ['ZM2NTU0000001'] }),
});

// ---- responses ----

const COMPONENT_STATES = ['pending', 'registered', 'failed'] as const;

const ItemComponent = Type.Object({
  itemCode: Type.String({ description: "The component's authority item code (cpstItemCd)" }),
  name: Type.String({ description: "The component's name" }),
  quantity: Type.Number({ description: 'How much of it goes into one unit of the item (cpstQty)' }),
  state: Type.Enum(COMPONENT_STATES, {
    description:
      '`pending` (being sent with saveItemComposition, waiting for the item to be registered, or the VSDC did not answer and the gateway retries), `registered` (the authority accepted it), `failed` (the authority refused it: `resultCode` and `message`; send the composition again to retry)',
  }),
  resultCode: Nullable(Type.String({ description: "The authority's code of the last answer (000 accepted)" })),
  message: Nullable(Type.String({ description: "The authority's text when failed" })),
  registeredAt: Nullable(Timestamp('When the authority accepted this quantity')),
  nextAttemptAt: Nullable(Timestamp('While pending: the next background attempt')),
  lastError: Nullable(Type.String({ description: 'While pending: why the last attempt got no answer' })),
});
export type ItemComponentResource = Static<typeof ItemComponent>;

export const Item = Type.Object({
  id: Type.Integer(),
  itemCode: Type.String({ description: 'The authority item code, unique per merchant' }),
  itemClsCd: Type.String({ description: 'The classification the authority taxes against' }),
  name: Type.String(),
  itemTypeCode: Type.String(),
  originCountryCode: Type.String(),
  packagingUnitCode: Type.String(),
  quantityUnitCode: Type.String(),
  vatCategory: Type.String(),
  defaultPrice: Type.Number(),
  barcode: Nullable(Type.String()),
  active: Type.Boolean(),
  source: Type.Enum(['api', 'sale'] as const),
  branch: Nullable(Type.String({ description: 'The branch (bhfId) it is registered through; null for a draft never released' })),
  registration: Type.Object({
    state: Type.Enum(ITEM_STATES),
    resultCode: Nullable(Type.String({ description: "The authority's code of the last answer (000 accepted)" })),
    message: Nullable(Type.String({ description: "The authority's text when failed or amendment_failed" })),
    registeredAt: Nullable(Timestamp('When the authority first accepted it')),
    nextAttemptAt: Nullable(Timestamp('While pending or amendment_pending: the next background attempt')),
    lastError: Nullable(Type.String({ description: 'While pending or amendment_pending: why the last attempt got no answer' })),
  }),
  composition: Type.Array(ItemComponent, {
    description:
      'The items this one is made of (POST /api/v1/items/{item}/composition), in the order given, each filed with the authority on its own; empty when it is not a composite',
  }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type ItemResource = Static<typeof Item>;

// ---- the authority's items beside the gateway's (selectItems) ----

const COMPARED_FIELDS = [
  'name',
  'itemClsCd',
  'itemTypeCode',
  'packagingUnitCode',
  'quantityUnitCode',
  'vatCategory',
  'defaultPrice',
  'active',
] as const;
export type ComparedItemField = (typeof COMPARED_FIELDS)[number];

const ComparedItem = Type.Object({
  name: Type.String(),
  itemClsCd: Type.String(),
  itemTypeCode: Type.String(),
  packagingUnitCode: Type.String(),
  quantityUnitCode: Type.String(),
  vatCategory: Type.String(),
  defaultPrice: Type.Number(),
  active: Type.Boolean(),
});
export type ComparedItem = Static<typeof ComparedItem>;

const ITEM_RECONCILIATION_STATES = ['matches', 'differs', 'missing_at_authority', 'unknown_to_gateway'] as const;
export type ItemReconciliationState = (typeof ITEM_RECONCILIATION_STATES)[number];

export const ItemReconciliation = Type.Object({
  branch: Type.String({ description: 'The branch (bhfId) whose VSDC was asked' }),
  retrievedAt: Timestamp('When the VSDC answered (selectItems)'),
  summary: Type.Object({
    matches: Type.Integer(),
    differs: Type.Integer(),
    missingAtAuthority: Type.Integer(),
    unknownToGateway: Type.Integer(),
  }),
  items: Type.Array(
    Type.Object({
      itemCode: Type.String(),
      state: Type.Enum(ITEM_RECONCILIATION_STATES, {
        description:
          '`matches`: the authority holds what the gateway registered; `differs`: it holds other values (`differences`); `missing_at_authority`: the gateway registered it but the VSDC does not list it; `unknown_to_gateway`: the VSDC lists an item the gateway never registered through this branch',
      }),
      gateway: Nullable(ComparedItem),
      authority: Nullable(ComparedItem),
      differences: Type.Array(Type.Enum(COMPARED_FIELDS), { description: 'The fields whose values differ' }),
    }),
    { description: 'By item code' },
  ),
});
export type ItemReconciliationResource = Static<typeof ItemReconciliation>;
