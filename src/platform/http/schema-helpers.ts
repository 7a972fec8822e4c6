// The TypeBox building blocks every module's schemas.ts uses, in one place.
import { Type, type Static, type TLiteral, type TSchema, type TSchemaOptions, type TUnion } from 'typebox';

/** `schema` or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The `{ data: … }` envelope of a single resource. */
export const data = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

type Literals<V extends readonly string[]> = { -readonly [K in keyof V]: TLiteral<V[K]> };

/** Exactly one of `values` (a union of literals, in this order). */
export function literals<const V extends readonly string[]>(values: V, options?: TSchemaOptions): TUnion<Literals<V>> {
  const types = values.map((v) => Type.Literal(v));
  return (options === undefined ? Type.Union(types) : Type.Union(types, options)) as unknown as TUnion<Literals<V>>;
}

/** A point in time, ISO 8601 (`2025-03-01T09:30:00.000Z`). */
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description === undefined ? {} : { description }) });

/**
 * `schema` with one example, for the reference page: its "Try it out" sends it, so a request
 * example must succeed against the development start's demo merchant (test/platform/openapi-examples.test.ts
 * sends every one). The example is type-checked against the schema.
 */
export const withExample = <T extends TSchema>(schema: T, example: Static<T>): T => ({ ...schema, examples: [example] });
