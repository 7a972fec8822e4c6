// A supplier's sale to the merchant as `selectTrnsPurchaseSales` reports it, read into the port's
// SupplierSale: stored as received, what does not add up said in the VSDC's own field names.
import { createHash } from 'node:crypto';
import { parseVsdcDateTime, type PurchaseSale } from '@fiscal-gateway/vsdc-protocol';
import type { SupplierSale, SupplierSaleLine } from '../port/feeds.ts';
import { receivedDecimal, receivedText } from '../received.ts';

type Raw = Record<string, unknown>;

const isRecord = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Two amounts differ by more than rounding. */
const differ = (a: number, b: number): boolean => Math.abs(a - b) > 0.005;
const sumOf = (values: Array<number | null>): number | null =>
  values.some((v) => v === null) ? null : values.reduce<number>((t, v) => t + v!, 0);

function toLine(raw: unknown, index: number): SupplierSaleLine {
  const line = isRecord(raw) ? raw : {};
  return {
    lineNo: index + 1,
    itemSeq: receivedDecimal(line.itemSeq),
    itemCode: receivedText(line.itemCd),
    classificationCode: receivedText(line.itemClsCd),
    itemName: receivedText(line.itemNm),
    barcode: receivedText(line.bcd),
    packagingUnitCode: receivedText(line.pkgUnitCd),
    packages: receivedDecimal(line.pkg),
    quantityUnitCode: receivedText(line.qtyUnitCd),
    quantity: receivedDecimal(line.qty),
    unitPrice: receivedDecimal(line.prc),
    supplyAmount: receivedDecimal(line.splyAmt),
    discountRate: receivedDecimal(line.dcRt),
    discountAmount: receivedDecimal(line.dcAmt),
    vatCategory: receivedText(line.vatCatCd),
    taxableAmount: receivedDecimal(line.vatTaxblAmt ?? line.taxblAmt),
    vatAmount: receivedDecimal(line.vatAmt),
    totalAmount: receivedDecimal(line.totAmt),
    raw,
  };
}

/** A line's levy amounts (the VSDC's names), beside its VAT. */
const LEVY_AMOUNT_FIELDS = [
  { taxable: 'iplTaxblAmt', amount: 'iplAmt' },
  { taxable: 'tlTaxblAmt', amount: 'tlAmt' },
  { taxable: 'exciseTaxblAmt', amount: 'exciseTxAmt' },
] as const;

/** What does not add up in a supplier's document, in words; it is stored all the same. */
function inconsistenciesOf(sale: Raw, purchase: Omit<SupplierSale, 'inconsistencies' | 'dedupeKey'>): string[] {
  const found: string[] = [];
  if (purchase.supplierTpin === null || !/^\d{10}$/.test(purchase.supplierTpin)) found.push('spplrTpin is not a 10-digit TPIN');
  if (purchase.supplierInvoiceNo === null || !/^\d{1,15}$/.test(purchase.supplierInvoiceNo))
    found.push('spplrInvcNo is not a whole number');
  if (parseVsdcDateTime(purchase.confirmedAt) === null || purchase.confirmedAt?.length !== 14)
    found.push('cfmDt is not a YYYYMMDDHHmmss date-time');
  if (parseVsdcDateTime(purchase.salesDate) === null || purchase.salesDate?.length !== 8) found.push('salesDt is not a YYYYMMDD date');
  if (!Array.isArray(sale.itemList) || sale.itemList.length === 0) found.push('itemList is empty');
  const lines = purchase.lines;
  if (purchase.totalItemCount !== null && purchase.totalItemCount !== lines.length)
    found.push(`totItemCnt ${purchase.totalItemCount} does not match the ${lines.length} lines`);
  // Levies (insurance premium, tourism, excise) count in the header's taxable and tax totals; a
  // tax-exclusive document's totAmt also carries each line's VAT and levies on top of its totAmt.
  const rawLines = Array.isArray(sale.itemList) ? sale.itemList.map((line) => (isRecord(line) ? line : {})) : [];
  const levyOf = (index: number, part: 'taxable' | 'amount'): number =>
    LEVY_AMOUNT_FIELDS.reduce((sum, fields) => sum + (receivedDecimal(rawLines[index]?.[fields[part]]) ?? 0), 0);
  const withLevies = (part: 'taxable' | 'amount', own: (l: SupplierSaleLine) => number | null) =>
    sumOf(lines.map((l, i) => (own(l) === null ? null : own(l)! + levyOf(i, part))));
  const cashDiscount = receivedDecimal(sale.cashDcAmt) ?? 0;
  const inclusiveTotal = sumOf(lines.map((l) => l.totalAmount));
  const exclusiveTotal = sumOf(
    lines.map((l, i) => (l.totalAmount === null ? null : l.totalAmount + (l.vatAmount ?? 0) + levyOf(i, 'amount'))),
  );
  const totals: Array<[field: string, given: number | null, readings: Array<number | null>]> = [
    ['totAmt', purchase.totalAmount, [inclusiveTotal, exclusiveTotal].map((t) => (t === null ? null : t - cashDiscount))],
    ['totTaxAmt', purchase.totalTaxAmount, [withLevies('amount', (l) => l.vatAmount)]],
    ['totTaxblAmt', purchase.totalTaxableAmount, [withLevies('taxable', (l) => l.taxableAmount)]],
  ];
  for (const [field, given, readings] of totals) {
    const summed = readings.filter((r): r is number => r !== null);
    if (given === null || summed.length === 0 || lines.length === 0) continue;
    if (summed.every((r) => differ(given, r)))
      found.push(`${field} ${given} is not the sum of the lines (${Number(summed[0]!.toFixed(4))})`);
  }
  for (const l of lines) {
    if (l.quantity === null || l.quantity <= 0) found.push(`line ${l.lineNo}: qty is missing or not above 0`);
    else if (l.unitPrice !== null && l.supplyAmount !== null && differ(l.quantity * l.unitPrice, l.supplyAmount))
      found.push(`line ${l.lineNo}: qty × prc is not splyAmt`);
  }
  return found;
}

/**
 * A supplier's document. The key that makes a document pulled again the same record: supplier
 * TPIN, supplier branch, supplier invoice number and receipt type (a sale and a credit note may
 * share a number); a hash of the whole document when the TPIN or number is missing.
 */
export function toSupplierSale(raw: unknown): SupplierSale {
  const sale = (isRecord(raw) ? raw : {}) as Raw & Partial<PurchaseSale>;
  const purchase = {
    supplierTpin: receivedText(sale.spplrTpin),
    supplierName: receivedText(sale.spplrNm),
    supplierBranch: receivedText(sale.spplrBhfId),
    supplierInvoiceNo: receivedText(sale.spplrInvcNo),
    supplierSdcId: receivedText(sale.spplrSdcId),
    receiptTypeCode: receivedText(sale.rcptTyCd),
    paymentTypeCode: receivedText(sale.pmtTyCd),
    confirmedAt: receivedText(sale.cfmDt),
    salesDate: receivedText(sale.salesDt),
    stockReleasedAt: receivedText(sale.stockRlsDt),
    totalItemCount: receivedDecimal(sale.totItemCnt),
    totalTaxableAmount: receivedDecimal(sale.totTaxblAmt),
    totalTaxAmount: receivedDecimal(sale.totTaxAmt),
    totalAmount: receivedDecimal(sale.totAmt),
    remark: receivedText(sale.remark),
    raw,
    lines: (Array.isArray(sale.itemList) ? (sale.itemList as unknown[]) : []).map(toLine),
  };
  const dedupeKey =
    purchase.supplierTpin !== null && purchase.supplierInvoiceNo !== null
      ? ['supplier', purchase.supplierTpin, purchase.supplierBranch ?? '', purchase.supplierInvoiceNo, purchase.receiptTypeCode ?? ''].join(
          '/',
        )
      : `sha256/${createHash('sha256')
          .update(JSON.stringify(raw) ?? 'null')
          .digest('hex')}`;
  return { ...purchase, dedupeKey, inconsistencies: inconsistenciesOf(sale, purchase) };
}
