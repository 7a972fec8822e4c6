import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { FieldErrors, MOST_NAMED_FIELDS, ValidationError, shownField } from '../errors/errors.ts';
import { closestName, namesInWords } from '../lib/did-you-mean.ts';

// Bodies are validated strictly (a string is never coerced into a number on a fiscal
// document); query strings, path parameters and headers are coerced, as they arrive as text.

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

// `verbose`: errors carry their schema, whose description explains an unfamiliar pattern.
const bodyAjv = makeAjv({ coerceTypes: false, verbose: true });
const textAjv = makeAjv({ coerceTypes: 'array', verbose: true });

function nulField(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  for (const [key, value] of Object.entries(data)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) return key;
  }
  return undefined;
}

/**
 * A body check that answers ajv's errors instead of a ValidationError, for a caller that names
 * the fields itself before toValidationError (the compat surface answers in the names the till
 * used). Same options as the body validation of every route.
 */
export function compileBodyCheck(schema: object): (data: unknown) => ErrorObject[] {
  const validate = bodyAjv.compile(schema);
  return (data) => (validate(data) ? [] : [...(validate.errors ?? [])]);
}

/**
 * Every route's validators are compiled on the route's first request, not at start: compiling
 * the schemas of every route took a third of the start-up time. A schema that does not compile
 * fails its route's first request (the auth matrix and the fuzzer send requests to every route).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  let compiled: ValidateFunction | undefined;
  return (data: unknown) => {
    const validate = (compiled ??= (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object));
    if (httpPart !== 'body') {
      // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database.
      const field = nulField(data);
      if (field) return { error: new ValidationError({ [field]: [`The ${field} field must not contain NUL characters.`] }) };
    }
    return validate(data) ? { value: data } : { error: toValidationError(validate.errors ?? [], httpPart as HttpPart) };
  };
};

/** The query string of a route that takes no query parameters. */
const NO_QUERY_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

/**
 * Query strings under `prefixes` are strict: a parameter the route does not declare is a 422
 * naming it, with the one meant when it is close (`stauts` → `status`) and those the route takes,
 * instead of being ignored while the caller believes it filtered. A route that takes none gets an
 * empty schema; a query schema that says `additionalProperties` (or `patternProperties`) itself
 * lets other parameters through on purpose and is left as it is. Registered before the routes (and
 * before the hooks that read their schemas: the route catalogue, the OpenAPI document).
 */
export function registerStrictQueryStrings(app: FastifyInstance, prefixes: readonly string[]): void {
  app.addHook('onRoute', (route) => {
    if (!prefixes.some((prefix) => route.url.startsWith(prefix))) return;
    const query = route.schema?.querystring as Record<string, unknown> | undefined;
    if (query === undefined) route.schema = { ...route.schema, querystring: NO_QUERY_PARAMETERS };
    else if (query.type === 'object' && query.additionalProperties === undefined && query.patternProperties === undefined) {
      route.schema = { ...route.schema, querystring: { ...query, additionalProperties: false } };
    }
  });
}

const TYPE_NAMES = new Map<string, string>([
  ['string', 'a string'],
  ['number', 'a number'],
  ['integer', 'a whole number'],
  ['boolean', 'true or false'],
  ['object', 'a JSON object'],
  ['array', 'an array'],
]);

/**
 * What a value of a pattern must look like, in words, with an example: the patterns this API's
 * schemas use. A pattern not named here is described by its schema's `description`.
 */
const PATTERN_EXPECTATIONS = new Map<string, string>([
  ['^[0-9]{10}$', 'be 10 digits, e.g. 1002345678'],
  ['^([0-9]{10})?$', 'be 10 digits (e.g. 1002345678) or empty'],
  ['^[0-9]{3}$', 'be 3 digits, e.g. 000'],
  ['^(?:[0-9]{3}|[0-9]{2})$', "be a branch id in the merchant's authority's form: 3 digits for ZRA (e.g. 000), 2 for KRA (e.g. 00)"],
  ['^[A-Z]{2}$', 'be a country code of 2 capital letters (ISO 3166 alpha-2), e.g. ZM'],
  ['^https?://[^\\s]+$', 'be an http:// or https:// address without spaces, e.g. https://vsdc.example.com:8080/sandboxvsdc1.0.7.5'],
  ['^"?[\\x21-\\x7E]{1,255}"?$', 'be 1 to 255 printable ASCII characters without spaces, e.g. a UUID'],
  ['^[\\x21-\\x7E]+$', 'be printable ASCII characters without spaces'],
  ['^\\S(.*\\S)?$', 'not start or end with a space'],
  ['^[A-Z0-9]{1,5}$', 'be 1 to 5 capital letters or digits, e.g. U'],
  ['^([A-Z0-9]{1,5})?$', 'be 1 to 5 capital letters or digits (e.g. U) or empty'],
  ['^[0-9A-Za-z]{1,20}$', 'be 1 to 20 letters or digits, e.g. 5022'],
  ['^(?![0-9]+$)[A-Za-z0-9._-]{1,50}$', 'be 1 to 50 letters, digits, dots, dashes or underscores, not digits only, e.g. ZM2NTU0000001'],
  ['^\\d{4}-\\d{2}-\\d{2}$', 'be a calendar day written YYYY-MM-DD, e.g. 2026-01-15'],
  ['^[0-9]{4}-[0-9]{2}-[0-9]{2}$', 'be a calendar day written YYYY-MM-DD, e.g. 2026-01-15'],
  ['^[0-9]{14}$', 'be a date and time as yyyyMMddHHmmss, e.g. 20261121093000'],
]);

const FORMAT_EXPECTATIONS = new Map<string, string>([
  ['date-time', 'be an ISO 8601 date-time with its time zone, e.g. 2026-11-24T09:30:00Z'],
  ['date', 'be a date, e.g. 2026-11-24'],
  ['email', 'be an email address, e.g. owner@example.com'],
  ['uri', 'be an absolute URL, e.g. https://example.com/webhooks'],
  ['url', 'be an absolute URL, e.g. https://example.com/webhooks'],
]);

/** `a, b or c`; long lists are not shortened: every allowed value is worth naming. */
function oneOf(values: unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
}

/** Header names as they are written (X-Branch, Idempotency-Key); other fields as dotted paths. */
function fieldName(instancePath: string, part: HttpPart, child?: string): string {
  const parts = instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  const name = parts.join('.');
  if (name === '') return part === 'body' ? 'body' : part;
  return shownField(
    part === 'headers' ? name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()) : name,
  );
}

export type HttpPart = 'body' | 'querystring' | 'params' | 'headers';

interface FieldProblems {
  required: boolean;
  /** Not a field of the endpoint: the fields it takes beside it (full names), and the closest one. */
  unknown?: { known: string[]; closest: string | undefined };
  allowed: unknown[];
  types: string[];
  /** Phrases that follow "must": `be 10 digits, e.g. …`, `not be empty`. */
  rules: string[];
}

function problemsOf(byField: Map<string, FieldProblems>, field: string): FieldProblems {
  let problems = byField.get(field);
  if (!problems) {
    problems = { required: false, allowed: [], types: [], rules: [] };
    byField.set(field, problems);
  }
  return problems;
}

function addRule(problems: FieldProblems, rule: string): void {
  if (!problems.rules.includes(rule)) problems.rules.push(rule);
}

/**
 * Where in the data an ajv error is, as ajv writes it (a cheap key: naming a field costs more, and
 * a body of 20,000 unknown keys has 20,000 errors); undefined for the errors that only group their
 * branches' errors.
 */
function placeOf(error: ErrorObject): { path: string; child?: string } | undefined {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: error.instancePath, child: String(params.missingProperty) };
    case 'additionalProperties':
      return { path: error.instancePath, child: String(params.additionalProperty) };
    case 'anyOf':
    case 'oneOf':
    case 'if':
    case 'not':
      return undefined; // the branch errors beside it say what each branch expects
    default:
      return { path: error.instancePath };
  }
}

/** Records what one ajv error says of its field. */
function collect(byField: Map<string, FieldProblems>, error: ErrorObject, part: HttpPart, field: string): void {
  const params = error.params as Record<string, unknown>;
  const limit = String(params.limit);
  switch (error.keyword) {
    case 'required':
      problemsOf(byField, field).required = true;
      return;
    case 'additionalProperties': {
      const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
      const closest = closestName(String(params.additionalProperty), Object.keys(properties));
      problemsOf(byField, field).unknown = {
        known: Object.keys(properties).map((known) => fieldName(error.instancePath, part, known)),
        closest: closest === undefined ? undefined : fieldName(error.instancePath, part, closest),
      };
      return;
    }
  }
  const problems = problemsOf(byField, field);
  switch (error.keyword) {
    case 'type':
      for (const type of String(params.type).split(',')) if (!problems.types.includes(type)) problems.types.push(type);
      return;
    case 'enum':
    case 'const': {
      const values = (params.allowedValues as unknown[] | undefined) ?? [params.allowedValue];
      for (const value of values) if (!problems.allowed.includes(value)) problems.allowed.push(value);
      return;
    }
    case 'minLength':
      return addRule(problems, limit === '1' ? 'not be empty' : `be at least ${limit} characters long`);
    case 'maxLength':
      return addRule(problems, `be at most ${limit} characters long`);
    case 'minimum':
      return addRule(problems, `be at least ${limit}`);
    case 'exclusiveMinimum':
      return addRule(problems, `be greater than ${limit}`);
    case 'maximum':
      return addRule(problems, `be at most ${limit}`);
    case 'exclusiveMaximum':
      return addRule(problems, `be less than ${limit}`);
    case 'minItems':
      return addRule(problems, `have at least ${limit} item${limit === '1' ? '' : 's'}`);
    case 'maxItems':
      return addRule(problems, `have at most ${limit} items`);
    case 'uniqueItems':
      return addRule(problems, 'not contain the same value twice');
    case 'multipleOf':
      return addRule(problems, `be a multiple of ${String(params.multipleOf)}`);
    case 'pattern': {
      const pattern = String(params.pattern);
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
      const expected =
        PATTERN_EXPECTATIONS.get(pattern) ?? (typeof description === 'string' ? `be ${description}` : `match the pattern ${pattern}`);
      return addRule(problems, expected);
    }
    case 'format': {
      const format = String(params.format);
      return addRule(problems, FORMAT_EXPECTATIONS.get(format) ?? `be in the ${format} format`);
    }
    default:
      return addRule(problems, `satisfy the ${error.keyword} rule of this endpoint's schema (see /docs)`);
  }
}

/** A field or query parameter the endpoint does not take, with the one meant when it is close to one it takes. */
function unknownSentence(field: string, { known, closest }: NonNullable<FieldProblems['unknown']>, part: HttpPart): string {
  if (part === 'querystring') {
    if (known.length === 0) return `The ${field} query parameter is not accepted: this endpoint takes no query parameters.`;
    return `The ${field} query parameter is not accepted by this endpoint${closest ? `: did you mean ${closest}?` : '.'} It takes ${namesInWords(known)}.`;
  }
  if (closest) return `The ${field} field is not accepted by this endpoint: did you mean ${closest}?`;
  return `The ${field} field is not accepted by this endpoint: remove it (the reference at /docs lists the fields).`;
}

/** One sentence per field: what is wrong, as what to send instead. */
function sentence(field: string, problems: FieldProblems, part: HttpPart): string {
  if (field === 'body' && problems.types.includes('object')) return 'The request body must be a JSON object.';
  if (problems.required) return `The ${field} field is required.`;
  if (problems.unknown) return unknownSentence(field, problems.unknown, part);
  // A nullable field reports null as one more branch that failed: say it as "or null".
  const nullable = problems.types.includes('null');
  const types = problems.types.filter((t) => t !== 'null');
  const orNull = nullable ? ', or null' : '';
  if (problems.allowed.length > 0) {
    const values = problems.allowed.filter((v) => v !== null);
    return `The ${field} field must be ${values.length === 1 ? '' : 'one of '}${oneOf(values)}${nullable || problems.allowed.includes(null) ? ', or null' : ''}.`;
  }
  // A value of the right type that breaks a rule: the rules say it; else the type does.
  if (problems.rules.length > 0) return `The ${field} field must ${problems.rules.join(' and ')}${orNull}.`;
  if (types.length > 0) return `The ${field} field must be ${oneOf(types.map((t) => TYPE_NAMES.get(t) ?? t))}${orNull}.`;
  return nullable ? `The ${field} field must be null.` : `The ${field} field is invalid: see this endpoint's schema at /docs.`;
}

export function toValidationError(errors: ErrorObject[], part: HttpPart = 'body'): ValidationError {
  // Field names can be the caller's (an unknown field named `toString`): a Map, never a plain object.
  const byField = new Map<string, FieldProblems>();
  const fields = new FieldErrors();
  // Past the fields an answer names, the others are only counted: no name or sentence made for each.
  const named = new Set<string>();
  for (const error of errors) {
    const place = placeOf(error);
    if (place === undefined) continue;
    const key = place.child === undefined ? place.path : `${place.path}/${place.child}`;
    if (!named.has(key) && named.size >= MOST_NAMED_FIELDS) {
      fields.addUnnamed(key);
      continue;
    }
    named.add(key);
    collect(byField, error, part, fieldName(place.path, part, place.child));
  }
  for (const [field, problems] of byField) {
    // A nullable object whose fields are wrong also fails its null branch: its fields say it all.
    const onlyNotNull =
      !problems.required &&
      !problems.unknown &&
      problems.allowed.length === 0 &&
      problems.rules.length === 0 &&
      problems.types.every((t) => t === 'null');
    if (onlyNotNull && [...byField.keys()].some((other) => other.startsWith(`${field}.`))) continue;
    fields.add(field, sentence(field, problems, part));
  }
  if (fields.size === 0) fields.add('body', "The request body is invalid: see this endpoint's schema at /docs.");
  return fields.toError();
}
