// Builds the `saveSales` body of a sale, credit note or debit note, and reads the receipt back.
import { SALES_TYPE_CODES, HOME_CURRENCY, cisInvoiceNo, type PaymentTypeCode } from './codes.ts';
import type { AuthorityDevice } from '../port/device.ts';
import {
  FiscalDocumentError,
  type DocumentType,
  type FilingLineDetails,
  type FilingPerson,
  type FiscalDocument,
  type FiscalReceipt,
} from '../port/filing.ts';
import {
  formatVsdcDate,
  formatVsdcDateTime,
  parseVsdcDateTime,
  HEADER_TAX_BUCKETS,
  type HeaderTaxBucket,
  type SaveSalesData,
  type SaveSalesLine,
  type SaveSalesRequest,
} from '@fiscal-gateway/vsdc-protocol';
import { truncated } from '../../platform/lib/text.ts';
import { GATEWAY_REGISTRANT } from './registrant.ts';
import { computeSale, SaleAmountsError, type ComputedSale } from './tax.ts';

/** How ZRA writes each document type (`rcptTyCd`). */
const RECEIPT_TYPE: Record<DocumentType, 'S' | 'R' | 'D'> = { sale: 'S', credit_note: 'R', debit_note: 'D' };

/** Code class 13: the TPIN the authority uses for a customer without one. */
const DEFAULT_CUSTOMER_TPIN = '1000000000';

const GATEWAY_PERSON: FilingPerson = { id: GATEWAY_REGISTRANT, name: GATEWAY_REGISTRANT };

const BUCKET_OF: Record<string, HeaderTaxBucket> = {
  A: 'A',
  B: 'B',
  C1: 'C1',
  C2: 'C2',
  C3: 'C3',
  D: 'D',
  RVAT: 'Rvat',
  E: 'E',
  F: 'F',
};

type TaxFields = Pick<SaveSalesRequest, `taxblAmt${HeaderTaxBucket}` | `taxRt${HeaderTaxBucket}` | `taxAmt${HeaderTaxBucket}`>;

/** Each bucket's three header fields: taxable amount, rate, tax. */
const TAX_FIELDS_OF = Object.fromEntries(
  HEADER_TAX_BUCKETS.map((b) => [b, [`taxblAmt${b}`, `taxRt${b}`, `taxAmt${b}`] as const]),
) as Record<HeaderTaxBucket, readonly [string, string, string]>;

/** Every header tax field at zero, in the protocol's order. */
const ZERO_TAX_FIELDS = Object.fromEntries(HEADER_TAX_BUCKETS.flatMap((b) => TAX_FIELDS_OF[b].map((field) => [field, 0]))) as TaxFields;

function checkDocument(doc: FiscalDocument): void {
  if (!Number.isSafeInteger(doc.invoiceNo) || doc.invoiceNo <= 0) {
    throw new FiscalDocumentError(`invoiceNo must be a positive integer, got ${doc.invoiceNo}`);
  }
  if (Number.isNaN(doc.occurredAt.getTime())) throw new FiscalDocumentError('occurredAt is not a valid date');
  if (doc.type !== 'sale') {
    if (doc.original?.receiptNo == null || doc.original.sdcId == null) {
      throw new FiscalDocumentError("a credit or debit note needs its original's receipt number and SDC id");
    }
    if (doc.reasonCode == null) throw new FiscalDocumentError('a credit or debit note needs a reasonCode');
  }
  if (doc.lines.some((l) => l.vatCategory === 'C1') && !doc.destinationCountryCode) {
    throw new FiscalDocumentError('a C1 (export) line needs destinationCountryCode');
  }
  if (doc.currency !== HOME_CURRENCY && (doc.exchangeRate === undefined || doc.exchangeRate === 1)) {
    throw new FiscalDocumentError(`a ${doc.currency} document needs its exchange rate to ZMW (not 1)`);
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
 * document's `occurredAt`; `salesDt` is its UTC date. Its amounts are computeSale of its lines.
 */
export function buildSaveSalesBody(device: AuthorityDevice, doc: FiscalDocument): SaveSalesRequest {
  checkDocument(doc);
  let computed: ComputedSale;
  try {
    computed = computeSale(doc.lines, doc.taxInclusive);
  } catch (err) {
    if (err instanceof SaleAmountsError) throw new FiscalDocumentError(err.message);
    throw err;
  }
  const registrant = doc.details?.registrant ?? GATEWAY_PERSON;
  const modifier = doc.details?.modifier ?? registrant;
  const lineDetails = doc.details?.lines;
  const isNote = doc.type !== 'sale';
  const receiptType = RECEIPT_TYPE[doc.type];

  const used: Record<string, number> = {};
  for (const category of computed.byCategory) {
    const [taxable, rate, vat] = TAX_FIELDS_OF[BUCKET_OF[category.code]!];
    used[taxable] = category.taxable;
    used[rate] = category.rate;
    used[vat] = category.vat;
  }

  const header = {
    tpin: device.tpin,
    bhfId: device.branch,
    orgInvcNo: isNote ? (doc.original!.receiptNo as number) : 0,
    orgSdcId: isNote ? (doc.original!.sdcId as string) : null,
    cisInvcNo: cisInvoiceNo(doc.salesType ?? 'normal', doc.invoiceNo),
    custTpin: doc.customer.tpin ?? DEFAULT_CUSTOMER_TPIN,
    custNm: truncated(doc.customer.name, 60),
    salesTyCd: SALES_TYPE_CODES[doc.salesType ?? 'normal'],
    rcptTyCd: receiptType,
    pmtTyCd: doc.paymentMethod as PaymentTypeCode,
    salesSttsCd: '02',
    cfmDt: formatVsdcDateTime(doc.occurredAt),
    salesDt: formatVsdcDate(doc.occurredAt),
    stockRlsDt: null,
    cnclReqDt: null,
    cnclDt: null,
    rfdDt: receiptType === 'R' ? formatVsdcDateTime(doc.occurredAt) : null,
    rfdRsnCd: receiptType === 'R' ? (doc.reasonCode ?? null) : null,
    dbtRsnCd: receiptType === 'D' ? (doc.reasonCode ?? null) : null,
    totItemCnt: computed.lines.length,
  };

  // Object.assign, not spreads: V8 copies spreads of this ~90-field object into a literal one
  // field at a time, which was measurably slower (docs/decisions.md). The zeros fix the fields' order.
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
  if (problem !== null) throw new FiscalDocumentError(`not a receipt: ${problem}`);
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

/**
 * A document in ZRA's own terms (`rcptTyCd`, the original's `rcptNo` and `sdcId`, `tpin` and
 * `bhfId` in the body): what the adapter's own tests and the benches' floors build bodies from.
 */
export interface ZraSaleDocument extends Partial<
  Omit<
    FiscalDocument,
    'type' | 'original' | 'lines' | 'customer' | 'invoiceNo' | 'occurredAt' | 'paymentMethod' | 'currency' | 'taxInclusive'
  >
> {
  tpin: string;
  bhfId: string;
  invoiceNo: number;
  receiptType: 'S' | 'R' | 'D';
  originalReceiptNo?: number | null;
  originalSdcId?: string | null;
  customer: FiscalDocument['customer'];
  paymentMethod: string;
  occurredAt: Date;
  taxInclusive: boolean;
  currency: string;
  lines: FiscalDocument['lines'];
}

const TYPE_OF_RECEIPT: Record<ZraSaleDocument['receiptType'], DocumentType> = { S: 'sale', R: 'credit_note', D: 'debit_note' };

/** The `saveSales` body of a document written in ZRA's terms. */
export function buildZraSaleBody(doc: ZraSaleDocument): SaveSalesRequest {
  const { tpin, bhfId, receiptType, originalReceiptNo, originalSdcId, ...rest } = doc;
  return buildSaveSalesBody(
    { profile: 'zra-vsdc', baseUrl: '', tpin, branch: bhfId },
    {
      salesType: 'normal',
      destinationCountryCode: null,
      reasonCode: null,
      exchangeRate: 1,
      lpoNumber: null,
      principalId: null,
      remark: null,
      details: null,
      ...rest,
      type: TYPE_OF_RECEIPT[receiptType],
      original: receiptType === 'S' ? null : { invoiceNo: null, receiptNo: originalReceiptNo ?? null, sdcId: originalSdcId ?? null },
    },
  );
}
