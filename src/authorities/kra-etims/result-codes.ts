// KRA's result codes (research §5) read into what the gateway does with them. Success is `000`,
// with `0`, `00` and `0000` (the VSCU jar, KRA's API gateway) read the same; `001` is an empty
// read; a code that means "try later" is an outage; `994` and `921` on a sale mean KRA already
// holds a document under that number; any other code is a refusal, kept verbatim.
import { SELECTS, type KraEndpoint } from './wire.ts';

export type KraResultClass = 'ok' | 'empty' | 'already_installed' | 'duplicate' | 'unreachable' | 'rejected';

/** Codes after which the same call may succeed later: client-side transport errors (894, 896, 899), rate limit (990), KRA's own failures (991–993, 999). */
const RETRY_LATER = new Set(['894', '896', '899', '990', '991', '992', '993', '999']);

/** What a sale's duplicate number is answered with: 994 "overlapped data" and 921 "already declared" (which one KRA uses is not known). */
export const DUPLICATE_CODES: ReadonlySet<string> = new Set(['994', '921']);

const SALE_CALLS: ReadonlySet<KraEndpoint> = new Set<KraEndpoint>(['saveTrnsSalesOsdc', 'saveInvoice']);

/** The code as KRA means it: `0`, `00`, `0000` are `000`; a number is its text padded to three digits. */
export function normaliseResultCode(raw: unknown): string | null {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0) return raw === 0 ? '000' : String(raw).padStart(3, '0');
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const code = raw.trim();
  return /^0+$/.test(code) ? '000' : code;
}

/**
 * The class of a (normalised) code for one endpoint: `001` is empty only on a read, `902` is
 * "already installed" only on initialisation, a duplicate only on a sale; elsewhere each is a
 * refusal like any code the table does not list.
 */
export function classifyKraResult(code: string, endpoint: KraEndpoint, duplicates: ReadonlySet<string> = DUPLICATE_CODES): KraResultClass {
  if (code === '000') return 'ok';
  if (code === '001') return SELECTS.has(endpoint) ? 'empty' : 'rejected';
  if (code === '902') return endpoint === 'selectInitOsdcInfo' ? 'already_installed' : 'rejected';
  if (duplicates.has(code) && SALE_CALLS.has(endpoint)) return 'duplicate';
  if (RETRY_LATER.has(code)) return 'unreachable';
  return 'rejected';
}
