// A sale or credit note as KRA files it (`saveTrnsSalesOsdc`, VSCU `saveSales`), and the receipt
// read back from the answer (OSCU `curRcptNo…sdcDateTime`, VSCU `rcptNo…vsdcRcptPbctDate`) or from
// a lookup of a filed one (`salesList[].receipt`). Pure: the same document always files the same bytes.
import { truncated } from '../../platform/lib/text.ts';
import { SaleAmountsError, type ComputedSale } from '../port/amounts.ts';
import type { AuthorityDevice } from '../port/device.ts';
import { FiscalDocumentError, type FilingLineDetails, type FilingPerson, type FiscalDocument, type FiscalReceipt } from '../port/filing.ts';
import { RECEIPT_TYPE, SALES_TYPE_CODE } from './codes.ts';
import type { KraSettings } from './settings.ts';
import { computeKraSale, KRA_TAX_LETTERS } from './tax.ts';
import { formatKraDate, formatKraDateTime, GATEWAY_REGISTRANT, parseKraDateTime, type KraProtocol } from './wire.ts';

const GATEWAY_PERSON: FilingPerson = { id: GATEWAY_REGISTRANT, name: GATEWAY_REGISTRANT };
export const HOME_CURRENCY = 'KES';

function checkDocument(doc: FiscalDocument, settings: KraSettings): void {
  if (!Number.isSafeInteger(doc.invoiceNo) || doc.invoiceNo <= 0)
    throw new FiscalDocumentError(`invoiceNo must be a positive integer, got ${doc.invoiceNo}`);
  if (Number.isNaN(doc.occurredAt.getTime())) throw new FiscalDocumentError('occurredAt is not a valid date');
  if (RECEIPT_TYPE[doc.type] === undefined)
    throw new FiscalDocumentError('KRA has no debit notes: correct a sale with a credit note and a new sale');
  if (!settings.salesTypes.includes(doc.salesType))
    throw new FiscalDocumentError(`this KRA unit files no ${doc.salesType} documents (it files ${settings.salesTypes.join(', ')})`);
  if (doc.type === 'credit_note') {
    if (doc.original?.invoiceNo == null) throw new FiscalDocumentError("a credit note needs its original's invoice number (orgInvcNo)");
    if (doc.reasonCode == null) throw new FiscalDocumentError('a credit note needs a reasonCode (KRA code class 32)');
  }
  if (doc.currency !== HOME_CURRENCY) throw new FiscalDocumentError(`KRA takes amounts in ${HOME_CURRENCY} only, not ${doc.currency}`);
}

type TaxFields = Record<string, number>;

/** The fifteen header tax fields: every letter's taxable amount, rate and tax, zero when unused. */
function taxFields(computed: ComputedSale): TaxFields {
  const of = new Map(computed.byCategory.map((c) => [c.code, c]));
  const fields: TaxFields = {};
  for (const l of KRA_TAX_LETTERS) fields[`taxblAmt${l}`] = of.get(l)?.taxable ?? 0;
  for (const l of KRA_TAX_LETTERS) fields[`taxRt${l}`] = of.get(l)?.rate ?? 0;
  for (const l of KRA_TAX_LETTERS) fields[`taxAmt${l}`] = of.get(l)?.vat ?? 0;
  return fields;
}

function buildLine(line: ComputedSale['lines'][number], details: FilingLineDetails | null | undefined): Record<string, unknown> {
  return {
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
    taxTyCd: line.vatCategory,
    taxblAmt: line.taxableAmount,
    taxAmt: line.vatAmount,
    totAmt: line.total,
  };
}

/**
 * The sale body of a document (without `tin`/`bhfId`: the client adds them where the protocol
 * wants them). `cfmDt`, `rcptPbctDt` and a credit note's `rfdDt` are its `occurredAt`, `salesDt`
 * its date, all in Nairobi time. Its amounts are computed from its lines, each at the rate it was sold at.
 */
export function buildKraSaleBody(protocol: KraProtocol, settings: KraSettings, doc: FiscalDocument): Record<string, unknown> {
  checkDocument(doc, settings);
  let computed: ComputedSale;
  try {
    computed = computeKraSale(doc.lines, doc.taxInclusive);
  } catch (err) {
    if (err instanceof SaleAmountsError) throw new FiscalDocumentError(err.message);
    throw err;
  }
  const registrant = doc.details?.registrant ?? GATEWAY_PERSON;
  const modifier = doc.details?.modifier ?? registrant;
  const credit = doc.type === 'credit_note';
  const confirmed = formatKraDateTime(doc.occurredAt);
  const custTin = doc.customer.tpin ?? '';
  return {
    invcNo: doc.invoiceNo,
    orgInvcNo: credit ? doc.original!.invoiceNo : 0,
    trdInvcNo: truncated(doc.reference ?? String(doc.invoiceNo), 50),
    custTin,
    custNm: truncated(doc.customer.name, 60),
    ...(protocol === 'vscu' ? { salesTyCd: SALES_TYPE_CODE[doc.salesType] } : {}),
    rcptTyCd: RECEIPT_TYPE[doc.type],
    pmtTyCd: doc.paymentMethod,
    salesSttsCd: '02',
    cfmDt: confirmed,
    salesDt: formatKraDate(doc.occurredAt),
    stockRlsDt: null,
    cnclReqDt: null,
    cnclDt: null,
    rfdDt: credit ? confirmed : null,
    rfdRsnCd: credit ? doc.reasonCode : null,
    totItemCnt: computed.lines.length,
    ...taxFields(computed),
    totTaxblAmt: computed.totals.net,
    totTaxAmt: computed.totals.vat,
    totAmt: computed.totals.total,
    prchrAcptcYn: 'N',
    remark: doc.remark ?? null,
    regrId: registrant.id,
    regrNm: registrant.name,
    modrId: modifier.id,
    modrNm: modifier.name,
    receipt: {
      custTin,
      custMblNo: null,
      ...(protocol === 'vscu' ? { rptNo: doc.invoiceNo } : {}),
      rcptPbctDt: confirmed,
      trdeNm: null,
      adrs: null,
      topMsg: null,
      btmMsg: null,
      prchrAcptcYn: 'N',
    },
    itemList: computed.lines.map((line, i) => buildLine(line, doc.details?.lines?.[i])),
  };
}

/** A whole number ≥ 0 as KRA may write it: a number or its digits. */
export function kraCount(value: unknown): number | null {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** A money amount as KRA may write it: a number or its text. */
function kraAmount(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

function nonEmptyText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** Whether the device files to KRA's production system: marked so, or its base URL is KRA's production host. */
function isProduction(device: AuthorityDevice): boolean {
  if (device.production) return true;
  try {
    return new URL(device.baseUrl).hostname.toLowerCase() === 'etims-api.kra.go.ke';
  } catch {
    return false;
  }
}

/** The receipt's verification link on KRA's portal (the QR). */
function kraReceiptUrl(device: AuthorityDevice, signature: string): string {
  const host = isProduction(device) ? 'etims.kra.go.ke' : 'etims-sbx.kra.go.ke';
  return `https://${host}/common/link/etims/receipt/indexEtimsReceiptData?Data=${device.tpin}${device.branch}${signature}`;
}

/**
 * The fiscal block in a sale's answer or a lookup's `receipt` (OSCU and VSCU names both read), or
 * why it cannot be read. `publishedAt`: KRA's date, else the envelope's `resultDt`, else `now`.
 */
export function readKraReceipt(data: unknown, device: AuthorityDevice, resultDt: string | null, now: Date): FiscalReceipt | string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'data is not an object';
  const d = data as Record<string, unknown>;
  const receiptNo = kraCount(d.curRcptNo ?? d.rcptNo);
  if (receiptNo === null) return 'curRcptNo is missing or not a whole number';
  const internalData = nonEmptyText(d.intrlData);
  if (internalData === null) return 'intrlData is missing';
  const receiptSignature = nonEmptyText(d.rcptSign);
  if (receiptSignature === null) return 'rcptSign is missing';
  const published = nonEmptyText(d.sdcDateTime ?? d.vsdcRcptPbctDate ?? d.VSCURcptPbctDate);
  const mrcNo = nonEmptyText(d.mrcNo) ?? nonEmptyText(device.mrcNo);
  return {
    receiptNo,
    totalReceiptNo: kraCount(d.totRcptNo),
    internalData,
    receiptSignature,
    publishedAt: parseKraDateTime(published) ?? parseKraDateTime(resultDt) ?? now,
    sdcId: nonEmptyText(d.sdcId) ?? nonEmptyText(device.sdcId),
    mrcNo,
    qrCodeUrl: kraReceiptUrl(device, receiptSignature),
  };
}

/**
 * A filed document in a lookup's answer (`salesList[]`, or the sale itself), the one under
 * `invoiceNo`: its receipt (nested under `receipt` or beside the sale's fields) and its `totAmt`.
 */
export function readFiledSale(data: unknown, invoiceNo: number): { receipt: Record<string, unknown>; total: number | null } | string {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const list = Array.isArray(d.salesList) ? d.salesList : Array.isArray(d.saleList) ? d.saleList : [d];
  const sales = list.filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null);
  const sale =
    sales.find((s) => kraCount(s.invcNo) === invoiceNo) ??
    (sales.length === 1 && kraCount(sales[0]!.invcNo) === null ? sales[0] : undefined);
  if (sale === undefined) return `no sale under invcNo ${invoiceNo} in the answer`;
  const nested = typeof sale.receipt === 'object' && sale.receipt !== null ? (sale.receipt as Record<string, unknown>) : {};
  return { receipt: { ...sale, ...nested }, total: kraAmount(sale.totAmt) };
}
