// Every coded error the gateway answers (`{ "error": { "code", "message" } }`), with its status,
// what it means and which operations answer it: the one table. `ApiError` takes only these codes
// (a code not here does not compile), a test checks that every throw uses its code's status and
// that docs/errors.md lists exactly these, and the OpenAPI document lists each code on the
// operations `answeredBy` names (src/app/openapi-errors.ts), with its meaning.
import type { RouteAuth } from '../../domain/kernel/access/auth.ts';
import type { Ability } from '../../credentials/abilities.ts';

type Surface = RouteAuth['surface'];

/**
 * Which operations can answer a code. An operation answers it when any part applies. Operations
 * are named as their routes are declared, `POST /api/v1/sales/:sale/credit-note` (a test checks
 * that each names a route).
 */
export interface AnsweredBy {
  /** Every operation of these auth surfaces (the auth hook answers it before the route runs). */
  surfaces?: readonly Surface[];
  /** Every operation of these surfaces but GET: the writes (the auth hook answers it). */
  writesOf?: readonly Surface[];
  /** Every merchant operation that needs this ability (the auth hook answers it). */
  ability?: Ability;
  /** Every operation whose request body Fastify reads: POST, PUT, PATCH and DELETE. */
  bodies?: true;
  /** Every operation. */
  everywhere?: true;
  operations?: readonly string[];
  /** Also answered by Node's HTTP parser, before any route is chosen (said once in the document). */
  beforeRouting?: true;
}

export interface ErrorCodeEntry {
  status: number;
  meaning: string;
  answeredBy: AnsweredBy;
}

const AUTHENTICATED: readonly Surface[] = ['merchant', 'partner', 'compat', 'till_login', 'admin', 'account'];
/** Merchant accounts' public operations (src/domain/merchant/accounts). */
const SIGNIN = 'POST /api/v1/account/signin';
/** Surfaces a merchant's own credential reaches: its account standing is checked on each request. */
const MERCHANT_CREDENTIALS: readonly Surface[] = ['merchant', 'compat', 'till_login'];
/** Partner changes to a merchant, refused while the merchant is not billable (assertTenantWritable). */
const PARTNER_TENANT_WRITES = [
  'POST /api/v1/tenants/:tenant/devices',
  'POST /api/v1/tenants/:tenant/devices/:branch/initialize',
  'PATCH /api/v1/tenants/:tenant/devices/:branch',
  'POST /api/v1/tenants/:tenant/tokens',
  'POST /api/v1/tenants/:tenant/api-keys',
  'POST /api/v1/tenants/:tenant/till-logins',
  'POST /api/v1/tenants/:tenant/sales/:sale/reissue',
  // The merchant's own minting, on the developer screen.
  'POST /api/v1/account/tokens',
  'POST /api/v1/account/api-keys',
] as const;
/** Account operations for an owner or admin (a viewer is refused). */
const ACCOUNT_ADMIN_OPERATIONS = [
  'POST /api/v1/account/users/invitations',
  'DELETE /api/v1/account/users/:id',
  'POST /api/v1/account/tokens',
  'DELETE /api/v1/account/tokens/:id',
  'POST /api/v1/account/api-keys',
  'DELETE /api/v1/account/api-keys/:id',
] as const;
/** The merchant's own device changes (src/domain/merchant/accounts/devices-routes.ts). */
const ACCOUNT_DEVICE_REGISTER = 'POST /api/v1/account/devices';
const ACCOUNT_DEVICE_INIT = 'POST /api/v1/account/devices/:branch/initialize';
const ACCOUNT_DEVICE_UPDATE = 'PATCH /api/v1/account/devices/:branch';
const ACCOUNT_DEVICE_REMOVE = 'DELETE /api/v1/account/devices/:branch';
const ACCOUNT_DEVICE_WRITES = [ACCOUNT_DEVICE_REGISTER, ACCOUNT_DEVICE_INIT, ACCOUNT_DEVICE_UPDATE, ACCOUNT_DEVICE_REMOVE] as const;
/** Correcting or removing a device, which only an uninitialised one allows. */
const DEVICE_CORRECTIONS = ['PATCH /api/v1/tenants/:tenant/devices/:branch', 'DELETE /api/v1/tenants/:tenant/devices/:branch', ACCOUNT_DEVICE_UPDATE, ACCOUNT_DEVICE_REMOVE] as const;
const PARTNER_KEY_CHANGES = ['POST /api/v1/partner/keys', 'GET /api/v1/partner/keys/:id/secret', 'POST /api/v1/partner/keys/:id/rotate', 'DELETE /api/v1/partner/keys/:id'] as const;
const SALE = 'POST /api/v1/sales';
const CREDIT_NOTE = 'POST /api/v1/sales/:sale/credit-note';
const DEBIT_NOTE = 'POST /api/v1/sales/:sale/debit-note';
const REISSUE = 'POST /api/v1/sales/:sale/reissue';
const RESOLVE = 'POST /api/v1/sales/:sale/resolve';
const PARTNER_REISSUE = 'POST /api/v1/tenants/:tenant/sales/:sale/reissue';
const PARTNER_RESOLVE = 'POST /api/v1/tenants/:tenant/sales/:sale/resolve';
const LEGACY_INVOICE = 'POST /zm/api/Invoice';
const GETACTIVE = 'POST /api/ApiKey/getactive';
/** Merchant writes that act on the X-Branch (or default) branch, which must be initialised. */
const BRANCH_WRITES = [SALE, 'POST /api/v1/customers', 'POST /api/v1/items', 'POST /api/v1/items/:item/release', 'POST /api/v1/stock/adjustments'] as const;
/** Daily reports and exports (src/domain/fiscal/reports): they name a branch in `branch`, not X-Branch. */
const REPORT_READS = ['GET /api/v1/reports/daily', 'GET /api/v1/tenants/:tenant/reports/daily', 'GET /admin/v1/tenants/:tenant/reports/daily'] as const;
const REPORT_BRANCHES = [
  ...REPORT_READS,
  'POST /api/v1/reports/daily/close',
  'POST /api/v1/tenants/:tenant/reports/daily/close',
  'GET /api/v1/exports/documents',
  'GET /api/v1/tenants/:tenant/exports/documents',
  'GET /admin/v1/tenants/:tenant/exports/documents',
] as const;
const IMPORT_DECISIONS = ['POST /api/v1/import-items/:importItem/approve', 'POST /api/v1/import-items/:importItem/reject'] as const;

export const ERROR_CODES = {
  bad_request: { status: 400, meaning: 'A malformed request: a Content-Length that lies, a line break inside a header value', answeredBy: { bodies: true, beforeRouting: true } },
  invalid_json: { status: 400, meaning: 'The body is not valid JSON', answeredBy: { bodies: true } },
  unauthenticated: {
    status: 401,
    meaning: 'No credential, an invalid or revoked one, the wrong kind for this surface (a `pk_` key on `/api/v1`, a tenant token on partner endpoints or `/zm/api`), an `X-SdcId` the key may not use',
    answeredBy: { surfaces: AUTHENTICATED },
  },
  api_key_expired: { status: 401, meaning: 'A rotated partner key past its grace window', answeredBy: { surfaces: ['partner'] } },
  subscription_blocked: { status: 402, meaning: "The merchant's subscription is blocked", answeredBy: { surfaces: MERCHANT_CREDENTIALS, operations: [...PARTNER_TENANT_WRITES, ACCOUNT_DEVICE_REGISTER, ACCOUNT_DEVICE_INIT, ACCOUNT_DEVICE_UPDATE] } },
  quota_exhausted: { status: 402, meaning: 'The merchant used its monthly document quota', answeredBy: { surfaces: MERCHANT_CREDENTIALS, operations: [...PARTNER_TENANT_WRITES, ACCOUNT_DEVICE_REGISTER, ACCOUNT_DEVICE_INIT, ACCOUNT_DEVICE_UPDATE] } },
  partner_suspended: { status: 402, meaning: 'The partner account is suspended (partner endpoints)', answeredBy: { surfaces: ['partner'] } },
  missing_scope: { status: 403, meaning: "The partner key lacks the endpoint's scope", answeredBy: { surfaces: ['partner'] } },
  csrf_token_invalid: {
    status: 403,
    meaning: 'A write with the session cookie without the session\'s `X-CSRF-Token` (docs/merchants.md); on the merchant API, when the cookie is sent without Authorization',
    answeredBy: { writesOf: ['account', 'merchant'] },
  },
  role_insufficient: {
    status: 403,
    meaning:
      'The signed-in user\'s role may not do this: a viewer writing through the merchant API with the session cookie, minting or revoking tokens and keys, registering, initialising, correcting or removing devices, inviting or removing users; an admin inviting or removing an owner',
    answeredBy: { operations: [...ACCOUNT_ADMIN_OPERATIONS, ...ACCOUNT_DEVICE_WRITES], ability: 'invoices:write' },
  },
  invalid_credentials: { status: 401, meaning: 'Sign-in with a wrong email or password (the same answer for both)', answeredBy: { operations: [SIGNIN] } },
  email_not_verified: { status: 403, meaning: 'Sign-in with the right password before the email address was verified', answeredBy: { operations: [SIGNIN] } },
  signin_throttled: { status: 429, meaning: 'Too many failed sign-ins for the account (5) or from the address (20) in 15 minutes; see `Retry-After`', answeredBy: { operations: [SIGNIN] } },
  link_invalid: {
    status: 400,
    meaning: 'A one-time link (email verification, password reset, invitation) that is unknown, already used or expired',
    answeredBy: { operations: ['POST /api/v1/account/verify', 'POST /api/v1/account/password-reset/confirm', 'POST /api/v1/account/invitations/accept'] },
  },
  missing_ability: { status: 403, meaning: 'The tenant token lacks `invoices:read` / `invoices:write`', answeredBy: { surfaces: ['merchant'] } },
  tenant_suspended: { status: 403, meaning: 'The merchant account is suspended', answeredBy: { surfaces: MERCHANT_CREDENTIALS, operations: [PARTNER_REISSUE] } },
  insufficient_privilege: { status: 403, meaning: 'A key tried to grant scopes it lacks, or an `sk_test_` key touched an `sk_live_` key', answeredBy: { operations: PARTNER_KEY_CHANGES } },
  device_not_found: {
    status: 404,
    meaning: 'A branch the merchant has not registered (initialising, correcting or removing it, minting a key or a till login for it)',
    answeredBy: { operations: ['POST /api/v1/tenants/:tenant/devices/:branch/initialize', 'POST /api/v1/tenants/:tenant/api-keys', 'POST /api/v1/account/api-keys', 'POST /api/v1/tenants/:tenant/till-logins', ACCOUNT_DEVICE_INIT, ...DEVICE_CORRECTIONS] },
  },
  document_not_failed: { status: 409, meaning: 'A reissue or resolve of a document that is not `failed` (only a refused document is resolved, once)', answeredBy: { operations: [REISSUE, PARTNER_REISSUE, RESOLVE, PARTNER_RESOLVE] } },
  sale_not_fiscalised: { status: 409, meaning: 'A credit or debit note on a sale that is not `uploaded`', answeredBy: { operations: [CREDIT_NOTE, DEBIT_NOTE] } },
  receipt_not_available: {
    status: 409,
    meaning: 'A receipt for a document that is not `uploaded` (only uploaded documents may be printed)',
    answeredBy: { operations: ['GET /api/v1/sales/:sale/receipt', 'GET /api/v1/tenants/:tenant/sales/:sale/receipt'] },
  },
  endpoint_disabled: {
    status: 409,
    meaning: 'Resending a delivery of a disabled webhook endpoint (enable it first)',
    answeredBy: { operations: ['POST /api/v1/webhooks/deliveries/:id/resend'] },
  },
  device_initialized: {
    status: 409,
    meaning: 'Correcting or removing a device that is initialised: the authority knows it; register another branch, or ask the operator to retire it',
    answeredBy: { operations: DEVICE_CORRECTIONS },
  },
  device_in_use: {
    status: 409,
    meaning: 'Correcting or removing a device while its initialisation runs, or removing one that a live fiscalisation key or till login or a kept record refers to (nothing changed; the message says which)',
    answeredBy: { operations: DEVICE_CORRECTIONS },
  },
  already_rotated: { status: 409, meaning: 'Rotating a key that was already rotated', answeredBy: { operations: ['POST /api/v1/partner/keys/:id/rotate'] } },
  item_not_draft: { status: 409, meaning: 'Releasing an item that is not a draft', answeredBy: { operations: ['POST /api/v1/items/:item/release'] } },
  import_item_already_decided: { status: 409, meaning: 'Approving or rejecting a customs line that already has a decision', answeredBy: { operations: IMPORT_DECISIONS } },
  purchase_already_answered: {
    status: 409,
    meaning: 'Accepting or rejecting a purchase that was already answered',
    answeredBy: { operations: ['POST /api/v1/purchases/:purchase/accept', 'POST /api/v1/purchases/:purchase/reject'] },
  },
  reconciliation_in_progress: {
    status: 409,
    meaning: 'Starting a reconciliation for a branch that has one not yet completed (follow that one)',
    answeredBy: { operations: ['POST /api/v1/reconciliations', 'POST /api/v1/tenants/:tenant/reconciliations', 'POST /admin/v1/tenants/:tenant/reconciliations'] },
  },
  stock_tracking_off: {
    status: 409,
    meaning: 'A stock adjustment while stock tracking is off for the merchant (turn it on with `PATCH /api/v1/stock/settings`)',
    answeredBy: { operations: ['POST /api/v1/stock/adjustments'] },
  },
  item_code_conflict: { status: 409, meaning: 'An item code the merchant already uses', answeredBy: { operations: ['POST /api/v1/items'] } },
  not_acceptable: {
    status: 406,
    meaning: 'A daily report asked for in a format it is not answered in: send `Accept` `application/json` (the default), `text/csv` or `application/pdf`',
    answeredBy: { operations: REPORT_READS },
  },
  payload_too_large: { status: 413, meaning: 'The body is over 1 MiB', answeredBy: { bodies: true } },
  unsupported_media_type: { status: 415, meaning: 'A body that is not `application/json`', answeredBy: { bodies: true } },
  branch_exists: {
    status: 422,
    meaning: 'Registering a branch the merchant already has (the existing device is unchanged)',
    answeredBy: { operations: ['POST /api/v1/tenants/:tenant/devices', ACCOUNT_DEVICE_REGISTER] },
  },
  branch_required: { status: 422, meaning: 'The merchant has several branches and none is `000`: send `X-Branch` (reports: `branch`)', answeredBy: { operations: [...BRANCH_WRITES, ...REPORT_BRANCHES] } },
  branch_not_found: {
    status: 422,
    meaning: '`X-Branch` (reports and exports: `branch`) names a branch the merchant has not registered',
    answeredBy: { operations: [...BRANCH_WRITES, 'GET /api/v1/sales', 'GET /api/v1/me', 'GET /api/v1/import-items', 'GET /api/v1/purchases', 'GET /api/v1/stock', 'GET /api/v1/stock/movements', ...REPORT_BRANCHES] },
  },
  branch_not_initialized: { status: 422, meaning: "The branch's device is not initialised yet; nothing was stored", answeredBy: { operations: [...BRANCH_WRITES, GETACTIVE, REISSUE, PARTNER_REISSUE] } },
  unknown_classification_code: {
    status: 422,
    meaning: "A line's `classificationCode` is not in the authority's catalogue; nothing was stored",
    answeredBy: { operations: [SALE, DEBIT_NOTE, LEGACY_INVOICE, REISSUE, PARTNER_REISSUE] },
  },
  idempotency_key_reused: { status: 422, meaning: 'The same `Idempotency-Key` with a different request', answeredBy: { operations: [SALE, CREDIT_NOTE, DEBIT_NOTE, REISSUE, PARTNER_REISSUE] } },
  not_a_sale: { status: 422, meaning: 'A credit or debit note against a note, or a reissue of a note (a failed note is marked resolved instead)', answeredBy: { operations: [CREDIT_NOTE, DEBIT_NOTE, REISSUE, PARTNER_REISSUE] } },
  nothing_left_to_credit: { status: 422, meaning: 'A credit note on a sale that has been credited in full', answeredBy: { operations: [CREDIT_NOTE] } },
  webhook_endpoint_limit: { status: 422, meaning: 'More than 20 webhook endpoints', answeredBy: { operations: ['POST /api/v1/webhooks'] } },
  initialization_failed: {
    status: 422,
    meaning: 'The handshake reached the authority and failed; `message` is the authority\'s text; not retryable',
    answeredBy: { operations: ['POST /api/v1/tenants/:tenant/devices/:branch/initialize', ACCOUNT_DEVICE_INIT] },
  },
  rate_limited: { status: 429, meaning: 'Over the per-minute limit; see `Retry-After`', answeredBy: { surfaces: ['merchant', 'partner', 'compat', 'till_login', 'account'] } },
  headers_too_large: { status: 431, meaning: 'The request headers are too large', answeredBy: { beforeRouting: true } },
  internal_error: { status: 500, meaning: 'Our fault; the message quotes the request id; nothing half-done is kept', answeredBy: { everywhere: true } },
  vsdc_unreachable: {
    status: 503,
    meaning: 'The VSDC could not be reached during initialisation; safe to repeat',
    answeredBy: { operations: ['POST /api/v1/tenants/:tenant/devices/:branch/initialize', ACCOUNT_DEVICE_INIT] },
  },
  levy_not_supported: {
    status: 422,
    meaning: 'A line names a levy (`items[].levy`: TL, IPL1, IPL2, ECM, EXEEG); the gateway computes none, so nothing was stored',
    answeredBy: { operations: [SALE, DEBIT_NOTE, LEGACY_INVOICE, REISSUE, PARTNER_REISSUE] },
  },
  vsdc_unavailable: {
    status: 503,
    meaning: "A sale or note while its branch's VSDC is known to be unreachable, for a merchant whose offline policy is `refuse`; nothing stored, no invoice number used; `Retry-After` says when to try again",
    answeredBy: { operations: [SALE, CREDIT_NOTE, DEBIT_NOTE, LEGACY_INVOICE, REISSUE, PARTNER_REISSUE] },
  },
  not_ready: { status: 503, meaning: '`/readyz`: the database is unreachable', answeredBy: { operations: ['GET /readyz'] } },
  catalogue_unavailable: {
    status: 503,
    meaning: 'The classification catalogue has never been fetched from a VSDC yet and none answers now',
    answeredBy: { operations: [SALE, DEBIT_NOTE, LEGACY_INVOICE, REISSUE, PARTNER_REISSUE, 'GET /api/v1/item-classes', 'GET /docs/item-classes.csv.gz'] },
  },
  console_not_built: { status: 503, meaning: 'The console was not built (`npm run build:console`; `npm ci` does it)', answeredBy: { operations: ['GET /console', 'GET /console/*'] } },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
