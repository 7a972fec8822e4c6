// The error responses of the OpenAPI document: the three body shapes (and the legacy wrapped
// envelope) as components, and for each operation the statuses it can answer, derived from what
// makes them true — the codes its route declaration implies and lists (route-errors.ts), its
// schemas and parameters — each described by the codes it can carry.
import type { CatalogedRoute } from '../domain/kernel/http-access/auth.ts';
import { ERROR_CODES, type ErrorCode } from '../platform/errors/codes.ts';
import { BODY_METHODS, errorsOfRoute } from '../domain/kernel/http-access/route-errors.ts';

type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const FieldErrors = {
  type: 'object',
  description: 'Each refused field (dotted, `items.0.price`; headers by their names) with what to send instead',
  additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
};

const CodedErrorDetail = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'Stable and machine-readable: the codes are listed on each response and in docs/errors.md' },
    message: { type: 'string', description: 'For people: what happened and what to send instead' },
  },
};

/** `components.schemas`: the error bodies of spec part 7, named as the document refers to them. */
export const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  ValidationError: {
    type: 'object',
    description: 'Field validation: each refused field with what to send instead.',
    required: ['message', 'errors'],
    properties: {
      message: { type: 'string', description: "The first field's message, and how many more fields have errors" },
      errors: FieldErrors,
    },
    examples: [
      {
        message: 'The items.0.classificationCode field is required.',
        errors: { 'items.0.classificationCode': ['The items.0.classificationCode field is required.'] },
      },
    ],
  },
  CodedError: {
    type: 'object',
    description: 'A coded error.',
    required: ['error'],
    properties: { error: CodedErrorDetail },
    examples: [{ error: { code: 'unauthenticated', message: 'A tenant token is required: send Authorization: Bearer <TENANT_TOKEN>.' } }],
  },
  NotFound: {
    type: 'object',
    description: 'Plain not-found: the path names nothing, or nothing that is yours.',
    required: ['message'],
    properties: { message: { type: 'string' } },
    examples: [{ message: 'Sale not found.' }],
  },
  LegacyWrappedError: {
    type: 'object',
    description:
      "The legacy till surface, for a key (or till login) of the `wrapped` dialect: the bare error's fields with `success: false` and the HTTP status. " +
      'A credential that cannot be read (missing, malformed, unknown) is answered bare.',
    required: ['success', 'httpCode'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      httpCode: { type: 'integer', description: 'The HTTP status, repeated' },
      message: { type: 'string' },
      errors: FieldErrors,
      error: CodedErrorDetail,
    },
    examples: [
      {
        success: false,
        httpCode: 401,
        error: {
          code: 'unauthenticated',
          message:
            "This key may not file through the branch X-SdcId (or Terminal-Id) names. Send X-SdcId: SDC0010002115, the SDC id of the key's branch. GET /zm/api/Branches (X-Api-Key only) lists the key's branches.",
        },
      },
    ],
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many requests',
  431: 'Request headers too large',
  500: 'Internal error',
  503: 'Service unavailable',
  507: 'Insufficient storage',
};

/** What an operation can answer with one status. */
interface ErrorStatus {
  codes: ErrorCode[];
  /** The field validation shape (422). */
  validation: boolean;
  /** The plain `{message}` not-found (404). */
  plainNotFound: boolean;
}

/** The error statuses an operation can answer, ascending. */
export function errorStatusesOf(route: CatalogedRoute): Map<number, ErrorStatus> {
  const statuses = new Map<number, ErrorStatus>();
  const at = (status: number) => {
    let entry = statuses.get(status);
    if (!entry) statuses.set(status, (entry = { codes: [], validation: false, plainNotFound: false }));
    return entry;
  };
  const answered = errorsOfRoute(route);
  for (const [code, entry] of Object.entries(ERROR_CODES) as Array<[ErrorCode, (typeof ERROR_CODES)[ErrorCode]]>) {
    if (answered.has(code)) at(entry.status).codes.push(code);
  }
  // A schema for the body, query string or headers refuses what does not match it, and the body
  // parser refuses reserved keys and NUL characters in any body it reads.
  if (BODY_METHODS.has(route.method) || route.bodySchema || route.querySchema || route.headersSchema) at(422).validation = true;
  // A path parameter that names nothing (or nothing of the caller's) is a plain 404.
  if (route.url.includes('/:')) at(404).plainNotFound = true;
  return new Map([...statuses].sort(([a], [b]) => a - b));
}

/** The codes answered before any route is chosen (for the document's description). */
export function codesBeforeRouting(): Array<{ code: ErrorCode; status: number }> {
  return (Object.entries(ERROR_CODES) as Array<[ErrorCode, (typeof ERROR_CODES)[ErrorCode]]>)
    .filter(([, entry]) => 'beforeRouting' in entry)
    .map(([code, entry]) => ({ code, status: entry.status }));
}

function descriptionOf(status: number, spec: ErrorStatus, legacy: boolean): string {
  const lines = [`${STATUS_TEXT[status] ?? `Status ${status}`}.`];
  if (spec.plainNotFound) lines.push('A plain `{"message"}` when the path names nothing, or nothing that is yours.');
  if (spec.validation)
    lines.push('The field validation shape when a field is refused: `errors` names each one and says what to send instead.');
  if (spec.codes.length > 0) {
    lines.push(spec.validation || spec.plainNotFound ? 'Or a coded error:' : 'A coded error:');
    lines.push(spec.codes.map((code) => `- \`${code}\`: ${ERROR_CODES[code].meaning}`).join('\n'));
  }
  if (legacy) lines.push('For a key of the `wrapped` dialect, inside `{"success": false, "httpCode": …}` (LegacyWrappedError).');
  return lines.join('\n\n');
}

const RETRY_AFTER = { schema: { type: 'integer' }, description: 'Seconds to wait before trying again' };

/** The OpenAPI response object for one error status of an operation. */
export function errorResponse(status: number, spec: ErrorStatus, legacy: boolean): Record<string, unknown> {
  const shapes = [
    ...(spec.validation ? [ref('ValidationError')] : []),
    ...(spec.codes.length > 0 ? [ref('CodedError')] : []),
    ...(spec.plainNotFound ? [ref('NotFound')] : []),
    ...(legacy ? [ref('LegacyWrappedError')] : []),
  ];
  const schema = shapes.length === 1 ? shapes[0] : { anyOf: shapes };
  return {
    description: descriptionOf(status, spec, legacy),
    ...(status === 429 || status === 503 || status === 507
      ? {
          headers: {
            'Retry-After': { ...RETRY_AFTER, ...(status === 503 ? { description: `${RETRY_AFTER.description} (when known)` } : {}) },
          },
        }
      : {}),
    content: { 'application/json': { schema } },
  };
}

/** Surfaces answered through the legacy dialect's envelope (the compat plugin's routes). */
export function answersInLegacyDialect(route: CatalogedRoute): boolean {
  return route.auth.surface === 'compat' || route.auth.surface === 'till_login';
}
