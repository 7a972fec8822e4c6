// The fields of a sale or note whose values the merchant's authority defines: tax categories,
// payment methods, note reasons, document kinds and the customer's taxpayer id, each checked
// against the merchant's authority profile (the API schemas take any string for them). The same
// sentences the schemas' refusals say, listing what this merchant's authority has.
import type { preValidationAsyncHookHandler } from 'fastify';
import type { TSchema } from 'typebox';
import { authoritySalesTypes, merchantProfile } from '../../../authorities/index.ts';
import type { AuthorityProfile, CodeLabel, TaxCategory } from '../../../authorities/port/profile.ts';
import type { SalesType } from '../../../authorities/port/filing.ts';
import { FieldErrors } from '../../../platform/errors/errors.ts';
import { compileBodyCheck, toValidationError } from '../../../platform/http/validation.ts';
import { requireTenant } from '../../kernel/http-access/auth.ts';

export type DocumentKind = 'sale' | 'credit_note' | 'debit_note';

/** `a, b or c`, as the schemas' refusals list the values a field takes. */
function oneOf(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

const codesOf = (list: readonly CodeLabel[] | readonly TaxCategory[]): string[] => list.map((c) => c.code);

/** A tax category of the profile, or undefined. */
export function taxCategoryOf(profile: AuthorityProfile, code: string): TaxCategory | undefined {
  return profile.taxCategories.find((c) => c.code === code);
}

/** The reasons a note of this kind may give; null: the authority takes no such note. */
function noteReasons(profile: AuthorityProfile, kind: 'credit_note' | 'debit_note'): readonly CodeLabel[] | null {
  return kind === 'credit_note' ? profile.creditNoteReasons : profile.debitNoteReasons;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function checkCode(errors: FieldErrors, field: string, value: unknown, codes: readonly string[]): void {
  // Not a string: the schema's refusal says what it must be.
  if (typeof value === 'string' && !codes.includes(value)) errors.add(field, `The ${field} field must be one of ${oneOf(codes)}.`);
}

/**
 * The authority's fields of a sale's or note's body (read defensively: the schema has not
 * necessarily accepted it yet). A value of the wrong type is left to the schema's refusal.
 */
export function checkAuthorityFields(errors: FieldErrors, profile: AuthorityProfile, kind: DocumentKind, body: unknown): void {
  const fields = record(body);
  if (!fields) return;
  if (Array.isArray(fields.items)) {
    const categories = codesOf(profile.taxCategories);
    fields.items.forEach((item, i) => checkCode(errors, `items.${i}.vatCategory`, record(item)?.vatCategory, categories));
  }
  if (kind === 'sale') {
    checkCode(errors, 'paymentMethod', fields.paymentMethod, codesOf(profile.paymentMethods));
    const tpin = record(fields.customer)?.tpin;
    if (typeof tpin === 'string' && !profile.taxpayerId.pattern.test(tpin)) {
      errors.add(
        'customer.tpin',
        `The customer.tpin field must be ${profile.taxpayerId.words}, e.g. ${profile.taxpayerId.example}, or null.`,
      );
    }
    // Some unit of the authority files it; the branch's own unit is checked where the document is stored.
    const kinds = authoritySalesTypes(profile.authority);
    if (typeof fields.salesType === 'string' && !kinds.includes(fields.salesType as SalesType)) {
      errors.add(
        'salesType',
        `The unit of this merchant's authority (${profile.name}) files no ${fields.salesType} documents: send salesType ${oneOf(kinds)}.`,
      );
    }
  } else {
    const reasons = noteReasons(profile, kind);
    if (reasons === null)
      errors.add(
        'reasonCode',
        `This merchant's authority (${profile.name}) has no debit notes: correct a sale upwards by a credit note of it and a new sale.`,
      );
    else checkCode(errors, 'reasonCode', fields.reasonCode, codesOf(reasons));
  }
}

/**
 * A route's preValidation hook: when the authority's fields of the body are wrong, one 422 names
 * them together with what the schema refuses, as it would if the schema knew the authority's
 * codes. Otherwise the schema validates as usual (and the service checks the fields again, for
 * callers that do not come through the route: the compat surface).
 */
export function authorityFieldsWithSchema(kind: DocumentKind, schema: TSchema): preValidationAsyncHookHandler {
  let check: ((data: unknown) => ReturnType<ReturnType<typeof compileBodyCheck>>) | undefined;
  return async (request) => {
    const errors = new FieldErrors();
    checkAuthorityFields(errors, merchantProfile(requireTenant(request).authority), kind, request.body);
    if (errors.size === 0) return;
    check ??= compileBodyCheck(schema);
    const schemaErrors = check(request.body);
    if (schemaErrors.length === 0) throw errors.toError();
    const merged = new FieldErrors();
    for (const [field, messages] of Object.entries(toValidationError(schemaErrors).errors))
      for (const message of messages) merged.add(field, message);
    for (const [field, messages] of Object.entries(errors.toError().errors)) for (const message of messages) merged.add(field, message);
    throw merged.toError();
  };
}
