import { Type, type Static } from 'typebox';
import { Nullable, literals } from '../../../platform/http/schema-helpers.ts';
import { DEFAULT_AUTHORITY, MERCHANT_AUTHORITIES } from '../devices/authorities.ts';

export const ListItemClassesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  code: Type.Optional(Type.String({ pattern: '^[0-9A-Za-z]{1,20}$', description: 'Codes starting with this, e.g. 5022' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the name, any case' })),
});
export type ListItemClassesQuery = Static<typeof ListItemClassesQuery>;

export const ItemClass = Type.Object({
  code: Type.String({ description: 'itemClsCd, what items and sale lines are classified with' }),
  name: Type.String(),
  level: Nullable(Type.Integer()),
  taxType: Nullable(Type.String()),
  majorTarget: Nullable(Type.Boolean()),
  inUse: Type.Boolean({ description: 'False: the authority withdrew the code; sales may not use it' }),
});
export type ItemClassResource = Static<typeof ItemClass>;

export const DownloadItemClassesQuery = Type.Object({
  authority: literals(MERCHANT_AUTHORITIES as readonly string[], {
    default: DEFAULT_AUTHORITY,
    description: `Whose catalogue: ${MERCHANT_AUTHORITIES.map((a) => `\`${a}\``).join(' or ')}; \`${DEFAULT_AUTHORITY}\` when left out`,
  }),
});
export type DownloadItemClassesQuery = Static<typeof DownloadItemClassesQuery>;

export const ListCodesQuery = Type.Object({
  class: Type.Optional(
    Type.String({
      pattern: '^[0-9A-Za-z]{1,5}$',
      description: 'Only this code class (cdCls), e.g. 07 payment types, 10 quantity units, 17 packaging units',
    }),
  ),
});
export type ListCodesQuery = Static<typeof ListCodesQuery>;

export const CodeClass = Type.Object({
  classCode: Type.String({ description: 'cdCls, e.g. 07' }),
  className: Type.String({ description: 'cdClsNm, e.g. Payment Type' }),
  codes: Type.Array(
    Type.Object({
      code: Type.String({ description: 'cd, what a field of this class carries' }),
      name: Type.String({ description: 'cdNm' }),
      description: Nullable(Type.String()),
      inUse: Type.Boolean({ description: 'False: the authority withdrew the code (or its class)' }),
      rate: Nullable(
        Type.Number({ description: "A tax type's rate in percent, where the authority's table publishes one (KRA: class 04); else null" }),
      ),
    }),
    { description: "In the authority's order" },
  ),
});
export type CodeClassResource = Static<typeof CodeClass>;
