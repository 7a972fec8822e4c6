// How the gateway reads a VSDC answer: one discriminated union per call.
import type { VsdcEndpoint } from '@fiscal-gateway/vsdc-protocol';

type ResultClass = 'ok' | 'empty' | 'already_installed' | 'duplicate' | 'unreachable' | 'rejected';

interface ResultMeta {
  resultCd: string;
  resultMsg: string;
  resultDt: string | null;
}

export type UnreachableReason =
  | 'connection_refused'
  | 'connection_reset'
  | 'timeout'
  | 'aborted'
  | 'network_error'
  | 'http_error'
  | 'not_an_envelope'
  | 'bad_success_body'
  | 'authority_unreachable';

type OkOutcome<T> = { kind: 'ok'; data: T } & ResultMeta;
type EmptyOutcome = { kind: 'empty' } & ResultMeta;
type AlreadyInstalledOutcome = { kind: 'already_installed' } & ResultMeta;
type DuplicateOutcome = { kind: 'duplicate' } & ResultMeta;
interface RejectedOutcome {
  kind: 'rejected';
  /** The VSDC's `resultCd`, or `'400'` for a bare HTTP 400 (malformed body). */
  code: string;
  message: string;
  resultDt: string | null;
}
export interface UnreachableOutcome {
  kind: 'unreachable';
  reason: UnreachableReason;
  detail: string;
  /** Set for 838/894: the VSDC answered but cannot reach the authority. */
  resultCd?: string;
  httpStatus?: number;
}

export type VsdcOutcome<T> =
  OkOutcome<T> | EmptyOutcome | AlreadyInstalledOutcome | DuplicateOutcome | RejectedOutcome | UnreachableOutcome;

/** What each endpoint can answer: the union is narrowed so callers' switches stay exhaustive. */
export type InitOutcome<T> = OkOutcome<T> | AlreadyInstalledOutcome | RejectedOutcome | UnreachableOutcome;
export type SelectOutcome<T> = OkOutcome<T> | EmptyOutcome | RejectedOutcome | UnreachableOutcome;
export type SaveSalesOutcome<T> = OkOutcome<T> | DuplicateOutcome | RejectedOutcome | UnreachableOutcome;
export type WriteOutcome = OkOutcome<null> | RejectedOutcome | UnreachableOutcome;

const SELECT_ENDPOINTS: ReadonlySet<VsdcEndpoint> = new Set<VsdcEndpoint>([
  'selectCodes',
  'selectItemsClass',
  'selectInvoice',
  'selectCustomer',
  'selectImportItems',
  'selectNotices',
  'selectBranches',
  'selectItems',
  'selectItem',
  'selectRrpItems',
  'selectPrincipals',
  'selectTrnsPurchaseSales',
  'selectStockItems',
]);

/**
 * Reads a `resultCd`. With an endpoint, the special codes count only where they mean something:
 * `902` only on `selectInitInfo`, `924` only on `saveSales`, `001` only on select endpoints;
 * elsewhere they are terminal rejections like any unknown code. Without an endpoint, the
 * protocol page's table is read as is.
 */
export function classifyResult(resultCd: string, endpoint?: VsdcEndpoint): ResultClass {
  switch (resultCd) {
    case '000':
      return 'ok';
    case '838':
    case '894':
      return 'unreachable';
    case '001':
      return endpoint === undefined || SELECT_ENDPOINTS.has(endpoint) ? 'empty' : 'rejected';
    case '902':
      return endpoint === undefined || endpoint === 'selectInitInfo' ? 'already_installed' : 'rejected';
    case '924':
      return endpoint === undefined || endpoint === 'saveSales' ? 'duplicate' : 'rejected';
    default:
      return 'rejected';
  }
}

const DNS_CODES = ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL'];

/**
 * Why a VSDC did not answer, in words a person acting on it reads (the device form, a 503's
 * message), with the low-level detail after them: `connection refused (connect ECONNREFUSED …)`.
 */
export function unreachableCause(outcome: UnreachableOutcome): string {
  const { reason, detail } = outcome;
  switch (reason) {
    case 'connection_refused':
      return `connection refused: nothing listens at that host and port (${detail})`;
    case 'connection_reset':
      return `the connection was cut (${detail})`;
    case 'timeout':
      return `timed out: no reply within VSDC_TIMEOUT_MS (${detail})`;
    case 'aborted':
      return `the call was cancelled (${detail})`;
    case 'network_error':
      return DNS_CODES.some((code) => detail.startsWith(`${code}:`))
        ? `the host name does not resolve (DNS: ${detail})`
        : `network error (${detail})`;
    case 'http_error':
      return `it answered with an HTTP error, not a VSDC reply (${detail})`;
    case 'not_an_envelope':
      return `something answers there, but not a VSDC: check the address and its context path (${detail})`;
    case 'bad_success_body':
      return `the VSDC's reply could not be read (${detail})`;
    case 'authority_unreachable':
      return `the VSDC answered but cannot reach the authority (result code ${detail})`;
  }
}
