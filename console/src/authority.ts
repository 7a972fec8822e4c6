// The merchant's tax authority as the server describes it (GET /api/v1/account/authority): the
// letters and rates, payment types, note reasons, currency, identifier forms and receipt words the
// merchant's views show. Read once a session; the console hard-codes no authority's codes.
import type { Api } from './api.ts';
import type { MerchantAuthorityResource } from '../../src/domain/merchant/accounts/authority.ts';

export type Authority = MerchantAuthorityResource;
type CodeLabel = Authority['paymentMethods'][number];
type SalesType = 'normal' | 'training' | 'proforma';
type DocumentType = 'sale' | 'credit_note' | 'debit_note';

let cached: Promise<Authority> | undefined;

/** The signed-in merchant's authority; read once, again after a failed read or `forgetAuthority`. */
export function merchantAuthority(api: Api): Promise<Authority> {
  if (!cached) {
    const read = api.get<{ data: Authority }>('/api/v1/account/authority').then((r) => r.data);
    read.catch(() => {
      if (cached === read) cached = undefined;
    });
    cached = read;
  }
  return cached;
}

/** Another session may be another merchant's, of another authority. */
export function forgetAuthority(): void {
  cached = undefined;
}

/** What `code` means in the authority's table; a code it does not hold stands for itself. */
export function codeLabel(list: readonly CodeLabel[] | null, code: string): string {
  return list?.find((c) => c.code === code)?.label ?? code;
}

/** A note's reason as shown, its code and what it means: `03 Damaged goods`. */
export function noteReasonLabel(authority: Authority, note: 'credit_note' | 'debit_note', code: string): string {
  const label = (note === 'credit_note' ? authority.creditNoteReasons : authority.debitNoteReasons)?.find((c) => c.code === code)?.label;
  return label === undefined ? code : `${code} ${label}`;
}

/** The title a receipt prints: TAX INVOICE, CREDIT NOTE, DEBIT NOTE, or a training / proforma banner. */
export function receiptTitle(authority: Authority, salesType: SalesType, type: DocumentType): string {
  return authority.receiptTitles[salesType === 'normal' ? type : salesType] ?? type;
}

const KIND_WORDS: Record<SalesType, string> = { normal: 'Normal', training: 'Training', proforma: 'Proforma' };
const TYPE_WORDS: Record<DocumentType, string> = { sale: 'Sale', credit_note: 'Credit note', debit_note: 'Debit note' };

/** The invoice type in words: `Normal Sale`, `Training Credit note`, … */
export function invoiceTypeWords(salesType: SalesType, type: DocumentType): string {
  return `${KIND_WORDS[salesType]} ${TYPE_WORDS[type]}`;
}

/** A document's number as the gateway names it: `12`; a training or proforma one's `T-12`, `P-12`. */
export function documentNumber(salesType: SalesType, invoiceNo: number): string {
  return salesType === 'normal' ? String(invoiceNo) : `${salesType === 'training' ? 'T' : 'P'}-${invoiceNo}`;
}

/** An HTML `pattern` from the authority's form (the browser anchors it itself). */
export const htmlPattern = (pattern: string) => pattern.replace(/^\^/, '').replace(/\$$/, '');

const PROTOCOL_WORDS: Record<string, string> = {
  vsdc: 'ZRA Smart Invoice VSDC',
  oscu: 'KRA eTIMS, hosted by KRA',
  vscu: 'KRA eTIMS, run by the taxpayer',
};

/** A device's protocol as a list shows it: the code (`OSCU`) and, for a known one, what it is. */
export function protocolLabel(protocol: string): { code: string; words: string | null } {
  return { code: protocol.toUpperCase(), words: PROTOCOL_WORDS[protocol] ?? null };
}
