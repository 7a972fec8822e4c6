// Builds the `saveSales` body of a sale, credit note or debit note, and reads the receipt back.
import { SALES_TYPE_CODES, HOME_CURRENCY, cisInvoiceNo, type PaymentTypeCode, type SalesTypeName } from './codes.ts';
import {
  formatVsdcDate,
  formatVsdcDateTime,
  parseVsdcDateTime,
  HEADER_TAX_BUCKETS,
  type HeaderTaxBucket,
  type SaveSalesData,
  type SaveSalesLine,
  type SaveSalesRequest,
  type SelectInvoiceData,
} from '@fiscal-gateway/vsdc-protocol';
import { truncated } from '../../platform/lib/text.ts';
import { GATEWAY_REGISTRANT } from './registrant.ts';
import { amountsMatch, computeSale, SaleAmountsError, type ComputedSale, type SaleLineInput, type VatCategoryCode } from './tax.ts';

type ReceiptType = 'S' | 'R' | 'D';
/** Kept here for filing/filer.ts, which imports it from this file (issue 31: one home, codes.ts). */
export type { PaymentTypeCode };

/** Code class 13: the TPIN the authority uses for a customer without one. */
const DEFAULT_CUSTOMER_TPIN = '1000000000';

export interface SaleDocument {
  tpin: string;
  bhfId: string;
  /** The branch's gateway invoice number in its kind's sequence; sent as `cisInvcNo` (cisInvoiceNo). */
  invoiceNo: number;
  /** Default normal (salesTyCd N). */
  salesType?: SalesTypeName;
  receiptType: ReceiptType;
  /** For R/D: the original sale's `rcptNo`. */
  originalReceiptNo?: number | null;
  /** For R/D: the `sdcId` that signed the original sale. */
  originalSdcId?: string | null;
  customer: { tpin: string | null; name: string };
  paymentMethod: PaymentTypeCode;
  occurredAt: Date;
  taxInclusive: boolean;
  /** Required when any line is C1 (export). */
  destinationCountryCode?: string | null;
  /** Credit-note reason (class 32) for R, debit-note reason (class 67) for D. */
  reasonCode?: string | null;
  /** ISO 4217; a foreign currency needs `exchangeRate` (ZMW per unit). */
  currency: string;
  exchangeRate?: number;
  lpoNumber?: string | null;
  principalId?: string | null;
  lines: SaleLineInput[];
  remark?: string | null;
  /** What the body carries beyond the fields above, when the document's source supplied it. */
  details?: FilingDetails | null;
}

/** Who registered or changed a document, as the VSDC records it (`regrId/regrNm`, `modrId/modrNm`). */
export interface FilingPerson {
  id: string;
  name: string;
}

/** A line's fields beyond the sale's own; each absent one takes the gateway's default. */
export interface FilingLineDetails {
  /** `bcd` (default null). */
  barcode?: string;
  /** `pkgUnitCd`, code class 17 (default NT). */
  packagingUnitCode?: string;
  /** `pkg`, the number of packages (default: the quantity). */
  packages?: number;
  /** `qtyUnitCd`, code class 10 (default U). */
  quantityUnitCode?: string;
}

/**
 * What a saveSales body carries beyond the document's own fields when its source supplies it: a
 * till's registrant and issuer, its lines' barcodes and units. Stored with the document
 * (`sales.filing_details`), so a retry files the same body.
 */
export interface FilingDetails {
  /** `regrId/regrNm`; default: the gateway. */
  registrant?: FilingPerson;
  /** `modrId/modrNm`; default: the registrant. */
  modifier?: FilingPerson;
  /** By line, in line order. */
  lines?: Array<FilingLineDetails | null>;
}

const GATEWAY_PERSON: FilingPerson = { id: GATEWAY_REGISTRANT, name: GATEWAY_REGISTRANT };

export class SaleDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SaleDocumentError';
  }
}

const BUCKET_OF: Record<string, HeaderTaxBucket> = {
  A: 'A', B: 'B', C1: 'C1', C2: 'C2', C3: 'C3', D: 'D', RVAT: 'Rvat', E: 'E', F: 'F',
};

type TaxFields = Pick<SaveSalesRequest, `taxblAmt${HeaderTaxBucket}` | `taxRt${HeaderTaxBucket}` | `taxAmt${HeaderTaxBucket}`>;

/** Each bucket's three header fields: taxable amount, rate, tax. */
const TAX_FIELDS_OF = Object.fromEntries(HEADER_TAX_BUCKETS.map((b) => [b, [`taxblAmt${b}`, `taxRt${b}`, `taxAmt${b}`] as const])) as Record<
  HeaderTaxBucket,
  readonly [string, string, string]
>;

/** Every header tax field at zero, in the protocol's order. */
const ZERO_TAX_FIELDS = Object.fromEntries(HEADER_TAX_BUCKETS.flatMap((b) => TAX_FIELDS_OF[b].map((field) => [field, 0]))) as TaxFields;

function checkDocument(doc: SaleDocument): void {
  if (!Number.isSafeInteger(doc.invoiceNo) || doc.invoiceNo <= 0) {
    throw new SaleDocumentError(`invoiceNo must be a positive integer, got ${doc.invoiceNo}`);
  }
  if (Number.isNaN(doc.occurredAt.getTime())) throw new SaleDocumentError('occurredAt is not a valid date');
  if (doc.receiptType !== 'S') {
    if (doc.originalReceiptNo == null || doc.originalSdcId == null) {
      throw new SaleDocumentError('a credit or debit note needs originalReceiptNo and originalSdcId');
    }
    if (doc.reasonCode == null) throw new SaleDocumentError('a credit or debit note needs a reasonCode');
  }
  if (doc.lines.some((l) => l.vatCategory === 'C1') && !doc.destinationCountryCode) {
    throw new SaleDocumentError('a C1 (export) line needs destinationCountryCode');
  }
  if (doc.currency !== HOME_CURRENCY && (doc.exchangeRate === undefined || doc.exchangeRate === 1)) {
    throw new SaleDocumentError(`a ${doc.currency} document needs its exchange rate to ZMW (not 1)`);
  }
}

function buildLine(line: ComputedSale['lines'][number], details: FilingLineDetails | null | undefined): SaveSalesLine {
  const filed: SaveSalesLine = {
    itemSeq: line.seq,
    itemCd: line.itemCode,
    itemClsCd: line.classificationCode,
    itemNm: line.name,
    bcd: details?.barcode ?? null,
    pkgUnitCd: details?.packagingUnitCode ?? 'NT',
    pkg: details?.packages ?? line.quantity,
    qtyUnitCd: details?.quantityUnitCode ?? 'U',
    qty: line.quantity,
    prc: line.price,
    splyAmt: line.supplyAmount,
    dcRt: line.discountRate,
    dcAmt: line.discountAmount,
    isrccCd: null,
    isrccNm: null,
    isrcRt: 0,
    isrcAmt: 0,
    vatCatCd: line.vatCategory,
    exciseTxCatCd: null,
    tlCatCd: null,
    iplCatCd: null,
    vatTaxblAmt: line.taxableAmount,
    vatAmt: line.vatAmount,
    exciseTaxblAmt: 0,
    tlTaxblAmt: 0,
    iplTaxblAmt: 0,
    iplAmt: 0,
    tlAmt: 0,
    exciseTxAmt: 0,
    totAmt: line.lineAmount,
  };
  // Only an MTV (B) line carries its RRP (a B line without it is a 910).
  if (line.rrp !== null) filed.rrp = line.rrp;
  return filed;
}

/**
 * The full `saveSales` body. Pure and deterministic: the same document always gives the same
 * body, so a retry resends identical bytes. `cfmDt` and (for credit notes) `rfdDt` are the
 * document's `occurredAt`; `salesDt` is its UTC date. `computed`: computeSale of the document's
 * lines when the caller already holds it (the filer, handed over by the request that stored the
 * document); it must be exactly what computeSale(doc.lines, doc.taxInclusive) gives.
 */
export function buildSaveSalesBody(doc: SaleDocument, computed?: ComputedSale): SaveSalesRequest {
  checkDocument(doc);
  if (computed === undefined) {
    try {
      computed = computeSale(doc.lines, doc.taxInclusive);
    } catch (err) {
      if (err instanceof SaleAmountsError) throw new SaleDocumentError(err.message);
      throw err;
    }
  }
  const registrant = doc.details?.registrant ?? GATEWAY_PERSON;
  const modifier = doc.details?.modifier ?? registrant;
  const lineDetails = doc.details?.lines;
  const isNote = doc.receiptType !== 'S';

  const used: Record<string, number> = {};
  for (const category of computed.byCategory) {
    const [taxable, rate, vat] = TAX_FIELDS_OF[BUCKET_OF[category.code]!];
    used[taxable] = category.taxable;
    used[rate] = category.rate;
    used[vat] = category.vat;
  }

  const header = {
    tpin: doc.tpin,
    bhfId: doc.bhfId,
    orgInvcNo: isNote ? (doc.originalReceiptNo as number) : 0,
    orgSdcId: isNote ? (doc.originalSdcId as string) : null,
    cisInvcNo: cisInvoiceNo(doc.salesType ?? 'normal', doc.invoiceNo),
    custTpin: doc.customer.tpin ?? DEFAULT_CUSTOMER_TPIN,
    custNm: truncated(doc.customer.name, 60),
    salesTyCd: SALES_TYPE_CODES[doc.salesType ?? 'normal'],
    rcptTyCd: doc.receiptType,
    pmtTyCd: doc.paymentMethod,
    salesSttsCd: '02',
    cfmDt: formatVsdcDateTime(doc.occurredAt),
    salesDt: formatVsdcDate(doc.occurredAt),
    stockRlsDt: null,
    cnclReqDt: null,
    cnclDt: null,
    rfdDt: doc.receiptType === 'R' ? formatVsdcDateTime(doc.occurredAt) : null,
    rfdRsnCd: doc.receiptType === 'R' ? (doc.reasonCode ?? null) : null,
    dbtRsnCd: doc.receiptType === 'D' ? (doc.reasonCode ?? null) : null,
    totItemCnt: computed.lines.length,
  };

  // Object.assign, not spreads: V8 copies spreads of this ~90-field object into a literal one
  // field at a time, which cost ~150 µs a body (measured). The zeros fix the fields' order.
  return Object.assign(header, ZERO_TAX_FIELDS, used as TaxFields, {
    totTaxblAmt: computed.totals.net,
    totTaxAmt: computed.totals.vat,
    totAmt: computed.totals.total,
    cashDcRt: 0,
    cashDcAmt: 0,
    prchrAcptcYn: 'N' as const,
    remark: doc.remark ?? null,
    regrId: registrant.id,
    regrNm: registrant.name,
    modrId: modifier.id,
    modrNm: modifier.name,
    saleCtyCd: '1',
    currencyTyCd: doc.currency,
    exchangeRt: doc.exchangeRate ?? 1,
    destnCountryCd: doc.destinationCountryCode ?? null,
    lpoNumber: doc.lpoNumber ?? null,
    ...(doc.principalId == null ? {} : { principalId: /^[0-9]{1,15}$/.test(doc.principalId) ? Number(doc.principalId) : doc.principalId }),
    itemList: computed.lines.map((line, i) => buildLine(line, lineDetails?.[i])),
  });
}

/** The sale's `fiscal` block, read from a `saveSales` (or `selectInvoice`) success. */
export interface FiscalReceipt {
  receiptNo: number;
  internalData: string;
  receiptSignature: string;
  publishedAt: Date;
  /** Null only when the VSDC left it out; fall back to the branch's `sdcId`. */
  sdcId: string | null;
  /** Trimmed; null when the VSDC left it out. */
  mrcNo: string | null;
  qrCodeUrl: string | null;
}

function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Why a success `data` cannot be read as a receipt, or null when it can. */
export function receiptProblem(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return 'data is not an object';
  const d = data as Record<string, unknown>;
  if (typeof d.rcptNo !== 'number' || !Number.isSafeInteger(d.rcptNo)) return 'rcptNo is missing or not an integer';
  if (nonEmptyText(d.intrlData) === null) return 'intrlData is missing';
  if (nonEmptyText(d.rcptSign) === null) return 'rcptSign is missing';
  return null;
}

/**
 * Maps success `data` to the fiscal block. `publishedAt` is `vsdcRcptPbctDate`, else the
 * envelope's `resultDt`, else `fallbackNow` (some real VSDCs omit the publication date).
 */
export function toFiscalReceipt(data: SaveSalesData, resultDt: string | null = null, fallbackNow: Date = new Date()): FiscalReceipt {
  const problem = receiptProblem(data);
  if (problem !== null) throw new SaleDocumentError(`not a receipt: ${problem}`);
  const publishedAt = parseVsdcDateTime(data.vsdcRcptPbctDate ?? null) ?? parseVsdcDateTime(resultDt) ?? fallbackNow;
  const mrcNo = nonEmptyText(data.mrcNo);
  return {
    receiptNo: data.rcptNo,
    internalData: data.intrlData,
    receiptSignature: data.rcptSign,
    publishedAt,
    sdcId: nonEmptyText(data.sdcId),
    mrcNo: mrcNo === null ? null : mrcNo.trim(),
    qrCodeUrl: nonEmptyText(data.qrCodeUrl),
  };
}

type DuplicateReconciliation =
  | { adopt: true; receipt: FiscalReceipt }
  | { adopt: false; lastError: string };

/**
 * After a `924`: adopt the filed receipt only if its `totAmt` equals the document's total ±0.01;
 * otherwise the number was filed with a different document and needs an operator.
 */
export function reconcileDuplicate(filed: SelectInvoiceData, documentTotal: number, resultDt: string | null = null): DuplicateReconciliation {
  const problem = receiptProblem(filed);
  if (problem !== null) return { adopt: false, lastError: `VSDC reported the invoice as filed but its record is unreadable: ${problem}` };
  if (typeof filed.totAmt !== 'number' || !amountsMatch(filed.totAmt, documentTotal)) {
    return {
      adopt: false,
      lastError: `invoice number already filed with a different total (VSDC totAmt ${String(filed.totAmt)}, document ${documentTotal})`,
    };
  }
  return { adopt: true, receipt: toFiscalReceipt(filed, resultDt) };
}
