// Every coded error the gateway answers (`{ "error": { "code", "message" } }`), with its status
// and what it means: the one table. `ApiError` takes only these codes (a code not here does not
// compile) and reads its status from here; docs/errors.md lists exactly these (a test checks).
// Which operations answer a code is not written here: each route's declaration implies some and
// lists the rest (src/domain/kernel/http-access/route-errors.ts), and the OpenAPI document lists them
// per operation with the meaning given here.

interface ErrorCodeEntry {
  status: number;
  meaning: string;
  /** Also answered by Node's HTTP parser, before any route is chosen (said once in the document). */
  beforeRouting?: true;
}

export const ERROR_CODES = {
  bad_request: {
    status: 400,
    meaning: 'A malformed request: a Content-Length that lies, a line break inside a header value',
    beforeRouting: true,
  },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON' },
  unauthenticated: {
    status: 401,
    meaning:
      'No credential, an invalid or revoked one, the wrong kind for this surface (a `pk_` key on `/api/v1`, a tenant token on partner endpoints or `/zm/api`), an `X-SdcId` the key may not use',
  },
  api_key_expired: { status: 401, meaning: 'A rotated partner key past its grace window' },
  subscription_blocked: { status: 402, meaning: "The merchant's subscription is blocked" },
  quota_exhausted: { status: 402, meaning: 'The merchant used its monthly document quota' },
  partner_suspended: { status: 402, meaning: 'The partner account is suspended (partner endpoints)' },
  missing_scope: { status: 403, meaning: "The partner key lacks the endpoint's scope" },
  csrf_token_invalid: {
    status: 403,
    meaning:
      "A write with the session cookie without the session's `X-CSRF-Token` (docs/merchants.md); on the merchant API, when the cookie is sent without Authorization",
  },
  role_insufficient: {
    status: 403,
    meaning:
      "The signed-in user's role may not do this: a viewer writing through the merchant API with the session cookie, minting or revoking tokens and keys, registering, initialising, correcting or removing devices, inviting or removing users; an admin inviting or removing an owner",
  },
  invalid_credentials: { status: 401, meaning: 'Sign-in with a wrong email or password (the same answer for both)' },
  email_not_verified: { status: 403, meaning: 'Sign-in with the right password before the email address was verified' },
  signin_throttled: {
    status: 429,
    meaning: 'Too many failed sign-ins for the account (5) or from the address (20) in 15 minutes; see `Retry-After`',
  },
  link_invalid: {
    status: 400,
    meaning: 'A one-time link (email verification, password reset, invitation) that is unknown, already used or expired',
  },
  missing_ability: { status: 403, meaning: 'The tenant token lacks `invoices:read` / `invoices:write`' },
  tenant_suspended: { status: 403, meaning: 'The merchant account is suspended' },
  not_this_dialect: {
    status: 403,
    meaning:
      "A fiscalisation key of a merchant whose authority is not ZRA, on /zm/api (Zambia's till dialect): its sales go through /api/v1",
  },
  insufficient_privilege: { status: 403, meaning: 'A key tried to grant scopes it lacks, or an `sk_test_` key touched an `sk_live_` key' },
  device_not_found: {
    status: 404,
    meaning: 'A branch the merchant has not registered (initialising, correcting or removing it, minting a key or a till login for it)',
  },
  document_not_failed: {
    status: 409,
    meaning: 'A reissue or resolve of a document that is not `failed` (only a refused document is resolved, once)',
  },
  sale_not_fiscalised: { status: 409, meaning: 'A credit or debit note on a sale that is not `uploaded`' },
  receipt_not_available: {
    status: 409,
    meaning: 'A receipt for a document that is not `uploaded` (only uploaded documents may be printed)',
  },
  endpoint_disabled: {
    status: 409,
    meaning: 'Resending a delivery of a disabled webhook endpoint (enable it first)',
  },
  device_initialized: {
    status: 409,
    meaning:
      'Correcting or removing a device that is initialised: the authority knows it; register another branch, or ask the operator to retire it',
  },
  device_in_use: {
    status: 409,
    meaning:
      'Correcting or removing a device while its initialisation runs, or removing one that a live fiscalisation key or till login or a kept record refers to (nothing changed; the message says which)',
  },
  already_rotated: { status: 409, meaning: 'Rotating a key that was already rotated' },
  item_not_draft: { status: 409, meaning: 'Releasing an item that is not a draft' },
  item_is_draft: { status: 409, meaning: 'Giving a draft item a composition (release the draft first)' },
  import_item_already_decided: { status: 409, meaning: 'Approving or rejecting a customs line that already has a decision' },
  purchase_already_answered: {
    status: 409,
    meaning: 'Accepting or rejecting a purchase that was already answered',
  },
  purchase_already_captured: {
    status: 409,
    meaning: 'Capturing a purchase the branch already holds: the same supplier (TPIN, or name without one) and supplier invoice number',
  },
  reconciliation_in_progress: {
    status: 409,
    meaning: 'Starting a reconciliation for a branch that has one not yet completed (follow that one)',
  },
  stock_tracking_off: {
    status: 409,
    meaning: 'A stock adjustment while stock tracking is off for the merchant (turn it on with `PATCH /api/v1/stock/settings`)',
  },
  item_code_conflict: { status: 409, meaning: 'An item code the merchant already uses' },
  method_not_allowed: {
    status: 405,
    meaning:
      'A path of `/api/v1` or `/admin/v1` asked with a method none of its operations takes: the `Allow` header and the message name the methods it takes',
  },
  not_acceptable: {
    status: 406,
    meaning:
      'A daily report asked for in a format it is not answered in: send `Accept` `application/json` (the default), `text/csv` or `application/pdf`',
  },
  payload_too_large: { status: 413, meaning: 'The body is over 1 MiB' },
  unsupported_media_type: { status: 415, meaning: 'A body that is not `application/json`' },
  branch_exists: {
    status: 422,
    meaning: 'Registering a branch the merchant already has (the existing device is unchanged)',
  },
  branch_required: { status: 422, meaning: 'The merchant has several branches and none is `000`: send `X-Branch` (reports: `branch`)' },
  branch_not_found: {
    status: 422,
    meaning: '`X-Branch` (reports and exports: `branch`) names a branch the merchant has not registered',
  },
  no_device: {
    status: 422,
    meaning:
      'The merchant has no device yet, so nothing can be fiscalised; the message says who registers and initialises one and how (a self-signed-up merchant: Devices in the console)',
  },
  branch_not_initialized: { status: 422, meaning: "The branch's device is not initialised yet; nothing was stored" },
  unknown_classification_code: {
    status: 422,
    meaning: "A line's `classificationCode` is not in the authority's catalogue; nothing was stored",
  },
  idempotency_key_reused: { status: 422, meaning: 'The same `Idempotency-Key` with a different request' },
  not_a_sale: {
    status: 422,
    meaning:
      "A credit or debit note against a note or a proforma (a quote), or a reissue of a note (a failed note is marked resolved instead); a training credential's note against a normal sale",
  },
  nothing_left_to_credit: { status: 422, meaning: 'A credit note on a sale that has been credited in full' },
  credit_note_rule: {
    status: 422,
    meaning:
      "A credit note the merchant's authority does not take: too long after its sale, or one more than it takes per sale; the message names the rule; nothing was stored",
  },
  webhook_endpoint_limit: { status: 422, meaning: 'More than 20 webhook endpoints' },
  initialization_failed: {
    status: 422,
    meaning: "The handshake reached the authority and failed; `message` is the authority's text; not retryable",
  },
  rate_limited: { status: 429, meaning: 'Over the per-minute limit; see `Retry-After`' },
  headers_too_large: { status: 431, meaning: 'The request headers are too large', beforeRouting: true },
  internal_error: { status: 500, meaning: 'Our fault; the message quotes the request id; nothing half-done is kept' },
  vsdc_unreachable: {
    status: 503,
    meaning:
      'The VSDC could not be reached during a call whose answer needs it (initialisation, a live read such as `GET /api/v1/item-reconciliation`); nothing was changed; safe to repeat',
  },
  vsdc_refused: {
    status: 502,
    meaning:
      'A live read (such as `GET /api/v1/item-reconciliation`) reached the VSDC and it answered with an error; `message` quotes its result code and text; nothing was changed',
  },
  levy_not_supported: {
    status: 422,
    meaning: 'A line names a levy (`items[].levy`: TL, IPL1, IPL2, ECM, EXEEG); the gateway computes none, so nothing was stored',
  },
  vsdc_unavailable: {
    status: 503,
    meaning:
      "A sale or note while its branch's VSDC is known to be unreachable, for a merchant whose offline policy is `refuse`; nothing stored, no invoice number used; `Retry-After` says when to try again",
  },
  database_unavailable: {
    status: 503,
    meaning:
      "The gateway's database cannot be reached (restarting, failing over, refusing connections); nothing half-done is kept and no invoice number is used; `Retry-After` says when to try again; a write repeated with the same `Idempotency-Key` gives exactly one document",
  },
  not_ready: {
    status: 503,
    meaning:
      '`/readyz`: the database is unreachable, or the embedded database refuses writes because its disk is nearly full (`storage_full`)',
  },
  catalogue_unavailable: {
    status: 503,
    meaning:
      "The authority's classification catalogue (the merchant's, or the download's `authority`) has never been fetched yet and none of its devices answers now",
  },
  console_not_built: { status: 503, meaning: 'The console was not built (`npm run build:console`; `npm ci` does it)' },
  secret_unreadable: {
    status: 503,
    meaning:
      "A sealed secret (a partner key read back) that the gateway's `SECRET_KEY` does not open: it was sealed with another key; nothing was changed; the operator must start the gateway with the `SECRET_KEY` that sealed it (docs/deployment.md#secret_key)",
  },
  storage_full: {
    status: 507,
    meaning:
      "The embedded database's disk has less free space than `DATA_DIR_MIN_FREE_MB`, or is full: writes are refused (reads go on); nothing was stored and no invoice number was used; `message` names the data directory. Safe to repeat once the operator has freed space (writes resume within seconds, no restart); `Retry-After` suggests when",
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
