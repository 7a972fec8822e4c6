// Filing a document with the authority and finding one it already holds: the document in the
// domain's words, the receipt the authority gives back, and the port each adapter implements.
import type { SaleLineInput } from './amounts.ts';
import type { AuthorityDevice } from './device.ts';
import type { Rejected, Unreachable } from './outcomes.ts';

export type DocumentType = 'sale' | 'credit_note' | 'debit_note';
export type SalesType = 'normal' | 'training' | 'proforma';

/** Who registered or changed a document, as the authority records it. */
export interface FilingPerson {
  id: string;
  name: string;
}

/** A line's fields beyond the sale's own; each absent one takes the adapter's default. */
export interface FilingLineDetails {
  barcode?: string;
  /** The authority's packaging unit code. */
  packagingUnitCode?: string;
  /** The number of packages (default: the quantity). */
  packages?: number;
  /** The authority's quantity unit code. */
  quantityUnitCode?: string;
}

/**
 * What a filing carries beyond the document's own fields when its source supplies it: a till's
 * registrant and issuer, its lines' barcodes and units. Stored with the document
 * (`sales.filing_details`), so a retry files the same document.
 */
export interface FilingDetails {
  /** Default: the gateway. */
  registrant?: FilingPerson;
  /** Default: the registrant. */
  modifier?: FilingPerson;
  /** By line, in line order. */
  lines?: Array<FilingLineDetails | null>;
}

/** The document a note corrects, as the authority filed it. */
interface OriginalDocument {
  /** The gateway's number of the original (its number with the authority). */
  invoiceNo: number | null;
  /** The receipt number the authority gave it. */
  receiptNo: number | null;
  /** The unit that signed it. */
  sdcId: string | null;
}

/** A document as stored, ready to file: the same document always files the same way. */
export interface FiscalDocument {
  type: DocumentType;
  /** The branch's gateway invoice number in its kind's sequence. */
  invoiceNo: number;
  salesType: SalesType;
  /** Notes only. */
  original: OriginalDocument | null;
  customer: { tpin: string | null; name: string };
  /** The authority's payment type code. */
  paymentMethod: string;
  occurredAt: Date;
  taxInclusive: boolean;
  destinationCountryCode: string | null;
  /** A note's reason, from the authority's table. */
  reasonCode: string | null;
  /** ISO 4217; a foreign currency carries its exchange rate to the authority's currency. */
  currency: string;
  exchangeRate: number;
  lpoNumber: string | null;
  principalId: string | null;
  lines: SaleLineInput[];
  remark: string | null;
  details: FilingDetails | null;
  /** The caller's own number of the document (KRA's `trdInvcNo`); absent: the invoice number. */
  reference?: string | null;
}

/** Which document: its number in its kind's sequence. */
type DocumentRef = Pick<FiscalDocument, 'invoiceNo' | 'salesType'>;

/** The fiscal block of a filed document, as the authority gave it. */
export interface FiscalReceipt {
  receiptNo: number;
  /** The unit's count of every receipt it signed, of all kinds (KRA's `totRcptNo`); null when the authority gives none. */
  totalReceiptNo?: number | null;
  internalData: string;
  receiptSignature: string;
  publishedAt: Date;
  /** Null only when the authority left it out; the domain falls back to the branch's. */
  sdcId: string | null;
  /** Trimmed; null when the authority left it out. */
  mrcNo: string | null;
  qrCodeUrl: string | null;
}

/** The document could not be turned into a filing (a defect of the stored document, not an answer). */
export class FiscalDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FiscalDocumentError';
  }
}

export type FileOutcome =
  | { kind: 'ok'; receipt: FiscalReceipt }
  /** The authority holds a document under this number already (an earlier attempt's reply was lost). */
  | { kind: 'duplicate'; code: string; message: string }
  | Rejected
  | Unreachable;

export type FindOutcome =
  /** Found, with the total it was filed with (the domain adopts it only if it is this document's). */
  | { kind: 'ok'; receipt: FiscalReceipt; total: number }
  | { kind: 'empty' }
  /** Found but not readable as a receipt: the words say why. */
  | { kind: 'unreadable'; problem: string }
  | Rejected
  | Unreachable;

interface FilingOptions {
  signal?: AbortSignal;
}

export interface FilingPort {
  /** Files the document under its invoice number. Throws FiscalDocumentError only for a document that cannot be filed at all. */
  file(device: AuthorityDevice, doc: FiscalDocument, options?: FilingOptions): Promise<FileOutcome>;
  /** The document the authority holds under this number (after a lost reply or a duplicate, or to reconcile). */
  findFiled(device: AuthorityDevice, doc: DocumentRef, options?: { signal?: AbortSignal }): Promise<FindOutcome>;
  /** A small call that proves the unit answers; never files anything. */
  probe(device: AuthorityDevice, now: Date, options?: { signal?: AbortSignal }): Promise<{ kind: 'answered' } | Unreachable>;
}
