// Every coded error the gateway answers (`{ "error": { "code", "message" } }`), with its status
// and what it means: the one table. `ApiError` takes only these codes (a code not here does not
// compile), a test checks that every throw uses its code's status and that docs/errors.md lists
// exactly these, and the OpenAPI document describes them from here.

export interface ErrorCodeEntry {
  status: number;
  meaning: string;
}

export const ERROR_CODES = {
  bad_request: { status: 400, meaning: 'A malformed request: a Content-Length that lies, a line break inside a header value' },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON' },
  unauthenticated: {
    status: 401,
    meaning: 'No credential, an invalid or revoked one, the wrong kind for this surface (a `pk_` key on `/api/v1`, a tenant token on partner endpoints or `/zm/api`), an `X-SdcId` the key may not use',
  },
  api_key_expired: { status: 401, meaning: 'A rotated partner key past its grace window' },
  subscription_blocked: { status: 402, meaning: "The merchant's subscription is blocked" },
  quota_exhausted: { status: 402, meaning: 'The merchant used its monthly document quota' },
  partner_suspended: { status: 402, meaning: 'The partner account is suspended (partner endpoints)' },
  missing_scope: { status: 403, meaning: "The partner key lacks the endpoint's scope" },
  missing_ability: { status: 403, meaning: 'The tenant token lacks `invoices:read` / `invoices:write`' },
  tenant_suspended: { status: 403, meaning: 'The merchant account is suspended' },
  insufficient_privilege: { status: 403, meaning: 'A key tried to grant scopes it lacks, or an `sk_test_` key touched an `sk_live_` key' },
  device_not_found: { status: 404, meaning: 'A branch the merchant has not registered (initialising it, minting a key or a till login for it)' },
  sale_not_fiscalised: { status: 409, meaning: 'A credit or debit note on a sale that is not `uploaded`' },
  receipt_not_available: { status: 409, meaning: 'A receipt for a document that is not `uploaded` (only uploaded documents may be printed)' },
  endpoint_disabled: { status: 409, meaning: 'Resending a delivery of a disabled webhook endpoint (enable it first)' },
  already_rotated: { status: 409, meaning: 'Rotating a key that was already rotated' },
  item_not_draft: { status: 409, meaning: 'Releasing an item that is not a draft' },
  import_item_already_decided: { status: 409, meaning: 'Approving or rejecting a customs line that already has a decision' },
  item_code_conflict: { status: 409, meaning: 'An item code the merchant already uses' },
  payload_too_large: { status: 413, meaning: 'The body is over 1 MiB' },
  unsupported_media_type: { status: 415, meaning: 'A body that is not `application/json`' },
  branch_exists: { status: 422, meaning: 'Registering a branch the merchant already has (the existing device is unchanged)' },
  branch_required: { status: 422, meaning: 'The merchant has several branches and none is `000`: send `X-Branch`' },
  branch_not_found: { status: 422, meaning: '`X-Branch` names a branch the merchant has not registered' },
  branch_not_initialized: { status: 422, meaning: "The branch's device is not initialised yet; nothing was stored" },
  unknown_classification_code: { status: 422, meaning: "A line's `classificationCode` is not in the authority's catalogue; nothing was stored" },
  idempotency_key_reused: { status: 422, meaning: 'The same `Idempotency-Key` with a different request' },
  not_a_sale: { status: 422, meaning: 'A credit or debit note against a note' },
  nothing_left_to_credit: { status: 422, meaning: 'A credit note on a sale that has been credited in full' },
  levy_not_supported: { status: 422, meaning: 'A line names a levy (`items[].levy`: TL, IPL1, IPL2, ECM, EXEEG); the gateway computes none, so nothing was stored' },
  webhook_endpoint_limit: { status: 422, meaning: 'More than 20 webhook endpoints' },
  initialization_failed: { status: 422, meaning: 'The handshake reached the authority and failed; `message` is the authority\'s text; not retryable' },
  rate_limited: { status: 429, meaning: 'Over the per-minute limit; see `Retry-After`' },
  headers_too_large: { status: 431, meaning: 'The request headers are too large' },
  internal_error: { status: 500, meaning: 'Our fault; the message quotes the request id; nothing half-done is kept' },
  vsdc_unreachable: { status: 503, meaning: 'The VSDC could not be reached during initialisation; safe to repeat' },
  vsdc_unavailable: {
    status: 503,
    meaning: "A sale or note while its branch's VSDC is known to be unreachable, for a merchant whose offline policy is `refuse`; nothing stored, no invoice number used; `Retry-After` says when to try again",
  },
  not_ready: { status: 503, meaning: '`/readyz`: the database is unreachable' },
  catalogue_unavailable: { status: 503, meaning: 'The classification catalogue has never been fetched from a VSDC yet and none answers now' },
  console_not_built: { status: 503, meaning: 'The console was not built (`npm run build:console`; `npm ci` does it)' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
