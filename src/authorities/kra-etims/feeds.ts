// KRA's pulled feeds, each a `select…` with `lastReqDt` (the cursor: the previous answer's
// `resultDt`): customs lines (`selectImportItemList`), suppliers' sales (`selectTrnsPurchaseSalesList`),
// the stock ledger (`selectStockMoveList`) and notices (`selectNoticeList`). KRA publishes no
// principals: that feed is always empty. Data is stored as received (dates in KRA's own text).
import { createHash } from 'node:crypto';
import type { AuthorityNotice, FeedRead, FeedsPort, LedgerMove, SupplierSale, SupplierSaleLine } from '../port/feeds.ts';
import type { KraClient } from './client.ts';
import { pulledOf, signalOf } from './calls.ts';
import { receivedCustomsLine, receivedDecimal, receivedRecords as receivedList, receivedText } from '../received.ts';
import { lastReqDtOf, parseKraDateTime, type KraEndpoint } from './wire.ts';

const text = receivedText;
const decimal = receivedDecimal;
const KRA_PIN = /^[A-Z][0-9]{9}[A-Z]$/;

function toSupplierLine(line: Record<string, unknown>, index: number): SupplierSaleLine {
  return {
    lineNo: index + 1,
    itemSeq: decimal(line.itemSeq),
    itemCode: text(line.itemCd),
    classificationCode: text(line.itemClsCd),
    itemName: text(line.itemNm),
    barcode: text(line.bcd),
    packagingUnitCode: text(line.pkgUnitCd),
    packages: decimal(line.pkg),
    quantityUnitCode: text(line.qtyUnitCd),
    quantity: decimal(line.qty),
    unitPrice: decimal(line.prc),
    supplyAmount: decimal(line.splyAmt),
    discountRate: decimal(line.dcRt),
    discountAmount: decimal(line.dcAmt),
    vatCategory: text(line.taxTyCd),
    taxableAmount: decimal(line.taxblAmt),
    vatAmount: decimal(line.taxAmt),
    totalAmount: decimal(line.totAmt),
    raw: line,
  };
}

const differ = (a: number, b: number): boolean => Math.abs(a - b) > 0.005;

function inconsistenciesOf(sale: Omit<SupplierSale, 'inconsistencies' | 'dedupeKey'>): string[] {
  const found: string[] = [];
  if (sale.supplierTpin === null || !KRA_PIN.test(sale.supplierTpin)) found.push('spplrTin is not a KRA PIN');
  if (sale.supplierInvoiceNo === null || !/^\d{1,15}$/.test(sale.supplierInvoiceNo)) found.push('spplrInvcNo is not a whole number');
  if (parseKraDateTime(sale.confirmedAt) === null) found.push('cfmDt is not a date-time');
  if (sale.lines.length === 0) found.push('itemList is empty');
  if (sale.totalItemCount !== null && sale.totalItemCount !== sale.lines.length)
    found.push(`totItemCnt ${sale.totalItemCount} does not match the ${sale.lines.length} lines`);
  const sums: Array<[string, number | null, Array<number | null>]> = [
    ['totTaxblAmt', sale.totalTaxableAmount, sale.lines.map((l) => l.taxableAmount)],
    ['totTaxAmt', sale.totalTaxAmount, sale.lines.map((l) => l.vatAmount)],
    ['totAmt', sale.totalAmount, sale.lines.map((l) => l.totalAmount)],
  ];
  for (const [field, given, parts] of sums) {
    if (given === null || parts.length === 0 || parts.some((p) => p === null)) continue;
    const sum = parts.reduce<number>((t, p) => t + p!, 0);
    if (differ(given, sum)) found.push(`${field} ${given} is not the sum of the lines (${Number(sum.toFixed(4))})`);
  }
  return found;
}

/** A supplier's sale; the same document pulled again has the same key (PIN, branch, number, receipt type), else a hash of it. */
function toKraSupplierSale(raw: Record<string, unknown>): SupplierSale {
  const sale = {
    supplierTpin: text(raw.spplrTin),
    supplierName: text(raw.spplrNm),
    supplierBranch: text(raw.spplrBhfId),
    supplierInvoiceNo: text(raw.spplrInvcNo),
    supplierSdcId: text(raw.spplrSdcId),
    receiptTypeCode: text(raw.rcptTyCd),
    paymentTypeCode: text(raw.pmtTyCd),
    confirmedAt: text(raw.cfmDt),
    salesDate: text(raw.salesDt),
    stockReleasedAt: text(raw.stockRlsDt),
    totalItemCount: decimal(raw.totItemCnt),
    totalTaxableAmount: decimal(raw.totTaxblAmt),
    totalTaxAmount: decimal(raw.totTaxAmt),
    totalAmount: decimal(raw.totAmt),
    remark: text(raw.remark),
    raw,
    lines: receivedList(raw, 'itemList').map(toSupplierLine),
  };
  const dedupeKey =
    sale.supplierTpin !== null && sale.supplierInvoiceNo !== null
      ? ['supplier', sale.supplierTpin, sale.supplierBranch ?? '', sale.supplierInvoiceNo, sale.receiptTypeCode ?? ''].join('/')
      : `sha256/${createHash('sha256').update(JSON.stringify(raw)).digest('hex')}`;
  return { ...sale, dedupeKey, inconsistencies: inconsistenciesOf(sale) };
}

/** A ledger movement keyed by its `sarNo`; quantities signed by `sarTyCd` (class 12: 0x in, 1x out) when KRA sends one. */
function toLedgerMove(raw: Record<string, unknown>): LedgerMove | undefined {
  const sarNo = decimal(raw.sarNo);
  if (sarNo === null || !Number.isSafeInteger(sarNo) || sarNo < 0) return undefined;
  const type = text(raw.sarTyCd);
  const sign = type === null || !/^\d{2}$/.test(type) ? null : type.startsWith('0') ? 1 : type.startsWith('1') ? -1 : null;
  const lines: LedgerMove['lines'] = [];
  receivedList(raw, 'itemList').forEach((line, index) => {
    const itemCode = text(line.itemCd);
    const quantity = decimal(line.qty);
    if (itemCode === null || quantity === null) return;
    lines.push({ seq: index + 1, itemCode, quantity: (sign === null ? quantity : sign * Math.abs(quantity)).toFixed(4) });
  });
  return { number: sarNo, type, lines, raw };
}

function toNotice(raw: Record<string, unknown>): AuthorityNotice | undefined {
  const number = decimal(raw.noticeNo);
  if (number === null || !Number.isSafeInteger(number) || number < 0) return undefined;
  return {
    number,
    title: text(raw.title),
    content: text(raw.cont),
    detailUrl: text(raw.dtlUrl),
    registeredBy: text(raw.regrNm),
    registeredAt: parseKraDateTime(text(raw.regDt)),
    raw,
  };
}

function feed<T>(
  client: KraClient,
  endpoint: KraEndpoint,
  key: string,
  read: (raw: Record<string, unknown>) => T | undefined,
): FeedRead<T> {
  return async (device, cursor, options) => {
    const outcome = await client[endpoint](device, { lastReqDt: lastReqDtOf(cursor) }, signalOf(options));
    return pulledOf(outcome, (data) => receivedList(data, key).flatMap((raw) => read(raw) ?? []));
  };
}

export function kraFeedsPort(client: KraClient): FeedsPort {
  return {
    customsLines: feed(client, 'selectImportItemList', 'itemList', receivedCustomsLine),
    supplierSales: feed(client, 'selectTrnsPurchaseSalesList', 'saleList', toKraSupplierSale),
    stockLedger: feed(client, 'selectStockMoveList', 'stockList', toLedgerMove),
    principals: async (_device, cursor) => ({ kind: 'empty', cursor }),
    notices: feed(client, 'selectNoticeList', 'noticeList', toNotice),
  };
}
