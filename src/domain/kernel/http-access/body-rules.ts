// Rules of a body the schema cannot say (they depend on another field or on the merchant's
// authority), checked before the schema so that one 422 names every field: the rules' refusals
// together with the schema's, as if the schema knew them.
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { TSchema } from 'typebox';
import { FieldErrors } from '../../../platform/errors/errors.ts';
import { compileBodyCheck, toValidationError } from '../../../platform/http/validation.ts';

/** A preValidation hook: `rules` add their refusals (reading the body defensively: the schema has not accepted it yet). */
export function bodyRulesWithSchema(
  schema: TSchema,
  rules: (errors: FieldErrors, body: Record<string, unknown>, request: FastifyRequest) => void | Promise<void>,
): preValidationAsyncHookHandler {
  let check: ReturnType<typeof compileBodyCheck> | undefined;
  return async (request) => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const errors = new FieldErrors();
    await rules(errors, body as Record<string, unknown>, request);
    if (errors.size === 0) return;
    check ??= compileBodyCheck(schema);
    const schemaErrors = check(body);
    if (schemaErrors.length === 0) throw errors.toError();
    // A field both refuse keeps the rule's words alone: they know the merchant and say it more exactly.
    const merged = new FieldErrors();
    const ruled = errors.toError().errors;
    for (const [field, messages] of Object.entries(toValidationError(schemaErrors).errors))
      if (!Object.hasOwn(ruled, field)) for (const message of messages) merged.add(field, message);
    for (const [field, messages] of Object.entries(ruled)) for (const message of messages) merged.add(field, message);
    throw merged.toError();
  };
}
