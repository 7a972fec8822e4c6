import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { FieldErrors, ValidationError } from './errors.ts';

// Bodies are validated strictly (a string is never coerced into a number on a fiscal
// document); query strings, path parameters and headers are coerced, as they arrive as text.

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

function nulField(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  for (const [key, value] of Object.entries(data)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) return key;
  }
  return undefined;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
  return (data: unknown) => {
    if (httpPart !== 'body') {
      // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database.
      const field = nulField(data);
      if (field) return { error: new ValidationError({ [field]: [`The ${field} field must not contain NUL characters.`] }) };
    }
    return validate(data) ? { value: data } : { error: toValidationError(validate.errors ?? []) };
  };
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.join('.') || 'body';
}

function describe(error: ErrorObject): { field: string; message: string } | undefined {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const field = fieldName(error.instancePath, String(params.missingProperty));
      return { field, message: `The ${field} field is required.` };
    }
    case 'type': {
      const field = fieldName(error.instancePath);
      if (field === 'body') return { field, message: 'The request body must be a JSON object.' };
      const types = String(params.type).split(',');
      const wanted = types.filter((t) => t !== 'null').map((t) => TYPE_NAMES[t] ?? t).join(' or ');
      return { field, message: `The ${field} field must be ${wanted}.` };
    }
    case 'minLength': {
      const field = fieldName(error.instancePath);
      return Number(params.limit) === 1
        ? { field, message: `The ${field} field must not be empty.` }
        : { field, message: `The ${field} field must be at least ${String(params.limit)} characters.` };
    }
    case 'maxLength': {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field must not be greater than ${String(params.limit)} characters.` };
    }
    case 'minimum':
    case 'exclusiveMinimum': {
      const field = fieldName(error.instancePath);
      const strict = error.keyword === 'exclusiveMinimum';
      return { field, message: `The ${field} field must be ${strict ? 'greater than' : 'at least'} ${String(params.limit)}.` };
    }
    case 'maximum':
    case 'exclusiveMaximum': {
      const field = fieldName(error.instancePath);
      const strict = error.keyword === 'exclusiveMaximum';
      return { field, message: `The ${field} field must be ${strict ? 'less than' : 'at most'} ${String(params.limit)}.` };
    }
    case 'minItems': {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}.` };
    }
    case 'maxItems': {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field must not have more than ${String(params.limit)} items.` };
    }
    case 'enum':
    case 'const': {
      const field = fieldName(error.instancePath);
      const allowed = (params.allowedValues as unknown[] | undefined) ?? (params.allowedValue !== undefined ? [params.allowedValue] : []);
      return { field, message: `The selected ${field} is invalid; expected one of: ${allowed.map((a) => JSON.stringify(a)).join(', ')}.` };
    }
    case 'pattern':
    case 'format': {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field format is invalid.` };
    }
    case 'multipleOf': {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field has too many decimal places.` };
    }
    case 'uniqueItems': {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field must not contain duplicates.` };
    }
    case 'additionalProperties': {
      const field = fieldName(error.instancePath, String(params.additionalProperty));
      return { field, message: `The ${field} field is not allowed.` };
    }
    case 'anyOf':
    case 'oneOf':
    case 'if':
    case 'not':
      return undefined; // the branch errors beside it say more
    default: {
      const field = fieldName(error.instancePath);
      return { field, message: `The ${field} field is invalid.` };
    }
  }
}

export function toValidationError(errors: ErrorObject[]): ValidationError {
  // Field names can be the caller's (an unknown field named `toString`): a FieldErrors, never a plain object.
  const fields = new FieldErrors();
  for (const error of errors) {
    const described = describe(error);
    if (described) fields.add(described.field, described.message);
  }
  if (fields.size === 0) fields.add('body', 'The request body is invalid.');
  return fields.toError();
}
