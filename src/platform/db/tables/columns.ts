// Column types the table interfaces share: how a timestamp or a numeric reads back and what
// may be written to it.
import type { ColumnType } from 'kysely';

/** `timestamptz` with a default: read as a Date; written as a Date or ISO text, or left to the default on insert. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** `timestamptz not null` without a default: every insert gives it. */
export type RequiredTimestamp = ColumnType<Date, Date | string, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** `numeric` reads back as its exact decimal text on both engines. */
export type Numeric = ColumnType<string, string | number, string | number>;
/** `numeric not null` with a default: an insert may leave it out. */
export type DefaultedNumeric = ColumnType<string, string | number | undefined, string | number>;
export type NullableNumeric = ColumnType<string | null, string | number | null | undefined, string | number | null>;
