import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../../platform/http/schema-helpers.ts';

export const ListPrincipalsQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
});
export type ListPrincipalsQuery = Static<typeof ListPrincipalsQuery>;

// ---- resources ----

export const Principal = Type.Object({
  id: Type.String({ description: "The authority's id of the principal (`id`): what an RVAT sale names as its principalId" }),
  tpin: Nullable(Type.String({ description: "The principal's TPIN" })),
  name: Nullable(Type.String({ description: "The principal's name (principalNm)" })),
  address: Nullable(Type.String({ description: 'principalAddress' })),
  email: Nullable(Type.String({ description: 'principalEmail' })),
  telNo: Nullable(Type.String({ description: 'principalTelNo' })),
  accountNo: Nullable(Type.String({ description: 'accountNo' })),
  updatedAt: Timestamp('When the gateway last stored a changed report of the principal (first pulled, or replaced by a later report)'),
});
export type PrincipalResource = Static<typeof Principal>;
