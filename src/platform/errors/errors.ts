import { ERROR_CODES, type ErrorCode } from './codes.ts';
import { parseDay } from '../lib/time-zones.ts';
// The three error body shapes of spec part 7, and the one place that maps failures to them.

/** Coded error: `{error: {code, message}}`, answered with its code's status in the table (codes.ts). */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
  }
}

/**
 * An answer names this many fields at most; its message counts the others. A body of 20,000
 * unknown keys is not answered with 20,000 sentences (2.4 MB for a 300 KB body).
 */
export const MOST_NAMED_FIELDS = 20;

/** A longer field name (absurd nesting, a 100 KB key) is shown by its end, so an answer stays small. */
const MOST_SHOWN_FIELD_NAME = 200;

export const shownField = (field: string): string =>
  field.length > MOST_SHOWN_FIELD_NAME ? `…${field.slice(-(MOST_SHOWN_FIELD_NAME - 1))}` : field;

/** Field validation: 422 `{message, errors: {field: [messages]}}`. */
export class ValidationError extends Error {
  constructor(
    readonly errors: Record<string, string[]>,
    message?: string,
  ) {
    super(message ?? summarise(errors));
    this.name = 'ValidationError';
  }
}

/** Plain framework-style not-found: 404 `{message}`. */
export class NotFoundError extends Error {
  constructor(message = 'Not found.') {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** The first field's first message, and how many more fields have errors (`unnamed`: those `errors` leaves out). */
function summarise(errors: Record<string, string[]>, unnamed = 0): string {
  const fields = Object.values(errors).filter((messages) => messages.length > 0);
  const first = fields[0]?.[0];
  if (first === undefined) return 'The given data was invalid.';
  const more = fields.length - 1 + unnamed;
  const which = unnamed > 0 ? `; errors names the first ${fields.length}` : '';
  return more > 0 ? `${first} (and ${more} more field${more === 1 ? '' : 's'} with errors${which})` : first;
}

/**
 * Messages collected by field name, for a ValidationError. A Map, not a plain object: a field
 * name comes from the caller (an unknown body field, a query parameter), and on a plain object
 * `toString`, `constructor` or `__proto__` would find Object.prototype's member instead of
 * nothing (a `"toString": 1` field was once a 500). The error's `errors` are built with Object.fromEntries, which
 * makes every name an own property, `__proto__` included.
 */
export class FieldErrors {
  private readonly byField = new Map<string, string[]>();
  /** Fields with errors past the MOST_NAMED_FIELDS named: counted, not named. */
  private readonly unnamed = new Set<string>();

  add(field: string, message: string): void {
    const list = this.byField.get(field);
    if (list) {
      if (!list.includes(message)) list.push(message);
    } else if (this.full) this.unnamed.add(field);
    else this.byField.set(field, [message]);
  }

  /** A field with errors that the answer will not name, only count (its sentence is not worth writing). */
  addUnnamed(field: string): void {
    if (!this.byField.has(field)) this.unnamed.add(field);
  }

  /** How many fields are named. */
  get size(): number {
    return this.byField.size;
  }

  /** Whether another field would only be counted. */
  get full(): boolean {
    return this.byField.size >= MOST_NAMED_FIELDS;
  }

  /** Throws the refusal when a field has an error; otherwise nothing. */
  throwIfAny(): void {
    if (this.byField.size > 0) throw this.toError();
  }

  toError(): ValidationError {
    const errors = Object.fromEntries(this.byField);
    return new ValidationError(errors, summarise(errors, this.unnamed.size));
  }
}

export function fieldError(field: string, message: string): ValidationError {
  return new ValidationError({ [field]: [message] });
}

/** `value` trimmed: only blanks are no more a value than nothing, so they are a 422 naming `field` too. */
export function requiredText(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw fieldError(field, `The ${field} field must say something (not only spaces).`);
  return trimmed;
}

/** Each of `days` (field → value; absent ones skipped) that is not a real calendar day, all in one 422 (a bad `from` is named beside a bad `to`). */
export function assertCalendarDays(days: Record<string, string | undefined>): void {
  const problems: Record<string, string[]> = {};
  for (const [field, value] of Object.entries(days)) {
    if (value !== undefined && !parseDay(value))
      problems[field] = [`The ${field} field must be a calendar day written YYYY-MM-DD, such as 2026-01-15; ${value} is not one.`];
  }
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}

export const unauthenticated = (message = 'A valid credential is required: send Authorization: Bearer <key>.') =>
  new ApiError('unauthenticated', message);

export type ErrorBody =
  { error: { code: string; message: string } } | { message: string; errors: Record<string, string[]> } | { message: string };
