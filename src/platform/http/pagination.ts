import { Type, type Static, type TSchema } from 'typebox';

export const PER_PAGE = 20;

export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
});
export type PageQuery = Static<typeof PageQuery>;

export const PageMeta = Type.Object({
  page: Type.Integer(),
  perPage: Type.Integer(),
  total: Type.Integer(),
  lastPage: Type.Integer(),
});

export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), meta: PageMeta });
}

export interface Page<T> {
  data: T[];
  meta: { page: number; perPage: number; total: number; lastPage: number };
}

export function offsetOf(page: number): number {
  return (page - 1) * PER_PAGE;
}

export function pageOf<T>(rows: T[], total: number, page: number): Page<T> {
  return { data: rows, meta: { page, perPage: PER_PAGE, total, lastPage: Math.max(1, Math.ceil(total / PER_PAGE)) } };
}
